"""Baseline bots of every game, by name: `random` and a greedy `heuristic` for any game, plus the
bots a game package names in its spec (`GameSpec.bots`), which replace these under the same name.

A bot is an object with `name` and `act(state) -> action id`; it draws its randomness from a
seeded generator of its own (`BotRng`), so a match replays exactly from its seeds.

The generic `heuristic` is greedy one-step lookahead on the game's own position evaluation: the
kernel contract's `k_evaluate` (core/kernels_contract.py: each seat's projected final score). It
plays the action whose successor maximises (own projection - best other projection), looking
ahead on a `determinize`d copy of the state, so it never peeks at hidden information or future
chance.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Protocol

import numpy as np

from core.agents import RandomAgent
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
    """The game's kernel-contract module (`<package>.engine.kernels`)."""
    return importlib.import_module(f"{game.__name__}.engine.kernels")


def has_evaluation(game: ModuleType) -> bool:
    """Whether the game's kernels provide the position evaluation `k_evaluate`."""
    try:
        return callable(getattr(kernels_of(game), "k_evaluate", None))
    except ImportError:
        return False


class GreedyHeuristic:
    """Greedy one-step lookahead on the game's projected-final-score evaluation (module
    docstring)."""

    name = "heuristic"

    def __init__(self, game: ModuleType, seed: int = 0):
        self.game = game
        self.rng = BotRng(seed)
        self._k_evaluate = kernels_of(game).k_evaluate
        self._tmp = np.zeros(game.STATE_SIZE + 16, dtype=np.int64)  # k_evaluate's scratch
        spec = game.GAME.spec
        self._max_players = max(spec.player_counts)
        f = spec.fields
        self._np_at, self._over_at, self._over_value = f.num_players, f.over, f.over_value

    def projected(self, S: np.ndarray) -> np.ndarray:
        """(K, max players) projected final score of every seat in each of K states (0 for seats
        beyond the player count): the compiled k_evaluate, state by state."""
        T = self.game.TABLES  # read each time: load_rules_data may replace it
        out = np.zeros((S.shape[0], self._max_players))
        for k in range(S.shape[0]):
            self._k_evaluate(S[k], T, out[k], self._tmp)
        return out

    def evaluate(self, S: np.ndarray, me: int) -> np.ndarray:
        """(K,) value of each state for seat `me`: own projection minus the best other one; a
        finished game is valued by its real result."""
        n = int(S[0, self._np_at])
        g = self.game
        proj = self.projected(S)[:, :n]
        others = np.delete(proj, me, axis=1).max(axis=1)
        val = proj[:, me] - others
        over = S[:, self._over_at] == self._over_value
        for k in np.flatnonzero(over):  # a finished game: the real result dominates
            val[k] = 100.0 * float(g.returns(S[k], "win_loss")[me]) + float(
                g.scores(S[k])[me] - np.delete(g.scores(S[k]), me).max()
            )
        return val

    def act(self, state: np.ndarray) -> int:
        """The legal action whose (determinized) successor position evaluates best."""
        g = self.game
        legal = np.flatnonzero(g.legal_mask(state))
        if len(legal) == 1:
            return int(legal[0])
        me = g.current_player(state)
        probe = g.determinize(state, me, self.rng.seed32())
        nxt = np.stack([g.step(probe, int(a)) for a in legal])
        val = self.evaluate(nxt, me)
        best = np.flatnonzero(val >= val.max() - 1e-9)
        return int(legal[best[self.rng.below(len(best))]])


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
