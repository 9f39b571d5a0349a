"""The Gymnasium VectorEnv over a batch engine (training.learn.gym_vector)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from core.registry import game_names, get_game
from training.learn.env import SingleSeatEnv
from training.learn.gym_vector import GameVectorEnv


def _roll(env: GameVectorEnv, steps: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    out = [obs]
    ends = []
    for _ in range(steps):
        mask = infos["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, rew, term, trunc, infos = env.step(actions)
        out.append(obs)
        ends.append((rew, term, trunc, infos))
    return out, ends


@pytest.mark.parametrize("name", game_names())
def test_spaces_infos_and_same_step_autoreset_follow_gymnasium(name):
    g = get_game(name)
    n = min(g.PLAYER_COUNTS)
    env = GameVectorEnv(name, num_envs=3, players=n, seed=1)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_observation_space == spaces.Box(-np.inf, np.inf, (g.OBS_SIZE,), np.float32)
    assert env.single_action_space == spaces.Discrete(g.NUM_ACTIONS)
    assert env.action_space == spaces.MultiDiscrete([g.NUM_ACTIONS] * 3)
    obs, infos = env.reset(seed=4)
    assert obs.shape == (3, g.OBS_SIZE) and obs.dtype == np.float32
    assert infos["action_mask"].shape == (3, g.NUM_ACTIONS) and infos["_action_mask"].all()
    np.testing.assert_array_equal(infos["action_mask"], env.action_masks())
    _obs, steps = _roll(env, 60, seed=4)
    ended = 0
    for rew, term, trunc, infos in steps:
        assert infos["action_mask"].any(axis=1).all()  # every learner has a legal action
        done = term | trunc
        assert not (term & trunc).any()
        assert (rew[~done] == 0).all()
        if done.any():
            np.testing.assert_array_equal(infos["_final_obs"], done)
            for i in np.flatnonzero(done):
                ended += 1
                assert infos["final_obs"][i].shape == (g.OBS_SIZE,)
                outcome = infos["final_info"]["outcome"]["win_loss"][i]
                assert rew[i] == outcome  # win_loss rewards: the outcome in the learner's frame
                assert infos["final_info"]["_seat"][i]
        else:
            assert "final_obs" not in infos
    assert ended > 0 or name in ("village", "troyes")  # the long games may not end in 60 steps


def test_the_same_seed_replays_the_same_games_and_another_does_not():
    a = GameVectorEnv("chipin", num_envs=4, players=3, seed=0)
    b = GameVectorEnv("chipin", num_envs=4, players=3, seed=0)
    ra, _ = _roll(a, 40, seed=7)
    rb, _ = _roll(b, 40, seed=7)
    assert all(np.array_equal(x, y) for x, y in zip(ra, rb, strict=True))
    rc, _ = _roll(b, 40, seed=8)
    assert not all(np.array_equal(x, y) for x, y in zip(ra, rc, strict=True))


def test_its_infos_have_the_keys_gymnasium_s_own_vector_env_gives():
    """Beside Gymnasium's SyncVectorEnv over the single-seat env (the same autoreset mode), the
    same keys and masks where a game ends."""
    ours = GameVectorEnv("toss", num_envs=2, players=2, seed=0)
    sync = SyncVectorEnv(
        [lambda: SingleSeatEnv("toss", players=2) for _ in range(2)],
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    for env in (ours, sync):
        obs, infos = env.reset(seed=3)
        seen = set()
        for _ in range(40):
            obs, rew, term, trunc, infos = env.step(np.zeros(2, dtype=np.int64))
            if (term | trunc).any():
                seen |= {"final_obs", "_final_obs", "final_info", "_final_info"} & set(infos)
        assert seen == {"final_obs", "_final_obs", "final_info", "_final_info"}, type(env)
        assert "outcome" in infos["final_info"] or not (term | trunc).any()


def test_bad_arguments_are_refused_in_one_line():
    env = GameVectorEnv("toss", num_envs=2, players=2)
    env.reset()
    with pytest.raises(ValueError, match=r"actions must have shape \(2,\)"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="seed is one integer for every sub-env"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="num_envs must be >= 1"):
        GameVectorEnv("toss", num_envs=0)
    with pytest.raises(ValueError, match="players must be one of"):
        GameVectorEnv("toss", num_envs=2, players=7)


def test_the_cleanrl_style_example_trains_and_evaluates(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "r.json"
    cmd = [sys.executable, str(root / "examples" / "cleanrl_masked_ppo.py"), "--game", "toss"]
    cmd += ["--timesteps", "256", "--envs", "4", "--steps", "16", "--minibatch", "32"]
    cmd += ["--eval-games", "8", "--json", str(out)]
    run = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(out.read_text())
    assert result["timesteps"] >= 256 and result["eval"]["games"] == 8
    assert 0.0 <= result["eval"]["ci95"][0] <= result["eval"]["win_share"] <= 1.0
    from core.registry import get_game

    assert result["rules_data_hash"] == get_game("toss").RULES_DATA_HASH
