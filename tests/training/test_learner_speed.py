"""What makes the learner fast changes nothing it computes: the masked distribution, the batched
snapshot sampling, the engine's thread count, the learning curve per opponent kind, the thread and
validation switches of a training run."""

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.distributions import MaskableCategorical

import training.learn.train as tr
from core.batch import use_threads_for
from core.registry import game_names, get_game
from training.agents.policy import masked_probs, sample_masked
from training.learn.batch_vec_env import BatchVecEnv
from training.learn.sb3_parts import FlatRolloutBuffer, MaskedCategorical, MaskedPolicy


def _logits_and_masks(seed, rows=64, n=342):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(rows, n, generator=g) * 3
    masks = torch.rand(rows, n, generator=g) < 0.1
    masks[torch.arange(rows), torch.randint(0, n, (rows,), generator=g)] = True
    return logits, masks


@pytest.mark.parametrize("seed", range(3))
def test_masked_categorical_has_sb3_contribs_probabilities(seed):
    logits, masks = _logits_and_masks(seed)
    ours, theirs = MaskedCategorical(logits), MaskableCategorical(logits=logits)
    ours.apply_masking(masks)
    theirs.apply_masking(masks)
    acts = torch.where(masks, torch.arange(342), -1).max(-1).values  # a legal action per row
    assert torch.allclose(ours.log_prob(acts), theirs.log_prob(acts), atol=1e-5)
    assert torch.allclose(ours.entropy(), theirs.entropy(), atol=1e-5)
    assert torch.allclose(ours.probs, theirs.probs, atol=1e-6)
    assert (ours.probs[~masks] == 0).all()
    ours.apply_masking(None)  # unmasked again: the plain softmax
    assert torch.allclose(ours.probs, torch.softmax(logits, -1), atol=1e-6)


def test_masked_categorical_samples_legal_actions_at_their_rates_and_replays():
    logits, masks = _logits_and_masks(7, rows=4, n=40)
    d = MaskedCategorical(logits)
    d.apply_masking(masks)
    torch.manual_seed(0)
    draws = torch.stack([d.sample() for _ in range(4000)])  # (4000, 4)
    assert masks.gather(1, draws.T).all()
    freq = torch.stack([torch.bincount(draws[:, r], minlength=40) for r in range(4)]) / 4000
    # 4000 draws: 5 standard errors of the largest possible spread (p = 1/2) is 0.04
    assert (freq - d.probs).abs().max() < 0.04
    torch.manual_seed(0)
    assert torch.equal(torch.stack([d.sample() for _ in range(4000)]), draws)


def test_sample_masked_is_rng_choice_row_by_row():
    r = np.random.default_rng(1)
    for t in range(100):
        k, n = int(r.integers(1, 20)), int(r.integers(2, 300))
        logits = r.normal(size=(k, n)) * 3
        masks = r.random((k, n)) < 0.3
        masks[np.arange(k), r.integers(0, n, k)] = True
        one, batched = np.random.default_rng(t), np.random.default_rng(t)
        want = [int(one.choice(n, p=masked_probs(logits[j], masks[j]))) for j in range(k)]
        assert sample_masked(logits, masks, batched).tolist() == want


@pytest.mark.parametrize("game", game_names())
def test_one_thread_and_two_threads_play_the_same_games(game):
    g = get_game(game)
    p = min(g.PLAYER_COUNTS)
    one = g.make_batch(128, p, seed=5, threads=1)
    two = g.make_batch(128, p, seed=5, threads=2)
    for eng in (one, two):
        eng.random_play(60)
    assert np.array_equal(one.states, two.states)
    use_threads_for(1)


def test_the_batch_env_names_each_episodes_opponents():
    env = BatchVecEnv("village", 16, 2, [("random", 1.0), ("heuristic", 1.0)], "margin", seed=3)
    env.reset()
    seen = set()
    rng = np.random.default_rng(0)
    for _ in range(3000):
        masks = env.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _obs, _rew, dones, infos = env.step(acts)
        for i in np.flatnonzero(dones):
            out = infos[i]["outcome"]
            assert out["seat"] == infos[i]["seat"]
            assert out["opponents"] in (["random"], ["heuristic"])
            assert out["win_share"] in (0.0, 0.5, 1.0)
            assert out["truncated"] is infos[i]["TimeLimit.truncated"]
            seen.add(out["opponents"][0])
        if len(seen) == 2:
            break
    assert seen == {"random", "heuristic"}


