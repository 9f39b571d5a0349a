"""Troyes (Pearl Games, 2010) for 2-4 players: compiled rules engine and PettingZoo env.

Rules: shared/rules/troyes.md (many card numbers are PROVISIONAL, see RULES_DATA_HASH).
A state is a flat int64 array (layout.LAYOUT); every function below is pure unless named *_inplace.
"""

from __future__ import annotations

import operator

import numpy as np

from core.entry_points import LastMask
from core.errors import API_BAD_STATE, ERR_RANGE, IllegalActionError, StateFormatError
from core.returns import RETURN_KINDS, compute_returns
from core.rng import rng_below, rng_seed, split_seed
from core.serialize import from_bytes as _from_bytes
from core.serialize import to_bytes as _to_bytes
from troyes_env import invariants as _invariants_mod  # noqa: F401  (load before def check_invariants)
from troyes_env import render as _render_mod  # noqa: F401  (load submodule before def render)
from troyes_env import rules_data
from troyes_env import tables as _tables
from troyes_env.actions import ACTIONS, NUM_ACTIONS
from troyes_env.engine import (
    WORK_SIZE,
    init_state,
    observe_into,
    settle,
)
from troyes_env.engine import api as _api
from troyes_env.layout import (
    LAYOUT,
    PH_OVER,
    PHASE_NAMES,  # noqa: F401  (public)
    S_CHARS,
    S_CUR,
    S_DECKS,
    S_DRAWN,
    S_FINAL,
    S_NP,
    S_PHASE,
    S_RNG,
    S_START,
    S_VERSION,
    S_VP,
    STATE_SIZE,
    VERSION,
)
from troyes_env.observation import OBS_SIZE
from troyes_env.tables import RULES_DATA_HASH, TABLES

NAME = "troyes"
PLAYER_COUNTS = (2, 3, 4)
OPTIONS = ("start_player",)  # ED-1: seat 0 holds the start player card unless chosen
MARGIN_SCALE = 20.0  # "margin" returns: (own - best other) / 20 VP

__all__ = [
    "ACTIONS",
    "IllegalActionError",
    "LAYOUT",
    "NAME",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "PLAYER_COUNTS",
    "RULES_DATA_HASH",
    "StateFormatError",
    "check_invariants",
    "check_options",
    "current_player",
    "describe",
    "determinize",
    "env",
    "from_bytes",
    "is_terminal",
    "is_truncated",
    "load_rules_data",
    "num_players",
    "legal_mask",
    "new_game",
    "observe",
    "perturb_hidden",
    "phase_name",
    "raw_env",
    "render",
    "reseed",
    "returns",
    "scores",
    "step",
    "tiebreaks",
    "to_bytes",
]


def check_options(options: dict) -> None:
    """Raise ValueError on an unknown or malformed game option."""
    for k, val in options.items():
        if k not in OPTIONS:
            raise ValueError(f"troyes: unknown option {k!r}; allowed options: {', '.join(OPTIONS)}")
        if k == "start_player" and not isinstance(val, (int, np.integer)):
            raise ValueError("troyes: start_player must be a seat number")


def load_rules_data(rd=rules_data) -> str:
    """Replace the rules data the public API uses (same shapes as the layout); returns the new
    RULES_DATA_HASH. The compiled engine reads whatever table it is given (D2)."""
    global TABLES, RULES_DATA_HASH, _api_observe, _api_legal_mask, _api_step
    TABLES = _tables.build_tables(rd)
    TABLES.setflags(write=False)
    RULES_DATA_HASH = _tables.tables_hash(TABLES)
    _LAST.clear()  # its mask was computed with the old tables
    _api_observe, _api_legal_mask, _api_step = _api.compile_entry_points(TABLES)
    _tables.TABLES = TABLES
    _tables.RULES_DATA_HASH = RULES_DATA_HASH
    return RULES_DATA_HASH


def num_players(state: np.ndarray) -> int:
    return int(state[S_NP])


def _buffers():
    return np.zeros(NUM_ACTIONS, dtype=np.bool_), np.zeros(WORK_SIZE, dtype=np.int64)


# Module-level scratch for the compiled calls of legal_mask / step (they hold the GIL: the
# engine is not compiled nogil, so two threads never share these at once). Nothing is kept
# in them between calls.
_MASK = np.zeros(NUM_ACTIONS, dtype=np.bool_)
_WORK = np.zeros(WORK_SIZE, dtype=np.int64)
_STATE = np.zeros(STATE_SIZE, dtype=np.int64)
_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_F32 = np.dtype(np.float32)
_SHAPE = (STATE_SIZE,)
_LAST = LastMask(STATE_SIZE)  # the legal mask of the state step returned last
_api_observe, _api_legal_mask, _api_step = _api.compile_entry_points(TABLES)


