"""The policy-value network (training.alphazero.net): its compiled forward pass (core.mlp, what
the search runs) equals torch's within float32 rounding, on every registered game's real
observations."""

import numpy as np
import pytest
import torch

from core.mlp import actor_io, actor_logits, pack_actors, packable
from core.registry import game_names, get_game
from training.alphazero.net import PolicyValueNet, for_game


def _observations(g, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    s = g.new_game(min(g.PLAYER_COUNTS), seed=seed)
    out = []
    while len(out) < n and not g.is_terminal(s):
        out.append(g.observe(s, g.current_player(s)))
        s = g.step(s, int(rng.choice(np.flatnonzero(g.legal_mask(s)))))
    return np.stack(out)


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_the_compiled_forward_is_torchs(game, activation):
    g = get_game(game)
    torch.manual_seed(0)
    net = for_game(g, hidden=(32, 16), activation=activation)
    obs = _observations(g, 40, seed=1)
    with torch.no_grad():
        logits, values = net(torch.from_numpy(obs))
    arrays = net.arrays()
    assert packable(arrays)
    w, meta, widest = pack_actors([arrays])
    assert actor_io(meta, 0) == (g.OBS_SIZE, g.NUM_ACTIONS + max(g.PLAYER_COUNTS))
    h = np.zeros((2, widest), dtype=np.float32)
    out = np.zeros(g.NUM_ACTIONS + net.seats, dtype=np.float32)
    for j, x in enumerate(obs):
        actor_logits(w, meta, 0, np.ascontiguousarray(x), h, out)
        np.testing.assert_allclose(out[: g.NUM_ACTIONS], logits[j].numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(out[g.NUM_ACTIONS :], values[j].numpy(), rtol=1e-4, atol=1e-5)


def test_settings_rebuild_the_same_shape_and_bad_settings_are_refused():
    net = PolicyValueNet(10, 7, 3, hidden=[8], activation="tanh")
    again = PolicyValueNet(**net.settings())
    assert [p.shape for p in net.parameters()] == [p.shape for p in again.parameters()]
    logits, values = net(torch.zeros(2, 10))
    assert logits.shape == (2, 7) and values.shape == (2, 3)
    with pytest.raises(ValueError, match="activation must be one of"):
        PolicyValueNet(10, 7, 3, activation="gelu")
    with pytest.raises(ValueError, match="positive widths"):
        PolicyValueNet(10, 7, 3, hidden=[8, 0])
    with pytest.raises(ValueError, match="must be positive"):
        PolicyValueNet(10, 0, 3)
