"""Village rules data, written once as readable tables (spec: docs/rules/village.md, Appendix A).

Every number the engine needs lives here and nowhere else. Tags follow the spec:
[C] confirmed, [S] one source, [R] reconstructed, [U] PROVISIONAL (invented so the engine can run;
replace when board/card data is found). `tables.py` turns this module into the flat integer table
that the compiled engine receives as an argument (DESIGN D2). Replace values here (or pass a
modified copy to `tables.build_tables`) without touching engine code; a change of *shape* (more
cities, more tiles) needs a layout version bump.
"""

from __future__ import annotations

# --- names (indices used throughout) ---------------------------------------------------------
COLOURS = ("brown", "pink", "orange", "green")  # influence cube colours; index 4 = plague
PLAGUE = 4
CUBE_KINDS = COLOURS + ("plague",)
GOODS = ("scroll", "horse", "plow", "ox", "wagon")
SPACES = ("harvest", "family", "crafts", "market", "travel", "council", "church")  # A-G, rules §1
BUILDINGS = ("wainwright", "stables", "office", "blacksmith")  # craft buildings members stand on
SECTIONS = ("council", "crafts", "travel", "church", "farmyard")  # chronicle sections, rules §3.6
CITIES = ("A", "B", "C", "D", "E", "F", "G", "H")  # travel map, Appendix A.7 (placeholder)
VILLAGE_NODE = 8  # map node index of the Village (not a city)

# --- A.1 general -------------------------------------------------------------------------------
SUPPLY_COINS = 15  # [C]
SUPPLY_GRAIN = 20  # [C]
SUPPLY_GOODS_EACH = 8  # [C] 8 each of scroll, horse, plow, ox, wagon
SUPPLY_CUBES_EACH = 18  # [C] 18 each of brown, pink, orange, green
PLAGUE_CUBES = 6  # [C]
MONKS = 4  # [C]
MEMBERS_BY_GENERATION = (4, 3, 2, 2)  # [C] generations 1..4; the four "1"s start on the farmyard
STARTING_COINS = 1  # [C]
TRAVEL_MARKERS = 6  # [C]
GRAIN_CAP = 5  # [C]
LAP_LENGTH = 10  # [S] a death each time total time spent reaches a multiple of 10
PLAGUE_TIME = 2  # [C]
MAX_ROUNDS = 40  # [R] engine safety cap, ED-34 (not a game rule)
HARVEST_BASE, HARVEST_HORSE_PLOW, HARVEST_OX_PLOW = 2, 3, 4  # [C] rules §4.1
HARVEST_TIME, FAMILY_TIME = 0, 0  # [R]
MARKET_FEE_GREEN, MARKET_FEE_TIME = 1, 1  # [C] each sale after the opener's first, rules §4.5
WELL_CUBES = 3  # [C] rules §4.10

# --- A.2 per player count (index by number of players 2, 3, 4) --------------------------------
REFILL_PER_COLOUR = {2: 4, 3: 5, 4: 6}  # [U] PROVISIONAL influence cubes of each colour per round
CUBES_PER_SPACE = {  # [U] PROVISIONAL split; totals 18 / 21 / 24 are [S]; order A..G
    2: (3, 3, 3, 3, 2, 2, 2),
    3: (3, 3, 3, 3, 3, 3, 3),
    4: (4, 4, 4, 3, 3, 3, 3),
}
SERVABLE_STALLS = {2: 3, 3: 4, 4: 5}  # [R] 8/9/10 tiles face up minus the waiting line of 5
WAITING_LINE = 5  # [S]

# --- A.3 crafts (rules §4.3) -----------------------------------------------------------------
# building: (place time, produce time, purchase cubes (brown, pink, orange, green), purchase grain)
CRAFTS = {
    "wainwright": (2, 2, (0, 1, 1, 0), 0),  # [C] 1 orange + 1 pink
    "stables": (3, 3, (0, 0, 0, 0), 3),  # times [C]; 3 grain [S]
    "office": (2, 2, (0, 2, 0, 0), 0),  # times [R] (total 4 [S]); 2 pink [U] PROVISIONAL
    "blacksmith": (2, 2, (0, 0, 2, 0), 0),  # [U] PROVISIONAL
}
# product -> building (the stables make a horse or an ox, the player's choice)
PRODUCT_BUILDING = {
    "scroll": "office",
    "horse": "stables",
    "plow": "blacksmith",
    "ox": "stables",
    "wagon": "wainwright",
}
MILL = (1, 2, 2)  # (time, grain) paid -> coins gained; coins [C], costs [U] PROVISIONAL

# --- A.4 council chamber (rules §4.7) ----------------------------------------------------------
COUNCIL_GREEN, COUNCIL_SCROLL = 2, 1  # [R] cube part of every step: 2 green or 1 scroll
COUNCIL_TIME = (1, 1, 2, 2)  # [U] PROVISIONAL time to enter L1, climb to L2, to L3, to L4
COUNCIL_SCORE = (0, 2, 4, 6)  # [C] end score per member on level 1..4
PRIVILEGE_CUBES = 2  # [S] level 2: influence cubes of choice
PRIVILEGE_GOODS = 1  # [C] level 3: goods tile of choice
PRIVILEGE_COIN_PRESTIGE = (1, 3)  # [S] level 4: pay 1 coin -> 3 prestige, once per action

