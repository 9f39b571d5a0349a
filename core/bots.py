"""Baseline bots of every game, by name: `random` and a greedy `heuristic` for any game, plus the
bots a game package names in its spec (`GameSpec.bots`), which replace these under the same name.

A bot is an object with `name` and `act(state) -> action id`; it draws its randomness from a
seeded generator of its own (`BotRng`), so a match replays exactly from its seeds.

The generic `heuristic` is greedy one-step lookahead on the game's own position evaluation: the
game contract's `k_evaluate` (core/game_contract.py: each seat's projected final score). It
plays the action whose successor maximises (own projection - best other projection), looking
ahead on a `determinize`d copy of the state, so it never peeks at hidden information or future
chance; a successor where the game is over is valued by its real result.

Both `heuristic`s decide in compiled code, one implementation for every caller: a `CompiledBot`
calls its game's rendered `engine.bot_loops` (core/bots_template.py, `bot_choice`) for each
decision, and the batch engine plays the same kernel for every slot of a batch where such a bot
is to act, in one call (core.batch.BatchEngine.play_seats, training's BatchVecEnv), from a copy
of the bot's stream words.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Protocol

import numpy as np

from core.agents import RandomAgent
from core.batch import BOT_GREEDY, bot_scratch
from core.registry import game_packages, get_game
from core.rng import rng_below, rng_next, rng_seed, split_seed


class Agent(Protocol):
    """Anything that picks a legal action for the player to act in a state."""

    name: str

    def act(self, state: np.ndarray) -> int:
        """A legal action id for `game.current_player(state)`."""
        ...


BotFactory = Callable[[ModuleType, int], Agent]  # (game package, seed) -> bot


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


def kernels_of(game: ModuleType) -> ModuleType:
    """The game's rendered contract module (`<package>.engine.contract`, core.codegen)."""
    return importlib.import_module(f"{game.__name__}.engine.contract")


def has_evaluation(game: ModuleType) -> bool:
    """Whether the game's kernels provide the position evaluation `k_evaluate`."""
    try:
        return callable(getattr(kernels_of(game), "k_evaluate", None))
    except ImportError:
        return False


BOT_ERRORS = {  # bot_choice's error codes (core/bots_template.py)
    -1: "no legal action",
    -2: "the engine refused an action of the lookahead",
    -3: "the game has no compiled bot of this code",
}


class CompiledBot:
    """A bot that decides in compiled code: its game's `bot_loops.bot_choice` for `batch_code`
    (core.batch.BOT_GREEDY, or one of the game's own compiled bots: its kernels'
    `k_own_bot_values`), drawing from its own BotRng. The batch engine plays a CompiledBot by its
    `batch_code` and a copy of `rng.words`, exactly as `act` would (core.batch.BatchEngine.
    play_seats); a subclass changes how the bot plays only through the kernels, never in
    Python."""

    name: str
    batch_code: int

    def __init__(self, game: ModuleType, seed: int = 0):
        self.game = game
        self.rng = BotRng(seed)
        self._spec = game.GAME.batch_spec()
        self._scratch: tuple | None = None  # bot_choice's scratch (made on the first act)
        self._work = np.zeros(max(1, self._spec.work_size), dtype=np.int64)
        self._np_at = game.GAME.spec.fields.num_players

    def act(self, state: np.ndarray) -> int:
        """The bot's action in `state` (the state is not changed)."""
        g = self.game
        mask = g.legal_mask(state)  # checks the state
        s = np.ascontiguousarray(state, dtype=np.int64)
        if self._scratch is None:
            self._scratch = bot_scratch(self._spec, 1)
        a = self._spec.bots.bot_choice(
            self.batch_code,
            s,
            g.TABLES,  # read each time: load_rules_data may replace it
            s.item(self._np_at),
            mask,
            self.rng.words,
            self._work,
            self._scratch,
            0,
        )
        if a < 0:
            raise RuntimeError(f"{g.GAME.name} {self.name} bot: {BOT_ERRORS.get(a, a)}")
        return int(a)


class GreedyHeuristic(CompiledBot):
    """Greedy one-step lookahead on the game's projected-final-score evaluation (module
    docstring), compiled (core/bots_template.py: bot_choice with BOT_GREEDY, greedy_values)."""

    name = "heuristic"
    batch_code = BOT_GREEDY


def bot_factories(game_name: str) -> dict[str, BotFactory]:
    """The bots of `game_name`: name -> factory(game package, seed). `random` for every game,
    `heuristic` (GreedyHeuristic) for every game with a position evaluation, then the game's own
    (`GameSpec.bots`), which win over these under the same name."""
    game = get_game(game_name)
    found: dict[str, BotFactory] = {"random": RandomBot}
    if has_evaluation(game):
        found["heuristic"] = GreedyHeuristic
    own: Mapping[str, BotFactory] = game.GAME.spec.bots
    found.update(own)
    return found


def bot_names(game_name: str) -> list[str]:
    """Names of the bots available for `game_name`, sorted."""
    return sorted(bot_factories(game_name))


def is_bot(game_name: str, name: str) -> bool:
    """True if `name` is a bot of `game_name`."""
    return name in bot_factories(game_name)


def make_bot(game_name: str, name: str, seed: int = 0) -> Agent:
    """A new bot `name` for `game_name`, seeded; a ValueError naming the bots there are."""
    factories = bot_factories(game_name)
    if name not in factories:
        raise ValueError(
            f"no bot {name!r} for {game_name}; available: {', '.join(sorted(factories))}"
        )
    return factories[name](get_game(game_name), int(seed))


def bot_source_modules(game_name: str, name: str) -> list[str]:
    """The modules whose code decides how bot `name` of `game_name` plays (for fingerprints):
    this module, the bot's own module and the game package."""
    factory = bot_factories(game_name)[name]
    return sorted({__name__, factory.__module__, game_packages()[game_name]})
