"""The compiled Chip In engine (numba, every function made by core.jit; tables always arrive as
arguments), and the game contract over it (core/game_contract.py): what the step driver, the
API entry points and the loops of the batch engine, the search, the bots and the balance replay
call (rendered by core.codegen). The optional names keep core's defaults: no scratch beyond the
mask, no safety cap, every decision quiet (a score is never half-made), no lookahead or
compiled bot of its own. Nothing allocates.
"""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_below, rng_seed

from chipin_env.layout import *  # noqa: F403  the layout's offsets, the tables' and the actions'

# the game contract's constants, which the rendered entry points import from here
from chipin_env.layout import (  # noqa: F401
    GAME_ID,
    NUM_ACTIONS,
    OBS_SIZE,
    S_GAME_ID,
    S_NP,
    S_VERSION,
    STATE_SIZE,
    VERSION,
)


@jit(alloc=False)
def add_score(s, p, delta, src):
    """Seat p's score changes by delta, credited to score source `src` (layout.SCORE_SOURCES)."""
    s[S_SCORE + p] += delta
    s[S_SCORE_SRC + p * N_SCORE_SOURCES + src] += delta


@jit(alloc=False)
def card_penalty(s, T, p):
    """The sum of the lowest card of each run of consecutive cards seat p holds."""
    low = T[T_CARD_LOW]
    total = 0
    for i in range(N_CARDS):
        if s[S_OWNER + i] == p and (i == 0 or s[S_OWNER + i - 1] != p):
            total += low + i
    return total


@jit(alloc=False)
def deck_size(T):
    """Cards in the deck at setup: all but the removed ones."""
    return N_CARDS - T[T_REMOVED]


@jit(alloc=False)
def stack_slot(T, left, j):
    """Position in `stack` of the j-th card nobody has seen: the deck's `left` cards first, then
    the removed cards at the end of the segment."""
    return j if j < left else deck_size(T) + (j - left)


@jit(alloc=False)
def shuffle_unseen(s, T):
    """Shuffle the cards nobody has seen (the deck and the removed cards, as one pile) in place
    with the state's RNG (Fisher-Yates)."""
    left = s[S_LEFT]
    m = left + T[T_REMOVED]
    for j in range(m - 1, 0, -1):
        k = rng_below(s, S_RNG, j + 1)
        a = S_STACK + stack_slot(T, left, j)
        b = S_STACK + stack_slot(T, left, k)
        t = s[a]
        s[a] = s[b]
        s[b] = t


@jit(alloc=False)
def reveal_next(s):
    """Turn the deck's next card face up (the deck is not empty); the pot stays as it is."""
    left = s[S_LEFT] - 1
    s[S_LEFT] = left
    s[S_FACE] = s[S_STACK + left]
    s[S_STACK + left] = -1
    s[S_ROUND] += 1


@jit(alloc=False)
def end_game(s):
    """The deck is exhausted and the last card taken: the scores are final."""
    s[S_FACE] = -1
    s[S_POT] = 0
    s[S_PHASE] = PH_OVER
    s[S_ACTOR] = -1
    s[S_OVER] = 1


@jit(alloc=False)
def r_init(s, T, n, a, b, c, start):
    """A new n-player game seeded by the words (a, b, c) in s, seat `start` to act first."""
    for i in range(STATE_SIZE):
        s[i] = 0
    s[S_GAME_ID] = GAME_ID
    s[S_VERSION] = VERSION
    s[S_NP] = n
    rng_seed(s, S_RNG, a, b, c)
    # every card starts unseen: the deck, then the removed ones, shuffled as one pile, so the
    # removed cards are a uniform draw and the deck a uniform order of the rest
    s[S_LEFT] = deck_size(T)
    for i in range(N_CARDS):
        s[S_OWNER + i] = -1
        s[S_STACK + i] = -1
    for j in range(deck_size(T)):
        s[S_STACK + j] = j
    for j in range(T[T_REMOVED]):
        s[S_STACK + deck_size(T) + j] = deck_size(T) + j
    shuffle_unseen(s, T)
    chips = T[T_CHIPS + n]
    for p in range(n):
        s[S_CHIPS + p] = chips
        add_score(s, p, chips, SRC_CHIPS)
        s[S_BURIES + p] = T[T_BURIES]
    s[S_FACE] = -1
    reveal_next(s)
    s[S_PHASE] = PH_TURN
    s[S_ACTOR] = start


@jit(alloc=False)
def r_mask(s, T, mask, work):
    """mask = the actions the player to act may take now; returns how many (0 once over)."""
    for i in range(mask.shape[0]):
        mask[i] = False
    if s[S_OVER]:
        return 0
    p = s[S_ACTOR]
    mask[A_TAKE] = True  # taking is always allowed
    n = 1
    if s[S_CHIPS + p] > 0:  # paying needs a chip
        mask[A_PAY] = True
        n += 1
    if s[S_BURIES + p] > 0 and s[S_LEFT] > 0:  # a bury left, and a next card to roll onto
        mask[A_BURY] = True
        n += 1
    return n


