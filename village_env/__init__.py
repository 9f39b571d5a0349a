"""Village (Inka & Markus Brand, 2011) as an RL environment: compiled engine, exact masks, AEC env.

Unofficial; not affiliated with the publishers. Rules: shared/rules/village.md (the spec).
The public API below is shared with `troyes_env`, so code written for one game runs on the other.
"""

from __future__ import annotations

import operator

import numpy as np

from core import serialize as _ser
from core.entry_points import LastMask
from core.errors import (
    API_BAD_STATE,
    ERR_ILLEGAL,
    ERR_NO_LEGAL,
    ERR_RANGE,
    IllegalActionError,
    StateFormatError,
)
from core.returns import RETURN_KINDS, compute_returns
from core.rng import rng_seed, split_seed
from village_env import rules_data
from village_env import tables as _tables
from village_env.actions import ACTIONS, NUM_ACTIONS
from village_env.engine import api as _api
from village_env.engine.checks import INVARIANT_MESSAGES, check_invariants_code
from village_env.engine.observe import observe_into
from village_env.engine.rounds import customers_served, living_members
from village_env.engine.setup import init_state
from village_env.layout import (
    GAME_ID,
    LAYOUT,
    PHASE_NAMES,
    S_ACTOR,
    S_GAME_ID,
    S_NP,
    S_OVER,
    S_PHASE,
    S_PRESTIGE,
    S_RNG,
    S_TRUNC,
    S_VERSION,
    STATE_SIZE,
)
from village_env.layout import (
    VERSION as LAYOUT_VERSION,
)
from village_env.observation import OBS_SIZE
from village_env.render import describe, render

NAME = "village"
PLAYER_COUNTS = (2, 3, 4)
OPTIONS = ("start_player",)
TABLES = _tables.TABLES
RULES_DATA_HASH = _tables.RULES_DATA_HASH
_LAST = LastMask(STATE_SIZE)  # the legal mask of the state step returned last
_api_observe, _api_legal_mask, _api_step = _api.compile_entry_points(TABLES)

__all__ = [
    "ACTIONS", "IllegalActionError", "LAYOUT", "NUM_ACTIONS", "OBS_SIZE", "PLAYER_COUNTS",
    "RULES_DATA_HASH", "StateFormatError", "current_player", "describe", "determinize", "env",
    "from_bytes", "is_terminal", "is_truncated", "legal_mask", "load_rules_data", "new_game",
    "observe", "raw_env", "render", "reseed", "returns", "scores", "step", "tiebreaks",
    "to_bytes",
]


def load_rules_data(rd=rules_data) -> str:
    """Replace the rules data the public API uses (e.g. `tables.rules_with(...)`); returns the
    new RULES_DATA_HASH. Shapes must match the layout."""
    global TABLES, RULES_DATA_HASH, _api_observe, _api_legal_mask, _api_step
    TABLES = _tables.build_tables(rd)
    RULES_DATA_HASH = _tables.tables_hash(TABLES)
    _LAST.clear()  # its mask was computed with the old tables
    _api_observe, _api_legal_mask, _api_step = _api.compile_entry_points(TABLES)
    return RULES_DATA_HASH


def check_options(options: dict) -> None:
    for k, val in options.items():
        if k not in OPTIONS:
            raise ValueError(f"village: unknown option {k!r}; allowed options: {OPTIONS}")
        if k == "start_player" and not isinstance(val, (int, np.integer)):
            raise ValueError("village: start_player must be a seat number")


_I64 = np.dtype(np.int64)
_SHAPE = (STATE_SIZE,)


def _check(state) -> np.ndarray:
    """Cheap check of type, dtype, size and version before compiled code touches a state (D1)."""
    if (
        state.__class__ is not np.ndarray
        or state.dtype is not _I64
        or state.size != STATE_SIZE
        or state.ndim != 1
        or state.item(S_VERSION) != LAYOUT_VERSION
    ):
        _check_slow(state)
    return state


