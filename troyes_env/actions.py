"""Troyes flat action space (DESIGN D4), the suggested space of rules §10.7 (177 ids).

The `phase` field of the state says which decision an id answers, so ids are shared.
DIE districts are seat-relative: 0 own, 1..3 the next players clockwise, 4 neutral.
"""

from __future__ import annotations

from core.actions import ActionSpace

VERSION = 1

ACTIONS = ActionSpace(
    "troyes",
    VERSION,
    [
        (
            "SPACE",
            (18,),
            "a building space: Palace 0-5, Bishopric 6+2*row+place, City Hall 12+3*row+place",
        ),
        ("LYING", (3,), "own citizen lying at Palace / Bishopric / City Hall (citizen source)"),
        ("BUILDING", (3,), "target: place a citizen in Palace / Bishopric / City Hall"),
        ("ACTIVITY", (9,), "Activity card position colour*3+level-1 (target, cube, source, event)"),
        ("EVENT", (13,), "event row position, 0 = Marauding"),
        ("DIE", (5, 3, 6), "one die: relative district, colour Y/W/R, value-1"),
        ("BLACK", (6,), "one more black die of value v+1 to counter"),
        ("REROLL", (3, 6), "influence: reroll one own die of colour, value-1"),
        ("CATH_VALUE", (6,), "Cathedral column (value-1) to lose a cube from"),
        ("PASS", (), "pass"),
        ("CATHEDRAL", (), "target: build the Cathedral"),
        ("AGRICULTURE", (), "target: agriculture"),
        ("NO_CUBE", (), "spend no Activity cube"),
        ("SUPPLY", (), "citizen from the personal supply"),
        ("FLIP", (), "influence: flip 1-3 own dice"),
        ("NEW_CITIZEN", (), "influence: a new citizen into the personal supply"),
        ("CONFIRM", (), "confirm the chosen dice"),
        ("CONCEDE", (), "concede a black die (lose 2 VP)"),
        ("GO_ON", (), "make another activation"),
        ("STOP", (), "stop activating"),
    ],
)

NUM_ACTIONS = ACTIONS.n
A_SPACE = ACTIONS.offset("SPACE")
A_LYING = ACTIONS.offset("LYING")
A_BUILDING = ACTIONS.offset("BUILDING")
A_ACTIVITY = ACTIONS.offset("ACTIVITY")
A_EVENT = ACTIONS.offset("EVENT")
A_DIE = ACTIONS.offset("DIE")
A_BLACK = ACTIONS.offset("BLACK")
A_REROLL = ACTIONS.offset("REROLL")
A_CATHV = ACTIONS.offset("CATH_VALUE")
A_PASS = ACTIONS.offset("PASS")
A_CATHEDRAL = ACTIONS.offset("CATHEDRAL")
A_AGRI = ACTIONS.offset("AGRICULTURE")
A_NOCUBE = ACTIONS.offset("NO_CUBE")
A_SUPPLY = ACTIONS.offset("SUPPLY")
A_FLIP = ACTIONS.offset("FLIP")
A_NEWCIT = ACTIONS.offset("NEW_CITIZEN")
A_CONFIRM = ACTIONS.offset("CONFIRM")
A_CONCEDE = ACTIONS.offset("CONCEDE")
A_GOON = ACTIONS.offset("GO_ON")
A_STOP = ACTIONS.offset("STOP")
assert NUM_ACTIONS == 177
