"""Information-set Monte Carlo tree search (ISMCTS) for any registered game: the `mcts` agent.

    from core.search import MCTSAgent, SearchConfig
    agent = MCTSAgent("troyes", SearchConfig.parse("iters=1000,rollout=greedy"), seed=0)
    action = agent.act(state)                       # for game.current_player(state)

or, everywhere training/ names an agent: `mcts:iters=1000,c=0.7,rollout=greedy,cutoff=20`.

How it searches (docs/agents.md has the full story and the measured strength): single-observer
ISMCTS (Cowling, Powley & Whitehouse 2012). One tree per decision, keyed by the actions from the
searcher's decision (every action of both games is public); each iteration determinizes a copy of
the real state from the searcher's point of view (the game's `k_determinize`: other players' secret
cards, deck and bag order, future chance redrawn), walks down the tree by UCB among the children
legal in that determinization (availability counts), adds one node, rolls out with the uniform or an
epsilon-greedy informed policy (`greedy`: one step on the position evaluation; `bot`: the game's own
bot lookahead for the searcher's decisions) for at most `cutoff` decisions, scores the last state by
the game's position evaluation (`k_evaluate`, the heuristic bots' projected final scores) or its
real result, and backs the vector of returns up the path; each node's acting player maximises their
own return. The iterations are compiled (core/search_template.py, rendered per game) over
the engine's own kernels; the tree lives in flat preallocated arrays (core.search_tree), so an
iteration allocates nothing.

Determinism: the same seed and the same states give the same decisions with an iteration budget
(`iters`); a time budget (`time`) depends on the machine's speed and load, so games with it are not
reproducible from their seeds (`SearchConfig.machine_dependent`; tournaments say so in their
output). Every accepted configuration bounds a decision: at most MAX_ITERS iterations or MAX_TIME
seconds (a spec that would lift both is refused). Hidden information: the search
reads the real state only through the determinization, whose result does not depend on what
the searcher cannot see (tests/core/test_search.py checks it).
"""

from __future__ import annotations

import importlib
import math
import time
from dataclasses import asdict, dataclass, fields
from types import ModuleType

import numpy as np

from core.bundles import MCTSScratch, mcts_scratch
from core.registry import game_packages, get_game
from core.rng import rng_seed, split_seed
from core.search_tree import (
    MCTS_OPP_CODES,
    N_PARAMS,
    P_C,
    P_CUTOFF,
    P_EPS,
    P_OPP,
    P_QUIET,
    P_RETURNS,
    P_ROLLOUT,
    P_SCALE,
    P_SPREAD,
    RETURN_CODES,
    ROLLOUT_CODES,
    child,
    clear,
    new_tree,
    reroot,
    root_choice,
)

SPEC_PREFIX = "mcts"
TIME_BUDGET_NODES_PER_S = 200_000  # tree capacity per second of a time budget (more: no expansion)
MAX_NODES = 4_000_000
MAX_ITERS = 1_000_000  # iterations per decision, at most (twice that fills the largest tree)
MAX_TIME = 60.0  # seconds per decision, at most
MAX_CUTOFF = 100_000  # rollout decisions before the position evaluation, at most (-1: no cut-off)
NO_CAP = 1 << 40  # `iters` of a time budget given alone: the clock alone stops the search
TIME_ALLOWED = f"seconds per decision in (0, {MAX_TIME:g}]; leave time out for an iteration budget"


