"""Toss's kernels (the contract of core/kernels_contract.py) over its rules."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_seed

from toss_env.engine.rules import decisions_left, r_init, r_mask, r_observe
from toss_env.engine.step import settle, step_trusted
from toss_env.layout import S_ACTOR, S_NP, S_OVER, S_RNG, S_SCORE, T_HEADS, T_KEEP

WORK_SIZE = 0
N_KEYS = 1
BOT_SCRATCH_I = 1
BOT_SCRATCH_F = 1


@jit
def k_init(s, T, n, a, b, c, mask, work):
    r_init(s, T, n, a, b, c, 0)
    settle(s, T, mask, work)
    r_mask(s, T, mask, work)


@jit
def k_step(s, T, a, mask, work):
    return step_trusted(s, T, a, mask, work)


@jit
def k_mask(s, T, mask, work):
    return r_mask(s, T, mask, work)


@jit
def k_observe(s, T, p, out):
    r_observe(s, T, p, out)


@jit
def k_keys(s, keys):
    for p in range(s[S_NP]):
        keys[p, 0] = s[S_SCORE + p]


@jit
def k_over(s):
    return s[S_OVER] != 0


@jit
def k_actor(s):
    return s[S_ACTOR]


@jit
def k_truncated(s):
    return False


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


@jit(alloc=False)
def k_quiet(s):
    return True


@jit(alloc=False)
def k_bot_values(s, T, legal, val, bi, bf, bmask, work):
    return 1


@jit(alloc=False)
def k_own_bot_values(bot, s, probe, T, me, legal, val, bi, bf, bmask, work):
    return 1
