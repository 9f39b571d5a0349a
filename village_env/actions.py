"""Village action space: one flat Discrete(N) from named segments (DESIGN D4).

Member choices are (location, generation) pairs (ED-4). The order never changes without a
version bump.
"""

from __future__ import annotations

from core.actions import ActionSpace
from village_env.layout import LOC_CITY, LOC_COUNCIL, LOC_CRAFT, LOC_FARM, LOC_WINDOW
from village_env.tables import N_EDGES

VERSION = 1
# board locations a member can be recalled from (rules §4.2): crafts, council, cities, windows
RECALL_LOCS = (
    tuple(range(LOC_CRAFT, LOC_CRAFT + 4))
    + tuple(range(LOC_COUNCIL, LOC_COUNCIL + 4))
    + tuple(range(LOC_CITY, LOC_CITY + 8))
    + tuple(range(LOC_WINDOW, LOC_WINDOW + 4))
)
# visible locations a member can die at (rules §3.5): the farmyard and the board
VISIBLE_LOCS = (LOC_FARM,) + RECALL_LOCS

ACTIONS = ActionSpace(
    "village",
    VERSION,
    [
        ("take", (7, 5), "take a cube: (space A..G, kind brown/pink/orange/green/plague) §3.2"),
        ("well", (4,), "use the Well paying 3 cubes of a colour §4.10"),
        ("done", (), "decline / pass / stop / no privilege (meaning depends on the phase)"),
        ("harvest", (), "grain harvest §4.1"),
        ("birth", (), "family: birth of the lowest unborn generation §4.2"),
        ("recall", (len(RECALL_LOCS), 4), "family: recall (board location, generation) §4.2"),
        ("craft_place", (4, 4), "crafts: place a farmyard member (building, generation) §4.3"),
        ("craft_produce", (5,), "crafts: produce a good with a member there (good) §4.3"),
        ("craft_buy", (5,), "crafts: purchase a good (good) §4.3"),
        ("mill", (), "crafts: the mill, time + grain for coins §4.3"),
        ("market", (), "open a market day (after the Well or in a free action) §4.5"),
        ("travel", (N_EDGES, 2, 4), "travel along (edge, direction a->b/b->a, generation) §4.6"),
        ("council_enter", (4, 2), "council: enter (generation, pay 2 green / 1 scroll) §4.7"),
        ("council_climb", (3, 4, 2), "council: climb (from level 1..3, generation, pay) §4.7"),
        ("council_privilege", (), "council: privilege only §4.7(c)"),
        ("privilege", (4,), "use the privilege of a level 1..4 §4.7"),
        ("church", (4, 2), "church: member to the black bag (generation, pay brown / 3 time)"),
        ("choose_cube", (4,), "one influence cube of choice (reward or privilege)"),
        ("choose_good", (5,), "one goods tile of choice (reward or privilege)"),
        ("serve", (5,), "market day: serve the customer on a stall §4.5"),
        ("die", (len(VISIBLE_LOCS),), "death: the lowest-generation member at a location §3.5"),
        ("mass_pick", (4,), "Mass: pick an own member of a generation from the bag §4.9"),
        ("mass_advance", (3, 4), "Mass: move a member from window W1..W3 one left (gen) §4.9"),
    ],
)
NUM_ACTIONS = ACTIONS.n
A_TAKE = ACTIONS.offset("take")
A_WELL = ACTIONS.offset("well")
A_DONE = ACTIONS.offset("done")
A_HARVEST = ACTIONS.offset("harvest")
A_BIRTH = ACTIONS.offset("birth")
A_RECALL = ACTIONS.offset("recall")
A_CRAFT_PLACE = ACTIONS.offset("craft_place")
A_CRAFT_PRODUCE = ACTIONS.offset("craft_produce")
A_CRAFT_BUY = ACTIONS.offset("craft_buy")
A_MILL = ACTIONS.offset("mill")
A_MARKET = ACTIONS.offset("market")
A_TRAVEL = ACTIONS.offset("travel")
A_ENTER = ACTIONS.offset("council_enter")
A_CLIMB = ACTIONS.offset("council_climb")
A_PRIV_ONLY = ACTIONS.offset("council_privilege")
A_PRIVILEGE = ACTIONS.offset("privilege")
A_CHURCH = ACTIONS.offset("church")
A_CHOOSE_CUBE = ACTIONS.offset("choose_cube")
A_CHOOSE_GOOD = ACTIONS.offset("choose_good")
A_SERVE = ACTIONS.offset("serve")
A_DIE = ACTIONS.offset("die")
A_PICK = ACTIONS.offset("mass_pick")
A_ADVANCE = ACTIONS.offset("mass_advance")
N_RECALL = len(RECALL_LOCS)
N_VISIBLE = len(VISIBLE_LOCS)