@dataclass(frozen=True)
class SearchConfig:
    """The parameters of the `mcts` agent (spec `mcts:key=value,...`; docs/agents.md).

    iters: iterations per decision, 1..MAX_ITERS (with `time`: a cap, when given explicitly);
    time: seconds per decision, in (0, MAX_TIME] (0, the default: no time budget; a spec cannot
    say time=0); c: the UCB exploration constant (returns lie in [-1, 1] for `rank` and
    `win_loss`); rollout: `random` (uniform legal), `greedy` (epsilon-greedy on the game's
    position evaluation) or `bot` (the searcher's own rollout decisions by the game's bot
    lookahead, k_bot_values, the others' greedy); eps: the informed rollouts' uniform share;
    cutoff: decisions per rollout before the position evaluation scores it, up to MAX_CUTOFF (-1:
    play to the end; 0: score the new leaf at once); quiet: after the cut-off, play on to the
    next quiet state (the game's k_quiet: a turn's first decision), so no half-made action is
    scored; returns: what a node maximises, `rank`, `margin` (own score minus the best other, /
    the game's margin scale) or `win_loss`; spread: with `rank`, a cut-off position's projected
    scores count as the expected rank under this many points of logistic noise (0: the plain
    rank); reuse: keep the subtree of the actions played since the last decision (needs
    `notify`; not with opp=greedy, whose tree holds no other seat's actions); nodes: tree
    capacity (0 = from the budget); opp: the other seats inside the tree walk, `tree` (nodes of
    their own, chosen by UCB) or `greedy` (the epsilon-greedy rollout policy, no nodes: the
    iterations deepen the searcher's own decisions). Every value is checked: a bad one is
    refused (ValueError naming what is allowed), so no configuration searches for ever."""

    iters: int = 1000
    time: float = 0.0
    c: float = 0.7
    rollout: str = "random"
    eps: float = 0.1
    cutoff: int = 20
    quiet: bool = True
    returns: str = "rank"
    spread: float = 5.0
    reuse: bool = True
    nodes: int = 0
    opp: str = "tree"

    def __post_init__(self):
        def bad(key, allowed):
            raise ValueError(f"mcts: {key}={getattr(self, key)!r} is not allowed; {allowed}")

        def integer(x) -> bool:
            return isinstance(x, int) and not isinstance(x, bool)

        def number(x) -> bool:
            return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

        if not (number(self.time) and (self.time == 0 or 0 < self.time <= MAX_TIME)):
            bad("time", TIME_ALLOWED)
        # NO_CAP only under a time budget: some bound always stops a decision
        if not (integer(self.iters) and (1 <= self.iters <= MAX_ITERS or self.iters == NO_CAP)):
            bad("iters", f"an integer in 1..{MAX_ITERS}")
        if self.iters == NO_CAP and self.time == 0:
            bad("iters", f"an integer in 1..{MAX_ITERS} (no cap only with a time budget)")
        if not (number(self.c) and self.c >= 0):
            bad("c", "a finite number >= 0")
        if self.rollout not in ROLLOUT_CODES:
            bad("rollout", f"one of {', '.join(ROLLOUT_CODES)}")
        if not (number(self.eps) and 0.0 <= self.eps <= 1.0):
            bad("eps", "a number in [0, 1]")
        if not (integer(self.cutoff) and -1 <= self.cutoff <= MAX_CUTOFF):
            bad("cutoff", f"an integer in 0..{MAX_CUTOFF}, or -1 for no cut-off")
        if not (number(self.spread) and self.spread >= 0):
            bad("spread", "a finite number of points >= 0 (0: the plain rank of the projection)")
        if self.returns not in RETURN_CODES:
            bad("returns", f"one of {', '.join(RETURN_CODES)}")
        if self.opp not in MCTS_OPP_CODES:
            bad("opp", f"one of {', '.join(MCTS_OPP_CODES)}")
        if not (integer(self.nodes) and 0 <= self.nodes <= MAX_NODES):
            bad("nodes", f"an integer in 0..{MAX_NODES} (0: from the budget)")

    @property
    def machine_dependent(self) -> bool:
        """Whether decisions depend on the machine's speed and load, not only on the seed and the
        states: a time budget stops the search on a clock (the number of iterations, and so the
        decision, depends on how fast this machine runs now, e.g. on how many workers share
        it)."""
        return self.time > 0

    @classmethod
    def parse(cls, text: str) -> SearchConfig:
        """From "iters=1000,c=0.7,rollout=greedy" (the part after `mcts:`); clear errors."""
        return cls(**cls._with_time_rule(cls._kwargs(text)))

    @classmethod
    def for_game(cls, game, text: str = "") -> SearchConfig:
        """parse(text) on top of the game's own defaults (GameSpec.search_defaults, set in the
        game's spec.py: Troyes' `rollout=bot` and others), which the text's keys override."""
        kw = cls._kwargs(_game_object(game).spec.search_defaults)
        kw.update(cls._with_time_rule(cls._kwargs(text)))
        return cls(**kw)

    @staticmethod
    def _with_time_rule(kw: dict) -> dict:
        """A time budget given alone lifts the iteration cap (NO_CAP); a spec's time must be a
        budget (time=0 there would leave the search with no bound at all)."""
        if "time" in kw:
            t = kw["time"]
            if not (math.isfinite(t) and 0 < t <= MAX_TIME):
                raise ValueError(f"mcts: time={t!r} is not allowed; {TIME_ALLOWED}")
            if "iters" not in kw:
                kw["iters"] = NO_CAP
        return kw

    @classmethod
    def _kwargs(cls, text: str) -> dict:
        """The key=value pairs of `text`, typed; ValueError naming the bad part."""
        return config_pairs(cls, text, SPEC_PREFIX)

    @classmethod
    def from_spec(cls, spec: str) -> SearchConfig:
        """From a full agent spec "mcts" or "mcts:iters=...,..."."""
        name, _sep, rest = spec.partition(":")
        if name != SPEC_PREFIX:
            raise ValueError(f"not an mcts spec: {spec!r}")
        return cls.parse(rest)

    def spec(self) -> str:
        """The canonical agent spec: every parameter that differs from the default."""
        default = SearchConfig()
        parts = []
        for k, v in asdict(self).items():
            if k == "iters" and v == NO_CAP:
                continue
            if v != getattr(default, k):
                parts.append(f"{k}={int(v) if isinstance(v, bool) else v}")
        return SPEC_PREFIX + (":" + ",".join(parts) if parts else "")


