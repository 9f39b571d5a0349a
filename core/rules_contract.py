"""The rules contract: what a game's `engine/rules.py` provides to the step driver and the public
API's entry points, which are written once in core (`core/step_template.py`,
`core/api_template.py`) and rendered for every game as `<game>_env.engine.step` and
`<game>_env.engine.api` by core.codegen (why a module per game: core/codegen.py).

The names below are stubs, like core/kernels_contract.py's: they document the contract and give
the templates a real module to import (so they lint and import); the functions raise
NotImplementedError if ever called, and nothing compiles them.

Arguments: `s` one game's state (int64, STATE_SIZE), `T` the game's tables, `mask` a bool
buffer of NUM_ACTIONS entries, `work` the game's int64 scratch (max(1, WORK_SIZE) entries),
`a` an action id in 0..NUM_ACTIONS-1 (the driver checks the range first). The functions are
compiled with `core.jit.jit`; small adapters are best made `inline=True`, so the driver calls the
game's own code directly. None allocates unless ALLOCATES says so.
"""

from __future__ import annotations

__all__ = [
    "STATE_SIZE",
    "NUM_ACTIONS",
    "S_VERSION",
    "VERSION",
    "S_GAME_ID",
    "GAME_ID",
    "S_NP",
    "ALLOCATES",
    "MASK_WRITES_STATE",
    "r_init",
    "r_over",
    "r_mask",
    "r_legal",
    "r_apply",
    "r_observe",
]

# --- constants (module-level ints and bools; numba freezes them into the compiled code) -----------

STATE_SIZE = 1  # entries of a state
NUM_ACTIONS = 1  # entries of a legal mask
S_VERSION = 0  # offset of the layout version ...
VERSION = 0  # ... and the version this engine reads
S_GAME_ID = -1  # offset of a field holding GAME_ID; -1: the state has none
GAME_ID = 0
S_NP = 0  # offset of the player count
# whether applying an action may allocate (compiled with numba's runtime: Village's final
# scoring builds a small array once per game); False compiles the driver with alloc=False
ALLOCATES = False
# whether r_mask writes into the state while it searches (and restores it): the `legal_mask`
# entry point then runs it on a scratch copy, so the caller's state is never written
MASK_WRITES_STATE = False


def _stub(name: str):
    raise NotImplementedError(
        f"core.rules_contract.{name} is a stub: a game's engine/rules.py implements it"
    )


def r_init(s, T, n, a, b, c, start) -> None:
    """Write into s (zeros) a new n-player game seeded by the words (a, b, c), seat `start`
    first, up to (not through) its first decision: the driver then settles it."""
    _stub("r_init")


def r_over(s) -> bool:
    """Whether the game is over."""
    _stub("r_over")


def r_mask(s, T, mask, work) -> int:
    """Write the legal mask of the player to act into `mask` (all of it); return the number of
    legal actions (0 once the game is over)."""
    _stub("r_mask")


def r_legal(s, T, a, mask, work) -> bool:
    """Whether action a is legal in s, which is not over (a game may test the one action in
    costly phases instead of building the whole mask); `mask` may be overwritten."""
    _stub("r_legal")


def r_apply(s, T, a, work) -> None:
    """Apply the legal action a, then every automatic stage that follows (none that needs a
    decision): s then waits for a decision, or is over."""
    _stub("r_apply")


def r_observe(s, T, p, out) -> None:
    """Write the observation of seat p (float32, OBS_SIZE) into `out`."""
    _stub("r_observe")
