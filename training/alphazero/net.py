"""The policy-value network of expert iteration: from one seat's observation (OBS_SIZE), action
logits over NUM_ACTIONS (illegal ones are masked by whoever reads them) and a value for every
seat up to the game's most players (the return vector, in the learner's return kind: no
reduction of a 2-4 player game to two sides).

One trunk of Linear + activation layers shared by both heads, and one Linear head whose first
NUM_ACTIONS outputs are the logits and whose last `seats` outputs are the values.

A conditioned network (`features` > 0) also reads the rules data it plays under: its input is the
observation followed by the rules features of the game's variant space (core.variant_space), the
same for every decision of a game. So their first-layer term is a constant of the game: a player
folds it into the first layer's bias once (core.mlp.fold_features) and the folded network is an
ordinary one over the observation, as fast as any other. So the whole
network is a plain Linear/activation stack, the format of trained actors
(training.agents.checkpoint.linear_stack_arrays): `arrays()` exports it, core.mlp packs it, and
core.mlp.actor_logits runs it inside compiled code (the search), with no torch.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn

from training.agents.checkpoint import linear_stack_arrays

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}


class PolicyValueNet(nn.Module):
    """obs (B, obs_size) float32 [, rules features (B, features)] -> (logits (B, num_actions),
    values (B, seats))."""

    def __init__(
        self,
        obs_size: int,
        num_actions: int,
        seats: int,
        hidden: tuple[int, ...] | list[int] = (128, 128),
        activation: str = "relu",
        features: int = 0,
    ):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        if not hidden or any(int(h) <= 0 for h in hidden):
            raise ValueError(f"hidden layers need positive widths, e.g. (128, 128), got {hidden}")
        if min(obs_size, num_actions, seats) <= 0:
            raise ValueError("obs_size, num_actions and seats must be positive")
        if int(features) < 0:
            raise ValueError(f"features must be >= 0, got {features}")
        self.obs_size, self.num_actions, self.seats = int(obs_size), int(num_actions), int(seats)
        self.features = int(features)
        self.hidden = [int(h) for h in hidden]
        self.activation = activation
        layers: list[nn.Module] = []
        width = self.obs_size + self.features
        for h in self.hidden:
            layers += [nn.Linear(width, h), ACTIVATIONS[activation]()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.head = nn.Linear(width, self.num_actions + self.seats)

    def forward(
        self, obs: torch.Tensor, feat: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if self.features:
            if feat is None or feat.shape[-1] != self.features:
                raise ValueError(f"this network reads {self.features} rules features with obs")
            obs = torch.cat([obs, feat], dim=1)
        out = self.head(self.trunk(obs))
        return out[:, : self.num_actions], out[:, self.num_actions :]

    def arrays(self) -> dict[str, np.ndarray]:
        """The network as plain arrays (W0, b0, ..., `activations`; float32), the trained-actor
        format: its output is the logits followed by the values (a conditioned network's W0
        has a column per rules feature after the observation's)."""
        return linear_stack_arrays([*self.trunk, self.head], "the policy-value network")

    def load_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """Set the weights from `arrays` (the format of `arrays()`); ValueError if they do not
        fit this network's shape."""
        linears = [m for m in [*self.trunk, self.head] if isinstance(m, nn.Linear)]
        for i, layer in enumerate(linears):
            w, b = arrays.get(f"W{i}"), arrays.get(f"b{i}")
            if (
                w is None
                or b is None
                or w.shape != tuple(layer.weight.shape)
                or b.shape != (layer.bias.shape[0],)
            ):
                raise ValueError(f"layer {i} does not fit this network's shape {self.settings()}")
            with torch.no_grad():
                layer.weight.copy_(torch.from_numpy(np.asarray(w, np.float32)))
                layer.bias.copy_(torch.from_numpy(np.asarray(b, np.float32)))
        if f"W{len(linears)}" in arrays:
            raise ValueError(f"more layers than this network's shape {self.settings()}")

    def settings(self) -> dict:
        """What rebuilds this network's shape: PolicyValueNet(**net.settings())."""
        return {
            "obs_size": self.obs_size,
            "num_actions": self.num_actions,
            "seats": self.seats,
            "hidden": list(self.hidden),
            "activation": self.activation,
            "features": self.features,
        }


def for_game(
    game, hidden=(128, 128), activation: str = "relu", features: int = 0
) -> PolicyValueNet:
    """A fresh network for `game` (a core.game.Game): its observation (and `features` rules
    features), its actions, a value per seat up to its most players."""
    return PolicyValueNet(
        game.OBS_SIZE, game.NUM_ACTIONS, max(game.PLAYER_COUNTS), hidden, activation, features
    )
