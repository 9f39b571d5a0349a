"""Toss's rules, compiled, and the game contract (core/game_contract.py) over them; the
optional names keep core's defaults."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_below, rng_seed

from toss_env.layout import (
    A_KEEP,
    GAME_ID,
    MAXP,
    NUM_ACTIONS,
    O_COIN,
    O_LEFT,
    O_MINE,
    O_NP,
    O_SCORES,
    OBS_SIZE,
    PH_OVER,
    PH_TURN,
    S_ACTOR,
    S_COIN,
    S_DECISIONS,
    S_GAME_ID,
    S_NP,
    S_OVER,
    S_PHASE,
    S_RNG,
    S_SCORE,
    S_VERSION,
    STATE_SIZE,
    T_DECISIONS,
    T_HEADS,
    T_KEEP,
    VERSION,
)

ALLOCATES = False
MASK_WRITES_STATE = False


@jit(alloc=False)
def r_init(s, T, n, a, b, c, start):
    for i in range(STATE_SIZE):
        s[i] = 0
    s[S_GAME_ID] = GAME_ID
    s[S_VERSION] = VERSION
    s[S_NP] = n
    rng_seed(s, S_RNG, a, b, c)
    s[S_COIN] = rng_below(s, S_RNG, 2)
    s[S_PHASE] = PH_TURN
    s[S_ACTOR] = start


@jit(alloc=False)
def r_over(s):
    return s[S_OVER] != 0


@jit(alloc=False)
def r_mask(s, T, mask, work):
    """Both actions are legal at every decision; none once the game is over."""
    for a in range(NUM_ACTIONS):
        mask[a] = s[S_OVER] == 0
    return 0 if s[S_OVER] else NUM_ACTIONS


@jit(alloc=False)
def r_legal(s, T, a, mask, work):
    return s[S_OVER] == 0


@jit(alloc=False)
def r_apply(s, T, a, work):
    p = s[S_ACTOR]
    if a == A_KEEP:
        s[S_SCORE + p] += T[T_KEEP]
    elif s[S_COIN] == 1:
        s[S_SCORE + p] += T[T_HEADS]
    s[S_COIN] = rng_below(s, S_RNG, 2)
    s[S_DECISIONS] += 1
    if s[S_DECISIONS] == s[S_NP] * T[T_DECISIONS]:
        s[S_OVER] = 1
        s[S_PHASE] = PH_OVER
        s[S_ACTOR] = -1
    else:
        s[S_ACTOR] = (p + 1) % s[S_NP]


@jit(alloc=False)
def decisions_left(s, T, p):
    """Decisions seat p still makes, before the end (the seat to act is the start player plus
    the decisions made, turn order being fixed)."""
    n = s[S_NP]
    made = s[S_DECISIONS]
    done = made // n + (1 if (p - s[S_ACTOR] + made) % n < made % n else 0)
    return T[T_DECISIONS] - done


@jit(alloc=False)
def r_observe(s, T, me, out):
    for i in range(OBS_SIZE):
        out[i] = 0.0
    n = s[S_NP]
    out[O_MINE] = 1.0 if s[S_ACTOR] == me else 0.0
    if s[S_OVER] == 0:
        out[O_LEFT] = decisions_left(s, T, me) / T[T_DECISIONS]
    for r in range(min(n, MAXP)):
        out[O_SCORES + r] = s[S_SCORE + (me + r) % n] / 8.0
    out[O_NP + n - 2] = 1.0
    out[O_COIN] = s[S_COIN]


# --- kernels -------------------------------------------------------------------------------------
N_KEYS = 1  # the score; equal scores share the win


@jit
def k_keys(s, keys):
    for p in range(s[S_NP]):
        keys[p, 0] = s[S_SCORE + p]


@jit
def k_actor(s):
    return s[S_ACTOR]


@jit(alloc=False)
def k_determinize(s, T, observer, a, b, c, work):
    """Nothing is hidden but the coins to come (the one face up is public): a reseed."""
    rng_seed(s, S_RNG, a, b, c)


@jit(alloc=False)
def k_evaluate(s, T, out, tmp):
    """The score, plus the expected value of each decision left played well (toss on heads,
    else the better of keep and toss)."""
    n = s[S_NP]
    each = 0.5 * max(T[T_KEEP], T[T_HEADS]) + 0.5 * T[T_KEEP]
    for p in range(out.shape[0]):
        out[p] = 0.0
        if p < n:
            out[p] = s[S_SCORE + p]
            if s[S_OVER] == 0:
                out[p] += each * decisions_left(s, T, p)