def config_pairs(cls, text: str, prefix: str) -> dict:
    """The key=value pairs of `text` ("a=1,b=x"), each typed as the field of dataclass `cls` it
    names (int, float, bool, str); ValueError, starting with `prefix`, naming the bad part."""
    types = {f.name: f.type for f in fields(cls)}
    kw: dict = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in types:
            raise ValueError(
                f"{prefix}: {part!r} is not key=value with a key among {', '.join(types)}"
            )
        value = value.strip()
        try:
            if types[key] in ("int", int):
                kw[key] = int(value)
            elif types[key] in ("float", float):
                kw[key] = float(value)
            elif types[key] in ("bool", bool):
                if value.lower() not in ("1", "0", "true", "false", "yes", "no"):
                    raise ValueError(value)
                kw[key] = value.lower() in ("1", "true", "yes")
            else:
                kw[key] = value
        except ValueError:
            raise ValueError(f"{prefix}: {key}={value!r} is not a valid {types[key]}") from None
    return kw


def is_search_spec(spec: str) -> bool:
    """Whether an agent spec names the search agent ("mcts" or "mcts:...")."""
    return spec == SPEC_PREFIX or spec.startswith(SPEC_PREFIX + ":")


def _game_object(game):
    if isinstance(game, str):
        game = get_game(game)
    return game.GAME if isinstance(game, ModuleType) else game


def search_bundles(game, cap: int) -> tuple[tuple, MCTSScratch]:
    """The arrays of the compiled search (core/search_template.py `search`), in its two bundles:
    the tree (tree, vals, hdr) of `cap` nodes and the scratch (core.bundles.MCTSScratch).
    Made once per agent: an iteration allocates nothing."""
    kernels = importlib.import_module(f"{_package_of(game)}.engine.contract")
    return new_tree(cap), mcts_scratch(game, cap, kernels.BOT_SCRATCH_I, kernels.BOT_SCRATCH_F)


