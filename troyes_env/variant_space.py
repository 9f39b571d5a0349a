"""Troyes's variant space: the rules-data keys a balance study may vary with a conditioned network
(core.variant_space), each from its lowest legal value to three times its default (capped at its
highest legal value; 0..3 for a default of 0) unless `RANGES` says otherwise.

Varied: every scalar key (income, the penalty, the costs of dice, rerolls, new citizens and
flips, passing, the cathedral's VP and level penalty, an unresolved event's VP, the all-fives
value, the citizen and influence caps), the salaries, dice prices and cathedral influence, the
setup per player count (citizens, deniers, influence, rounds), every Activity card's hire cost
and every character card's VP. Left out, with the reason, in `LEFT_OUT`: the cards' effects and
parameters, the event cards, the rows of the buildings and the fixed grey citizens, which change
what a card or the board does rather than a number a designer tunes; vary them with `--adapt`.
"""

from __future__ import annotations

from core.variant_space import VariantSpace
from troyes_env import rules_data as rd
from troyes_env.rules_keys import RULES

VERSION = 1

SCALARS = [
    "MAX_CITIZENS", "INCOME", "PENALTY_VP", "INFLUENCE_MAX", "REROLL_COST", "NEW_CITIZEN_COST",
    "FLIP_COST", "AGRICULTURE_DIVISOR", "PASS_DENIERS", "PASS_EXTRA", "CATHEDRAL_VP",
    "CATHEDRAL_LEVEL_PENALTY", "UNRESOLVED_EVENT_VP", "ALL_FIVES_VALUE",
]  # fmt: skip
PER_ITEM = [
    *(f"SALARY.{b}" for b in ("PALACE", "BISHOPRIC", "CITY_HALL")),
    *(f"DICE_PRICE.{i}" for i in range(1, 4)),
    *(f"CATHEDRAL_INFLUENCE.{i}" for i in range(6)),
    *(f"SETUP.{n}.{part}" for n in (2, 3, 4) for part in ("citizens", "deniers", "influence")),
    *(f"SETUP.{n}.rounds" for n in (2, 3)),
    *(f"ACTIVITY_CARDS.{r[1]}.hire" for r in rd.ACTIVITY_CARDS),
    *(f"CHARACTER_CARDS.{r[1]}.vp.{i}" for r in rd.CHARACTER_CARDS for i in range(3)),
]
RANGES = {
    # the worked study's variant scores 4 VP per cathedral cube instead of 1
    "CATHEDRAL_VP": (0, 4),
}
LEFT_OUT = {
    "GREY_CITIZENS": "fixed by the layout (8..8)",
    "ACTIVITY_CARDS": "varied per card by its hire cost; a card's effect, level, divisor, VP "
    "and parameters change what it does",
    "EVENT_CARDS": "what an event does (effects, rewards, deck)",
    "CHARACTER_CARDS": "varied per card by its VP; thresholds change what the card counts",
    "SETUP": "varied per count (citizens, deniers, influence; rounds at 2 and 3, 4 players "
    "already play the most the layout holds); characters dealt change the hidden hands",
    "ROW_LENGTH": "the buildings' rows (board structure)",
    "ROW_OF_VALUE": "the buildings' rows (board structure)",
    "GREY_2P_SPACES": "the 2-player grey citizens' spaces (board structure)",
}

SPACE = VariantSpace.build(RULES, [*SCALARS, *PER_ITEM], VERSION, RANGES, LEFT_OUT)
