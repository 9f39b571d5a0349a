"""Compiled entry points of the public API (chipin_env/__init__.py): one compiled call per
API call, so the Python wrappers stay thin (DESIGN §5: the API path is benchmarked).

Each entry point has an explicit signature built from the real argument types, so numba
compiles nothing else: a state of another dtype, shape or memory layout raises TypeError at
dispatch, and the wrapper then takes its checked slow path (clear StateFormatError, or a
contiguous copy of a valid read-only state). The game id, layout version and size of the state
are tested here, before anything else reads it.

The legal mask of the state `step` returns is the one `settle` built for it: `api_step` writes
it to `mask`, and core.game keeps it for the next `legal_mask` call of the same state.
"""

from __future__ import annotations

from numba import typeof, types

from core.errors import API_BAD_PLAYER, API_BAD_STATE, API_INCONSISTENT, ERR_ILLEGAL, OK
from core.jit import compile_exactly, jit

from chipin_env.engine.legal import legal_mask_into
from chipin_env.engine.observe import observe_into
from chipin_env.engine.setup import init_state
from chipin_env.engine.step import settle, step_inplace
from chipin_env.layout import GAME_ID, S_GAME_ID, S_NP, S_OVER, S_VERSION, STATE_SIZE, VERSION


def signatures(T):
    """Numba signatures of the entry points for tables of T's type (a read-only table is typed
    differently from a writable one); core/game.py lists them."""
    st = types.Array(types.int64, 1, "C")
    tt = typeof(T)
    bm = types.Array(types.boolean, 1, "C")
    f32 = types.Array(types.float32, 1, "C")
    n = types.int64
    return {
        "new": types.int64(st, tt, n, n, n, n, n, bm, st),
        "observe": types.int64(st, tt, n, f32),
        "legal_mask": types.int64(st, tt, bm, st, st),
        "step": types.int64(st, st, tt, n, bm, st),
    }


@jit(alloc=False)
def state_ok(s):
    """Size, game id and layout version (DESIGN D1) before compiled code trusts the state."""
    return s.shape[0] == STATE_SIZE and s[S_GAME_ID] == GAME_ID and s[S_VERSION] == VERSION


def _new(s, T, n, a, b, c, start, mask, work):
    """A new n-player game seeded by (a, b, c) in s (zeros), seat `start` first,
    settled to its first decision (a forced one is applied at once); mask = its legal mask."""
    init_state(s, T, n, a, b, c, start)
    return settle(s, T, mask)


def _observe(s, T, me, out):
    if not state_ok(s):
        return API_BAD_STATE
    if me < 0 or me >= s[S_NP]:
        return API_BAD_PLAYER
    observe_into(s, T, me, out)
    return OK


def _legal_mask(s, T, out, scratch, work):
    """out = the legal mask of s (needs neither scratch nor work); API_INCONSISTENT when
    s is not over and has no legal action (a tampered state: D5)."""
    if not state_ok(s):
        return API_BAD_STATE
    if legal_mask_into(s, T, out) == 0 and s[S_OVER] == 0:
        return API_INCONSISTENT
    return OK


def _step(s, new, T, a, mask, work):
    """Copy s into new and apply action a there (step_inplace's codes, API_INCONSISTENT when s
    has no legal action before the end); on success `mask` holds new's legal mask (all False
    once the game is over)."""
    if not state_ok(s):
        return API_BAD_STATE
    for i in range(STATE_SIZE):  # a plain loop: numba's slice copy is a generic strided loop
        new[i] = s[i]
    code = step_inplace(new, T, a, mask)
    if code == OK and new[S_OVER]:  # settle builds no mask once the game is over
        for i in range(mask.shape[0]):
            mask[i] = False
    elif code == ERR_ILLEGAL and new[S_OVER] == 0 and legal_mask_into(new, T, mask) == 0:
        # (the error path: `new` is still a copy of s) no action at all is legal in a state
        # that is not over: a tampered state, not an illegal action (D5)
        return API_INCONSISTENT
    return code


# observe and legal_mask compile without numba's runtime (alloc=False): arrays are then unboxed
# without a reference-counted wrapper each. new and step keep it, as Village's do.
api_new = jit(_new)
api_observe = jit(alloc=False)(_observe)
api_legal_mask = jit(alloc=False)(_legal_mask)
api_step = jit(_step)


def compile_entry_points(T):
    """(new, observe, legal_mask, step) compiled (or loaded from the cache) for tables like T,
    every other specialisation refused (TypeError at dispatch)."""
    entry = (api_new, api_observe, api_legal_mask, api_step)
    compile_exactly(zip(entry, signatures(T).values(), strict=True))
    return entry