# --- A.5 church and Mass (rules §4.8, §4.9) ----------------------------------------------------
CHURCH_BROWN, CHURCH_TIME = 1, 3  # brown [C]; time [S] (one source says 2)
MASS_DRAWS = 4  # [C]
MASS_PICK_COINS = 1  # [S]
WINDOW_STEP_GRAIN = (1, 1, 2)  # [U] PROVISIONAL grain W1->W2, W2->W3, W3->W4
MASS_MAJORITY_PRESTIGE = 2  # [S]
WINDOW_SCORE = (2, 3, 4, 6)  # [C] end score per member on W1..W4

# --- A.6 chronicle and anonymous graves (rules §3.6) --------------------------------------------
# section: (unlabelled, labelled "3", labelled "4") spaces; all [U] PROVISIONAL
CHRONICLE = {s: (2, 1, 1) for s in SECTIONS}
GRAVES = (4, 2, 2)  # [U] PROVISIONAL
CHRONICLE_SCORE = (0, 0, 0, 4, 7, 12)  # [C] 0-2 -> 0, 3 -> 4, 4 -> 7, 5+ -> 12

# --- A.7 travel map (placeholder, [U] except where tagged) -------------------------------------
# (node a, node b, colour, time, wagons, cubes); node 8 = the Village
TRAVEL_EDGES = (
    (8, 0, "brown", 2, 1, 2),  # Village-A: colour [S] seed; cost [C]
    (8, 1, "pink", 2, 1, 2),  # Village-B: colour [S] seed; cost [C]
    (0, 2, "orange", 2, 1, 2),  # A-C [U]
    (0, 3, "pink", 2, 1, 2),  # A-D [U]
    (1, 3, "brown", 2, 1, 2),  # B-D [U]
    (1, 4, "orange", 2, 1, 2),  # B-E [U]
    (2, 5, "brown", 2, 1, 2),  # C-F [U]
    (3, 5, "orange", 2, 1, 2),  # D-F [U]
    (3, 6, "pink", 2, 1, 2),  # D-G [U]
    (4, 6, "brown", 2, 1, 2),  # E-G [U]
    (5, 7, "pink", 2, 1, 2),  # F-H [U]
    (6, 7, "orange", 2, 1, 2),  # G-H [U]
)
REWARD_KINDS = ("prestige", "coins", "cubes", "goods")
CITY_REWARDS = (  # (kind, amount) for cities A..H
    ("prestige", 3),  # A: kind [S] seed, number [U]
    ("coins", 1),  # B [U]
    ("cubes", 2),  # C [U]
    ("prestige", 2),  # D [U]
    ("cubes", 2),  # E [U]
    ("coins", 2),  # F [U]
    ("prestige", 3),  # G [U]
    ("coins", 2),  # H [U]
)
TRAVEL_SCORE = (0, 1, 3, 6, 10, 14, 18)  # [C] by markers on the map

# --- A.8 customer tiles: (demand {item: n}, prestige); items are goods or "grain" ---------------
CUSTOMERS = (
    ({"horse": 1, "plow": 1}, 6),  # T1 [S] seed
    ({"scroll": 1, "grain": 1}, 3),  # T2 demand [R], value [U]
    ({"grain": 2}, 2),  # T3 [R]/[U]
    ({"grain": 3}, 4),  # T4..T24 [U] PROVISIONAL
    ({"horse": 1}, 3),
    ({"ox": 1}, 3),
    ({"wagon": 1}, 2),
    ({"ox": 1, "plow": 1}, 6),
    ({"horse": 1, "ox": 1}, 6),
    ({"wagon": 1, "grain": 1}, 3),
    ({"horse": 1, "grain": 1}, 4),
    ({"ox": 1, "grain": 1}, 4),
    ({"plow": 1, "grain": 1}, 4),
    ({"wagon": 1, "scroll": 1}, 4),
    ({"scroll": 2}, 4),
    ({"wagon": 2}, 4),
    ({"wagon": 1, "horse": 1}, 5),
    ({"scroll": 1, "ox": 1}, 5),
    ({"plow": 1, "wagon": 1}, 5),
    ({"scroll": 1, "grain": 2}, 5),
    ({"plow": 1, "ox": 1, "grain": 1}, 8),
    ({"wagon": 1, "scroll": 1, "plow": 1}, 8),
    ({"horse": 1, "plow": 1, "scroll": 1}, 9),
    ({"horse": 1, "ox": 1, "plow": 1}, 10),
)

# --- A.9 / §5.2 other scoring --------------------------------------------------------------------
COIN_SCORE = 1  # [C] prestige per coin
MARGIN_SCALE = 20.0  # returns(kind="margin") divides the score gap by this (documented, not a rule)

if __name__ == "__main__":  # the rules-data command lives in core, the same for every game
    raise SystemExit(
        "this command moved: python -m core.rules_file --game village (--check FILE | --list)"
    )
