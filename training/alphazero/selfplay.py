"""Self-play games of expert iteration: every seat plays the guided search (core.guided) with the
same network, each game played to its end inside compiled code (`SelfPlayer.play_many`,
core/selfplay_template.py: no Python per decision, the leaves of many games evaluated together;
where the other seats' rule calls the network inside a simulation, the single-game loop
core/search_template.py `pv_selfplay`), and the training examples it leaves.

An example is one decision with more than one legal action: the seat's observation, its legal
mask, the search's improved policy (the network's policy target: the root's visit shares with
`root=puct`, the completed-Q policy with `root=gumbel`) and the value target: the game's final
returns seen from that seat (entry j is the return of the seat j places after it in turn order,
as the network's value outputs are; entries past the player count are 0 and masked out of the
loss), or with `qmix` > 0 their mix with the search's root values, (1 - qmix) x final + qmix x
root value. The root value is known at the decision, so it varies far less than the final
result of a game with dice and hidden cards; the final result keeps the target anchored to what
happened.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np

from core.bundles import EXAMPLE_FIELDS, example_records
from core.guided import ROOT_KINDS, GuidedAgent, GuidedConfig, selfplay_bundles
from core.registry import game_packages, get_game
from core.rng import rng_seed, split_seed
from core.search_tree import F_VISITS
from training.agents.registry import make_agent

# examples one game may leave (a longer game is refused, not cut): rules variants with a long
# life track play up to the round cap, several thousand decisions at 4 players
MAX_ROWS = 16384
BATCH = 1  # games play_many plays at once: more (one forward per round for all their leaves)
# measured no faster on a 2-core CPU (benchmarks/results/selfplay/README.md)
POOL_ROWS = 256  # examples per game the pool of play_many holds before Python takes them
CACHE = 512  # network outputs each game of play_many keeps, by observation (a power of two)
BATCHED_OPP = ("tree", "prior", "priormax")  # the other seats' rules play_many plays in batches


class GameTooLongError(RuntimeError):
    """A self-play game left more than MAX_ROWS examples (a rules variant may allow a game
    without end): refused, not cut."""


@dataclass
class Examples:
    """Training examples, one row each: obs float32 (N, OBS_SIZE), mask bool (N, NUM_ACTIONS),
    pi float32 (N, NUM_ACTIONS), z float32 (N, seats), zmask bool (N, seats)."""

    obs: np.ndarray
    mask: np.ndarray
    pi: np.ndarray
    z: np.ndarray
    zmask: np.ndarray

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    @staticmethod
    def concat(parts: list[Examples]) -> Examples:
        return Examples(*(np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS))


FIELDS = ("obs", "mask", "pi", "z", "zmask")


class SelfPlayer:
    """Plays self-play games of `game` at `players` seats with one network (arrays in the
    trained-actor format) and the guided search's settings; scratch made once. Exploration: the
    root's Gumbel noise `noise` (PUCT: added to its logits; Gumbel root: its gscale) and the first
    `explore` decisions of a game drawn from the policy target. `qmix` in [0, 1]: the root
    values' share in the value target (module docstring)."""

    def __init__(self, game_name: str, players: int, arrays: dict, config: GuidedConfig,
                 explore: int = 20, noise: float = 1.0, seed: int = 0,
                 qmix: float = 0.0):  # fmt: skip
        if not 0.0 <= qmix <= 1.0:
            raise ValueError(f"qmix must be in [0, 1], got {qmix}")
        self.game = get_game(game_name)
        self.players = int(players)
        self.explore, self.noise, self.qmix = int(explore), float(noise), float(qmix)
        self.agent = GuidedAgent(self.game, arrays, config, seed=seed)  # holds the scratch
        g = self.game
        self.seats = max(g.PLAYER_COUNTS)
        self._x = example_records(self.agent.game, MAX_ROWS)  # one game's examples
        self.actions = np.zeros(0, dtype=np.int64)  # the last game's searched decisions' actions
        self._loops = None  # the game's selfplay_loops module, imported by the first play_many
        self._bundles: dict[int, tuple] = {}  # play_many's arrays, by games at once
        self.last: dict = {}  # the last games' simulations, engine steps, network calls

    def play(self, seed: int) -> tuple[Examples, np.ndarray]:
        """One game from new_game(players, seed), its search seeded by the game's seed: (its
        examples, its final state); `actions` then holds its searched decisions' actions and
        `last` its simulations, engine steps and network calls. It is `play_many([seed])[0]`
        wherever the other seats' rule is one play_many batches (BATCHED_OPP), else play_one."""
        if self.agent.config.opp in BATCHED_OPP:
            return self.play_many([seed])[0]
        return self.play_one(seed)

    def play_one(self, seed: int) -> tuple[Examples, np.ndarray]:
        """`play` by the single-game compiled loop (GuidedAgent.self_play: core/search_template.py
        `pv_selfplay`, one network call per leaf), the same game, bit for bit. `play` takes it
        only with `opp=net` or `netmax`: there a simulation calls the network for the other
        seats' moves in the middle of its walk, which the batched loop, whose walks stop only at
        a leaf for the round's one forward, does not do. For the other rules it is the reference
        the batched loop is checked against (tests/training/test_selfplay_many.py, the selfplay
        benchmark)."""
        g, a = self.game, self.agent
        a.reset(seed)
        s = np.array(g.new_game(self.players, int(seed)), dtype=np.int64)
        gmask = np.array(g.legal_mask(s), dtype=np.bool_)  # writable: played in place
        rows = a.self_play(s, gmask, self.players, self.explore, self.noise, self._x)
        self.last = a.last
        if rows < 0:
            self._fail(rows, seed)
        return self._examples(rows, s), s

    def _fail(self, code: int, seed: int) -> None:
        """Raise the error of a compiled self-play loop's failure code (-2: too many examples,
        else the engine refused an action) for the game of `seed`."""
        g = self.game
        if code == -2:
            raise GameTooLongError(
                f"{g.NAME}: a self-play game left more than {MAX_ROWS} examples (seed {seed})"
            )
        raise RuntimeError(
            f"{g.NAME}: the engine refused an action in self-play (a bug; please report it with "
            f"the seed {seed})"
        )

    def play_many(self, seeds, batch: int = BATCH) -> list[tuple[Examples, np.ndarray]]:
        """The games new_game(players, seed) for each seed, in order: [(its examples, its final
        state)], the same, bit for bit, as `play_one(seed)` gives for each (each game's search
        draws from its own stream, seeded by the game's seed), in less time: the compiled loop
        of core/selfplay_template.py (`pv_selfplay_many`) keeps each game's network outputs by
        observation (a leaf whose observation the network already scored in that game, the
        same entry by entry, takes them instead of a forward), evaluates leaves with an
        eight-input forward of the hidden layers (core.mlp.batch_trunk) and computes only the
        outputs the search reads: the seats' values at each leaf, a node's logits at its legal
        actions when a walk first needs them (core.mlp.head_outputs). `batch` games are played
        at once, one forward per round for all the leaves they wait on. With `opp=net` or
        `netmax` (the network called inside a simulation) the games are played one by one by
        `play_one`. `last` then sums the games' figures, `actions` holds the last game's."""
        if isinstance(batch, bool) or not (isinstance(batch, int) and batch >= 1):
            raise ValueError(f"batch must be an integer >= 1, got {batch!r}")
        seeds = [int(s) for s in seeds]
        if self.agent.config.opp not in BATCHED_OPP:
            out, total = [], {}
            for s in seeds:
                out.append(self.play_one(s))
                total = {k: total.get(k, 0) + v for k, v in self.last.items()}
            self.last = total
            return out
        out, total = [], {"simulations": 0, "steps": 0, "network_calls": 0}
        for i in range(0, len(seeds), batch):
            out += self._play_batch(seeds[i : i + batch], total)
        self.last = total
        return out

    def _play_batch(self, seeds: list[int], total: dict) -> list[tuple[Examples, np.ndarray]]:
        g, a, cfg = self.game, self.agent, self.agent.config
        k = len(seeds)
        if self._loops is None:
            pkg = game_packages()[g.NAME]
            self._loops = importlib.import_module(f"{pkg}.engine.selfplay_loops")
        if k not in self._bundles:  # made once per batch size, reused game after game
            self._bundles[k] = selfplay_bundles(
                a.game, k, max(2, cfg.sims + 1), a.packed, POOL_ROWS * k, CACHE
            )
        tr, gs, sh, net, records = self._bundles[k]
        gs.ctl[:] = 0  # each game at its first decision, no example, no lookup yet
        gs.ckey[:] = 0  # empty caches
        sh.child_of[:] = -1
        sh.stats[:] = 0
        records.fill[:] = 0
        states = np.stack([np.asarray(g.new_game(self.players, s), dtype=np.int64) for s in seeds])
        masks = np.stack([np.asarray(g.legal_mask(s), dtype=np.bool_) for s in states])
        for i, s in enumerate(seeds):
            rng_seed(gs.rng[i], 0, *split_seed(s))
        play = (int(cfg.sims), ROOT_KINDS[cfg.root], int(cfg.m), self.explore, self.noise, MAX_ROWS)
        parts: list[list[tuple]] = [[] for _ in seeds]
        fill = records.fill
        while True:
            code = int(self._loops.pv_selfplay_many(
                a.game.tables, self.players, play, a._P, (states, masks), tr, gs, sh, net, records,
            ))  # fmt: skip
            rows = int(fill[0])
            games = records.game[:rows]
            for i in np.unique(games):
                pick = np.flatnonzero(games == i)
                parts[i].append(tuple(getattr(records, f)[pick].copy() for f in EXAMPLE_FIELDS))
            fill[0] = 0
            if code == 0:
                break
            if code < 0:
                self._fail(code, seeds[int(fill[1])])
        stats = sh.stats
        for key, j in (("simulations", 0), ("steps", 1), ("network_calls", 2)):
            total[key] += int(stats[j])
        out = []
        for i in range(k):
            cols = (
                [np.concatenate([p[c] for p in parts[i]]) for c in range(6)]
                if parts[i]
                else [getattr(records, f)[:0].copy() for f in EXAMPLE_FIELDS]
            )
            out.append((self._examples_of(*cols, states[i]), states[i].copy()))
            self.actions = cols[4]
        return out

    def play_against(self, seed: int, opponent: str, seat: int) -> tuple[Examples, np.ndarray]:
        """One game from new_game(players, seed) with the guided search at `seat` and the agent
        spec `opponent` at every other seat (seeded seed x 7919 + its seat): (the examples of
        the search's decisions, the final state). The same examples as self-play: the first
        `explore` of them play an action drawn from the policy target; no root noise (the
        opponent's play and the deal vary the games). Python drives this game: one call of the
        compiled search per decision of `seat`, one of the opponent's per decision of others."""
        g, a = self.game, self.agent
        n = self.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1}, got {seat}")
        others = {
            p: make_agent(opponent, g.NAME, n, seed * 7919 + p) for p in range(n) if p != seat
        }
        draw = np.random.default_rng([int(seed), 23])
        s = np.array(g.new_game(n, int(seed)), dtype=np.int64)
        rows = 0
        while not g.is_terminal(s):
            mask = g.legal_mask(s)
            me = int(g.current_player(s))
            if mask.sum() == 1:
                act = int(np.flatnonzero(mask)[0])
            elif me != seat:
                act = int(others[me].act(s))
            else:
                if rows >= MAX_ROWS:
                    raise GameTooLongError(f"{g.NAME}: a game left more than {MAX_ROWS} examples")
                act = a.act(s)
                pi = a.policy
                self._x.obs[rows] = g.observe(s, me)
                self._x.mask[rows] = mask
                self._x.pi[rows] = pi
                self._x.actor[rows] = me
                visits = a.tree[0, F_VISITS]
                for j in range(n):
                    self._x.q[rows, j] = a.vals[0, (me + j) % n] / visits if visits > 0 else 0.0
                if rows < self.explore:
                    act = int(draw.choice(len(pi), p=pi / pi.sum()))
                self._x.act[rows] = act
                rows += 1
            for other in others.values():
                if hasattr(other, "notify"):
                    other.notify(act)
            s = g.step(s, act)
        return self._examples(rows, s), s

    def _examples(self, rows: int, final_state: np.ndarray) -> Examples:
        """The first `rows` recorded decisions as examples (_examples_of); sets `actions`."""
        r = slice(0, rows)
        self.actions = self._x.act[r].copy()
        return self._examples_of(
            self._x.obs[r], self._x.mask[r], self._x.pi[r], self._x.actor[r], self._x.act[r],
            self._x.q[r], final_state,
        )  # fmt: skip

    def _examples_of(self, obs, mask, pi, actors, acts, q, final_state) -> Examples:
        """Examples of a game's recorded decisions (observations, masks, policy targets, actors,
        actions, root values per seat), their value targets from its final state (and with qmix
        the recorded root values)."""
        g = self.game
        rows = len(actors)
        final = np.asarray(g.returns(final_state, self.agent.config.returns), dtype=np.float32)
        n = self.players
        z = np.zeros((rows, self.seats), dtype=np.float32)
        zmask = np.zeros((rows, self.seats), dtype=np.bool_)
        for j in range(n):
            z[:, j] = final[(actors + j) % n]
            zmask[:, j] = True
        if self.qmix > 0.0:
            z[:, :n] = (1.0 - self.qmix) * z[:, :n] + self.qmix * q[:, :n]
        return Examples(obs.copy(), mask.copy(), pi.copy(), z, zmask)
