"""Shared bits of the training tests."""

from pathlib import Path
from types import SimpleNamespace

from core.registry import game_names

GAMES = game_names()  # every registered game (core.registry)


def tiny_policy_checkpoint(path: Path, game, players: int = 2) -> Path:
    """A PPO-format checkpoint (sidecar and actor, no .zip) of a fixed small actor for `game`."""
    import torch
    from torch import nn

    from training.agents.checkpoint import save_checkpoint

    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(game.OBS_SIZE, 16), nn.Tanh(), nn.Linear(16, game.NUM_ACTIONS))
    policy = SimpleNamespace(
        features_extractor=None,
        mlp_extractor=SimpleNamespace(policy_net=net[:2]),
        action_net=net[2],
    )
    model = SimpleNamespace(policy=policy, num_timesteps=0)
    return save_checkpoint(model, path, game, players, with_zip=False)
