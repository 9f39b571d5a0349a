"""Agents that play from the user's files travel by content: spec_files reads what playing a spec
needs (a checkpoint's sidecar and actor, an `az:` network, an `rllib:` export, the agent inside
`restrict:`), and the spec `relocated` to a copy of those files plays as the original did, with
the same fingerprint, after the originals are gone. The Ray backend ships entrants this way
(bundle on the driver, localise on a worker), tested here without Ray."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn
from training_helpers import tiny_policy_checkpoint

from core.registry import game_names, get_game
from training.agents.az_agent import write_network
from training.agents.checkpoint import linear_stack_arrays
from training.agents.registry import agent_fingerprint, make_agent, relocated, spec_files
from training.agents.rllib_agent import write_rllib_checkpoint
from training.alphazero.net import for_game
from training.arena import ray_backend as rb

GAME = get_game(game_names()[0])


def _actor(game) -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(game.OBS_SIZE, 16), nn.Tanh(), nn.Linear(16, game.NUM_ACTIONS))


def _checkpoint(path: Path, game) -> Path:
    return tiny_policy_checkpoint(path, game)


def _network(folder: Path, game) -> Path:
    torch.manual_seed(1)
    net = for_game(game, hidden=(16,))
    return write_network(folder, net.arrays(), game, 2, net.settings(), "rank")


def _rllib(folder: Path, game) -> Path:
    arrays = linear_stack_arrays(list(_actor(game)), "test actor")
    return write_rllib_checkpoint(folder, arrays, game, 2)


def _states(game, n: int = 6) -> list[np.ndarray]:
    """The first states of a random game where the player to act has a choice."""
    rng = np.random.default_rng(0)
    s, out = game.new_game(2, 3), []
    while len(out) < n and not game.is_terminal(s):
        legal = np.flatnonzero(game.legal_mask(s))
        if len(legal) > 1:
            out.append(np.array(s))
        s = game.step(s, int(rng.choice(legal)))
    return out


@pytest.fixture
def entrants(tmp_path):
    src = tmp_path / "src"
    forbid = next(iter(GAME.ACTIONS.segments))  # an action segment: always forbiddable
    net = _network(src / "net", GAME)
    return [
        str(_checkpoint(src / "ck" / "tiny", GAME)),
        f"az:{net},sims=4",
        f"az:{src / 'net'}",
        f"rllib:{_rllib(src / 'rl', GAME)}",
        f"restrict:forbid={forbid},agent=az:{net},sims=4",
    ]


def test_a_copy_of_the_files_plays_as_the_original(entrants, tmp_path, monkeypatch):
    monkeypatch.setattr(rb.tempfile, "tempdir", str(tmp_path / "worker"))
    states = _states(GAME)
    want = {}
    for spec in entrants:
        agent = make_agent(spec, GAME.NAME, 2, seed=5)
        want[spec] = (agent_fingerprint(spec, GAME.NAME, 2), [agent.act(s) for s in states])
    shipped = rb.bundle([*entrants, "heuristic", "az:sims=4"], None)
    assert set(shipped["agents"]) == set(entrants)  # bots and shipped networks need no files
    shutil.rmtree(tmp_path / "src")  # a worker cannot read the originals
    local, rules = rb.localise(shipped)
    assert rules is None
    for spec in entrants:
        moved = local[spec]
        assert moved != spec and str(rb.cache_root()) in moved
        assert moved.split(":", 1)[0] == spec.split(":", 1)[0] or spec.startswith("/")
        agent = make_agent(moved, GAME.NAME, 2, seed=5)
        assert (agent_fingerprint(moved, GAME.NAME, 2), [agent.act(s) for s in states]) == want[
            spec
        ], spec


def test_what_is_shipped_is_what_playing_reads(entrants):
    ckpt, az, _run, rl, restricted = entrants
    assert set(spec_files(ckpt)) == {".json", ".policy.npz"}
    assert set(spec_files(az)) == {"/checkpoint.json", "/network.npz"}
    assert set(spec_files(rl)) == {"/checkpoint.json", "/policy.npz"}
    assert spec_files(restricted) == spec_files(az)
    for spec in ("heuristic", "random", "mcts:iters=10", "az:sims=4", "py:os:getcwd"):
        assert spec_files(spec) is None
        assert relocated(spec, "/elsewhere") == spec
    assert relocated(az, "/x/checkpoint") == "az:/x/checkpoint,sims=4"
    assert relocated(ckpt, "/x/checkpoint") == "/x/checkpoint"
    head = restricted.split(",agent=")[0]
    assert relocated(restricted, "/x/n") == f"{head},agent=az:/x/n,sims=4"
