"""An SB3 VecEnv backed by a game's batch engine (core.batch): B single-seat games stepped in
one compiled call (DESIGN D8, D9), as training.learn.seat_batch.SeatBatch plays them (its
docstring: seats, opponents, rewards, seeds). Episodes end SB3's way: a slot whose game ended
returns its next game's first observation, the ended game's in `terminal_observation`, and
`TimeLimit.truncated` when the engine's safety cap stopped it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from training.learn.seat_batch import SeatBatch


class BatchVecEnv(SeatBatch, VecEnv):
    """n_envs single-seat games in one batch engine (see module docstring)."""

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
        SeatBatch.__init__(
            self, game, n_envs, players, opponents, reward_kind, seed, opponent_deterministic,
            batched_bots, threads,
        )  # fmt: skip
        VecEnv.__init__(self, self.n_slots, self.single_obs_space, self.single_act_space)

    # --- VecEnv API ------------------------------------------------------------------------
    def reset(self):
        obs = self._reset_all()
        self.reset_infos = [{"seat": int(s)} for s in self.seats]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._pending = actions

    def step_wait(self):
        obs, rewards, dones, finals = self._step_all(self._pending)
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for i, f in finals.items():
            infos[i] = {
                "terminal_observation": f["obs"],
                "TimeLimit.truncated": f["truncated"],
                "seat": f["seat"],
                "outcome": f["outcome"],
            }
        return obs, rewards, dones, infos

    def close(self) -> None:
        pass

    def seed(self, seed: int | None = None):
        self._seed = 0 if seed is None else int(seed)
        return [self._seed] * self.num_envs

    def get_attr(self, attr_name, indices=None):
        n = len(self._get_indices(indices))
        return [getattr(self, attr_name)] * n

    def set_attr(self, attr_name, value, indices=None):
        setattr(self, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        ind = list(self._get_indices(indices))
        if method_name == "action_masks":
            m = self.action_masks()
            return [m[i] for i in ind]
        if method_name == "set_opponents":
            self.set_opponents(*method_args, **method_kwargs)
            return [None] * len(ind)
        out = getattr(self, method_name)(*method_args, **method_kwargs)
        return [out] * len(ind)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._get_indices(indices))

    def get_images(self):
        return []
