"""Compiled entry points of the public API (troyes_env/__init__.py): one compiled call per API
call, so the Python wrappers stay thin (DESIGN §5: the API path is benchmarked).

Each entry point is compiled for one explicit signature built from the real argument types and
compiles nothing else: a state of another dtype, shape or memory layout raises TypeError at
dispatch, and the wrapper takes its checked slow path (a clear StateFormatError, or a contiguous
copy of a valid read-only state). The size and layout version are tested here first.

Mask cache: `api_step` leaves the new state and the legal mask `settle` computed for it in
`cache_s` / `cache_m`. `api_legal_mask` and `api_step` use the cached mask only when the state
they are given equals `cache_s` entry by entry (the wrapper clears the cache when the rules data
is replaced), so a caller that edits a state in place, or interleaves several games, gets a
fresh mask. On the usual loop (observe, legal_mask, step) each state's mask is built once, by
`settle`, instead of three times. The legality tests of step_inplace leave the state as they
found it (groups.option_feasible restores the selection), so both paths give the same state.
An empty cache has layout version 0 in `cache_s`.
"""

from __future__ import annotations

from numba import njit, typeof, types

from core.entry_points import compile_exactly
from troyes_env.engine.flow import _apply, advance, legal_mask_into, settle, step_inplace
from troyes_env.engine.observe import observe_into
from troyes_env.layout import O_NP, O_PHASE, O_VERSION, PH_OVER, STATE_SIZE, VERSION

API_OK = 0
API_BAD_STATE = -1  # not a Troyes state of this layout (the wrapper raises StateFormatError)
API_BAD_PLAYER = -2  # observe: no such seat (ValueError)


def signatures(T):
    """Numba signatures of the entry points for tables of T's type (the public table is
    read-only, which numba types differently from a writable one)."""
    i64 = types.Array(types.int64, 1, "C")
    tt = typeof(T)
    i8 = types.Array(types.int8, 1, "C")
    bm = types.Array(types.boolean, 1, "C")
    f32 = types.Array(types.float32, 1, "C")
    return {
        "observe": types.int64(i64, tt, types.int64, f32),
        "legal_mask": types.int64(i64, tt, bm, i64, i8, i64, i64, i8),
        "step": types.int64(i64, i64, tt, types.int64, i8, i64, i64, i8),
    }


@njit(cache=True)
def state_ok(s):
    """Size and layout version (DESIGN D1) before compiled code trusts the state."""
    return s.shape[0] == STATE_SIZE and s[O_VERSION] == VERSION


@njit(cache=True)
def cache_hit(s, cache_s):
    if cache_s[O_VERSION] != VERSION:
        return False
    for i in range(STATE_SIZE):
        if s[i] != cache_s[i]:
            return False
    return True


def _observe(s, T, me, out):
    if not state_ok(s):
        return API_BAD_STATE
    if me < 0 or me >= s[O_NP]:
        return API_BAD_PLAYER
    observe_into(s, T, me, out)
    return API_OK


def _legal_mask(s, T, out, scratch, mask, work, cache_s, cache_m):
    """out (bool) = the legal mask of s; the search runs on `scratch`, a copy (D5)."""
    if not state_ok(s):
        return API_BAD_STATE
    if cache_hit(s, cache_s):
        for i in range(out.shape[0]):
            out[i] = cache_m[i] != 0
        return API_OK
    if s[O_PHASE] == PH_OVER:
        out[:] = False
        return API_OK
    scratch[:] = s
    legal_mask_into(scratch, T, mask, work)
    for i in range(out.shape[0]):
        out[i] = mask[i] != 0
    return API_OK


def _step(s, new, T, a, mask, work, cache_s, cache_m):
    """Copy s into new and apply action a there (step_inplace's codes); on success the cache
    holds new and its legal mask."""
    if not state_ok(s):
        return API_BAD_STATE
    new[:] = s
    if a >= 0 and a < mask.shape[0] and cache_hit(s, cache_s) and cache_m[a] != 0:
        _apply(new, T, a, work)  # legal: the cached mask is s's (checked entry by entry)
        advance(new, T)
        settle(new, T, mask, work)
        code = 0
    else:
        code = step_inplace(new, T, a, mask, work)
    if code == 0:
        cache_s[:] = new
        if new[O_PHASE] == PH_OVER:  # settle builds no mask once the game is over
            mask[:] = 0
        cache_m[:] = mask
    else:
        cache_s[O_VERSION] = 0
    return code


# module-level dispatchers, so the engine's stale-cache check (engine/__init__.py) flushes them
api_observe = njit(cache=True)(_observe)
api_legal_mask = njit(cache=True)(_legal_mask)
api_step = njit(cache=True)(_step)


def compile_entry_points(T):
    """The three entry points compiled (or loaded from numba's cache) for tables like T, with
    every other specialisation refused (TypeError at dispatch)."""
    sig = signatures(T)
    compile_exactly(((api_observe, sig["observe"]), (api_legal_mask, sig["legal_mask"]),
                     (api_step, sig["step"])))
    return api_observe, api_legal_mask, api_step
