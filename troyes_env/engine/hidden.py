"""What a Troyes player cannot see, redrawn in place (ED-35), allocation-free: kernels.k_determinize
for a compiled search, and troyes_env.hidden's determinize / perturb_hidden (on a copy).

Hidden (ED-35): the other players' Character cards (rules §2.1: dealt at random, kept secret), the
order of the undrawn part of each event deck (§2.3), each face-down Activity card (§2.2: only its
colour and level are known) and future dice (the RNG). The redraw reads none of it: the other
players' cards are drawn from the cards the observer does not hold, each deck's remainder is sorted
before it is shuffled, each face-down card is drawn among the cards of its colour and level. So two
states that differ only in what the observer cannot see give the same result.
"""

from __future__ import annotations

from core.jit import jit
from core.rng import M32, rng_below, rng_seed
from troyes_env.layout import (
    LAYOUT,
    N_ACTPOS,
    N_LEVELS,
    S_AHID,
    S_CHARS,
    S_DECKS,
    S_DRAWN,
    S_NP,
    S_RNG,
)
from troyes_env.tables import A_COL, A_LVL, A_W, N_ACT, N_CHAR, T_ACT

N_DECKS, DECK = LAYOUT.segments["decks"].shape
PER_SEAT = LAYOUT.segments["chars"].shape[1]  # Character card slots of each seat

# the resampling stream differs from the game's own chance stream: seeded from the seed words
# xor SALT (for a Python seed: split_seed(seed ^ SALT), SALT < 2**64)
SALT = 0x5DEECE66D
SALT_A, SALT_B = SALT & M32, (SALT >> 32) & M32
# work: [0:4] the resampling stream, [4:4+N_CHAR] the Character cards to deal
W_RNG = 0
W_POOL = 4
WORK_NEED = W_POOL + N_CHAR


@jit(alloc=False)
def _shuffle(x, lo, hi, work):
    """Fisher-Yates shuffle of x[lo:hi] with the resampling stream in work."""
    for i in range(hi - lo - 1, 0, -1):
        j = rng_below(work, W_RNG, i + 1)
        t = x[lo + i]
        x[lo + i] = x[lo + j]
        x[lo + j] = t


@jit(alloc=False)
def _sort(x, lo, hi):
    """Insertion sort of x[lo:hi] (at most a deck of cards)."""
    for i in range(lo + 1, hi):
        v = x[i]
        j = i - 1
        while j >= lo and x[j] > v:
            x[j + 1] = x[j]
            j -= 1
        x[j + 1] = v


@jit(alloc=False)
def determinize_into(s, T, observer, a, b, c, work):
    """Redraw in s everything seat `observer` cannot see from the seed words (a, b, c); observer
    -1 keeps every Character card with its owner (only what nobody sees is redrawn). Uses
    work[0:WORK_NEED]."""
    rng_seed(s, S_RNG, a, b, c)  # future dice
    rng_seed(work, W_RNG, a ^ SALT_A, b ^ SALT_B, c)
    n = s[S_NP]
    if observer >= 0:  # rules §2.1: the others' cards come from those the observer lacks
        k = 0
        for ch in range(N_CHAR):  # ascending card order
            own = False
            for j in range(PER_SEAT):
                if s[S_CHARS + observer * PER_SEAT + j] == ch:
                    own = True
            if not own:
                work[W_POOL + k] = ch
                k += 1
        _shuffle(work, W_POOL, W_POOL + k, work)
        k = 0
        for q in range(n):
            if q == observer:
                continue
            for j in range(PER_SEAT):
                i = S_CHARS + q * PER_SEAT + j
                if s[i] >= 0:
                    s[i] = work[W_POOL + k]
                    k += 1
    for col in range(N_DECKS):  # rules §2.3: the undrawn part of each deck, in a new order
        lo = S_DECKS + col * DECK
        m = 0
        for i in range(DECK):
            if s[lo + i] >= 0:
                m += 1
        _sort(s, lo + s[S_DRAWN + col], lo + m)
        _shuffle(s, lo + s[S_DRAWN + col], lo + m, work)
    for pos in range(N_ACTPOS):  # rules §2.2: a face-down card, among its colour and level
        if s[S_AHID + pos] >= 0:
            col = pos // N_LEVELS
            lvl = pos % N_LEVELS + 1
            m = 0
            for ch in range(N_ACT):
                if T[T_ACT + ch * A_W + A_COL] == col and T[T_ACT + ch * A_W + A_LVL] == lvl:
                    m += 1
            k = rng_below(work, W_RNG, m)
            for ch in range(N_ACT):
                if T[T_ACT + ch * A_W + A_COL] == col and T[T_ACT + ch * A_W + A_LVL] == lvl:
                    if k == 0:
                        s[S_AHID + pos] = ch
                    k -= 1
