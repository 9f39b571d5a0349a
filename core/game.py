"""The public game API, written once for every game (DESIGN D10).

A game package supplies a small `GameSpec` (its layout, action space, tables builder, compiled
entry points, describe / render and the few rules-specific hooks below) and exports the bound
methods of one `Game` object built from it (`Game.export_to`). So `village_env.step` and
`troyes_env.step` are the same code with one signature, one validation path and one set of
error messages; `GameModule` (a `typing.Protocol`) states the contract every game module meets.

The `Game` object owns everything that used to be module state: the rules tables (swapped whole
by `load_rules_data`), the compiled entry points for them, and per-thread scratch buffers and
mask memo (`threading.local`), so threads stepping different games never share a buffer, with
or without the GIL.

The entry points are compiled (or loaded from numba's disk cache) by the first call that needs
them, not at import: `import village_env` only builds the tables, so reading a constant, a
`--help` or a process that never plays that game does not wait for numba (on a cold cache the
compile takes tens of seconds; core.jit announces it on stderr).

Compiled entry points (`<game>_env.engine.api`, rendered from core/api_template.py over the
game's `engine/rules.py`), one signature each (`entry_point_signatures`, core.jit.compile_exactly),
all returning a status code of core.errors (legal_mask and step: API_INCONSISTENT for a state
that is not over and has no legal action, which the engine never makes: StateFormatError):

    new(s, T, n, a, b, c, start, mask, work)  a new n-player game seeded by words (a, b, c), the
                                              first decision ready; mask = its legal mask
    observe(s, T, player, out)                observation (float32, OBS_SIZE) of seat `player`
    legal_mask(s, T, out, scratch, work)      out (bool) = the legal mask of s (s untouched;
                                              `scratch` is a state-sized buffer the game may use)
    step(s, new, T, a, mask, work)            new = s after action a; mask = new's legal mask

`Game.export_to` also gives the package what every game would otherwise repeat: the PettingZoo
AEC env (`env`, `raw_env`; registered as `<name>_v0`) and the batch engine (`make_batch`).
"""

from __future__ import annotations

import contextlib
import importlib
import operator
import threading
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np
from numba import typeof, types

from core import serialize
from core.actions import ActionSpace
from core.aec import env_factories
from core.batch import BatchEngine, BatchSpec, batch_spec
from core.errors import (
    API_BAD_PLAYER,
    API_BAD_STATE,
    API_INCONSISTENT,
    ERR_ILLEGAL,
    ERR_NO_LEGAL,
    ERR_OVER,
    ERR_RANGE,
    OK,
    IllegalActionError,
    StateFormatError,
)
from core.layout import Layout
from core.registry import integer_arg, register_pettingzoo
from core.returns import RETURN_KINDS, compute_returns
from core.rng import rng_seed, split_seed

_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_F32 = np.dtype(np.float32)


@dataclass(frozen=True)
class StateFields:
    """Offsets of the fields the generic API reads in every game's state, derived by GameSpec
    (a game never writes them): the player count, layout version, game id and truncation from
    the game contract, the others from the layout's segments (GameSpec.field_segments)."""

    num_players: int  # player count (the contract's S_NP)
    actor: int  # seat to act, -1 once the game is over
    version: int  # layout version (S_VERSION)
    phase: int  # decision phase (index into phase_names)
    rng: int  # first word of the in-state RNG (DESIGN D3)
    over: int  # the field that says the game is over ...
    over_value: int  # ... when it holds this value
    truncated: int  # 1 when a safety cap ended the game; -1: the game has no cap (S_TRUNC)
    game_id: int  # a field holding the contract's GAME_ID; -1: none (S_GAME_ID)


# the layout segment of each StateFields entry read from the layout, where a game does not name
# another in GameSpec.field_segments
FIELD_SEGMENTS = {"actor": "actor", "phase": "phase", "rng": "rng", "over": "game_over"}
# the contract's offsets of the other entries, and the layout segment each is, where it has one
CONTRACT_FIELDS = {
    "num_players": ("S_NP", "n_players"),
    "version": ("S_VERSION", "version"),
    "game_id": ("S_GAME_ID", "game_id"),
    "truncated": ("S_TRUNC", "truncated"),
}