def _filled(buf, seed: int):
    rng = np.random.default_rng(seed)
    buf.reset()
    for _ in range(4):
        buf.add(
            rng.random((3, 7)).astype(np.float32),
            rng.integers(0, 5, (3,)),
            rng.random(3).astype(np.float32),
            np.zeros(3, bool),
            torch.tensor(rng.random(3)),
            torch.tensor(rng.random(3)),
            action_masks=rng.random((3, 5)) > 0.3,
        )
    buf.compute_returns_and_advantage(torch.tensor(rng.random(3)), np.zeros(3, bool))
    return buf


def _minibatches(buf):
    np.random.seed(7)
    return list(buf.get(5))


def test_flat_buffer_gives_sb3s_minibatches_and_keeps_nothing_stale():
    import gymnasium as gym
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    space, act = gym.spaces.Box(0, 1, (7,), np.float32), gym.spaces.Discrete(5)
    reused = _filled(FlatRolloutBuffer(4, space, act, device="cpu", n_envs=3), 0)
    _minibatches(reused)  # flattens its arrays in place
    ours = _minibatches(_filled(reused, 1))  # reset keeps the arrays of the rollout before
    fresh = _filled(FlatRolloutBuffer(4, space, act, device="cpu", n_envs=3), 1)
    _minibatches(fresh)
    np.random.seed(7)
    order = np.random.permutation(12)
    theirs = [MaskableRolloutBuffer._get_samples(fresh, order[k : k + 5]) for k in (0, 5, 10)]
    assert len(ours) == 3 and reused.observations.shape == (12, 7)
    for a, b in zip(ours, theirs, strict=True):
        for x, y in zip(a, b, strict=True):
            assert x.dtype == y.dtype and x.shape == y.shape and torch.equal(x, y)


@pytest.mark.slow
def test_a_run_uses_the_masked_policy_and_restores_torch(tmp_path):
    threads = torch.get_num_threads()
    validate = torch.distributions.Distribution._validate_args
    cfg = tr.TrainConfig(
        game="village",
        timesteps=512,
        n_envs=4,
        n_steps=64,
        batch_size=128,
        n_epochs=1,
        net_arch=[16],
        opponents="random:1,heuristic:1,self:1",
        out=str(tmp_path / "run"),
        progress_bar=False,
        tensorboard=False,
        torch_threads=2,
    )
    summary = tr.train(cfg)
    assert torch.get_num_threads() == threads
    assert torch.distributions.Distribution._validate_args == validate
    from training.agents.checkpoint import load_checkpoint

    model, _meta = load_checkpoint(summary["final_checkpoint"], get_game("village"), 2)
    assert isinstance(model.policy, MaskedPolicy)
    assert model.rollout_buffer_class is FlatRolloutBuffer
    header = (tmp_path / "run" / "progress.csv").read_text().splitlines()[0].split(",")
    kinds = {c.removeprefix("win_rate_vs_") for c in header if c.startswith("win_rate_vs_")}
    assert kinds <= {"all", "random", "heuristic", "self"} and "all" in kinds


def test_games_per_vector_step_default_to_what_each_vec_env_can_afford():
    assert tr.TrainConfig().n_envs == tr.N_ENVS["batch"] == 256
    for vec in ("dummy", "subproc"):  # a process or a Python env per game: a few
        assert tr.TrainConfig(vec=vec).n_envs == tr.N_ENVS[vec] <= 8
    assert tr.TrainConfig(vec="subproc", n_envs=3).n_envs == 3
    cfg, _ = tr.config_from_args(tr.build_parser().parse_args(["--vec", "dummy", "--out", "x"]))
    assert cfg.n_envs == tr.N_ENVS["dummy"]


def test_the_learn_benchmark_runs_before_as_it_was_with_the_learner_switches_off():
    from benchmarks.learn import BEFORE, config

    cfg = config("village", 2, "before", None, "x")
    assert {k: getattr(cfg, k) for k in BEFORE} == BEFORE
    assert (cfg.sb3_parts, cfg.batched_bots, cfg.validate_distributions) == (False, False, True)
    new = config("village", 2, "new", None, "x")  # today's defaults
    assert (new.sb3_parts, new.batched_bots, new.validate_distributions) == (True, True, False)
    assert cfg.timesteps == tr.default_run("village")["timesteps"]
    with pytest.raises(ValueError, match="settings must be one of"):
        config("village", 2, "old", 1, "x")
