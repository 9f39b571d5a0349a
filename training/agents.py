"""The one agent registry of training/: every place that names an agent (evaluate, the self-play
opponent pool, tournaments) builds it with `make_agent(spec, game, ...)` from a spec string:

- a baseline bot by name: `random`, `heuristic` (training.bots);
- a parametrised agent kind `name[:key=value,...]`: `mcts` (core.search, docs/agents.md), e.g.
  `mcts:iters=1000,c=0.7,rollout=greedy,cutoff=20` (more kinds: `register_agent_kind`);
- a trained policy: a checkpoint path (PATH.zip / PATH.json or a training output folder).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np

from training.bots import Agent, BotRng, bot_names, is_bot, make_bot
from training.checkpoint import CheckpointError, load_actor, looks_like_checkpoint
from training.games import get_game


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


_ACTOR_CACHE: dict[tuple[str, float], dict[str, np.ndarray]] = {}


def _cached_actor(path: str, game: ModuleType, players: int | None) -> dict[str, np.ndarray]:
    from training.checkpoint import base_path

    base = base_path(path)
    side = Path(f"{base}.json")
    key = (str(base.resolve()), side.stat().st_mtime if side.exists() else 0.0)
    if key not in _ACTOR_CACHE:
        arrays, _meta = load_actor(path, game, players)
        _ACTOR_CACHE[key] = arrays
    return _ACTOR_CACHE[key]


# kind name -> factory(game_name, params after "name:", seed) -> Agent
AgentKind = Callable[[str, str, int], Agent]
_KINDS: dict[str, tuple[AgentKind, str]] = {}


def register_agent_kind(name: str, factory: AgentKind, usage: str) -> None:
    """Register a parametrised agent kind: specs `name` and `name:params` build
    factory(game_name, params, seed); `usage` is shown in error messages."""
    _KINDS[name] = (factory, usage)


def _mcts(game_name: str, params: str, seed: int) -> Agent:
    from core.search import MCTSAgent, SearchConfig

    return MCTSAgent(game_name, SearchConfig.parse(params), seed)


register_agent_kind("mcts", _mcts, "mcts[:iters=N,time=S,c=X,rollout=random|greedy,cutoff=K,...]")


def agent_usage(game_name: str) -> str:
    """Every way to name an agent of `game_name`, for help and error messages."""
    kinds = [usage for _f, usage in _KINDS.values()]
    return ", ".join(bot_names(game_name) + kinds + ["a checkpoint PATH"])


def make_agent(
    spec: str, game_name: str, players: int | None = None, seed: int = 0, deterministic: bool = True
) -> Agent:
    """An agent from its spec (module docstring): a bot name, an agent kind with parameters, or a
    checkpoint path; clear errors naming the alternatives."""
    game = get_game(game_name)
    spec = str(spec)
    if is_bot(game_name, spec):
        return make_bot(game_name, spec, seed)
    kind, _sep, params = spec.partition(":")
    if kind in _KINDS:
        return _KINDS[kind][0](game_name, params, int(seed))
    if looks_like_checkpoint(spec):
        arrays = _cached_actor(spec, game, players)
        return PolicyAgent(game, arrays, seed, deterministic, name=str(spec))
    raise CheckpointError(
        f"{spec!r} is neither a bot, an agent kind nor an existing checkpoint of {game_name}; "
        f"agents: {agent_usage(game_name)} (PATH.zip/.json or a training output folder)"
    )
