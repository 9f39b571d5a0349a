"""What makes the learner fast changes nothing it computes: the masked distribution, the batched
snapshot sampling, the serial twins of the batch loops, the learning curve per opponent kind, the
thread and validation switches of a training run."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.distributions import MaskableCategorical

import training.learn.train as tr
from core.batch import use_threads_for
from core.codegen import SERIAL, serial_twins
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


def test_serial_twins_of_a_parallel_function():
    src = (
        "@jit(parallel=True)\n"
        "def f(idx, out):\n"
        '    """Doc."""\n'
        "    for j in prange(idx.shape[0]):\n"
        "        out[idx[j]] = 1\n"
        "\n\n"
        "@jit\n"
        "def g(x):\n"
        "    return x\n"
    )
    twins = serial_twins(src)
    assert f"def f{SERIAL}(idx, out):" in twins and "@jit\n" in twins
    assert "parallel" not in twins and f"def g{SERIAL}" not in twins


@pytest.mark.parametrize("game", game_names())
def test_every_parallel_batch_loop_has_its_serial_twin(game):
    spec = get_game(game).GAME.batch_spec()
    for module in (spec.loops, spec.bots):
        parallel = [
            name
            for name, f in vars(module).items()
            if getattr(f, "targetoptions", {}).get("parallel")
        ]
        assert parallel, module.__name__
        for name in parallel:
            twin = getattr(module, name + SERIAL)
            assert not twin.targetoptions.get("parallel")


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


def test_a_one_thread_batch_never_compiles_a_parallel_loop(tmp_path):
    """In a fresh process (numba's disk cache shared), a batch engine capped at one thread calls
    only the serial twins: the parallel dispatchers hold no compiled signature."""
    code = (
        "import numpy as np, village_env as V\n"
        "from core.batch import SEAT_RANDOM\n"
        "eng = V.make_batch(256, 2, seed=0, threads=1)\n"
        "eng.step(eng.random_actions()); eng.random_play(5); eng.observe(eng.players)\n"
        "codes = np.full((256, eng.spec.max_players), SEAT_RANDOM, dtype=np.int64)\n"
        "eng.play_seats(eng._all, codes, np.ones((256, eng.spec.max_players, 4), np.int64),"
        " np.zeros(256, np.int64))\n"
        "sp = eng.spec\n"
        "out = {m.__name__ + '.' + n: len(f.signatures) for m in (sp.loops, sp.bots)"
        " for n, f in vars(m).items() if hasattr(f, 'signatures')"
        " and (f.targetoptions.get('parallel') or n.endswith('_serial'))}\n"
        "import json; print(json.dumps(out))\n"
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": "2"}
    got = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )
    assert got.returncode == 0, got.stderr
    counts = json.loads(got.stdout.strip().splitlines()[-1])
    used = {k: v for k, v in counts.items() if v}
    assert used and all(k.endswith(SERIAL) for k in used), used
    for name in ("step_slots", "random_play", "play_seats", "reset_slots"):
        assert any(k.endswith(f".{name}{SERIAL}") for k in used), name


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
