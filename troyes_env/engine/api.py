"""Compiled entry points of the public API (troyes_env/__init__.py): one compiled call per API
call, so the Python wrappers stay thin (DESIGN §5: the API path is benchmarked).

Each entry point is compiled for one explicit signature built from the real argument types and
compiles nothing else: a state of another dtype, shape or memory layout raises TypeError at
dispatch, and the wrapper takes its checked slow path (a clear StateFormatError, or a contiguous
copy of a valid read-only state). The size and layout version are tested here first.

The legal mask of the state `step` returns is the one `settle` built for it: `api_step` writes
it to `mask`, and core.game keeps it for the next `legal_mask` call of the same state.
"""

from __future__ import annotations

from numba import typeof, types

from core.errors import API_BAD_PLAYER, API_BAD_STATE, API_INCONSISTENT, ERR_ILLEGAL, OK
from core.jit import compile_exactly, jit
from troyes_env.engine.legal import legal_mask_into
from troyes_env.engine.observe import observe_into
from troyes_env.engine.setup import init_state
from troyes_env.engine.step import settle, step_inplace
from troyes_env.layout import (
    PH_OVER,
    S_CUR,
    S_NP,
    S_PHASE,
    S_START,
    S_VERSION,
    STATE_SIZE,
    VERSION,
)


def signatures(T):
    """Numba signatures of the entry points for tables of T's type (the public table is
    read-only, which numba types differently from a writable one); core/game.py lists them."""
    i64 = types.Array(types.int64, 1, "C")
    tt = typeof(T)
    bm = types.Array(types.boolean, 1, "C")
    f32 = types.Array(types.float32, 1, "C")
    n = types.int64
    return {
        "new": types.int64(i64, tt, n, n, n, n, n, bm, i64),
        "observe": types.int64(i64, tt, n, f32),
        "legal_mask": types.int64(i64, tt, bm, i64, i64),
        "step": types.int64(i64, i64, tt, n, bm, i64),
    }


@jit(alloc=False)
def state_ok(s):
    """Size and layout version (DESIGN D1) before compiled code trusts the state."""
    return s.shape[0] == STATE_SIZE and s[S_VERSION] == VERSION


def _new(s, T, n, a, b, c, start, mask, work):
    """A new n-player game seeded by (a, b, c) in s (zeros), seat `start` holding the start
    player card (ED-1), settled to its first decision; mask = its legal mask."""
    init_state(s, T, n, a, b, c)
    s[S_START] = start
    s[S_CUR] = start
    return settle(s, T, mask, work)


def _observe(s, T, me, out):
    if not state_ok(s):
        return API_BAD_STATE
    if me < 0 or me >= s[S_NP]:
        return API_BAD_PLAYER
    observe_into(s, T, me, out)
    return OK


def _legal_mask(s, T, out, scratch, work):
    """out = the legal mask of s; the search runs on `scratch`, a copy (D5): s is untouched.
    API_INCONSISTENT when s is not over and has no legal action (a tampered state: D5)."""
    if not state_ok(s):
        return API_BAD_STATE
    if s[S_PHASE] == PH_OVER:
        for i in range(out.shape[0]):
            out[i] = False
        return OK
    for i in range(STATE_SIZE):
        scratch[i] = s[i]
    if legal_mask_into(scratch, T, out, work) == 0:
        return API_INCONSISTENT
    return OK


def _step(s, new, T, a, mask, work):
    """Copy s into new and apply action a there (step_inplace's codes, API_INCONSISTENT when
    s has no legal action before the end); on success `mask` holds new's legal mask (all False
    once the game is over)."""
    if not state_ok(s):
        return API_BAD_STATE
    for i in range(STATE_SIZE):  # a plain loop: numba's slice copy is a generic strided loop
        new[i] = s[i]
    code = step_inplace(new, T, a, mask, work)
    if code == OK and new[S_PHASE] == PH_OVER:  # settle builds no mask once the game is over
        for i in range(mask.shape[0]):
            mask[i] = False
    elif code == ERR_ILLEGAL and legal_mask_into(new, T, mask, work) == 0:
        # (the error path: `new` is still a copy of s) no action at all is legal in a state
        # that is not over: a tampered state, not an illegal action (D5)
        return API_INCONSISTENT
    return code


# Compiled without numba's runtime (alloc=False, as the rules code; core.jit): arrays are then
# unboxed without a reference-counted wrapper each, ~0.1 us less per call; allocation would not
# compile (hence the loops instead of slice copies, which may allocate a temporary).
api_new = jit(alloc=False)(_new)
api_observe = jit(alloc=False)(_observe)
api_legal_mask = jit(alloc=False)(_legal_mask)
api_step = jit(alloc=False)(_step)


def compile_entry_points(T):
    """(new, observe, legal_mask, step) compiled (or loaded from the cache) for tables like T,
    every other specialisation refused (TypeError at dispatch)."""
    sig = signatures(T)
    entry = (api_new, api_observe, api_legal_mask, api_step)
    compile_exactly(zip(entry, sig.values(), strict=True))
    return entry