@dataclass(frozen=True)
class GameSpec:
    """What a game package supplies; everything else of the public API is in `Game`. What the
    game contract already says (sizes, standing keys, game id, truncation, the offsets of the
    fields its compiled code reads) is read from its rendered contract module and never restated:
    the attributes after `stats` are derived, and a spec whose layout or action space disagrees
    with the contract is refused when it is built (`check_against_contract`)."""

    name: str  # "village"
    player_counts: tuple[int, ...]
    layout: Layout
    actions: ActionSpace
    # the game's rendered contract, `<package>.engine.contract` (core.codegen): STATE_SIZE,
    # NUM_ACTIONS, VERSION, OBS_SIZE, WORK_SIZE, N_KEYS and k_keys, GAME_ID, S_NP, S_VERSION,
    # S_GAME_ID, S_TRUNC and k_truncated, with core's defaults where the game has none
    contract: ModuleType
    phase_names: tuple[str, ...]
    margin_scale: float  # "margin" returns: score gap / margin_scale
    rules_data: ModuleType  # the default rules data (rules_data.py)
    build_tables: Callable[[ModuleType], np.ndarray]  # rules data -> flat int64 table
    tables_hash: Callable[[np.ndarray], str]
    compile_entry_points: Callable[[np.ndarray], tuple]  # T -> (new, observe, legal_mask, step)
    describe: Callable[[int, Any, np.ndarray], str]  # (valid action id, state or None, T)
    render: Callable[[np.ndarray, np.ndarray], str]  # (valid state, T) -> text board
    invariant_problems: Callable[[np.ndarray, np.ndarray], list[str]]  # (state, T) -> broken laws
    determinize: Callable | None = None  # (state, observer, seed, T) -> state; None: reseed
    # (before, action, after, T) -> words for what chance decided in the step `action` made from
    # `before` to `after` (a die rolled, a card turned face up; the forced steps the engine
    # settles within a step included), public outcomes only; None: the game's printed games and
    # logs say nothing of chance
    chance: Callable | None = None
    perturb_hidden: Callable | None = None  # (state, seed, T) -> state; None: reseed
    # the layout segments of the fields the API reads that the contract does not name, where a
    # game's differ from FIELD_SEGMENTS (Troyes: {"actor": "cur", "over": "phase"}) ...
    field_segments: dict[str, str] = field(default_factory=dict)
    over_value: int = 1  # ... and the value of the `over` segment once the game is over
    options: tuple[str, ...] = ("start_player",)  # new_game keyword options
    # the `mcts` agent's parameters for this game where they differ from core.search's defaults,
    # as the text after "mcts:" (the measured best of docs/agents.md); a spec's own keys win
    search_defaults: str = ""
    # the game's own bots, name -> factory(game package, seed) (core.bots: every game also has
    # `random`, and `heuristic` when its kernels have a position evaluation; these win over them)
    bots: dict[str, Callable] = field(default_factory=dict)
    # whether the rules data holds provisional values (results then carry a note saying so)
    provisional_rules: bool = False
    # the module whose `RULES` (core.rules_file.RulesKeys) reads rules override files; None: the
    # game takes no override files
    rules_keys: str | None = None
    # the module whose `SPACE` (core.variant_space.VariantSpace) declares the rules-data keys a
    # study may vary and their ranges (what a conditioned network reads); None: the empty space
    variant_space: str | None = None
    # the default MaskablePPO run of training.learn.train: {"timesteps": N, "opponents": POOL};
    # empty (or a key left out): the trainer's generic default for any game
    default_run: dict[str, Any] = field(default_factory=dict)
    # the game's viewer module, imported by training.view only: FIELDS, position(state, T, viewer)
    # and optionally SCRIPT, its page drawing (docs/viewer.md); None: the generic text view
    view: str | None = None
    tiebreak_labels: tuple[str, ...] = ()  # names of the tie-break keys, for printed scores
    # the module a balance study reads beyond the scores (RESOURCES, ITEMS, items(), deaths;
    # training/balance/game_stats.py); None: scores, actions and turns only
    stats: str | None = None
    # derived from the contract and the layout (__post_init__), never passed
    obs_size: int = field(init=False)  # the contract's OBS_SIZE
    work_size: int = field(init=False)  # int64 scratch the compiled step / mask need (WORK_SIZE)
    n_keys: int = field(init=False)  # standing keys per seat: score, then tie-breakers (N_KEYS)
    keys: Callable = field(init=False)  # compiled k_keys(s, keys): [p, 0] score, [p, 1:] ties
    game_id: int = field(init=False)  # GAME_ID
    fields: StateFields = field(init=False)

    def __post_init__(self) -> None:
        c = self.contract
        check_against_contract(self)
        derived = {
            "obs_size": int(c.OBS_SIZE),
            "work_size": int(c.WORK_SIZE),
            "n_keys": int(c.N_KEYS),
            "keys": c.k_keys,
            "game_id": int(c.GAME_ID),
            "fields": StateFields(
                **{f: int(getattr(c, const)) for f, (const, _) in CONTRACT_FIELDS.items()},
                **{f: self.layout.offset(seg) for f, seg in _field_segments(self).items()},
                over_value=self.over_value,
            ),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)


def _field_segments(spec: GameSpec) -> dict[str, str]:
    """FIELD_SEGMENTS with the spec's own; ValueError naming what is allowed for an unknown
    field or a segment the layout does not have."""
    for f in spec.field_segments:
        if f not in FIELD_SEGMENTS:
            raise ValueError(
                f"{spec.name}: field_segments names {f!r}; allowed: {', '.join(FIELD_SEGMENTS)}"
            )
    named = {**FIELD_SEGMENTS, **spec.field_segments}
    for f, seg in named.items():
        if seg not in spec.layout.segments:
            raise ValueError(
                f"{spec.name}: the layout has no segment {seg!r} (the {f!r} field); name the "
                f"segment in GameSpec.field_segments, one of {', '.join(spec.layout.segments)}"
            )
    return named


