"""B single-seat games in a game's batch engine (core.batch), stepped in one compiled call
(DESIGN D8, D9): what the vector envs (SB3's VecEnv, training.learn.batch_vec_env; Gymnasium's
VectorEnv, training.learn.gym_vector) share.

Same contract as `training.learn.env.SingleSeatEnv` in a DummyVecEnv/SubprocVecEnv: each episode the
learner takes a random seat; the other seats are played inside `step` by opponents drawn from a
weighted pool ("random", a bot name such as "heuristic", or a checkpoint path = frozen
snapshot); the reward is `returns(state, reward_kind)[seat]` at the end, in the learner's frame;
a game stopped by the engine's safety cap ends as truncated (`TimeLimit.truncated`).
Random opponents, compiled bots (core.bots.CompiledBot: the `heuristic` of every game that has
one) and frozen snapshot policies (training.agents.policy.PolicyAgent, packed for the engine by
core.mlp) play inside one compiled call per vector step for every slot (core.batch.BatchEngine.
play_seats), each from its own stream: a bot exactly as its `act` would, a snapshot from the
same distribution as its `act` (its float32 forward pass rounds differently from numpy's in the
last bits); any other agent (a game's bot written in Python, a search agent) plays per slot in
Python, and with `batched_bots=False` every bot and snapshot does (snapshots batched in numpy).
`action_masks()` (and `env_method("action_masks")`, which sb3-contrib calls) gives (B, N).
`threads`: the opponents' moves (the engine's bots' loop) are shared among that many threads,
each running the loop's one-thread twin on its share of the slots (core.batch's "split"
threading: nothing more to compile, the same games); the other engine loops run on one.
Episode e of slot i is the game `new_game(players, batch_game_seed(seed, i, e))`; its opponents
are `opponent_specs[i]` seeded by `opponent_seeds[i]` (None at the learner's seat; "random"
seats draw from the slot's random-play stream, not from a seed), so `SingleSeatEnv.start` replays
an episode of bot and snapshot opponents.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium import spaces

from core.batch import SEAT_CALLER, SEAT_POLICY, SEAT_RANDOM
from core.bots import BotRng, CompiledBot
from core.mlp import packable
from core.registry import default_game, get_game
from core.returns import RETURN_KINDS
from training.agents.policy import PolicyAgent, mlp_logits, sample_masked
from training.agents.registry import make_agent
from training.arena.evaluate import win_shares
from training.learn.env import parse_pool


def _parse_pool(opponents) -> list[tuple[str, float]]:
    if isinstance(opponents, str):
        return parse_pool(opponents)
    return [(str(s), float(w)) for s, w in opponents]


class SeatBatch:
    """n_envs single-seat games in one batch engine (module docstring); the vector env APIs
    (training.learn.batch_vec_env for SB3, training.learn.gym_vector for Gymnasium) sit on it."""

    def __init__(
        self,
        game: str | None = None,
        n_envs: int = 64,
        players: int = 2,
        opponents: Sequence[tuple[str, float]] | str = "random",
        reward_kind: str = "win_loss",
        seed: int = 0,
        opponent_deterministic: bool = False,
        batched_bots: bool = True,
        threads: int | None = None,
    ):
        if reward_kind not in RETURN_KINDS:
            raise ValueError(f"reward_kind must be one of {RETURN_KINDS}, got {reward_kind!r}")
        self.game_name = game = game or default_game()
        self.game = get_game(game)
        if players not in self.game.PLAYER_COUNTS:
            raise ValueError(f"{game}: players must be one of {self.game.PLAYER_COUNTS}")
        self.players = int(players)
        self.reward_kind = reward_kind
        self.opponent_deterministic = opponent_deterministic
        self.batched_bots = bool(batched_bots)  # False: compiled bots too play per slot (`act`)
        self.engine = self.game.make_batch(
            n_envs,
            players,
            seed=seed,
            reward_kind=reward_kind,
            observe=False,
            threads=threads,
            threading="split",
        )
        self.render_mode = None
        self.n_slots = B = int(n_envs)
        self.single_obs_space = spaces.Box(-np.inf, np.inf, (self.game.OBS_SIZE,), np.float32)
        self.single_act_space = spaces.Discrete(self.game.NUM_ACTIONS)
        mp = self.engine.spec.max_players
        self.seats = np.zeros(B, dtype=np.int64)
        # who plays each seat of each slot (core.batch: SEAT_CALLER, SEAT_RANDOM or a bot code),
        # and each compiled bot's stream words
        self.seat_codes = np.full((B, mp), SEAT_CALLER, dtype=np.int64)
        self.bot_rngs = np.zeros((B, mp, 4), dtype=np.int64)
        self.opp: list[list] = [[None] * self.players for _ in range(B)]  # agents played in Python
        self.opponent_specs: list[list[str | None]] = [[None] * self.players for _ in range(B)]
        self.opponent_seeds = np.zeros((B, self.players), dtype=np.int64)
        self._obs = np.zeros((B, self.game.OBS_SIZE), dtype=np.float32)
        self._moves = np.zeros(B, dtype=np.int64)
        self._actions = np.zeros(B, dtype=np.int64)
        self._started = np.zeros(B, dtype=np.bool_)
        self.decisions = 0  # every agent-chosen step, opponents included (DESIGN §5)
        self.episodes_done_last = 0
        self._actor_specs: list[str] = []  # the engine's actors (set_actors), by index
        self._actor_arrays: dict[str, dict] = {}
        self._engine_kinds: dict[str, int | dict | None] = {}  # _engine_code's, per spec
        self.set_opponents(opponents)
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)

    # --- opponents -------------------------------------------------------------------------
    def set_opponents(self, opponents) -> None:
        """Replace the opponent pool (takes effect at each slot's next episode)."""
        pool = _parse_pool(opponents)
        w = np.array([w for _s, w in pool], dtype=float)
        if not pool or (w < 0).any() or w.sum() <= 0:
            raise ValueError("opponent pool must be non-empty with weights >= 0, total > 0")
        pool_specs = {s for s, _w in pool}
        for spec, _w in pool:
            if spec != "random":
                self._make_agent(spec, 0)  # fail now, not mid-episode
        self.pool = pool
        self._pool_p = w / w.sum()
        self._engine_kinds = {s: k for s, k in self._engine_kinds.items() if s in pool_specs}
        # the engine keeps the actors of the new pool and those still playing a game
        codes = self.seat_codes
        playing = {self._actor_specs[SEAT_POLICY - c] for c in codes[codes <= SEAT_POLICY]}
        wanted = playing | pool_specs
        keep = [s for s in self._actor_specs if s in wanted]
        if keep != self._actor_specs:
            new = {s: k for k, s in enumerate(keep)}
            remap = np.array([SEAT_POLICY - new.get(s, 0) for s in self._actor_specs])
            policy = codes <= SEAT_POLICY
            codes[policy] = remap[SEAT_POLICY - codes[policy]]
            self._actor_specs = keep
            self._actor_arrays = {s: self._actor_arrays[s] for s in keep}
            self._set_engine_actors()

    def _actor_code(self, spec: str, arrays: dict) -> int:
        """The seat code of the engine's actor for snapshot `spec` (added when new)."""
        if spec not in self._actor_arrays:
            self._actor_specs.append(spec)
            self._actor_arrays[spec] = arrays
            self._set_engine_actors()
        return SEAT_POLICY - self._actor_specs.index(spec)

    def _set_engine_actors(self) -> None:
        self.engine.set_actors(
            [self._actor_arrays[s] for s in self._actor_specs], self.opponent_deterministic
        )

    def _engine_code(self, spec: str) -> int | None:
        """The seat code the engine plays opponent `spec` with (a compiled bot's code, or the
        code of its packed snapshot), None for an agent played in Python. Both kinds the engine
        plays draw from `BotRng(seed)`, as their `act` does."""
        if spec not in self._engine_kinds:  # what make_agent gives, built once per spec
            ag = self._make_agent(spec, 0)
            kind = None
            if self.batched_bots and isinstance(ag, CompiledBot):
                kind = ag.batch_code
            elif self.batched_bots and isinstance(ag, PolicyAgent) and packable(ag.arrays):
                kind = ag.arrays
            self._engine_kinds[spec] = kind
        kind = self._engine_kinds[spec]
        if kind is None or isinstance(kind, int):
            return kind
        return self._actor_code(spec, kind)

    def _make_agent(self, spec: str, seed: int):
        return make_agent(spec, self.game_name, self.players, seed, self.opponent_deterministic)

    def _new_episodes(self, idx: np.ndarray) -> None:
        """Next game in each slot of idx: random learner seat, fresh opponents, opponents play
        until the learner must decide (a game that ends first is replaced)."""
        eng = self.engine
        while len(idx):
            eng.games[idx] += self._started[idx]
            self._started[idx] = True
            eng.reset_slots(idx)
            for i in idx:
                seat = int(self._rng.integers(self.players))
                self.seats[i] = seat
                self.seat_codes[i] = SEAT_CALLER
                self.opp[i] = [None] * self.players
                self.opponent_specs[i] = [None] * self.players
                self.opponent_seeds[i] = 0
                for p in range(self.players):
                    if p == seat:
                        continue
                    spec = self.pool[int(self._rng.choice(len(self.pool), p=self._pool_p))][0]
                    if spec == "random":
                        self.seat_codes[i, p] = SEAT_RANDOM
                        self.opponent_specs[i][p] = spec
                        continue
                    seed = int(self._rng.integers(2**62))
                    self.opponent_specs[i][p], self.opponent_seeds[i, p] = spec, seed
                    code = self._engine_code(spec)
                    if code is None:
                        self.opp[i][p] = self._make_agent(spec, seed)
                    else:  # the engine plays it, from the stream `act` would draw from
                        self.seat_codes[i, p] = code
                        self.bot_rngs[i, p] = BotRng(seed).words
            self._play_opponents(idx)
            idx = idx[eng.over(idx)[idx]]  # rare: the game ended before the learner decided

    def _play_opponents(self, idx: np.ndarray) -> None:
        eng = self.engine
        while len(idx):
            eng.play_seats(idx, self.seat_codes, self.bot_rngs, self._moves)
            bad = idx[self._moves[idx] < 0]
            if len(bad):
                i = int(bad[0])
                raise RuntimeError(
                    f"{self.game_name}: error {int(self._moves[i])} while the engine played the "
                    f"opponents of slot {i} (core.batch.BatchEngine.play_seats)"
                )
            self.decisions += int(self._moves[idx].sum())
            live = ~eng.over(idx)[idx]
            waiting = idx[live & (eng.players[idx] != self.seats[idx])]
            if not len(waiting):
                return
            self._play_agents(waiting)
            idx = waiting

    def _play_agents(self, idx: np.ndarray) -> None:
        """One move in each slot of idx by its opponent to act, one the engine does not play
        itself; policies batched."""
        eng = self.engine
        groups: dict[int, list[int]] = {}
        arrays = {}
        for i in idx:
            ag = self.opp[i][eng.players[i]]
            if isinstance(ag, PolicyAgent):
                groups.setdefault(id(ag.arrays), []).append(i)
                arrays[id(ag.arrays)] = ag
            else:
                self._actions[i] = ag.act(eng.states[i])
        for key, slots in groups.items():
            sl = np.asarray(slots, dtype=np.int64)
            obs = eng.observe(eng.players, idx=sl)[sl]
            logits = mlp_logits(arrays[key].arrays, obs)
            masks = eng.masks[sl]
            if self.opponent_deterministic:
                self._actions[sl] = np.argmax(np.where(masks, logits, -np.inf), axis=1)
            else:
                self._actions[sl] = sample_masked(logits, masks, self._rng)
        eng.step(self._actions, idx=idx, auto_reset=False)
        self.decisions += len(idx)

    # --- one vector step -------------------------------------------------------------------
    def _reset_all(self) -> np.ndarray:
        """Every slot's first game from the seed; the learners' observations (a copy)."""
        eng = self.engine
        eng.reset(self._seed)
        self._rng = np.random.default_rng(self._seed)
        self._started[:] = False
        self._new_episodes(eng._all)
        eng.observe(self.seats, out=self._obs)
        return self._obs.copy()

    def _step_all(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, dict]]:
        """The learners' actions, then the opponents' until each learner decides again; a slot
        whose game ended starts its next one. (observations, rewards, ended, {slot: what the
        ended game left: its final observation, whether the cap truncated it, its outcome}).
        """
        self._actions[:] = np.asarray(actions, dtype=np.int64).reshape(self.n_slots)
        eng = self.engine
        g = self.game
        eng.step(self._actions, auto_reset=False)
        self.decisions += self.n_slots
        self._play_opponents(eng._all)
        over = np.flatnonzero(eng.over())
        rewards = np.zeros(self.n_slots, dtype=np.float32)
        ended = np.zeros(self.n_slots, dtype=np.bool_)
        finals: dict[int, dict] = {}
        for i in over:
            s = eng.states[i]
            seat = int(self.seats[i])
            rewards[i] = g.returns(s, self.reward_kind)[seat]
            ended[i] = True
            trunc = bool(g.is_truncated(s))
            finals[int(i)] = {
                "obs": g.observe(s, seat),
                "truncated": trunc,
                "seat": seat,
                "outcome": {  # as training.learn.env.SingleSeatEnv reports it
                    "win_loss": float(g.returns(s)[seat]),
                    "win_share": float(win_shares(g, s)[seat]),
                    "scores": [int(x) for x in g.scores(s)],
                    "seat": seat,
                    "opponents": [o for o in self.opponent_specs[i] if o is not None],
                    "truncated": trunc,
                },
            }
        self.episodes_done_last = len(over)
        if len(over):
            self._new_episodes(over)
        eng.observe(self.seats, out=self._obs)
        return self._obs.copy(), rewards, ended, finals

    def action_masks(self) -> np.ndarray:
        """(n_envs, NUM_ACTIONS) legal actions of the learner in each slot."""
        return self.engine.masks.copy()
