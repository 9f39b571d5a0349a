"""Self-play of many games at once (training.alphazero.selfplay.SelfPlayer.play_many): the same
games, bit for bit, as one game at a time, for every registered game and search setting, and the
batched network forward it evaluates leaves with equal to the one-at-a-time forward."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core import mlp
from core.guided import GuidedConfig
from core.registry import game_names, get_game
from training.alphazero.net import for_game
from training.alphazero.selfplay import FIELDS, SelfPlayer

GAMES = game_names()
SETTINGS = [
    "sims=5,mix=0.5",  # PUCT root, every seat a tree node (the 2-player default)
    "sims=6,root=gumbel,m=4,opp=prior",  # Gumbel root, the other seats by their stored policy
    "sims=4,opp=netmax",  # played one game at a time (the network inside a simulation)
]


def one_at_a_time(player: SelfPlayer, seeds: list[int]):
    """The games by the single-game compiled loop (play_one), the reference of play_many."""
    out, calls = [], 0
    for s in seeds:
        out.append(player.play_one(s))
        calls += player.last["network_calls"]
    return out, calls


@pytest.mark.parametrize("spec", SETTINGS)
@pytest.mark.parametrize("name", GAMES)
def test_many_games_at_once_are_the_games_played_one_at_a_time(name, spec):
    game = get_game(name)
    n = max(game.PLAYER_COUNTS) if "prior" in spec else min(game.PLAYER_COUNTS)
    torch.manual_seed(0)
    arrays = for_game(game, hidden=(32,)).arrays()
    player = SelfPlayer(name, n, arrays, GuidedConfig.parse(spec), explore=3, noise=0.5, qmix=0.25)
    seeds = [11, 12, 13, 14, 15]
    want, calls_one = one_at_a_time(player, seeds)
    calls = 0
    for batch in (2, 5):  # an uneven last batch, and all at once
        got = player.play_many(seeds, batch=batch)
        assert len(got) == len(seeds)
        for (ex_a, final_a), (ex_b, final_b) in zip(want, got, strict=True):
            np.testing.assert_array_equal(final_a, final_b)
            assert game.is_terminal(final_b)
            for f in FIELDS:
                np.testing.assert_array_equal(getattr(ex_a, f), getattr(ex_b, f), err_msg=f)
        calls = player.last["network_calls"]
    # a repeated observation is answered from the cache: no more calls, at least a root each
    assert sum(len(ex) for ex, _ in want) <= calls <= calls_one


@pytest.mark.parametrize("name", GAMES)
def test_a_last_hidden_layer_narrower_than_an_earlier_one(name):
    """The forward's scratch rows are as wide as the widest layer: a last hidden layer narrower
    than an earlier one sharing its row leaves that layer's outputs past its own width, which
    play_many must not read as part of it."""
    game = get_game(name)
    torch.manual_seed(1)
    arrays = for_game(game, hidden=(24, 16, 8)).arrays()
    player = SelfPlayer(name, min(game.PLAYER_COUNTS), arrays, GuidedConfig(sims=5, mix=0.5),
                        explore=3, noise=0.5)  # fmt: skip
    seeds = [11, 12]
    want, _ = one_at_a_time(player, seeds)
    got = player.play_many(seeds, batch=2)
    for (ex_a, final_a), (ex_b, final_b) in zip(want, got, strict=True):
        np.testing.assert_array_equal(final_a, final_b)
        for f in FIELDS:
            np.testing.assert_array_equal(getattr(ex_a, f), getattr(ex_b, f), err_msg=f)


def test_a_bad_batch_is_refused():
    game = get_game(GAMES[0])
    torch.manual_seed(0)
    player = SelfPlayer(GAMES[0], min(game.PLAYER_COUNTS), for_game(game, hidden=(8,)).arrays(),
                        GuidedConfig(sims=2))  # fmt: skip
    for bad in (0, -1, 2.5, "4"):
        with pytest.raises(ValueError, match="batch must be an integer >= 1"):
            player.play_many([1, 2], batch=bad)
    assert player.play_many([], batch=3) == []


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_the_batched_forward_equals_the_one_at_a_time_forward(activation):
    """batch_trunk over a batch, then every output from each row's last hidden layer: each row
    bit-identical to core.mlp.actor_logits, whatever its count of non-zero inputs (a multiple
    of four or not, none at all), for rows fewer than the scratch holds."""
    rng = np.random.default_rng(3)
    sizes = [37, 20, 13, 9]
    net: dict = {"activations": np.array([activation] * (len(sizes) - 2))}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False)):
        net[f"W{i}"] = rng.standard_normal((b, a)).astype(np.float32)
        net[f"b{i}"] = rng.standard_normal(b).astype(np.float32)
    w, meta, widest = mlp.pack_actors([net])
    rows, cap = 7, 10
    x = np.zeros((cap, sizes[0]), dtype=np.float32)
    for r in range(rows):
        nz = rng.choice(sizes[0], size=r * 5 % sizes[0], replace=False)
        x[r, nz] = rng.standard_normal(len(nz)).astype(np.float32)
    h = np.full((2, cap, widest), 7.0, dtype=np.float32)
    last = mlp.batch_trunk(w, meta, 0, x, rows, h, np.zeros(max(sizes), dtype=np.int64))
    assert (h[:, rows:] == 7.0).all()  # rows past `rows` untouched
    one = np.zeros(sizes[-1], dtype=np.float32)
    hs = np.zeros((2, widest), dtype=np.float32)
    cols = np.arange(sizes[-1], dtype=np.int64)
    for r in range(rows):
        mlp.actor_logits(w, meta, 0, x[r], hs, one)
        idx, val = np.zeros(sizes[-2], dtype=np.int64), np.zeros(sizes[-2], dtype=np.float32)
        nz = mlp.compact(h[last][r], sizes[-2], idx, val)
        out = np.zeros(sizes[-1], dtype=np.float32)
        mlp.head_outputs(w, meta, 0, idx, val, nz, cols, len(cols), out)
        np.testing.assert_array_equal(out, one)


@pytest.mark.parametrize("hidden", [(20, 13, 9), (20, 13), (13,), ()])
def test_outputs_from_the_last_hidden_layer_equal_the_whole_forward(hidden):
    """batch_trunk, then compact and head_outputs for any columns (in any order, any count,
    a multiple of four or not): each output bit-identical to core.mlp.actor_logits'; an actor
    without hidden layers reads the observation itself."""
    rng = np.random.default_rng(5)
    sizes = [37, *hidden, 11]
    net: dict = {"activations": np.array(["relu"] * len(hidden))}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False)):
        net[f"W{i}"] = rng.standard_normal((b, a)).astype(np.float32)
        net[f"b{i}"] = rng.standard_normal(b).astype(np.float32)
    w, meta, widest = mlp.pack_actors([net])
    rows = 6
    x = np.zeros((rows, sizes[0]), dtype=np.float32)
    for r in range(rows):
        nz = rng.choice(sizes[0], size=r * 7 % sizes[0], replace=False)
        x[r, nz] = rng.standard_normal(len(nz)).astype(np.float32)
    h = np.zeros((2, rows, widest), dtype=np.float32)
    last = mlp.batch_trunk(w, meta, 0, x, rows, h, np.zeros(max(sizes), dtype=np.int64))
    assert last == (len(hidden) - 1) % 2 if hidden else last == -1
    one = np.zeros(sizes[-1], dtype=np.float32)
    hs = np.zeros((2, widest), dtype=np.float32)
    width = sizes[-2]
    for r in range(rows):
        mlp.actor_logits(w, meta, 0, x[r], hs, one)
        idx, val = np.zeros(width, dtype=np.int64), np.zeros(width, dtype=np.float32)
        nz = mlp.compact(x[r] if last < 0 else h[last][r], width, idx, val)
        for count in (0, 1, 3, 4, 7, sizes[-1]):
            cols = rng.permutation(sizes[-1])[:count].astype(np.int64)
            out = np.full(sizes[-1], 7.0, dtype=np.float32)
            mlp.head_outputs(w, meta, 0, idx, val, nz, cols, count, out)
            np.testing.assert_array_equal(out[:count], one[cols])
            assert (out[count:] == 7.0).all()


@pytest.mark.parametrize("name", GAMES)
def test_the_games_do_not_depend_on_what_the_arrays_held_before(name):
    """play_many reuses its arrays game after game: whatever a previous game left in the trees'
    logits and the nodes' hidden layers (garbage here), the games are those of play. (A node
    added where one determinization ends the game keeps zero logits, as in pv_search, for a
    walk through it under another determinization: at 32 simulations such walks occur in
    Village, seeds 9 and 10.)"""
    game = get_game(name)
    n = min(game.PLAYER_COUNTS)
    torch.manual_seed(0)
    arrays = for_game(game, hidden=(32,)).arrays()
    player = SelfPlayer(name, n, arrays, GuidedConfig(sims=32, mix=0.5), explore=3, noise=0.5)
    player.play_many([1])
    tr, gs, _, _, _ = player._bundles[1]
    for seed in (9, 10):
        ex_a, final_a = player.play_one(seed)
        rng = np.random.default_rng(seed)
        tr[2][:] = 1e6 * rng.standard_normal(tr[2].shape)  # the trees' logits
        gs.nnz[:] = 3  # the nodes' last hidden layers
        gs.nidx[:] = rng.integers(0, gs.nidx.shape[-1], size=gs.nidx.shape)
        gs.nval[:] = 5.0
        [(ex_b, final_b)] = player.play_many([seed])
        np.testing.assert_array_equal(final_a, final_b)
        for f in FIELDS:
            np.testing.assert_array_equal(getattr(ex_a, f), getattr(ex_b, f), err_msg=f)