def check_against_contract(spec: GameSpec) -> None:
    """Refuse, in one ValueError line naming both values, a spec whose layout or action space
    says a fact otherwise than its game contract (the compiled code reads the contract's, the
    Python API the spec's): the state size, the number of actions, the layout version, the
    layout's segment at each offset the contract names (n_players, version, game_id,
    truncated), the game id that segment holds, and truncation (a k_truncated of the game's own
    while S_TRUNC says the state has no truncation field, which `is_truncated` reads)."""
    c, lay, name = spec.contract, spec.layout, spec.name
    sizes = (
        ("the layout's size", lay.size, "STATE_SIZE"),
        ("the action space's size", spec.actions.n, "NUM_ACTIONS"),
        ("the layout's version", lay.version, "VERSION"),
    )
    for what, value, const in sizes:
        if value != getattr(c, const):
            raise ValueError(
                f"{name}: {what} is {value} but the contract's {const} is {getattr(c, const)}"
            )
    for const, seg in CONTRACT_FIELDS.values():
        at = int(getattr(c, const))
        if seg in lay.segments and lay.offset(seg) != at:
            raise ValueError(
                f"{name}: the layout's {seg!r} segment is at offset {lay.offset(seg)} but the "
                f"contract's {const} is {at}"
            )
    at = int(c.S_GAME_ID)
    held = next((g for g in lay.segments.values() if g.offset <= at < g.offset + g.size), None)
    if at >= 0 and (held is None or (held.lo, held.hi) != (c.GAME_ID, c.GAME_ID)):
        holds = "past its end" if held is None else f"{held.name!r}, which holds {held.lo:#x}"
        holds += "" if held is None or held.lo == held.hi else f"..{held.hi:#x}"
        raise ValueError(
            f"{name}: the layout's entry at S_GAME_ID={at} is {holds}, but the contract's "
            f"GAME_ID is {c.GAME_ID:#x}"
        )
    own = getattr(getattr(c.k_truncated, "py_func", c.k_truncated), "__module__", None)
    if c.S_TRUNC < 0 and own != c.__name__:
        raise ValueError(
            f"{name}: the contract's k_truncated is the game's own ({own}) but its S_TRUNC is "
            "-1, so is_truncated would never report a truncation the compiled loops count; set "
            "S_TRUNC to the offset of the field k_truncated reads (core's default k_truncated "
            "reads it)"
        )


def entry_point_signatures(T) -> dict:
    """Numba signatures of the compiled entry points (module docstring) for tables of T's type
    (the public tables are read-only, which numba types differently from a writable array)."""
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


class _ThreadBuffers:
    """Scratch and mask memo of one Game in one thread (a plain object: fast attributes)."""

    __slots__ = ("scratch", "work", "memo")

    def __init__(self, state_size: int, work_size: int):
        self.scratch = np.zeros(state_size, _I64)
        self.work = np.zeros(max(work_size, 1), _I64)
        # (bytes of the state `step` returned last in this thread, its legal mask (handed out
        # once), the tables it was computed with), or None
        self.memo = None


class _Buffers(threading.local):
    """Per-thread `_ThreadBuffers` of one Game (`.b`, created on first use in each thread)."""

    def __init__(self, state_size: int, work_size: int):
        self.b = _ThreadBuffers(state_size, work_size)


class _CompileOnFirstCall:
    """Stands in the game's box for entry point `index` until a call needs it: that call compiles
    (or loads) all four for tables `T` (`spec.compile_entry_points`), puts them in the box and
    runs; every later call reads the compiled dispatcher from the box directly."""

    __slots__ = ("game", "T", "index")

    def __init__(self, game: Game, T: np.ndarray, index: int):
        self.game, self.T, self.index = game, T, index

    def __call__(self, *args):
        return self.game._compiled_for(self.T)[self.index](*args)


