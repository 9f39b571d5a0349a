"""The public API's compiled entry points, written once for every game (DESIGN D10, D14): one
compiled call per API call, so core.game's Python wrappers stay thin (the API path is
benchmarked).

This module is a template: core.codegen renders it for each game, imported as
`<game>_env.engine.api`, with the marked imports below pointed at the game's `engine/rules.py`
(the contract: core/game_contract.py) and its rendered `engine.step` (why a module per game:
core/codegen.py).

Each entry point is compiled for exactly one signature (core.game.entry_point_signatures, built
from the real argument types), so numba compiles nothing else: a state of another dtype, shape
or memory layout raises TypeError at dispatch, and core.game then takes its checked slow path (a
clear StateFormatError, or a contiguous copy of a valid read-only state). The size, layout
version (and game id, where the layout has one) of the state are tested here first.

The legal mask of the state `step` returns is the one `settle` built for it: `api_step` writes
it to `mask`, and core.game keeps it for the next `legal_mask` call of the same state.
"""

from __future__ import annotations

from core.errors import API_BAD_PLAYER, API_BAD_STATE, API_INCONSISTENT, ERR_ILLEGAL, OK
from core.game import entry_point_signatures
from core.game_contract import (
    ALLOCATES,
    GAME_ID,
    MASK_WRITES_STATE,
    S_GAME_ID,
    S_NP,
    S_VERSION,
    STATE_SIZE,
    VERSION,
    r_init,
    r_mask,
    r_observe,
    r_over,
)
from core.jit import compile_exactly, jit
from core.step_template import (
    settle,
    step_inplace,
)


@jit(alloc=False)
def state_ok(s):
    """Size, layout version and game id (DESIGN D1) before compiled code trusts the state."""
    return (
        s.shape[0] == STATE_SIZE
        and s[S_VERSION] == VERSION
        and (S_GAME_ID < 0 or s[S_GAME_ID] == GAME_ID)
    )


def _new(s, T, n, a, b, c, start, mask, work):
    """A new n-player game seeded by (a, b, c) in s (zeros), seat `start` first, settled to its
    first decision (forced ones are applied at once); mask = its legal mask."""
    r_init(s, T, n, a, b, c, start)
    return settle(s, T, mask, work)


def _observe(s, T, me, out):
    if not state_ok(s):
        return API_BAD_STATE
    if me < 0 or me >= s[S_NP]:
        return API_BAD_PLAYER
    r_observe(s, T, me, out)
    return OK


def _legal_mask(s, T, out, scratch, work):
    """out = the legal mask of s, s untouched (a game whose mask search writes in the state
    runs it on `scratch`, a copy). API_INCONSISTENT when s is not over and has no legal action
    (a tampered state: D5)."""
    if not state_ok(s):
        return API_BAD_STATE
    if r_over(s):
        for i in range(out.shape[0]):
            out[i] = False
        return OK
    if MASK_WRITES_STATE:
        for i in range(STATE_SIZE):  # a plain loop: numba's slice copy is a generic strided loop
            scratch[i] = s[i]
        n = r_mask(scratch, T, out, work)
    else:
        n = r_mask(s, T, out, work)
    if n == 0:
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
    code = step_inplace(new, T, a, mask, work)
    if code == OK and r_over(new):  # settle builds no mask once the game is over
        for i in range(mask.shape[0]):
            mask[i] = False
    elif code == ERR_ILLEGAL and r_mask(new, T, mask, work) == 0:
        # (the error path: `new` is still a copy of s, which is not over) no action at all is
        # legal in a state that is not over: a tampered state, not an illegal action (D5)
        return API_INCONSISTENT
    return code


# observe and legal_mask are compiled without numba's runtime (alloc=False, which also applies
# to the engine code they call): arrays are then unboxed without a reference-counted wrapper
# each, ~0.1 us less per call. new and step too, unless the game's rules allocate (ALLOCATES:
# Village's final scoring builds a small array once per game, and a game may end in settle).
api_new = jit(alloc=ALLOCATES)(_new)
api_observe = jit(alloc=False)(_observe)
api_legal_mask = jit(alloc=False)(_legal_mask)
api_step = jit(alloc=ALLOCATES)(_step)


def compile_entry_points(T):
    """(new, observe, legal_mask, step) compiled (or loaded from the cache) for tables like T,
    every other specialisation refused (TypeError at dispatch)."""
    entry = (api_new, api_observe, api_legal_mask, api_step)
    compile_exactly(zip(entry, entry_point_signatures(T).values(), strict=True))
    return entry
