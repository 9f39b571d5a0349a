"""Helpers of the game-generic tests: positions they need, found in any registered game by
playing it, never by knowing its layout or rules."""

from __future__ import annotations

import numpy as np
import pytest

from core.agents import RandomAgent


def chance_steps(game, players: int, seed: int):
    """(before, action, after, chance words) for every decision of a seeded uniform-random game."""
    s, rng = game.new_game(players, seed), np.random.default_rng(seed)
    while not game.is_terminal(s):
        a = int(rng.choice(np.flatnonzero(game.legal_mask(s))))
        before, s = s, game.step(s, a)
        yield before, a, s, game.chance_words(before, a, s)


def fewest(game) -> int:
    """The game's smallest player count (a generic test's default table)."""
    return min(game.PLAYER_COUNTS)


def nth_count(game, k: int) -> int:
    """The game's player counts in turn: the k-th (cycling), for tests that play several."""
    counts = sorted(game.PLAYER_COUNTS)
    return counts[k % len(counts)]


def first_counts(game, k: int) -> list[int]:
    """The game's `k` smallest player counts (all of them where it has fewer): 2 and 3 of 2-4."""
    return sorted(game.PLAYER_COUNTS)[:k]


def counts_beside(game, items) -> list[tuple]:
    """(count, item) pairs: the game's counts in turn beside `items` in turn, as many pairs as the
    longer of the two, so that every count and every item is played at least once: (2, a),
    (3, b), (4, c) for counts 2-4 and items a, b, c."""
    items = list(items)
    n = max(len(game.PLAYER_COUNTS), len(items))
    return [(nth_count(game, k), items[k % len(items)]) for k in range(n)]


def state_with_masked_out_action(game, num_players: int | None = None, seed: int = 0) -> np.ndarray:
    """A decision of a seeded random game (at `num_players`, default the game's fewest) where
    some action is masked out (the first one); a game that shows none in 100 seeded games skips
    the test that needs one (a legal game may allow every action at every decision)."""
    num_players = fewest(game) if num_players is None else num_players
    for k in range(100):
        s = game.new_game(num_players, seed + k)
        bot = RandomAgent(seed + k)
        while not game.is_terminal(s):
            mask = game.legal_mask(s)
            if not mask.all():
                return s
            s = game.step(s, bot.act_mask(mask))
    pytest.skip(f"{game.NAME}: no decision with a masked-out action in 100 seeded games")


def seeded_games_decisions(game, num_players: int, games: int) -> list[int]:
    """The decisions of each of `games` seeded random games (seeds 0, 1, ...)."""
    out = []
    for seed in range(games):
        s = game.new_game(num_players, seed)
        bot = RandomAgent(seed)
        k = 0
        while not game.is_terminal(s):
            s = game.step(s, bot.act_mask(game.legal_mask(s)))
            k += 1
        out.append(k)
    return out


def tampered_accounting(game, state: np.ndarray) -> np.ndarray:
    """A copy of `state` with one visible entry moved by one within its segment's range so that
    the game's invariants break (an item out of nowhere): the first such entry of the layout."""
    for seg in game.LAYOUT.segments.values():
        if seg.hidden:
            continue
        for i in range(seg.offset, seg.offset + seg.size):
            for d in (1, -1):
                t = state.copy()
                t[i] += d
                if seg.lo <= t[i] <= seg.hi and game.check_invariants(t):
                    return t
    raise AssertionError(f"{game.NAME}: no one-entry change breaks an invariant")