class Game:
    """One game's public API over its spec (the functions each game package exports)."""

    def __init__(self, spec: GameSpec):
        self.spec = spec
        self.name = spec.name
        self.layout = spec.layout
        self.state_size = spec.layout.size
        self.num_actions = spec.actions.n
        self._shape = (self.state_size,)
        f = spec.fields
        self._actor, self._np, self._version = f.actor, f.num_players, f.version
        self._over, self._over_value, self._trunc = f.over, f.over_value, f.truncated
        self._phase, self._rng = f.phase, f.rng
        self._lv = spec.layout.version
        self._bufs = _Buffers(self.state_size, spec.work_size)
        self._box = [None]  # [(T, new, observe, legal_mask, step)]: swapped whole
        self._compile_lock = threading.Lock()
        self.package: str | None = None  # the game's package, set by export_to
        self._batch_spec: BatchSpec | None = None
        self.load_rules_data(spec.rules_data)
        self._bind_hot_path()

    # --- rules data ---------------------------------------------------------------------------

    def load_rules_data(self, rd: ModuleType | None = None) -> str:
        """Use other rules data (e.g. `tables.rules_with(...)`; default: the game's own
        rules_data.py); returns the new RULES_DATA_HASH. A game whose spec names a `rules_keys`
        module checks `rd` first exactly as a rules override file is checked (types, ranges,
        the relations between values the engine relies on, the layout's shapes): a refusal is
        one RulesDataError line (a ValueError) naming the key, the value and what is allowed,
        and the tables in use and RULES_DATA_HASH stay as they were."""
        rd = self.spec.rules_data if rd is None else rd
        T = self._checked_tables(rd)
        T.setflags(write=False)
        # one tuple swapped whole: a reader sees the old tables with the old entry points or
        # the new with the new (the memo records the tables it was made with); the entry points
        # are compiled by the first call that uses them (module docstring)
        self._box[0] = (T, *(_CompileOnFirstCall(self, T, i) for i in range(1, 5)))
        self.rules_data_hash = self.spec.tables_hash(T)
        self.rules_data = rd  # the rules data in use (what a conditioned network reads)
        return self.rules_data_hash

    def _checked_tables(self, rd) -> np.ndarray:
        """The tables of rules data `rd`, built by the game's `RulesKeys.validate` (the one
        validation core.rules_file also runs on files) where its spec names one."""
        if self.spec.rules_keys is None:
            return self.spec.build_tables(rd)
        return importlib.import_module(self.spec.rules_keys).RULES.validate(rd)

    @contextlib.contextmanager
    def using_rules_data(self, rd: ModuleType | None):
        """For a `with` block: load rules data `rd` (None: the default), yield its hash, and
        afterwards put back the tables (and compiled entry points) that were in use before."""
        saved = (self._box[0], self.rules_data_hash, self.rules_data)
        try:
            yield self.load_rules_data(rd)
        finally:
            self._box[0], self.rules_data_hash, self.rules_data = saved

    def _compiled_for(self, T: np.ndarray) -> tuple:
        """(T, new, observe, legal_mask, step) compiled for tables T; into the box if T is the
        tables in use (it is not when load_rules_data ran meanwhile)."""
        with self._compile_lock:
            active = self._box[0]
            if active[0] is T and not isinstance(active[1], _CompileOnFirstCall):
                return active
            compiled = (T, *self.spec.compile_entry_points(T))
            if active[0] is T:
                self._box[0] = compiled
            return compiled

    @property
    def tables(self) -> np.ndarray:
        """The rules tables in use (read-only)."""
        return self._box[0][0]

    # --- validation ---------------------------------------------------------------------------

    def _check(self, state) -> np.ndarray:
        """Cheap test of type, dtype, size and version (DESIGN D1); StateFormatError else."""
        if (
            state.__class__ is not np.ndarray
            or state.dtype is not _I64
            or state.shape != self._shape
            or state.item(self._version) != self._lv
        ):
            self._check_slow(state)
        return state

    def _check_slow(self, state) -> None:
        name = self.name
        if not isinstance(state, np.ndarray):
            raise StateFormatError(
                f"{name}: a state is a numpy int64 array of shape ({self.state_size},); got "
                f"{type(state).__name__}"
            )
        if state.dtype != _I64 or state.shape != self._shape:
            raise StateFormatError(
                f"{name}: a state is an int64 array of shape ({self.state_size},); got "
                f"{state.dtype} {state.shape}"
            )
        if state[self._version] != self._lv:
            raise StateFormatError(
                f"{name}: state layout version {state[self._version]}, this library reads "
                f"{self._lv}"
            )
        gid = self.spec.fields.game_id
        if gid >= 0 and state[gid] != self.spec.game_id:
            raise StateFormatError(f"{name}: not a {name} state")

    def _usable(self, state) -> np.ndarray:
        """The checked slow path: a valid state itself, or a C-contiguous writable copy."""
        self._check(state)
        if state.flags.c_contiguous and state.flags.writeable:
            return state
        return np.array(state, dtype=_I64, order="C")

    def check_options(self, options: dict) -> None:
        """ValueError on an unknown or malformed new_game option."""
        for k, v in options.items():
            if k not in self.spec.options:
                raise ValueError(
                    f"{self.name}: unknown option {k!r}; allowed options: "
                    f"{', '.join(self.spec.options)}"
                )
            if k == "start_player" and (
                not isinstance(v, (int, np.integer)) or isinstance(v, bool)
            ):
                raise ValueError(f"{self.name}: start_player must be a seat number, got {v!r}")

    def _seed_arg(self, seed) -> int:
        """`seed` as an int: any integer (Python or NumPy), not a bool; else ValueError."""
        return integer_arg(seed, f"{self.name}: seed")

    # --- the game -----------------------------------------------------------------------------

    def new_game(self, num_players: int = 4, seed: int = 0, **options) -> np.ndarray:
        """A new seeded game (rules §2), waiting for its first real decision. Option
        start_player (default 0): the seat that starts."""
        # an integer (Python or NumPy), never a bool or a float equal to one (2.0 == 2)
        if (
            not isinstance(num_players, (int, np.integer))
            or isinstance(num_players, bool)
            or num_players not in self.spec.player_counts
        ):
            raise ValueError(
                f"{self.name}: num_players must be one of {self.spec.player_counts}, "
                f"got {num_players!r}"
            )
        seed = self._seed_arg(seed)
        self.check_options(options)
        start = int(options.get("start_player", 0))
        if not 0 <= start < num_players:
            raise ValueError(f"{self.name}: start_player must be in 0..{num_players - 1}")
        T, new, _, _, _ = self._box[0]
        s = np.zeros(self.state_size, _I64)
        mask = np.empty(self.num_actions, _BOOL)
        a, b, c = split_seed(seed)
        code = new(s, T, int(num_players), a, b, c, start, mask, self._bufs.b.work)
        if code != OK:
            raise RuntimeError(f"{self.name} engine error {code} while setting up a game")
        return s

    # --- the hot path -------------------------------------------------------------------------

    def _bind_hot_path(self) -> None:
        """`current_player`, `is_terminal`, `legal_mask`, `step` and `observe` are closures over
        the game's constants and buffers (an API decision calls four of them: each attribute
        lookup saved is measurable in benchmarks.engine_speed path (b))."""
        box, bufs, check, usable = self._box, self._bufs, self._check, self._usable
        shape, size, n_actions = self._shape, self.state_size, self.num_actions
        obs_size = self.spec.obs_size
        actor, over, over_value = self._actor, self._over, self._over_value
        ndarray, empty, index = np.ndarray, np.empty, operator.index

        def current_player(state: np.ndarray) -> int:
            """Seat that must decide now; -1 once the game is over."""
            if state.__class__ is ndarray and state.dtype is _I64 and state.shape == shape:
                return state.item(actor)  # any int64 vector of this size reads safely
            return check(state).item(actor)

        def is_terminal(state: np.ndarray) -> bool:
            """True once the game is over (final scoring done)."""
            return check(state).item(over) == over_value

        def legal_mask(state: np.ndarray) -> np.ndarray:
            """Bool mask (NUM_ACTIONS,) of the actions the rules allow now (all False once
            over)."""
            active = box[0]
            b = bufs.b
            memo = b.memo
            if (
                memo is not None
                and memo[2] is active[0]
                and state.__class__ is ndarray
                and state.dtype is _I64
                and state.shape == shape
                and state.tobytes() == memo[0]
            ):
                b.memo = None  # handed out once: the caller owns the array
                return memo[1]
            out = empty(n_actions, _BOOL)
            try:
                if active[3](state, active[0], out, b.scratch, b.work) == OK:
                    return out
            except TypeError:  # not a C-contiguous writable int64 vector: the checked path
                pass
            code = active[3](usable(state), active[0], out, b.scratch, b.work)
            if code != OK:
                self._raise_bad_state(state, code)
            return out

        def step(state: np.ndarray, action: int) -> np.ndarray:
            """The state after `action`; IllegalActionError (state untouched) if not allowed."""
            try:
                a = index(action)
            except TypeError:
                check(state)
                raise IllegalActionError(
                    -1, repr(action), self.phase_name(state), "not an integer action"
                ) from None
            T, _, _, _, step_ = box[0]
            b = bufs.b
            new = empty(size, _I64)
            mask = empty(n_actions, _BOOL)  # new's legal mask, built by the step
            try:
                code = step_(state, new, T, a, mask, b.work)
            except (TypeError, OverflowError):  # an odd state array, or an id beyond int64
                state = usable(state)
                in_range = -(2**63) <= a < 2**63
                code = step_(state, new, T, a, mask, b.work) if in_range else ERR_RANGE
            if code == OK:
                b.memo = (new.tobytes(), mask, T)
                return new
            self._raise_step_error(state, a, code)

        def observe(state: np.ndarray, player: int) -> np.ndarray:
            """Player's observation (float32, OBS_SIZE); no hidden information (DESIGN D6)."""
            out = empty(obs_size, _F32)
            active = box[0]
            if player.__class__ is int:  # numba would truncate a float seat: integers only
                try:
                    if active[2](state, active[0], player, out) == OK:
                        return out
                except (TypeError, OverflowError):  # an odd state array: the checked path
                    pass
            return self._observe_slow(state, player, out)

        self.current_player, self.is_terminal = current_player, is_terminal
        self.legal_mask, self.step, self.observe = legal_mask, step, observe

    def _observe_slow(self, state, player, out) -> np.ndarray:
        T, _, observe, _, _ = self._box[0]
        state = self._usable(state)
        n = state.item(self._np)
        if (
            not isinstance(player, (int, np.integer))
            or isinstance(player, bool)
            or not 0 <= player < n
        ):
            raise ValueError(f"{self.name}: player must be a seat in 0..{n - 1}, got {player!r}")
        code = observe(state, T, int(player), out)
        if code == API_BAD_STATE:
            self._check_slow(state)
        if code == API_BAD_PLAYER:
            raise ValueError(f"{self.name}: player must be a seat in 0..{n - 1}, got {player!r}")
        return out

    def _raise_bad_state(self, state, code: int):
        """StateFormatError for a state a compiled entry point refused (API_BAD_STATE: the
        format; API_INCONSISTENT: no legal action while the game is not over, D5), naming what
        it received; the state is left as it was."""
        if code == API_BAD_STATE:
            self._check_slow(state)
        if code == API_INCONSISTENT:
            raise StateFormatError(self._no_legal_action(state) + self._problems_hint(state))
        raise RuntimeError(f"{self.name} engine error {code} on a state from outside")

    def _no_legal_action(self, state) -> str:
        ph = self._check(state).item(self._phase)
        return (
            f"{self.name}: inconsistent state: phase {ph} '{self.phase_name(state)}' with no "
            f"legal action while the game is not over (a tampered or corrupt state?)"
        )

    def _problems_hint(self, state) -> str:
        """The first problems `validate` finds in a refused state, for an error message (the
        error path: the full range and invariant checks are affordable here)."""
        s = np.array(state, dtype=_I64, order="C")  # the checks never see the caller's array
        try:
            self.layout.validate(s)
            problems = self.spec.invariant_problems(s, self.tables)
        except StateFormatError as e:
            problems = [str(e).removeprefix(f"{self.name}: ")]
        except Exception as e:  # a check that cannot read this state at all
            problems = [f"the invariant check fails on it ({type(e).__name__}: {e})"]
        found = f"; it finds: {'; '.join(problems[:3])}" if problems else ""
        return f"; {self.name}.validate(state) checks a state built or edited by hand{found}"

    def _raise_step_error(self, state, a: int, code: int):
        if code in (API_BAD_STATE, API_INCONSISTENT):
            self._raise_bad_state(state, code)
        phase = self.phase_name(state)
        if code == ERR_RANGE or not 0 <= a < self.num_actions:
            raise IllegalActionError(
                a, "out of range", phase, f"action ids are 0..{self.num_actions - 1}"
            )
        desc = self.describe(a, state)
        if code == ERR_OVER or self.is_terminal(state):
            raise IllegalActionError(a, desc, phase, "the game is over")
        if code == ERR_ILLEGAL:
            raise IllegalActionError(a, desc, phase, self._why_illegal(state, a))
        raise RuntimeError(
            f"{self.name} engine error {code} (ERR_NO_LEGAL={ERR_NO_LEGAL}) after {desc}"
        )

    def _why_illegal(self, state, a: int) -> str:
        legal = np.flatnonzero(self.legal_mask(state))
        segs = list(dict.fromkeys(self.spec.actions.decode(int(x))[0] for x in legal))
        seg = self.spec.actions.decode(a)[0]
        who = self.current_player(state)
        if seg not in segs:
            return (
                f"phase '{self.phase_name(state)}' takes only {', '.join(segs)} "
                f"(player_{who} to act)"
            )
        return (
            f"not among the {len(legal)} legal actions of player_{who} now "
            f"(e.g. {self.describe(int(legal[0]), state)!r})"
        )

    # --- reading a state ----------------------------------------------------------------------

    def is_truncated(self, state: np.ndarray) -> bool:
        """True when a safety cap, not the rules, ended the game (Village ED-34)."""
        return self._trunc >= 0 and self._check(state).item(self._trunc) != 0

    def num_players(self, state: np.ndarray) -> int:
        return self._check(state).item(self._np)

    def phase_name(self, state: np.ndarray) -> str:
        """Name of the decision phase the state waits in."""
        ph = self._check(state).item(self._phase)
        names = self.spec.phase_names
        return names[ph] if 0 <= ph < len(names) else f"phase {ph}"

    def _keys(self, state) -> np.ndarray:
        n = self.num_players(state)
        keys = np.zeros((n, self.spec.n_keys), _I64)
        self.spec.keys(np.ascontiguousarray(state), keys)
        return keys

    def scores(self, state: np.ndarray) -> np.ndarray:
        """Score per player (the final score once terminal)."""
        return self._keys(state)[:, 0].copy()

    def tiebreaks(self, state: np.ndarray) -> np.ndarray:
        """The rulebook's tie-breakers per player (n, k), compared in order after the score."""
        return self._keys(state)[:, 1:].copy()

    def returns(self, state: np.ndarray, kind: str = "win_loss") -> np.ndarray:
        """Per-player returns (DESIGN D7: win_loss, rank, margin); zeros before the end."""
        if kind not in RETURN_KINDS:
            raise ValueError(f"unknown returns kind {kind!r}; allowed: {', '.join(RETURN_KINDS)}")
        if not self.is_terminal(state):
            return np.zeros(self.num_players(state), dtype=np.float32)
        keys = self._keys(state)
        return compute_returns(keys[:, 0], keys[:, 1:], kind, self.spec.margin_scale)

    def describe(self, action: int, state: np.ndarray | None = None) -> str:
        """Words for `action`, phrased for the state's phase when a state is given."""
        try:
            a = operator.index(action)
        except TypeError:
            raise ValueError(f"{self.name}: an action id is an integer, got {action!r}") from None
        if not 0 <= a < self.num_actions:
            raise ValueError(f"{self.name}: action ids are 0..{self.num_actions - 1}, got {a}")
        return self.spec.describe(a, None if state is None else self._check(state), self.tables)

    def chance_words(self, before: np.ndarray, action: int, after: np.ndarray) -> list[str]:
        """Words for what chance decided in the step `action` made from `before` to `after`
        (GameSpec.chance; public outcomes only), empty when nothing did or the game does not
        say."""
        if self.spec.chance is None:
            return []
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise ValueError(f"{self.name}: action ids are 0..{self.num_actions - 1}, got {a}")
        return list(self.spec.chance(self._check(before), a, self._check(after), self.tables))

    def render(self, state: np.ndarray) -> str:
        """A readable text board."""
        return self.spec.render(self.validate(state), self.tables)

    def check_invariants(self, state: np.ndarray) -> list[str]:
        """Broken conservation laws and bounds (empty when the state is consistent); a foreign
        array is one problem, not an exception."""
        try:
            s = self._usable(state)
        except StateFormatError as e:
            return [str(e)]
        return self.spec.invariant_problems(s, self.tables)

    def validate(self, state: np.ndarray) -> np.ndarray:
        """The full check of a state that comes from outside (format, every segment's range,
        the game's invariants, a legal action unless the game is over: D5): StateFormatError
        naming the first problem, else the state."""
        s = self._usable(state)
        self.layout.validate(s)
        problems = self.spec.invariant_problems(s, self.tables)
        if problems:
            raise StateFormatError(f"{self.name}: inconsistent state: {problems[0]}")
        T, _, _, legal_mask, _ = self._box[0]
        b = self._bufs.b
        if legal_mask(s, T, np.empty(self.num_actions, _BOOL), b.scratch, b.work) != OK:
            raise StateFormatError(self._no_legal_action(s))
        return s

    # --- saving and chance --------------------------------------------------------------------

    def to_bytes(self, state: np.ndarray) -> bytes:
        """Header (game, layout version, rules-data hash) + the state's int64 entries."""
        return serialize.to_bytes(self.layout, self.rules_data_hash, self._check(state))

    def from_bytes(self, data: bytes) -> np.ndarray:
        """Parse and fully validate a saved state; refuses corrupt or foreign data."""
        s = serialize.from_bytes(self.layout, self.rules_data_hash, data)
        return self.validate(s)

    def reseed(self, state: np.ndarray, seed: int) -> np.ndarray:
        """A copy whose future chance comes from `seed`; nothing else changes."""
        new = self._check(state).copy()
        rng_seed(new, self._rng, *split_seed(self._seed_arg(seed)))
        return new

    def determinize(self, state: np.ndarray, observer: int, seed: int) -> np.ndarray:
        """Resample what `observer` cannot know, consistently with what they know (ED-35). The
        observer is a seat number as `observe` takes it (an integer, not a bool, in range), the
        seed an integer."""
        n = self.num_players(state)
        if (
            not isinstance(observer, (int, np.integer))
            or isinstance(observer, bool)
            or not 0 <= observer < n
        ):
            raise ValueError(
                f"{self.name}: observer must be a seat in 0..{n - 1}, got {observer!r}"
            )
        seed = self._seed_arg(seed)
        if self.spec.determinize is None:
            return self.reseed(state, seed)
        return self.spec.determinize(state, int(observer), seed, self.tables)

    def perturb_hidden(self, state: np.ndarray, seed: int) -> np.ndarray:
        """Change only what nobody sees (used to test that observations leak nothing)."""
        if self.spec.perturb_hidden is None:
            return self.reseed(state, seed)
        return self.spec.perturb_hidden(self._check(state), self._seed_arg(seed), self.tables)

    # --- the package's exports ----------------------------------------------------------------

    def memo_holds(self, state: np.ndarray) -> bool:
        """Whether the next legal_mask(state) in this thread is served by step's memo."""
        memo = self._bufs.b.memo  # the test legal_mask makes
        return (
            memo is not None
            and memo[2] is self.tables
            and state.__class__ is np.ndarray
            and state.dtype is _I64
            and state.shape == self._shape
            and state.tobytes() == memo[0]
        )

    def make_batch(
        self,
        batch_size: int,
        num_players: int = 4,
        seed: int = 0,
        reward_kind: str = "win_loss",
        observe: bool = True,
        threads: int | None = None,
        threading: str = "numba",
    ) -> BatchEngine:
        """A batch engine of `batch_size` games stepped in one compiled call (core.batch, DESIGN
        D8), all started: slot i's k-th game is `new_game(num_players, batch_game_seed(seed, i,
        k))`. `threads`: most threads per call (default NUMBA_NUM_THREADS; one per 64 games), run
        as numba's parallel loops or as the one-thread loops on shares of the games
        (`threading="split"`, core.batch.THREADINGS). The game's rendered
        `engine.batch_loops` (core.codegen) is imported by the first call."""
        spec = self.batch_spec()
        return BatchEngine(
            spec, batch_size, num_players, seed, reward_kind, observe, threads, threading=threading
        )

    def batch_spec(self) -> BatchSpec:
        """What the batch engine and the compiled bots need of this game (core.batch.BatchSpec),
        made once: its rendered `engine.batch_loops` and `engine.bot_loops` (core.codegen) are
        imported by the first call."""
        spec = self._batch_spec
        if spec is None:
            if self.package is None:
                raise RuntimeError(f"{self.name}: make_batch needs the game package (export_to)")
            engine = f"{self.package}.engine"
            spec = self._batch_spec = batch_spec(
                self,
                importlib.import_module(f"{engine}.batch_loops"),
                importlib.import_module(f"{engine}.bot_loops"),
                importlib.import_module(f"{engine}.contract"),
            )
        return spec

    def export_to(self, namespace: dict) -> None:
        """Bind the public API into a game package's namespace (its __init__): the API functions
        and constants, the AEC env (`env`, `raw_env`, registered with PettingZoo as
        `<name>_v0`) and `make_batch`."""
        self.package = namespace["__name__"]
        for name in API_FUNCTIONS:
            namespace[name] = getattr(self, name)
        raw_env, env = env_factories(self.package)
        register_pettingzoo(self.name, self.package)
        namespace.update(
            NAME=self.name,
            PLAYER_COUNTS=self.spec.player_counts,
            OPTIONS=self.spec.options,
            LAYOUT=self.layout,
            ACTIONS=self.spec.actions,
            NUM_ACTIONS=self.num_actions,
            OBS_SIZE=self.spec.obs_size,
            STATE_SIZE=self.state_size,
            PHASE_NAMES=self.spec.phase_names,
            GAME=self,
            env=env,
            raw_env=raw_env,
            make_batch=self.make_batch,
        )

    def module_getattr(self, name: str):
        """For a package's module __getattr__: names that follow load_rules_data."""
        if name == "RULES_DATA_HASH":
            return self.rules_data_hash
        if name == "TABLES":
            return self.tables
        raise AttributeError(name)