def _check_slow(state) -> None:
    if not isinstance(state, np.ndarray) or state.dtype != _I64 or state.shape != _SHAPE:
        raise StateFormatError(
            f"village: a state is an int64 array of shape ({STATE_SIZE},); got "
            f"{getattr(state, 'dtype', type(state))} {getattr(state, 'shape', '')}"
        )
    if state[S_GAME_ID] != GAME_ID or state[S_VERSION] != LAYOUT_VERSION:
        raise StateFormatError("village: not a Village state of this layout version")


def _as_state(state) -> np.ndarray:
    """The checked slow path: StateFormatError unless `state` is a Village state of this layout;
    else the state itself, or a C-contiguous writable copy for the compiled code."""
    _check(state)
    if state.flags.c_contiguous and state.flags.writeable:
        return state
    return np.array(state, dtype=np.int64, order="C")


def new_game(num_players: int = 4, seed: int = 0, *, start_player: int = 0) -> np.ndarray:
    """A new seeded game (rules §2); the first decision is the start player's."""
    if num_players not in PLAYER_COUNTS:
        raise ValueError(
            f"village: num_players must be one of {PLAYER_COUNTS}, got {num_players!r}"
        )
    if not 0 <= int(start_player) < num_players:
        raise ValueError(f"village: start_player must be in 0..{num_players - 1}")
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    a, b, c = split_seed(seed)
    init_state(s, TABLES, num_players, a, b, c, int(start_player))
    from village_env.engine.step import settle  # a forced first decision is applied at once

    settle(s, TABLES, np.zeros(NUM_ACTIONS, dtype=np.bool_))
    return s


def legal_mask(state: np.ndarray) -> np.ndarray:
    """Bool mask (NUM_ACTIONS,) of the actions the rules allow now."""
    mask = _LAST.take_for(state)
    if mask is not None:
        return mask
    mask = np.empty(NUM_ACTIONS, dtype=np.bool_)
    try:
        if _api_legal_mask(state, TABLES, mask) == 0:
            return mask
    except TypeError:  # not a C-contiguous writable int64 vector: the checked path below
        pass
    _api_legal_mask(_as_state(state), TABLES, mask)  # StateFormatError, or a usable state
    return mask


def phase_name(state: np.ndarray) -> str:
    return PHASE_NAMES[int(state[S_PHASE])]


def step(state: np.ndarray, action: int) -> np.ndarray:
    """The state after `action`; raises IllegalActionError (input untouched) if not allowed."""
    try:
        a = operator.index(action)
    except TypeError:
        _as_state(state)
        raise IllegalActionError(
            -1, repr(action), phase_name(state), "not an integer action"
        ) from None
    new = np.empty(STATE_SIZE, dtype=np.int64)
    mask = np.empty(NUM_ACTIONS, dtype=np.bool_)  # new's legal mask, built by settle
    try:
        code = _api_step(state, new, TABLES, a, mask)
    except (TypeError, OverflowError):  # an odd state array, or an action id beyond int64
        state = _as_state(state)  # StateFormatError, or a C-contiguous writable state
        code = _api_step(state, new, TABLES, a, mask) if -(2**63) <= a < 2**63 else ERR_RANGE
    if code == 0:
        _LAST.put(new, mask)
        return new
    if code == API_BAD_STATE:
        _as_state(state)  # raises StateFormatError
    if code == ERR_RANGE:
        raise IllegalActionError(a, "out of range", phase_name(state),
                                 f"actions are 0..{NUM_ACTIONS - 1}")
    desc = describe(a, state)
    if state[S_OVER]:
        raise IllegalActionError(a, desc, phase_name(state), "the game is over")
    if code == ERR_ILLEGAL:
        legal = np.flatnonzero(legal_mask(state))
        who = int(state[S_ACTOR])
        raise IllegalActionError(
            a, desc, phase_name(state),
            f"not among the {len(legal)} legal actions of player_{who} now "
            f"(e.g. {describe(int(legal[0]), state)!r})",
        )
    raise RuntimeError(f"village engine error {code} (ERR_NO_LEGAL={ERR_NO_LEGAL}) after {desc}")