def _check_state(state: np.ndarray) -> None:
    # cheap common case first (exact ndarray, int64, right size and version); else the full test
    if (
        state.__class__ is np.ndarray
        and state.dtype is _I64
        and state.shape == _SHAPE
        and state.item(S_VERSION) == VERSION
    ):
        return
    if not isinstance(state, np.ndarray) or state.dtype != np.int64 or state.shape != (STATE_SIZE,):
        raise StateFormatError(f"troyes: a state is an int64 array of {STATE_SIZE} entries")
    if state[S_VERSION] != VERSION:
        raise StateFormatError(f"troyes: state layout version {state[S_VERSION]}, need {VERSION}")


def new_game(num_players: int = 4, seed: int = 0, **options) -> np.ndarray:
    """A new game (rules §2), waiting for the first pre-placement decision.

    Option start_player (default 0): the seat holding the start player card in round 1."""
    if num_players not in PLAYER_COUNTS:
        raise ValueError(f"troyes: num_players must be one of {PLAYER_COUNTS}, got {num_players!r}")
    check_options(options)
    sp = int(options.get("start_player", 0))
    if not 0 <= sp < num_players:
        raise ValueError(f"troyes: start_player must be in 0..{num_players - 1}")
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    a, b, c = split_seed(seed)
    init_state(s, TABLES, int(num_players), a, b, c)
    s[S_START] = sp
    s[S_CUR] = sp
    mask, work = _buffers()
    settle(s, TABLES, mask, work)
    return s


def legal_mask(state: np.ndarray) -> np.ndarray:
    """Bool mask of the actions legal now (all False once the game is over)."""
    out = _LAST.take_for(state)
    if out is not None:
        return out
    out = np.empty(NUM_ACTIONS, _BOOL)
    try:
        if _api_legal_mask(state, TABLES, out, _STATE, _MASK, _WORK) == 0:
            return out
    except TypeError:  # not a C-contiguous writable int64 vector: the checked path below
        pass
    _check_state(state)
    _api_legal_mask(np.array(state, order="C"), TABLES, out, _STATE, _MASK, _WORK)
    return out


def _why(state: np.ndarray, action: int) -> str:
    if state[S_PHASE] == PH_OVER:
        return "the game is over"
    if not 0 <= action < NUM_ACTIONS:
        return f"action ids are 0..{NUM_ACTIONS - 1}"
    seg, _ = ACTIONS.decode(action)
    legal = np.flatnonzero(legal_mask(state))
    segs = sorted({ACTIONS.decode(a)[0] for a in legal})
    if seg not in segs:
        return f"phase '{phase_name(state)}' takes only {', '.join(segs)}"
    return (
        f"this {seg} is not allowed now (rules §4/§10: no legal completion, not available or not "
        "affordable)"
    )


def step(state: np.ndarray, action: int) -> np.ndarray:
    """Return the state after `action`; raise IllegalActionError (input untouched) if illegal."""
    try:
        a = operator.index(action)
    except TypeError:
        _check_state(state)
        raise IllegalActionError(-1, repr(action), phase_name(state), "not an integer") from None
    s = np.empty(STATE_SIZE, _I64)  # dtype objects, not np.int64: ~0.1 us less per array
    mask = np.empty(NUM_ACTIONS, _BOOL)  # s's legal mask, built by settle
    try:
        err = _api_step(state, s, TABLES, a, mask, _WORK)
    except (TypeError, OverflowError):  # an odd state array, or an action id beyond int64
        _check_state(state)
        ok = 0 <= a < NUM_ACTIONS
        err = _api_step(np.array(state, order="C"), s, TABLES, a, mask, _WORK) if ok else ERR_RANGE
    if err == API_BAD_STATE:
        _check_state(state)  # raises StateFormatError
    if err != 0:
        raise IllegalActionError(a, describe(a, state), phase_name(state), _why(state, a))
    _LAST.put(s, mask)
    return s


def current_player(state: np.ndarray) -> int:
    """Seat to act, -1 when the game is over."""
    try:
        v = state.item(S_CUR)  # no numpy scalar in between (~0.1 us a call)
    except AttributeError:  # not an ndarray
        return int(state[S_CUR])
    return v if v.__class__ is int else int(v)


def is_terminal(state: np.ndarray) -> bool:
    """True once final scoring is done (rules §7)."""
    return bool(state[S_PHASE] == PH_OVER)


def is_truncated(state: np.ndarray) -> bool:
    """Troyes always ends after its last round; no safety cap is needed."""
    return False


def scores(state: np.ndarray) -> np.ndarray:
    """VP per player: tokens so far during play, the final score (rules §7) once terminal."""
    n = int(state[S_NP])
    if is_terminal(state):
        return state[S_FINAL : S_FINAL + n].copy()
    return state[S_VP : S_VP + n].copy()


def tiebreaks(state: np.ndarray) -> np.ndarray:
    """No tie-breaker exists (ED-34: shared win): one constant column."""
    return np.zeros((int(state[S_NP]), 1), dtype=np.int64)