API_FUNCTIONS = (
    "new_game",
    "legal_mask",
    "step",
    "current_player",
    "is_terminal",
    "is_truncated",
    "num_players",
    "phase_name",
    "scores",
    "tiebreaks",
    "returns",
    "observe",
    "describe",
    "chance_words",
    "render",
    "check_invariants",
    "validate",
    "to_bytes",
    "from_bytes",
    "reseed",
    "determinize",
    "perturb_hidden",
    "check_options",
    "load_rules_data",
)


# what a game package exports (its __all__)
PUBLIC_NAMES = (
    *API_FUNCTIONS,
    "NAME",
    "PLAYER_COUNTS",
    "OPTIONS",
    "LAYOUT",
    "ACTIONS",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "STATE_SIZE",
    "PHASE_NAMES",
    "GAME",
    "RULES_DATA_HASH",
    "IllegalActionError",
    "StateFormatError",
    "env",
    "raw_env",
    "make_batch",
)


@runtime_checkable
class GameModule(Protocol):
    """What every game package (`village_env`, `troyes_env`, ...) provides."""

    NAME: str
    PLAYER_COUNTS: tuple[int, ...]
    NUM_ACTIONS: int
    OBS_SIZE: int
    STATE_SIZE: int
    LAYOUT: Layout
    ACTIONS: ActionSpace
    RULES_DATA_HASH: str
    GAME: Game

    def new_game(self, num_players: int = 4, seed: int = 0, **options) -> np.ndarray: ...
    def legal_mask(self, state: np.ndarray) -> np.ndarray: ...
    def step(self, state: np.ndarray, action: int) -> np.ndarray: ...
    def current_player(self, state: np.ndarray) -> int: ...
    def is_terminal(self, state: np.ndarray) -> bool: ...
    def is_truncated(self, state: np.ndarray) -> bool: ...
    def scores(self, state: np.ndarray) -> np.ndarray: ...
    def tiebreaks(self, state: np.ndarray) -> np.ndarray: ...
    def returns(self, state: np.ndarray, kind: str = "win_loss") -> np.ndarray: ...
    def observe(self, state: np.ndarray, player: int) -> np.ndarray: ...
    def describe(self, action: int, state: np.ndarray | None = None) -> str: ...
    def chance_words(self, before: np.ndarray, action: int, after: np.ndarray) -> list[str]: ...
    def render(self, state: np.ndarray) -> str: ...
    def to_bytes(self, state: np.ndarray) -> bytes: ...
    def from_bytes(self, data: bytes) -> np.ndarray: ...
    def reseed(self, state: np.ndarray, seed: int) -> np.ndarray: ...
    def determinize(self, state: np.ndarray, observer: int, seed: int) -> np.ndarray: ...
    def load_rules_data(self, rd=None) -> str: ...
    def env(self, **kwargs): ...
    def raw_env(self, **kwargs): ...
    def make_batch(self, batch_size: int, num_players: int = 4, seed: int = 0, **kwargs): ...
