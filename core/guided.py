"""The network-guided search agent: information-set search steered by a policy-value network
(expert iteration, AlphaZero's PUCT), for any registered game.

    from core.guided import GuidedAgent, GuidedConfig
    agent = GuidedAgent(game, arrays, GuidedConfig.parse("sims=100"), seed=0)
    action = agent.act(state)          # for game.current_player(state)
    agent.visits                       # the last search's root visits per action

`arrays` is a network in the trained-actor format (W0, b0, ..., `activations`: a Linear/activation
stack, training.alphazero.net.PolicyValueNet.arrays) whose output is NUM_ACTIONS logits followed
by one value per seat up to the game's most players, in turn order from the observer's. It is
packed once (core.mlp) and run inside the compiled search, with no torch and no Python per
simulation (core/search_template.py `pv_search`, rendered for each game by core.codegen).

Each simulation determinizes the real state from the searcher's point of view (the game's
`k_determinize`, as the `mcts` agent does), walks down by PUCT on the network's priors and the
mean returns, adds the state it reaches as a node and backs up the network's value of it (mixed
with the game's position evaluation when `mix` > 0); no rollout. With `root=gumbel` the root
spends the simulations by sequential halving over its m most likely actions and plays the one that
wins (`pv_gumbel`; Danihelka et al. 2022). `sims=0` is the network alone: its most likely legal
action on the seat's own observation.

Determinism and hidden information as for `mcts`: the same seed, network and states give the
same decisions (a simulation budget, no clock), and the search reads the real state only through
the determinization, whose result does not depend on what the searcher cannot see.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, fields

import numpy as np

from core import mlp
from core.bundles import (
    batch_network,
    example_records,
    game_rows,
    guided_scratch,
    network,
    shared_scratch,
)
from core.registry import game_packages, get_game
from core.rng import rng_seed, split_seed
from core.search import config_pairs
from core.search_tree import (
    F_ACTION,
    F_FIRST,
    F_NEXT,
    F_VISITS,
    MAX_SEATS,
    N_PARAMS,
    OPP_CODES,
    P_C,
    P_CSCALE,
    P_MIX,
    P_OPP,
    P_RETURNS,
    P_SCALE,
    P_SPREAD,
    RETURN_CODES,
    TREE_COLS,
    clear,
    new_tree,
    root_choice,
)

SPEC_PREFIX = "az"
MAX_SIMS = 100_000  # simulations per decision, at most (one node and one logits row each)
ROOTS = ("puct", "gumbel")  # GuidedConfig.root: the pv_search rule, or pv_gumbel
MAX_CONSIDERED = 1024  # GuidedConfig.m, at most


ROOT_KINDS = {"puct": 0, "gumbel": 1}  # pv_selfplay's root_kind, by GuidedConfig.root


@dataclass(frozen=True)
class GuidedConfig:
    """The parameters of the guided search (spec `az:PATH,key=value,...`; docs/agents.md).

    sims: simulations per decision, 0..MAX_SIMS (0: the network alone, no search); root: how the
    root spends them, `puct` (AlphaZero's rule, the most visited action is played) or `gumbel`
    (sequential halving over the m most likely actions, Danihelka et al. 2022: improves on the
    network with few simulations); m: the actions a Gumbel root considers, 1..MAX_CONSIDERED;
    cscale: how much a Gumbel root trusts its Q-values over the network's logits (the paper's
    c_scale; 0.1, mctx's default, suits noisy values);
    c: the PUCT exploration constant (below the root for `gumbel`); mix: the share of the game's
    position evaluation in a new node's value, in [0, 1] (0: the network's value alone); returns:
    what the values mean and a terminal state scores, `rank`, `win_loss` or `margin` (as the
    network was trained); spread: with `rank`, the noise of the position evaluation's projected
    scores (as `mcts`'s); opp: how a simulation plays the other seats, `tree` (nodes of their own,
    by PUCT), `net` (drawn from the network's policy on their own observation, no nodes: the tree
    holds the searcher's decisions only), `netmax` (the policy's most likely action), `prior`
    (nodes of their own, each move drawn from the policy the network gave the node when it was
    added: no search and no more network calls than `tree`) or `priormax` (that policy's most
    likely action). Every
    value is checked: a bad one is refused with a ValueError naming
    what is allowed."""

    sims: int = 100
    root: str = "puct"
    m: int = 16
    cscale: float = 0.1
    c: float = 1.5
    mix: float = 0.0
    returns: str = "rank"
    spread: float = 5.0
    opp: str = "tree"

    def __post_init__(self):
        def bad(key, allowed):
            raise ValueError(
                f"{SPEC_PREFIX}: {key}={getattr(self, key)!r} is not allowed; {allowed}"
            )

        def number(x) -> bool:
            return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

        if not (isinstance(self.sims, int) and not isinstance(self.sims, bool)):
            bad("sims", f"an integer in 0..{MAX_SIMS}")
        if not 0 <= self.sims <= MAX_SIMS:
            bad("sims", f"an integer in 0..{MAX_SIMS}")
        if self.root not in ROOTS:
            bad("root", f"one of {', '.join(ROOTS)}")
        if not (isinstance(self.m, int) and not isinstance(self.m, bool)) or not (
            1 <= self.m <= MAX_CONSIDERED
        ):
            bad("m", f"an integer in 1..{MAX_CONSIDERED}")
        if not (number(self.cscale) and self.cscale > 0):
            bad("cscale", "a finite number > 0")
        if not (number(self.c) and self.c >= 0):
            bad("c", "a finite number >= 0")
        if not (number(self.mix) and 0.0 <= self.mix <= 1.0):
            bad("mix", "a number in [0, 1]")
        if self.returns not in RETURN_CODES:
            bad("returns", f"one of {', '.join(RETURN_CODES)}")
        if not (number(self.spread) and self.spread >= 0):
            bad("spread", "a finite number of points >= 0")
        if self.opp not in OPP_CODES:
            bad("opp", f"one of {', '.join(OPP_CODES)}")

    @classmethod
    def parse(cls, text: str) -> GuidedConfig:
        """From "sims=100,c=1.5" (key=value pairs); a ValueError naming the bad part."""
        return cls(**config_pairs(cls, text, SPEC_PREFIX))

    def spec(self) -> str:
        """The parameters that differ from the defaults, as key=value pairs."""
        default = GuidedConfig()
        return ",".join(
            f"{f.name}={getattr(self, f.name)}"
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        )


def search_bundles(game, cap: int, w: np.ndarray, meta: np.ndarray, widest: int):
    """The arrays of the compiled guided search (core/search_template.py), in its three bundles:
    the tree (tree, vals, plog, hdr) of `cap` nodes, the scratch (core.bundles.GuidedScratch)
    and the network (core.bundles.Network: the packed network of core.mlp.pack_actors and its
    scratch). Made once per agent: a simulation allocates nothing."""
    tree, vals, hdr = new_tree(cap)
    plog = np.zeros((cap + 1, game.num_actions), dtype=np.float32)  # a node's logits; last: scratch
    return (tree, vals, plog, hdr), guided_scratch(game, cap), network(game, w, meta, widest)


def selfplay_bundles(game, games: int, cap: int, network: tuple, rows: int, cache: int):
    """The arrays of the self-play of `games` games at once (core/selfplay_template.py
    `pv_selfplay_many`), in its bundles: the trees (tree, vals, plog, hdr; one per game, `cap`
    nodes each), what each game keeps between rounds (core.bundles.GameRows), the scratch they
    share (core.bundles.SharedScratch), the network with the batch's scratch
    (core.bundles.BatchNetwork) and the pool of `rows` examples
    (core.bundles.ExampleRecords). `network`: (w, meta, widest) of core.mlp.pack_actors;
    `cache`: the entries (a power of two) of each game's cache of network outputs. Made once
    per batch of games: a round allocates nothing."""
    na = game.num_actions
    w, meta, widest = network
    hidden = int(meta[0, 1 + mlp.LAYER_META * (int(meta[0, 0]) - 1)])  # the last layer's inputs
    tree = np.zeros((games, cap, TREE_COLS), dtype=np.int64)
    vals = np.zeros((games, cap, MAX_SEATS), dtype=np.float64)
    plog = np.zeros((games, cap + 1, na), dtype=np.float32)
    hdr = np.zeros((games, 2), dtype=np.int64)
    for g in range(games):
        clear(tree[g], vals[g], hdr[g])
    return (
        (tree, vals, plog, hdr),
        game_rows(game, games, cap, cache, hidden),
        shared_scratch(game, cap),
        batch_network(game, games, w, meta, widest),
        example_records(game, rows),
    )


class GuidedAgent:
    """The guided search agent of one game with one network (module docstring). `act(state)`
    returns a legal action for the player to act; after a search, `visits` (float64,
    NUM_ACTIONS) holds the root's visit counts per action (the improved policy of expert
    iteration with a PUCT root), `policy` the improved policy of a Gumbel root (the visit shares
    of a PUCT one) and `last` the search's figures."""

    def __init__(self, game, arrays: dict, config: GuidedConfig | str | None = None, seed: int = 0,
                 name: str | None = None):  # fmt: skip
        if isinstance(game, str):
            game = get_game(game)
        self.game = g = getattr(game, "GAME", game)
        if config is None:
            config = GuidedConfig()
        elif isinstance(config, str):
            config = GuidedConfig.parse(config)
        self.config = cfg = config
        self.name = name or (SPEC_PREFIX + (":" + cfg.spec() if cfg.spec() else ""))
        na, seats = g.num_actions, max(g.spec.player_counts)
        if not mlp.packable(arrays):
            raise ValueError(
                f"{SPEC_PREFIX}: the network has more than {mlp.MAX_LAYERS} layers or an "
                f"activation other than {', '.join(mlp.ACTIVATIONS)}"
            )
        self._w, self._meta, widest = mlp.pack_actors([arrays])
        self.packed = (self._w, self._meta, widest)  # the network as the compiled loops take it
        ins, outs = mlp.actor_io(self._meta, 0)
        if ins != g.spec.obs_size or outs != na + seats:
            raise ValueError(
                f"{SPEC_PREFIX}: the network maps {ins} inputs to {outs} outputs; {g.name} needs "
                f"{g.spec.obs_size} inputs (its observation) and {na + seats} outputs ({na} action "
                f"logits, {seats} seat values)"
            )
        pkg = game_packages()[g.name]
        self._loops = importlib.import_module(f"{pkg}.engine.search_loops")
        self._tr, self._sc, self._net = search_bundles(g, max(2, cfg.sims + 1), self._w,
                                                       self._meta, widest)  # fmt: skip
        self.tree, self.vals, self._plog, self.hdr = self._tr
        self._stats, self._pi = self._sc.stats, self._sc.pi
        self._root = np.zeros(g.state_size, dtype=np.int64)
        self._root_mask = np.zeros(na, dtype=np.bool_)
        self._out = self._net.out
        self._cdf = np.zeros(na, dtype=np.float64)
        self._choice = np.zeros(2, dtype=np.int64)
        self._rng = np.zeros(4, dtype=np.int64)
        rng_seed(self._rng, 0, *split_seed(int(seed)))
        self._P = np.zeros(N_PARAMS, dtype=np.float64)
        self._P[P_C] = cfg.c
        self._P[P_MIX] = cfg.mix
        self._P[P_CSCALE] = cfg.cscale
        self._P[P_RETURNS] = RETURN_CODES[cfg.returns]
        self._P[P_SCALE] = float(g.spec.margin_scale)
        self._P[P_SPREAD] = cfg.spread
        self._P[P_OPP] = OPP_CODES[cfg.opp]
        self.visits = np.zeros(na, dtype=np.float64)
        self.policy = np.zeros(na, dtype=np.float64)
        self.last: dict = {}

    def reset(self, seed: int | None = None) -> None:
        """Forget the last search (a new game); with `seed`, reseed the search's stream."""
        clear(self.tree, self.vals, self.hdr)
        if seed is not None:
            rng_seed(self._rng, 0, *split_seed(int(seed)))

    def logits(self, state: np.ndarray) -> np.ndarray:
        """The network's action logits (float32, NUM_ACTIONS) for the player to act, from that
        seat's own observation."""
        g = self.game
        obs = np.ascontiguousarray(g.observe(state, int(g.current_player(state))), np.float32)
        mlp.actor_logits(self._w, self._meta, 0, obs, self._net.h, self._out)
        return self._out[: g.num_actions].copy()

    def self_play(self, state, mask, players, explore, noise, records) -> int:
        """Play the game from `state` (in place; `mask`: its legal actions, writable) to its end in
        compiled code, every seat's decision by this search (core.search_template.pv_selfplay: the
        root's noise `noise`, the first `explore` decisions drawn from the policy target), and
        record each searched decision into `records` (core.bundles.ExampleRecords of as many
        rows as a game may record). Returns the rows recorded (-2: more than the arrays hold;
        < 0 else: the engine refused an action). `last` then counts the game's simulations,
        engine steps and network calls. (Self-play plays here only with
        `opp=net` or `netmax`: training.alphazero.selfplay.SelfPlayer.play_one.)"""
        cfg = self.config
        self._stats[:] = 0
        play = (int(cfg.sims), ROOT_KINDS[cfg.root], int(cfg.m), int(explore), float(noise))
        rows = int(self._loops.pv_selfplay(
            state, mask, self.game.tables, players, play, self._P, self._rng, self._tr, self._sc,
            self._net, records,
        ))  # fmt: skip
        self.last = {
            "simulations": int(self._stats[0]),
            "steps": int(self._stats[1]),
            "network_calls": int(self._stats[2]),
        }
        return rows

    def act(self, state: np.ndarray) -> int:
        """A legal action for game.current_player(state): the most visited root action of
        `sims` simulations (root `puct`), the action sequential halving selects (root `gumbel`),
        or with sims=0 the network's most likely legal action."""
        g = self.game
        if g.is_terminal(state):
            raise ValueError(f"{g.name}: the game is over; no player to act")
        # copies into the agent's own buffers: one argument type (writable), one compiled search
        root_mask = self._root_mask
        root_mask[:] = g.legal_mask(state)
        legal = np.flatnonzero(root_mask)
        self.visits[:] = 0.0
        self.policy[:] = 0.0
        if len(legal) == 1 or self.config.sims == 0:
            if len(legal) == 1:
                a = int(legal[0])
            else:
                logits = self.logits(state)
                a = int(mlp.actor_choice(logits, root_mask, True, self._rng, self._cdf))
            self.visits[a] = 1.0
            self.policy[a] = 1.0
            self.last = {"simulations": 0, "forced": len(legal) == 1}
            return a
        me = int(g.current_player(state))
        n = int(g.num_players(state))
        root = self._root
        root[:] = state
        clear(self.tree, self.vals, self.hdr)
        self._stats[:] = 0
        cfg = self.config
        if cfg.root == "gumbel":  # no noise: the deterministic Gumbel search
            a = int(self._loops.pv_gumbel(
                root, root_mask, g.tables, n, me, cfg.sims, cfg.m, 0.0, self._P, self._rng,
                self._tr, self._sc, self._net,
            ))  # fmt: skip
            self.policy[:] = self._pi
            code = 0 if a >= 0 else -1
        else:  # the first simulation scores the root; each further one adds a node
            code = self._loops.pv_search(
                root, root_mask, g.tables, n, me, cfg.sims + 1, -1, self._P, self._rng,
                self._tr, self._sc, self._net,
            )  # fmt: skip
        if code != 0:
            raise RuntimeError(
                f"{g.name}: the engine refused an action during search (a bug; please report it "
                "with the state)"
            )
        if cfg.root == "puct":
            a = int(root_choice(self.tree, self.vals, root_mask, me, self._choice))
        ch = int(self.tree[0, F_FIRST])
        while ch >= 0:
            self.visits[self.tree[ch, F_ACTION]] = self.tree[ch, F_VISITS]
            ch = int(self.tree[ch, F_NEXT])
        if cfg.root == "puct":
            total = self.visits.sum()
            self.policy[:] = self.visits / total if total > 0 else 0.0
        if a < 0:
            a = int(legal[0])
        self.last = {
            "simulations": int(self._stats[0]),
            "steps": int(self._stats[1]),
            "network_calls": int(self._stats[2]),
            "nodes": int(self.hdr[0]),
            "root_visits": int(self.visits[a]),
        }
        return a