@jit(alloc=False)
def r_apply(s, T, a, work):
    """Apply legal action a for the player to act."""
    p = s[S_ACTOR]
    card = s[S_FACE]
    if a == A_TAKE:
        # the card and its chips go to the taker, who then decides on the next card
        pot = s[S_POT]
        s[S_CHIPS + p] += pot
        add_score(s, p, pot, SRC_CHIPS)
        s[S_POT] = 0
        before = card_penalty(s, T, p)
        s[S_OWNER + card] = p
        add_score(s, p, before - card_penalty(s, T, p), SRC_CARDS)
        if s[S_LEFT] == 0:
            end_game(s)
        else:
            reveal_next(s)
    elif a == A_PAY:
        # one chip onto the card; the next player decides
        s[S_CHIPS + p] -= 1
        add_score(s, p, -1, SRC_CHIPS)
        s[S_POT] += 1
        s[S_ACTOR] = (p + 1) % s[S_NP]
    else:
        # bury: the card leaves the game, its chips roll onto the next card, the next player
        # decides (never on the last card: the mask requires a card left in the deck)
        s[S_BURIED + card] = 1
        s[S_BURIES + p] -= 1
        reveal_next(s)
        s[S_ACTOR] = (p + 1) % s[S_NP]


@jit(alloc=False)
def r_observe(s, T, me, out):
    """out = seat `me`'s observation, seats relative to `me`."""
    for i in range(OBS_SIZE):
        out[i] = 0.0
    n = s[S_NP]
    out[O_MINE] = 1.0 if s[S_ACTOR] == me else 0.0
    out[O_NP + n - MIN_PLAYERS] = 1.0
    face = s[S_FACE]
    if face >= 0:
        out[O_FACE + face] = 1.0
        out[O_FACE_VALUE] = (T[T_CARD_LOW] + face) / N_CARDS
    out[O_POT] = s[S_POT] / SCALE
    out[O_LEFT] = s[S_LEFT] / N_CARDS
    for i in range(N_CARDS):
        o = s[S_OWNER + i]
        if o >= 0:
            out[O_CARDS + i * CARD_BLOCK + (o - me + n) % n] = 1.0
        if s[S_BURIED + i]:
            out[O_CARDS + i * CARD_BLOCK + MAXP] = 1.0
    for r in range(n):
        p = (me + r) % n
        b = O_SEATS + r * SEAT_BLOCK
        out[b] = 1.0
        out[b + 1] = s[S_CHIPS + p] / SCALE
        out[b + 2] = s[S_SCORE + p] / SCALE
        out[b + 3] = s[S_BURIES + p]
        held = 0
        for i in range(N_CARDS):
            if s[S_OWNER + i] == p:
                held += 1
        out[b + 4] = held / SCALE


ALLOCATES = False  # the rules code never allocates (jit(alloc=False) throughout)
MASK_WRITES_STATE = False  # r_mask only reads the state


@jit(alloc=False)
def r_over(s):
    return s[S_OVER] != 0


@jit(alloc=False)
def r_legal(s, T, a, mask, work):
    r_mask(s, T, mask, work)
    return mask[a]


N_KEYS = 2  # score, then the tie-breaker: more chips left (then a shared win)


@jit
def k_keys(s, keys):
    for p in range(s[S_NP]):
        keys[p, 0] = s[S_SCORE + p]
        keys[p, 1] = s[S_CHIPS + p]


@jit
def k_actor(s):
    return s[S_ACTOR]


@jit(alloc=False)
def k_determinize(s, T, observer, a, b, c, work):
    """Every player sees the same thing, so `observer` does not matter: the cards nobody has
    seen (not face up, held or buried) are gathered in ascending order into the deck's and the
    removed cards' slots, then shuffled with the RNG seeded by (a, b, c). The result depends
    only on public information and the seed words."""
    rng_seed(s, S_RNG, a, b, c)
    left = s[S_LEFT]
    j = 0
    for i in range(N_CARDS):
        if s[S_OWNER + i] < 0 and s[S_BURIED + i] == 0 and s[S_FACE] != i:
            s[S_STACK + stack_slot(T, left, j)] = i
            j += 1
    if j == left + T[T_REMOVED]:  # always, in a consistent state
        shuffle_unseen(s, T)


@jit(alloc=False)
def k_evaluate(s, T, out, tmp):
    """The projected final score is the score now: chips minus runs is exactly the final
    formula, and no later event changes it except the players' own actions."""
    n = s[S_NP]
    for p in range(out.shape[0]):
        out[p] = s[S_SCORE + p] if p < n else 0.0
