"""A trained actor played in numpy: the MLP stored as plain arrays by our checkpoints
(training.agents.checkpoint.actor_arrays) and by RLlib exports (training.agents.rllib_agent)."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from core.bots import BotRng


def mlp_logits(arrays: dict[str, np.ndarray], obs: np.ndarray) -> np.ndarray:
    """Action logits of an actor stored as numpy arrays (see checkpoint.actor_arrays)."""
    acts = [str(a) for a in arrays["activations"]]
    x = obs.astype(np.float32)
    for i, act in enumerate(acts):
        x = x @ arrays[f"W{i}"].T + arrays[f"b{i}"]
        x = np.tanh(x) if act == "tanh" else np.maximum(x, 0.0)
    k = len(acts)
    return x @ arrays[f"W{k}"].T + arrays[f"b{k}"]


def masked_probs(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Softmax over the legal actions only (illegal ones get probability 0)."""
    z = np.where(mask, logits.astype(np.float64), -np.inf)
    z = z - z.max()
    p = np.exp(z)
    return p / p.sum()


def sample_masked(logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row of (k, N) logits, sampled from the softmax over that row's legal
    actions, with one uniform per row from `rng`: row j gives exactly what
    `rng.choice(N, p=masked_probs(logits[j], masks[j]))` gives, in one numpy pass."""
    z = np.where(masks, logits.astype(np.float64), -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    cdf = np.cumsum(p, axis=1)
    cdf /= cdf[:, -1:]
    u = rng.random(len(p))
    return np.minimum((cdf <= u[:, None]).sum(axis=1), p.shape[1] - 1)


class PolicyAgent:
    """A trained actor run in numpy: argmax (deterministic) or sampled from its own generator."""

    def __init__(
        self,
        game: ModuleType,
        arrays: dict[str, np.ndarray],
        seed: int = 0,
        deterministic: bool = True,
        name: str = "policy",
    ):
        self.game = game
        self.arrays = arrays
        self.rng = BotRng(seed)
        self.deterministic = deterministic
        self.name = name

    def act(self, state: np.ndarray) -> int:
        """The policy's action for the player to act."""
        g = self.game
        mask = g.legal_mask(state)
        logits = mlp_logits(self.arrays, g.observe(state, g.current_player(state)))
        if self.deterministic:
            return int(np.argmax(np.where(mask, logits, -np.inf)))
        cdf = np.cumsum(masked_probs(logits, mask))
        u = self.rng.seed32() / 2.0**32 * cdf[-1]
        a = int(np.searchsorted(cdf, u, side="right"))
        return a if mask[min(a, len(mask) - 1)] else int(np.flatnonzero(mask)[-1])
