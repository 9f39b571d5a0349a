"""Village's chance words (village_env/chance.py): what the bag, the pile and the Mass drew in a
step, checked against the rules' counts on seeded games."""

from __future__ import annotations

import re

import pytest
from game_helpers import chance_steps

from core.registry import get_game
from village_env.actions import A_PICK
from village_env.layout import LOC_WINDOW, N_GEN, PH_MASS_PICK

CUBES_PER_ROUND = {2: 18, 3: 21, 4: 24}  # docs/rules/village.md, the setup card's table [S]
MASS_DRAWS = 4  # figures out of the black bag at a Mass, picks included (rules §4.9) [C]


def _steps(players: int, seed: int):
    return chance_steps(get_game("village"), players, seed)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_seeded_round_names_every_cube_drawn_and_the_rules_count(players):
    g = get_game("village")
    seen = 0
    for _before, _a, after, words in _steps(players, 11):
        for w in words:
            if w.startswith("cubes drawn from the bag: "):
                named = [int(k) for k in re.findall(r"(\d+) [a-z]+", w)]
                assert (
                    sum(named)
                    == CUBES_PER_ROUND[players]
                    == int(g.LAYOUT.view(after, "board").sum())
                )
                seen += 1
    assert seen >= 3


def test_the_mass_names_the_figures_it_drew_up_to_four_with_the_picks():
    g = get_game("village")
    picks, seen = 0, 0
    for before, a, after, words in _steps(3, 5):
        if int(g.LAYOUT.view(before, "phase")[0]) == PH_MASS_PICK and A_PICK <= a < A_PICK + N_GEN:
            picks += 1
        mass = [w for w in words if w.startswith("the Mass drew ")]
        if mass:
            (w,) = mass
            drawn = sum(int(k) for k in re.findall(r"(\d+) (?:monk|generation)", w))
            assert drawn + picks == MASS_DRAWS
            for k, gen, p in re.findall(r"(\d+) generation-(\d) members? of player_(\d)", w):
                came = g.LAYOUT.view(after, "members")[int(p), LOC_WINDOW, int(gen) - 1]
                assert came >= int(k)  # a drawn member goes to the first window
            seen += 1
        if int(g.LAYOUT.view(after, "phase")[0]) != PH_MASS_PICK:
            picks = 0
    assert seen >= 5


def test_a_customer_named_as_drawn_left_the_pile_for_the_waiting_line():
    g = get_game("village")
    seen = 0
    for seed in range(3):
        for before, _a, after, words in _steps(2, seed):
            for w in words:
                if w.startswith("customer "):
                    t = int(re.match(r"customer T(\d+) ", w).group(1)) - 1
                    assert (
                        g.LAYOUT.view(before, "pile")[t] == 1
                        and g.LAYOUT.view(after, "pile")[t] == 0
                    )
                    assert t in g.LAYOUT.view(after, "queue") or t in g.LAYOUT.view(after, "stalls")
                    seen += 1
    assert seen >= 3