class MCTSAgent:
    """The `mcts` agent of one game (module docstring). `act(state)` searches for the player to
    act and returns a legal action; `notify(action)` after every step of the game (every
    player's) lets it keep the matching subtree for its next decision; `last` holds the last
    search's figures (iterations, engine steps, seconds, tree nodes, root visits)."""

    def __init__(self, game, config: SearchConfig | str | None = None, seed: int = 0):
        self.game = _game_object(game)
        if config is None:
            config = SearchConfig.for_game(self.game)
        elif isinstance(config, str):  # "mcts:..." or what follows "mcts:", on the game defaults
            if is_search_spec(config):
                config = config.partition(":")[2]
            config = SearchConfig.for_game(self.game, config)
        self.config = config
        self.name = config.spec()
        g = self.game
        self._loops = importlib.import_module(f"{_package_of(g)}.engine.search_loops")
        cfg = config
        if cfg.nodes:
            cap = cfg.nodes
        elif cfg.time > 0:
            cap = int(cfg.time * TIME_BUDGET_NODES_PER_S) + 2
            if cfg.iters < NO_CAP:
                cap = min(cap, 2 * cfg.iters + 2)
        else:
            cap = 2 * cfg.iters + 2  # room for a reused subtree plus this decision's nodes
        cap = max(2, min(cap, MAX_NODES))
        self._tr, self._sc = search_bundles(g, cap)
        self.tree, self.vals, self.hdr = self._tr
        self._stats = self._sc.stats
        self._tree2, self._vals2, _ = new_tree(cap)
        self._queue = np.zeros(cap, dtype=np.int64)
        self._choice = np.zeros(2, dtype=np.int64)
        self._rng = np.zeros(4, dtype=np.int64)
        rng_seed(self._rng, 0, *split_seed(int(seed)))
        self._P = np.zeros(N_PARAMS, dtype=np.float64)
        self._P[P_C] = cfg.c
        self._P[P_CUTOFF] = cfg.cutoff
        self._P[P_ROLLOUT] = ROLLOUT_CODES[cfg.rollout]
        self._P[P_EPS] = cfg.eps
        self._P[P_RETURNS] = RETURN_CODES[cfg.returns]
        self._P[P_SCALE] = float(g.spec.margin_scale)
        self._P[P_QUIET] = float(cfg.quiet)
        self._P[P_SPREAD] = cfg.spread
        self._P[P_OPP] = MCTS_OPP_CODES[cfg.opp]
        self._history: list[int] = []
        self._searched = False
        self.last: dict = {}

    # --- the agent protocol --------------------------------------------------------------------
    def reset(self) -> None:
        """Forget the tree (a new game)."""
        clear(self.tree, self.vals, self.hdr)
        self._history.clear()
        self._searched = False

    def notify(self, action: int) -> None:
        """Tell the agent that `action` was played (by anyone): keeps the subtree valid."""
        self._history.append(int(action))

    def act(self, state: np.ndarray) -> int:
        """A legal action for game.current_player(state), chosen by the search."""
        g = self.game
        if g.is_terminal(state):
            raise ValueError(f"{g.name}: the game is over; no player to act")
        me = int(g.current_player(state))
        n = int(g.num_players(state))
        root_mask = np.ascontiguousarray(g.legal_mask(state), dtype=np.bool_)
        legal = np.flatnonzero(root_mask)
        t0 = time.perf_counter()
        reused = self._reuse()
        if len(legal) == 1:
            self.reset()
            self.last = {"iterations": 0, "steps": 0, "seconds": 0.0, "nodes": 1, "forced": True}
            return int(legal[0])
        root = np.ascontiguousarray(state, dtype=np.int64)
        self._stats[:] = 0
        self._run(root, root_mask, n, me, t0)
        a = int(root_choice(self.tree, self.vals, root_mask, me, self._choice))
        if a < 0:  # no iteration reached a child (cannot happen with iters >= 1): any legal one
            a = int(legal[0])
        self._history.clear()
        self._searched = True
        self.last = {
            "iterations": int(self._stats[0]),
            "steps": int(self._stats[1]),
            "lookahead_steps": int(self._stats[2]),
            "seconds": time.perf_counter() - t0,
            "nodes": int(self.hdr[0]),
            "root_visits": int(self._choice[1]),
            "reused_nodes": reused,
        }
        return a

    # --- internals -------------------------------------------------------------------------------
    def _reuse(self) -> int:
        """Move the subtree of the actions played since the last search to the root, if every
        one of them is in the tree; else start afresh. Returns the nodes kept."""
        if not (
            self.config.reuse and self.config.opp == "tree" and self._searched and self._history
        ):
            clear(self.tree, self.vals, self.hdr)
            return 0
        node = 0
        for a in self._history:
            node = int(child(self.tree, node, a))
            if node < 0:
                clear(self.tree, self.vals, self.hdr)
                return 0
        return int(
            reroot(self.tree, self.vals, self.hdr, node, self._tree2, self._vals2, self._queue)
        )

    def _run(self, root, root_mask, n, me, t0) -> None:
        cfg = self.config
        T = self.game.tables
        loops = self._loops

        def chunk(k: int) -> None:
            code = loops.search(
                root, root_mask, T, n, me, k, self._P, self._rng, self._tr, self._sc
            )  # fmt: skip
            if code != 0:
                raise RuntimeError(
                    f"{self.game.name}: the engine refused an action during search (a bug; "
                    "please report it with the state)"
                )

        if cfg.time <= 0:
            chunk(cfg.iters)
            return
        deadline = t0 + cfg.time
        done = 0
        k = 8
        while done < cfg.iters:
            k = min(k, cfg.iters - done)
            c0 = time.perf_counter()
            chunk(k)
            done += k
            now = time.perf_counter()
            per = max((now - c0) / k, 1e-9)  # a clock too coarse to see the chunk: no division by 0
            left = deadline - now
            if left <= per:
                break
            k = max(1, min(int(left / per * 0.5), 4 * k))


def _package_of(game) -> str:
    return game_packages()[game.name]
