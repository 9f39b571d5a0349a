"""Baseline bots per game, registered by name: `random` for every game, others per game module.

A bot is an object with `name` and `act(state) -> action id`; it draws its randomness from a
seeded generator of its own, so a match replays exactly from its seeds.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Protocol

import numpy as np

from core.agents import RandomAgent
from core.rng import rng_below, rng_next, rng_seed, split_seed
from training.games import get_game


class Agent(Protocol):
    """Anything that picks a legal action for the player to act in a state."""

    name: str

    def act(self, state: np.ndarray) -> int:
        """A legal action id for `game.current_player(state)`."""
        ...


BotFactory = Callable[[ModuleType, int], Agent]
_REGISTRY: dict[tuple[str, str], BotFactory] = {}


def register_bot(game: str, name: str) -> Callable[[BotFactory], BotFactory]:
    """Decorator: register `factory(game_module, seed) -> Agent` as bot `name` of `game` ("*"
    registers it for every game)."""

    def deco(factory: BotFactory) -> BotFactory:
        _REGISTRY[(game, name)] = factory
        return factory

    return deco


class BotRng:
    """A bot's own seeded xoshiro128** stream (core.rng): identical on every platform and numpy
    version, so matches replay exactly."""

    def __init__(self, seed: int = 0):
        self.words = np.zeros(4, dtype=np.int64)
        rng_seed(self.words, 0, *split_seed(int(seed)))

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        return int(rng_below(self.words, 0, int(n)))

    def seed32(self) -> int:
        """A fresh 32-bit seed (for reseeding a lookahead copy of the state)."""
        return int(rng_next(self.words, 0))


class RandomBot:
    """Uniform among the legal actions, from its own seeded stream (core.agents.RandomAgent)."""

    name = "random"

    def __init__(self, game: ModuleType, seed: int = 0):
        self.game = game
        self._agent = RandomAgent(int(seed))

    def act(self, state: np.ndarray) -> int:
        """A uniformly random legal action."""
        return self._agent.act_mask(self.game.legal_mask(state))


register_bot("*", "random")(RandomBot)


def _load_game_bots(game_name: str) -> None:
    try:
        importlib.import_module(f"training.bots.{game_name}")
    except ModuleNotFoundError as e:
        if e.name != f"training.bots.{game_name}":
            raise


def bot_names(game_name: str) -> list[str]:
    """Names of the bots available for `game_name`."""
    _load_game_bots(game_name)
    return sorted({n for g, n in _REGISTRY if g in ("*", game_name)})


def is_bot(game_name: str, name: str) -> bool:
    """True if `name` is a registered bot of `game_name`."""
    return name in bot_names(game_name)


def make_bot(game_name: str, name: str, seed: int = 0) -> Agent:
    """A new bot `name` for `game_name`, seeded; a clear error for an unknown name."""
    game = get_game(game_name)
    _load_game_bots(game_name)
    factory = _REGISTRY.get((game_name, name)) or _REGISTRY.get(("*", name))
    if factory is None:
        raise ValueError(
            f"no bot {name!r} for {game_name}; available: {', '.join(bot_names(game_name))}"
        )
    return factory(game, int(seed))