def returns(state: np.ndarray, kind: str = "win_loss") -> np.ndarray:
    """End-of-game returns per player (core.returns; margin scale MARGIN_SCALE); zeros before."""
    if kind not in RETURN_KINDS:
        raise ValueError(f"unknown returns kind {kind!r}; allowed: {', '.join(RETURN_KINDS)}")
    if not is_terminal(state):
        return np.zeros(int(state[S_NP]), dtype=np.float32)
    return compute_returns(scores(state), tiebreaks(state), kind, MARGIN_SCALE)


def observe(state: np.ndarray, player: int) -> np.ndarray:
    """Seat-relative float32 observation of `player` (observation.py documents it)."""
    out = np.empty(OBS_SIZE, _F32)  # observe_into writes every entry
    if player.__class__ is int:  # numba would truncate a float seat: integers only
        try:
            if _api_observe(state, TABLES, player, out) == 0:
                return out
        except (TypeError, OverflowError):  # an odd state array: the checked path below
            pass
    _check_state(state)
    n = state.item(S_NP)
    if not (isinstance(player, (int, np.integer)) and 0 <= player < n):
        raise ValueError(f"troyes: player must be in 0..{n - 1}")
    observe_into(np.ascontiguousarray(state), TABLES, int(player), out)
    return out


def phase_name(state: np.ndarray) -> str:
    return PHASE_NAMES[int(state[S_PHASE])]


def to_bytes(state: np.ndarray) -> bytes:
    return _to_bytes(LAYOUT, RULES_DATA_HASH, state)


def from_bytes(data: bytes) -> np.ndarray:
    return _from_bytes(LAYOUT, RULES_DATA_HASH, data)


def reseed(state: np.ndarray, seed: int) -> np.ndarray:
    """A copy whose future chance (dice, Archer roll) comes from a new seed; nothing else moves."""
    _check_state(state)
    s = state.copy()
    a, b, c = split_seed(seed)
    rng_seed(s, S_RNG, a, b, c)
    return s


def determinize(state: np.ndarray, observer: int, seed: int) -> np.ndarray:
    """Resample what `observer` cannot see (ED-35), consistent with what they know.

    Other players' characters are redrawn from the cards the observer does not hold; the undrawn
    part of each event deck is reshuffled; each face-down Activity card is redrawn among the
    cards of its colour and level; the RNG is reseeded."""
    return _resample(state, observer, seed)


def perturb_hidden(state: np.ndarray, seed: int) -> np.ndarray:
    """Change what nobody sees (deck orders, face-down Activity cards, RNG), keeping every
    character with its owner: used by core.testing to check observation invariance."""
    return _resample(state, -1, seed)


def _resample(state: np.ndarray, observer: int, seed: int) -> np.ndarray:
    from troyes_env.layout import S_AHID
    from troyes_env.tables import A_COL, A_LVL, A_W, T_ACT

    _check_state(state)
    s = reseed(state, seed)
    n = int(s[S_NP])
    r = np.zeros(4, dtype=np.int64)
    rng_seed(r, 0, *split_seed(seed ^ 0x5DEECE66D))

    def below(k):
        return int(rng_below(r, 0, k))

    def shuffle(xs):
        for i in range(len(xs) - 1, 0, -1):
            j = below(i + 1)
            xs[i], xs[j] = xs[j], xs[i]

    chars = s[S_CHARS : S_CHARS + 8].reshape(4, 2)
    if observer >= 0:
        own = {int(x) for x in chars[observer] if x >= 0}
        pool = [c for c in range(6) if c not in own]
        shuffle(pool)
        k = 0
        for q in range(n):
            if q == observer:
                continue
            for j in range(2):
                if chars[q, j] >= 0:
                    chars[q, j] = pool[k]
                    k += 1
    decks = s[S_DECKS : S_DECKS + 24].reshape(3, 8)
    for col in range(3):
        dr = int(s[S_DRAWN + col])
        m = int((decks[col] >= 0).sum())
        rest = [int(x) for x in decks[col, dr:m]]
        shuffle(rest)
        decks[col, dr:m] = rest
    for pos in range(9):
        if s[S_AHID + pos] >= 0:
            col, lvl = pos // 3, pos % 3 + 1
            cands = [
                c
                for c in range(27)
                if TABLES[T_ACT + c * A_W + A_COL] == col and TABLES[T_ACT + c * A_W + A_LVL] == lvl
            ]
            s[S_AHID + pos] = cands[below(len(cands))]
    return s


def describe(action: int, state: np.ndarray | None = None) -> str:
    from troyes_env.render import describe_action

    return describe_action(int(action), state)


def render(state: np.ndarray) -> str:
    from troyes_env.render import render_text

    return render_text(state)


def check_invariants(state: np.ndarray) -> list[str]:
    from troyes_env.invariants import check_invariants as _check

    return _check(state)


# the AEC env (imported last: binding the names here replaces the `env` submodule attribute)
from troyes_env.env import env, raw_env  # noqa: E402

_ = (rules_data, S_VP)
