"""Troyes' chance words (troyes_env/chance.py): a round's dice and cards, the black dice and a
reroll, checked against the state on seeded games."""

from __future__ import annotations

import re

from game_helpers import chance_steps

from core.registry import get_game
from troyes_env.actions import ACTIONS
from troyes_env.layout import NEUTRAL

COLOURS = "YWR"


def _steps(players: int, seed: int):
    return chance_steps(get_game("troyes"), players, seed)


def test_a_round_names_each_districts_dice_one_per_standing_citizen():
    g = get_game("troyes")
    rounds = 0
    for _before, _a, after, words in _steps(3, 2):
        dice = [w for w in words if w.startswith("dice rolled: ")]
        if not dice:
            continue
        rounds += 1
        rolled = g.LAYOUT.view(after, "rolled")  # dice per district and colour (rules §3 phase 2)
        for part in dice[0][len("dice rolled: ") :].split("; "):
            who, _, faces = part.partition(" ")
            q = NEUTRAL if who == "neutral" else int(who.removeprefix("player_"))
            named = re.findall(r"([YWR])(\d)", faces)
            for c in range(3):
                assert sum(col == COLOURS[c] for col, _v in named) == rolled[q, c]
            want = sorted(
                (c, v + 1) for c in range(3) for v in range(6)
                for _ in range(int(g.LAYOUT.view(after, "dice")[q, c, v]))
            )  # fmt: skip
            assert sorted((COLOURS.index(col), int(v)) for col, v in named) == want
        new_cards = [w for w in words if w.startswith("event ") and w.endswith(" drawn")]
        assert new_cards  # a red card at least (rules §3 phase 3)
    assert rounds == int(g.LAYOUT.view(after, "n_rounds")[0])


def test_a_reroll_names_the_value_the_die_came_up():
    g = get_game("troyes")
    seen = 0
    for before, a, after, words in _steps(2, 4):
        seg, idx = ACTIONS.decode(a)
        if seg != "REROLL":
            continue
        c, v = idx
        p = int(g.LAYOUT.view(before, "cur")[0])
        (w,) = [w for w in words if w.startswith("the rerolled ")]
        new = int(re.search(r"came up (\d)$", w).group(1))
        d0, d1 = g.LAYOUT.view(before, "dice")[p, c], g.LAYOUT.view(after, "dice")[p, c]
        assert d1.sum() == d0.sum()  # one die rolled again, none gained or lost
        want = d0.copy()
        want[v] -= 1
        want[new - 1] += 1
        assert (d1 == want).all()
        seen += 1
    assert seen >= 2


def test_black_dice_named_are_the_ones_the_row_added():
    g = get_game("troyes")
    seen = 0
    for before, _a, after, words in _steps(2, 6):
        black = [w for w in words if w.startswith("black dice rolled: ")]
        if black:
            named = [int(x) for x in black[0].split(": ")[1].split()]
            added = g.LAYOUT.view(after, "black") - g.LAYOUT.view(before, "black")
            assert sorted(named) == [v + 1 for v in range(6) for _ in range(int(added[v]))]
            seen += 1
    assert seen >= 2