def current_player(state: np.ndarray) -> int:
    """Seat that must decide now; -1 once the game is over."""
    return _check(state).item(S_ACTOR)


def is_terminal(state: np.ndarray) -> bool:
    return _check(state).item(S_OVER) != 0


def is_truncated(state: np.ndarray) -> bool:
    """True when the game was ended by the round cap (ED-34), not by the rules."""
    return _check(state).item(S_TRUNC) != 0


def num_players(state: np.ndarray) -> int:
    return _check(state).item(S_NP)


def scores(state: np.ndarray) -> np.ndarray:
    """Prestige per player (the final score once terminal)."""
    n = num_players(state)
    return state[S_PRESTIGE : S_PRESTIGE + n].copy()


def tiebreaks(state: np.ndarray) -> np.ndarray:
    """Rules §5.3 tie-breakers per player: (customers served, living members), ED-33."""
    n = num_players(state)
    return np.array(
        [[customers_served(state, p), living_members(state, p)] for p in range(n)], dtype=np.int64
    )


def returns(state: np.ndarray, kind: str = "win_loss") -> np.ndarray:
    """Per-player returns (DESIGN D7); zeros before the end."""
    if kind not in RETURN_KINDS:
        raise ValueError(f"unknown returns kind {kind!r}; allowed: {', '.join(RETURN_KINDS)}")
    if not is_terminal(state):
        return np.zeros(num_players(state), dtype=np.float32)
    return compute_returns(scores(state), tiebreaks(state), kind, rules_data.MARGIN_SCALE)


def observe(state: np.ndarray, player: int) -> np.ndarray:
    """Player's observation (float32, OBS_SIZE); holds no hidden information (DESIGN D6)."""
    out = np.empty(OBS_SIZE, dtype=np.float32)
    if player.__class__ is int:  # numba would truncate a float seat: integers only
        try:
            if _api_observe(state, TABLES, player, out) == 0:
                return out
        except (TypeError, OverflowError):  # an odd state array: the checked path below
            pass
    state = _as_state(state)
    n = state.item(S_NP)
    if not (isinstance(player, (int, np.integer)) and 0 <= player < n):
        raise ValueError(f"village: player must be in 0..{n - 1}")
    player = int(player)
    observe_into(state, TABLES, player, out)
    return out


def to_bytes(state: np.ndarray) -> bytes:
    return _ser.to_bytes(LAYOUT, RULES_DATA_HASH, _check(state))


def from_bytes(data: bytes) -> np.ndarray:
    """Parse and validate a saved state; refuses corrupt or foreign data."""
    s = _ser.from_bytes(LAYOUT, RULES_DATA_HASH, data)
    code = check_invariants_code(s, TABLES)
    if code:
        raise StateFormatError(f"village: saved state is inconsistent: {INVARIANT_MESSAGES[code]}")
    return s


def reseed(state: np.ndarray, seed: int) -> np.ndarray:
    """A copy whose future chance (bag draws, Mass draws, customer draws) comes from `seed`."""
    new = _check(state).copy()
    a, b, c = split_seed(seed)
    rng_seed(new, S_RNG, a, b, c)
    return new


def determinize(state: np.ndarray, observer: int, seed: int) -> np.ndarray:
    """Resample what `observer` cannot know. In Village only future draws are hidden (ED-35):
    the pile's composition is public and its order is drawn at draw time, so this is `reseed`."""
    num_players(state)
    return reseed(state, seed)


def check_invariants(state: np.ndarray) -> list[str]:
    """Broken conservation laws (empty when the state is consistent)."""
    code = check_invariants_code(_check(state), TABLES)
    return [] if code == 0 else [INVARIANT_MESSAGES[code]]


# importing the submodule registers village_v0; then bind the functions over the submodule name
from village_env.env import env, raw_env  # noqa: E402
