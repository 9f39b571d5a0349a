"""Self-play games of expert iteration: every seat plays the guided search (core.guided) with the
same network, each game played to its end inside compiled code (core/search_template.py
`pv_selfplay`: no Python per decision), and the training examples it leaves.

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

from dataclasses import dataclass

import numpy as np

from core.guided import GuidedAgent, GuidedConfig
from core.registry import get_game
from core.search_tree import F_VISITS
from training.agents.registry import make_agent

MAX_ROWS = 4096  # examples one game may leave (a longer game is refused, not cut)


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
        self._x_obs = np.zeros((MAX_ROWS, g.OBS_SIZE), dtype=np.float32)
        self._x_mask = np.zeros((MAX_ROWS, g.NUM_ACTIONS), dtype=np.bool_)
        self._x_pi = np.zeros((MAX_ROWS, g.NUM_ACTIONS), dtype=np.float32)
        self._x_actor = np.zeros(MAX_ROWS, dtype=np.int64)
        self._x_act = np.zeros(MAX_ROWS, dtype=np.int64)
        self._x_q = np.zeros((MAX_ROWS, self.seats), dtype=np.float32)
        self.actions = np.zeros(0, dtype=np.int64)  # the last game's searched decisions' actions
        self.last: dict = {}  # play(): the last game's simulations, engine steps, network calls

    def play(self, seed: int) -> tuple[Examples, np.ndarray]:
        """One game from new_game(players, seed): (its examples, its final state)."""
        g, a = self.game, self.agent
        s = np.array(g.new_game(self.players, int(seed)), dtype=np.int64)
        gmask = np.array(g.legal_mask(s), dtype=np.bool_)  # writable: played in place
        records = (self._x_obs, self._x_mask, self._x_pi, self._x_actor, self._x_act, self._x_q)
        rows = a.self_play(s, gmask, self.players, self.explore, self.noise, records)
        self.last = a.last
        if rows == -2:
            raise RuntimeError(f"{g.NAME}: a self-play game left more than {MAX_ROWS} examples")
        if rows < 0:
            raise RuntimeError(
                f"{g.NAME}: the engine refused an action in self-play (a bug; please report it "
                f"with the seed {seed})"
            )
        return self._examples(rows, s), s

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
                    raise RuntimeError(f"{g.NAME}: a game left more than {MAX_ROWS} examples")
                act = a.act(s)
                pi = a.policy
                self._x_obs[rows] = g.observe(s, me)
                self._x_mask[rows] = mask
                self._x_pi[rows] = pi
                self._x_actor[rows] = me
                visits = a.tree[0, F_VISITS]
                for j in range(n):
                    self._x_q[rows, j] = a.vals[0, (me + j) % n] / visits if visits > 0 else 0.0
                if rows < self.explore:
                    act = int(draw.choice(len(pi), p=pi / pi.sum()))
                self._x_act[rows] = act
                rows += 1
            for other in others.values():
                if hasattr(other, "notify"):
                    other.notify(act)
            s = g.step(s, act)
        return self._examples(rows, s), s

    def _examples(self, rows: int, final_state: np.ndarray) -> Examples:
        """The first `rows` recorded decisions as examples, their value targets from the final
        state (and with qmix the recorded root values); sets `actions`."""
        g = self.game
        self.actions = self._x_act[:rows].copy()
        final = np.asarray(g.returns(final_state, self.agent.config.returns), dtype=np.float32)
        n = self.players
        actors = self._x_actor[:rows]
        z = np.zeros((rows, self.seats), dtype=np.float32)
        zmask = np.zeros((rows, self.seats), dtype=np.bool_)
        for j in range(n):
            z[:, j] = final[(actors + j) % n]
            zmask[:, j] = True
        if self.qmix > 0.0:
            z[:, :n] = (1.0 - self.qmix) * z[:, :n] + self.qmix * self._x_q[:rows, :n]
        return Examples(
            self._x_obs[:rows].copy(),
            self._x_mask[:rows].copy(),
            self._x_pi[:rows].copy(),
            z,
            zmask,
        )
