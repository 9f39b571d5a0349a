"""Our PettingZoo AEC env as an RLlib MultiAgentEnv (self-play on RLlib,
training.learn.rllib_train).

Imports Ray: import this module only where the optional extra is installed
(training.learn.rllib_train imports it lazily). One game per env; the agents are the AEC env's
`player_0..player_{n-1}`. Only the player to act gets an observation, a dict with the keys RLlib's
action-masking RLModule reads: `observations` (the same vector as our single-seat env:
`game.observe(state, seat)`) and `action_mask` (float32, 1 for a legal action). When the game ends
every agent gets its final observation (mask all ones: no action is taken on it) and its reward,
`game.returns(state, reward_kind)[seat]`, as in the single-seat env; a game stopped by the
engine's safety cap ends as truncated.

Illegal actions: the AEC env runs with `illegal_action="raise"`, so a masked-out action is an
error, never a silent penalty; the masking module never samples one. RLlib's env pre-check
(which steps with unmasked random actions) is turned off in training.learn.rllib_train for that
reason (`disable_env_checking=True`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from core.registry import check_players, default_game, get_game


class RLlibGameEnv(MultiAgentEnv):
    """A turn-based multi-agent env over `game.raw_env(players, reward_kind=...)`.

    `config`: {"game": name, "players": n, "reward_kind": kind} (RLlib passes an EnvContext)."""

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        self.game = get_game(str(config.get("game") or default_game()))
        self.players = check_players(self.game, config.get("players", 2))
        self.aec = self.game.raw_env(
            self.players,
            reward_kind=str(config.get("reward_kind", "win_loss")),
            illegal_action="raise",
        )
        g = self.game
        self.agents = self.possible_agents = list(self.aec.possible_agents)
        space = gym.spaces.Dict(
            {
                "observations": gym.spaces.Box(-np.inf, np.inf, (g.OBS_SIZE,), np.float32),
                "action_mask": gym.spaces.Box(0.0, 1.0, (g.NUM_ACTIONS,), np.float32),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(g.NUM_ACTIONS) for a in self.possible_agents}
        self._ones = np.ones(g.NUM_ACTIONS, dtype=np.float32)

    def _obs(self, agent: str, final: bool = False) -> dict[str, np.ndarray]:
        o = self.aec.observe(agent)
        mask = self._ones if final else o["action_mask"].astype(np.float32)
        return {"observations": np.asarray(o["observation"], np.float32), "action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed)
        agent = self.aec.agent_selection
        return {agent: self._obs(agent)}, {}

    def step(self, action_dict: dict[str, Any]):
        agent = self.aec.agent_selection
        self.aec.step(int(action_dict[agent]))
        s = self.aec.state_array
        if not self.game.is_terminal(s):
            nxt = self.aec.agent_selection
            rew = {agent: 0.0}  # RLlib wants a reward for every agent that acted
            return {nxt: self._obs(nxt)}, rew, {"__all__": False}, {"__all__": False}, {}
        truncated = bool(self.game.is_truncated(s))
        obs = {a: self._obs(a, final=True) for a in self.possible_agents}
        rewards = {a: float(self.aec.rewards[a]) for a in self.possible_agents}
        infos = {a: dict(self.aec.infos[a]) for a in self.possible_agents}
        return obs, rewards, {"__all__": not truncated}, {"__all__": truncated}, infos
