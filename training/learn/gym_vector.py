"""A Gymnasium `VectorEnv` over a game's batch engine: B single-seat games stepped in one compiled
call (training.learn.seat_batch.SeatBatch: the learner's random seat each episode, opponents from
a weighted pool, the reward `returns(state, reward_kind)[seat]` at the end), for CleanRL-style
loops, TorchRL, Tianshou and any code written against `gymnasium.vector.VectorEnv`.

    env = GameVectorEnv("village", num_envs=64, players=2, opponents="random", seed=0)
    obs, infos = env.reset()
    obs, rewards, terminations, truncations, infos = env.step(actions)

- Spaces: `single_observation_space` Box(OBS_SIZE,), `single_action_space` Discrete(NUM_ACTIONS),
  batched by `gymnasium.vector.utils.batch_space`.
- Autoreset: `AutoresetMode.SAME_STEP` (in `metadata["autoreset_mode"]`), as Gymnasium 1.x
  defines it: a sub-env whose game ended returns its next game's first observation in the same
  step, with the ended game's last observation in `infos["final_obs"]` and its info
  (`{"seat", "outcome"}`) in `infos["final_info"]`, each with its `_`-prefixed mask.
- Infos every step: `action_mask` (B, NUM_ACTIONS) bool, the learners' legal actions, and `seat`
  (B,), with their masks; `action_masks()` gives the same array (sb3-contrib's name).
- `truncations` is True where the engine's safety cap ended a game (never under the games' own
  rules), `terminations` where the rules did.
- `reset(seed=S)` replays from S: slot i's episode e is the deal `batch_game_seed(S, i, e)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from training.learn.seat_batch import SeatBatch


class GameVectorEnv(SeatBatch, VectorEnv):
    """num_envs single-seat games of one game in one batch engine (module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game: str | None = None,
        num_envs: int = 64,
        players: int = 2,
        opponents: Sequence[tuple[str, float]] | str = "random",
        reward_kind: str = "win_loss",
        seed: int = 0,
        opponent_deterministic: bool = False,
        threads: int | None = None,
    ):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        SeatBatch.__init__(
            self, game, num_envs, players, opponents, reward_kind, seed, opponent_deterministic,
            True, threads,
        )  # fmt: skip
        self.num_envs = self.n_slots
        self.single_observation_space = self.single_obs_space
        self.single_action_space = self.single_act_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._every = np.ones(self.num_envs, dtype=np.bool_)

    def _infos(self) -> dict[str, Any]:
        return {
            "action_mask": self.action_masks(),
            "_action_mask": self._every.copy(),
            "seat": self.seats.copy(),
            "_seat": self._every.copy(),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
                raise ValueError(
                    f"seed is one integer for every sub-env (slot i's games follow from it); "
                    f"got {seed!r}"
                )
            self._seed = int(seed)
        if options:
            raise ValueError(f"reset takes no options; got {options}")
        return self._reset_all(), self._infos()

    def step(self, actions):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        obs, rewards, ended, finals = self._step_all(actions)
        truncations = np.zeros(self.num_envs, dtype=np.bool_)
        infos = self._infos()
        if finals:
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i, f in finals.items():
                final_obs[i] = f["obs"]
                truncations[i] = f["truncated"]
                infos = self._add_info(
                    infos, {"final_info": {"seat": f["seat"], "outcome": f["outcome"]}}, i
                )
            infos["final_obs"], infos["_final_obs"] = final_obs, ended.copy()
        return obs, rewards, ended & ~truncations, truncations, infos

    def close_extras(self, **kwargs) -> None:
        pass
