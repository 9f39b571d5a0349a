"""A thin PettingZoo AEC adapter over any game module with the common public API (DESIGN D7)."""

from __future__ import annotations

import importlib

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from core.returns import RETURN_KINDS


class GameAECEnv(AECEnv):
    """Turn-based env: agents `player_0..player_{n-1}`, observation {"observation", "action_mask"}.

    `game` is a module exposing the common API (new_game, step, legal_mask, observe, ...).
    Rewards are paid once, at the end of the game, from `game.returns(state, reward_kind)`.
    """

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        game,
        num_players: int = 4,
        render_mode: str | None = None,
        reward_kind: str = "win_loss",
        **game_options,
    ):
        super().__init__()
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
        game.check_options(game_options)
        self.game = game
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

    def step(self, action):
        if self._enforce:
            if self.state_array is None:
                raise RuntimeError("reset() must be called before step()")
            if action is not None and not 0 <= action < self.game.NUM_ACTIONS:
                raise AssertionError(f"action {action} outside [0, {self.game.NUM_ACTIONS})")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0.0
        self.state_array = self.game.step(self.state_array, action)
        self._refresh()
        if self._player < 0:
            ret = self.game.returns(self.state_array, self.reward_kind)
            truncated = bool(self.game.is_truncated(self.state_array))
            for a in self.agents:
                i = self.agent_name_mapping[a]
                self.rewards[a] = float(ret[i])
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
            # agent_selection stays valid; dead steps then remove agents one by one
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

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
        **options,
    ) -> GameAECEnv:
        """The unwrapped AEC env (agents player_0..player_{n-1})."""
        game = importlib.import_module(package)
        return GameAECEnv(game, num_players, render_mode, reward_kind, **options)

    def env(
        num_players: int = 4,
        render_mode: str | None = None,
        reward_kind: str = "win_loss",
        **options,
    ) -> GameAECEnv:
        """The AEC env with PettingZoo's classic checks (calls before reset, out-of-bounds
        actions), done inside the env (wrap_env)."""
        return wrap_env(raw_env(num_players, render_mode, reward_kind, **options))

    return raw_env, env
