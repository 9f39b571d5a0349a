"""A thin PettingZoo AEC adapter over any game module with the common public API (DESIGN D7)."""

from __future__ import annotations

import importlib
import operator

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from core.errors import IllegalActionError
from core.registry import integer_arg
from core.returns import RETURN_KINDS, standing_ranks

ILLEGAL_ACTION_MODES = ("raise", "penalty")
ILLEGAL_ACTION_PENALTY = -1.0  # the offender's reward under illegal_action="penalty"


class GameAECEnv(AECEnv):
    """Turn-based env: agents `player_0..player_{n-1}`, observation {"observation", "action_mask"}.

    `game` is a module exposing the common API (new_game, step, legal_mask, observe, ...).
    Rewards are paid once, at the end of the game, from `game.returns(state, reward_kind)`.

    When the game ends, every agent's info holds the final standing: ``score`` (its own),
    ``rank`` (1 = first; tied standings share a place), ``tiebreaks`` (its tie-break keys, in
    order), ``scores``/``ranks`` (every seat's, indexed by seat) and ``truncated``.

    An action outside ``0..NUM_ACTIONS-1`` (or not an integer) always raises IllegalActionError
    (a ValueError) naming the action and the allowed range. A masked-out action in range:
    ``illegal_action="raise"`` (default) raises the engine's IllegalActionError and leaves the
    game as it was; ``"penalty"`` ends the game as PettingZoo classic's TerminateIllegalWrapper
    does: the offender's reward is -1 (ILLEGAL_ACTION_PENALTY), every other agent's 0, all
    agents are terminated (not truncated), every info gets ``illegal_action`` (True for the
    offender only) and ``offender`` (its name), and no final standing is added (the position was
    not played out). `state()` is the global state: a copy of the raw int64 state array
    (hidden information and the in-state RNG included; `state_space` is its Box).
    """

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        game,
        num_players: int = 4,
        render_mode: str | None = None,
        reward_kind: str = "win_loss",
        illegal_action: str = "raise",
        **game_options,
    ):
        super().__init__()
        num_players = integer_arg(num_players, "num_players")
        if num_players not in game.PLAYER_COUNTS:
            raise ValueError(
                f"{game.NAME}: num_players must be one of {game.PLAYER_COUNTS}, got {num_players!r}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        if reward_kind not in RETURN_KINDS:
            raise ValueError(f"reward_kind must be one of {RETURN_KINDS}, got {reward_kind!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}"
            )
        game.check_options(game_options)
        self.game = game
        self.illegal_action = illegal_action
        self._penalty = illegal_action == "penalty"
        self.game_options = dict(game_options)
        self.num_players = num_players
        self.render_mode = render_mode
        self.reward_kind = reward_kind
        self.metadata = dict(self.metadata, name=f"{game.NAME}_v0")
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (game.OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (game.NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(game.NUM_ACTIONS) for a in self.possible_agents}
        i64 = np.iinfo(np.int64)
        self.state_space = spaces.Box(i64.min, i64.max, (game.STATE_SIZE,), dtype=np.int64)
        self.state_array: np.ndarray | None = None
        self._seed_rng = np.random.default_rng()
        self._enforce = False  # env() turns on call-order and bounds checks (see wrap_env)
        self._mask: np.ndarray | None = None  # legal mask of the player to act (int8 view)
        self._player = -1
        self._zero_mask = np.zeros(game.NUM_ACTIONS, dtype=np.int8)
        self._zero_mask.flags.writeable = False

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._seed_rng.integers(0, 2**63 - 1))
        self.state_array = self.game.new_game(self.num_players, game_seed, **self.game_options)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._refresh()

    def _refresh(self):
        """Cache who acts and their legal mask once per state (observe may be called often)."""
        self._player = self.game.current_player(self.state_array)
        if self._player >= 0:
            self._mask = self.game.legal_mask(self.state_array).view(np.int8)
            self._mask.flags.writeable = False
            self.agent_selection = self.possible_agents[self._player]

    def observe(self, agent):
        if self.state_array is None:
            raise RuntimeError("reset() must be called before observe()")
        p = self.agent_name_mapping[agent]
        obs = self.game.observe(self.state_array, p)
        mask = self._mask if p == self._player else self._zero_mask
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state: a copy of the raw int64 state array (see the class docstring)."""
        if self.state_array is None:
            raise RuntimeError("reset() must be called before state()")
        return self.state_array.copy()

    def _action_id(self, action) -> int:
        """`action` as an int in 0..NUM_ACTIONS-1, else IllegalActionError naming the range."""
        n = self.game.NUM_ACTIONS
        try:
            a = operator.index(action)
        except TypeError:
            a = None
        if a is None or not 0 <= a < n:
            why = (
                f"{self.agent_selection} must choose an integer action in 0..{n - 1} "
                f"(action space Discrete({n}))"
            )
            phase = self.game.phase_name(self.state_array)
            if a is None:
                raise IllegalActionError(-1, repr(action), phase, why)
            raise IllegalActionError(a, "out of range", phase, why)
        return a

    def step(self, action):
        if self._enforce:
            if self.state_array is None:
                raise RuntimeError("reset() must be called before step()")
            if action is not None and not (
                action.__class__ is int and 0 <= action < self.game.NUM_ACTIONS
            ):
                self._action_id(action)  # raises unless a numpy integer in range
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        if self._penalty and not self._mask[self._action_id(action)]:
            return self._end_by_penalty(agent)
        self._cumulative_rewards[agent] = 0.0
        self.state_array = self.game.step(self.state_array, action)
        self._refresh()
        if self._player < 0:
            g, s = self.game, self.state_array
            ret = g.returns(s, self.reward_kind)
            truncated = bool(g.is_truncated(s))
            scores, tiebreaks = g.scores(s), g.tiebreaks(s)
            ranks = standing_ranks(scores, tiebreaks)
            for a in self.agents:
                i = self.agent_name_mapping[a]
                self.rewards[a] = float(ret[i])
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
                self.infos[a] = {
                    "score": int(scores[i]),
                    "rank": ranks[i],
                    "tiebreaks": [int(x) for x in tiebreaks[i]],
                    "scores": [int(x) for x in scores],
                    "ranks": list(ranks),
                    "truncated": truncated,
                }
            # agent_selection stays valid; dead steps then remove agents one by one
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_by_penalty(self, offender: str) -> None:
        """illegal_action="penalty": the game ends, the offender -1, the others 0."""
        self._cumulative_rewards[offender] = 0.0
        self._player = -1  # no agent acts any more: every action mask is zeros
        for a in self.agents:
            self.rewards[a] = ILLEGAL_ACTION_PENALTY if a == offender else 0.0
            self.terminations[a] = True
            self.truncations[a] = False
            self.infos[a] = {"illegal_action": a == offender, "offender": offender}
        self._accumulate_rewards()

    def render(self):
        if self.render_mode is None:
            return None
        text = self.game.render(self.state_array)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass


def wrap_env(raw: GameAECEnv) -> GameAECEnv:
    """What PettingZoo's classic wrappers check (calls before reset, actions out of bounds),
    done inside the env: the wrapper chain's attribute forwarding costs more than a step."""
    raw._enforce = True
    return raw


def env_factories(package: str):
    """The `raw_env` and `env` functions of a game package (its env.py)."""

    def raw_env(
        num_players: int = 4,
        render_mode: str | None = None,
        reward_kind: str = "win_loss",
        illegal_action: str = "raise",
        **options,
    ) -> GameAECEnv:
        """The unwrapped AEC env (agents player_0..player_{n-1}); `illegal_action` "raise" or
        "penalty" (see GameAECEnv)."""
        game = importlib.import_module(package)
        return GameAECEnv(game, num_players, render_mode, reward_kind, illegal_action, **options)

    def env(
        num_players: int = 4,
        render_mode: str | None = None,
        reward_kind: str = "win_loss",
        illegal_action: str = "raise",
        **options,
    ) -> GameAECEnv:
        """The AEC env with PettingZoo's classic checks (calls before reset, out-of-bounds
        actions), done inside the env (wrap_env); `illegal_action` as in raw_env."""
        return wrap_env(raw_env(num_players, render_mode, reward_kind, illegal_action, **options))

    return raw_env, env
