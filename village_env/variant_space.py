"""Village's variant space: the rules-data keys a balance study may vary with a conditioned network
(core.variant_space), each from its lowest legal value to three times its default (capped at its
highest legal value; 0..3 for a default of 0) unless `RANGES` says otherwise.

Varied: every scalar key (supplies, starting coins, the life track, harvest and time costs, the
market fee, the well, the council's and the church's costs, the Mass, coin scoring), the prestige
tracks (council levels, church windows, travel, chronicle, the privilege's
prestige), the crafts' and the mill's costs and the bag refill per player count. Left out, with
the reason, in `LEFT_OUT`: the board's structure (cubes per action space, chronicle spaces,
graves, the travel map, city rewards) and the customer tiles, which change the board rather than
a number a designer tunes; vary them with `--adapt`.
"""

from __future__ import annotations

from core.variant_space import VariantSpace
from village_env import rules_data as rd
from village_env.rules_keys import RULES

VERSION = 1

SCALARS = [
    "SUPPLY_COINS", "SUPPLY_GRAIN", "SUPPLY_GOODS_EACH", "SUPPLY_CUBES_EACH", "PLAGUE_CUBES",
    "MONKS", "STARTING_COINS", "TRAVEL_MARKERS", "GRAIN_CAP", "LAP_LENGTH", "PLAGUE_TIME",
    "HARVEST_BASE", "HARVEST_HORSE_PLOW", "HARVEST_OX_PLOW", "HARVEST_TIME",
    "FAMILY_TIME", "MARKET_FEE_GREEN", "MARKET_FEE_TIME", "WELL_CUBES", "WAITING_LINE",
    "COUNCIL_GREEN", "COUNCIL_SCROLL", "PRIVILEGE_CUBES", "PRIVILEGE_GOODS", "CHURCH_BROWN",
    "CHURCH_TIME", "MASS_DRAWS", "MASS_PICK_COINS", "MASS_MAJORITY_PRESTIGE", "COIN_SCORE",
]  # fmt: skip
TRACKS = [
    *(f"COUNCIL_SCORE.{x}" for x in ("l1", "l2", "l3", "l4")),
    *(f"COUNCIL_TIME.{x}" for x in ("enter_l1", "l1_l2", "l2_l3", "l3_l4")),
    *(f"WINDOW_SCORE.{x}" for x in ("w1", "w2", "w3", "w4")),
    *(f"WINDOW_STEP_GRAIN.{x}" for x in ("w1_w2", "w2_w3", "w3_w4")),
    "PRIVILEGE_COIN_PRESTIGE.coins",
    "PRIVILEGE_COIN_PRESTIGE.prestige",
    *(f"TRAVEL_SCORE.{i}" for i in range(len(rd.TRAVEL_SCORE))),
    *(f"CHRONICLE_SCORE.{i}" for i in range(len(rd.CHRONICLE_SCORE))),
    *(f"MEMBERS_BY_GENERATION.{g}" for g in ("gen1", "gen2", "gen3", "gen4")),
    *(f"REFILL_PER_COLOUR.{n}" for n in (2, 3, 4)),
    *(f"SERVABLE_STALLS.{n}" for n in (2, 3, 4)),
    "MILL.time",
    "MILL.grain",
    "MILL.coins",
]
CRAFTS = [
    f"CRAFTS.{b}.{part}"
    for b in rd.BUILDINGS
    for part in (
        "place_time",
        "produce_time",
        *(f"purchase_cubes.{c}" for c in rd.COLOURS),
        "purchase_grain",
    )
]
RANGES = {
    # the worked study's variant raises the Mass bonus from 2 to 12
    "MASS_MAJORITY_PRESTIGE": (0, 12),
    # the life track's divisor is at least 1 (rules_keys)
    "LAP_LENGTH": (1, 30),
}
LEFT_OUT = {
    "MAX_ROUNDS": "the engine's safety cap on rounds (ED-34), not a rule of play",
    "CUBES_PER_SPACE": "the action board's cube layout per player count (board structure)",
    "CHRONICLE": "the chronicle's spaces per section (board structure)",
    "GRAVES": "the anonymous graves' spaces (board structure)",
    "TRAVEL_EDGES": "the travel map (board structure)",
    "CITY_REWARDS": "the travel map's city rewards (board structure)",
    "CUSTOMERS": "the customer tiles' demands and prestige (a tile set, not one number)",
    "CRAFTS": "varied per building and part (the keys below it)",
    "PRODUCT_BUILDING": "which building makes which good (structure)",
}

SPACE = VariantSpace.build(RULES, [*SCALARS, *TRACKS, *CRAFTS], VERSION, RANGES, LEFT_OUT)
