"""Troyes rules data, transcribed from docs/rules/troyes.md (the spec) as readable Python.

Every number a source does not give is PROVISIONAL in the spec; each row keeps the spec's list
of provisional fields in `provisional` so they can be found and replaced. `tables.py` turns this
module into one flat int64 array; the engine reads only that array (DESIGN D2).
"""

from __future__ import annotations

from enum import IntEnum


class Colour(IntEnum):
    """Dice / card colours; also the order of dice in a district (ED-2 roll order)."""

    Y = 0  # yellow, civil, City Hall
    W = 1  # white, religious, Bishopric
    R = 2  # red, military, Palace


class Building(IntEnum):
    """Main buildings (rules §4.4): a die's colour picks the building."""

    PALACE = 0  # red dice
    BISHOPRIC = 1  # white dice
    CITY_HALL = 2  # yellow dice


# colour of the die that places a citizen in each building (rules §4.4)
BUILDING_COLOUR = {
    Building.PALACE: Colour.R,
    Building.BISHOPRIC: Colour.W,
    Building.CITY_HALL: Colour.Y,
}


class Effect(IntEnum):
    """Activity effect codes (rules §6.1.2). Parameters p0..p3 per code are documented here."""

    GAIN = 0  # p0 deniers, p1 influence, p2 VP gained per activation
    PAY_GAIN = 1  # p0 pay kind (Res), p1 amount paid, p2 gain kind (Res), p3 amount gained
    MILLER = 2  # p0 deniers per standing citizen in the larger of Palace / Bishopric
    VP_PER = 3  # p0 count code (Count), p1 VP per counted item
    EVENT_CUBE = 4  # p0 cubes per activation, p1 black-die threshold (0 = no roll)
    # delayed cards: the modifier a spent cube applies (rules §6.1.2, ED-25/26)
    DIE_PLUS = 5  # p0 colour, p1 +x per die of that colour
    GROUP_PLUS = 6  # p0 colour, p1 +x once per group
    RECOLOUR = 7  # p0 colour a (the dice), p1 colour b (what they act as)
    SPLIT = 8  # p0 n virtual dice, p1 colour b; the group is exactly one white die
    ALL_FIVES = 9  # dice of any colours, each counts 5 and as the needed colour
    FREE_DICE = 10  # p0 colour; bought dice are free, at most one per other district


class Res(IntEnum):
    """Resources paid or gained by PAY_GAIN."""

    DENIERS = 0
    INFLUENCE = 1
    VP = 2


class Count(IntEnum):
    """What VP_PER counts (rules §6.1.2) and what a Character card counts (rules §6.3)."""

    EVENTS_WITH_OWN_CUBE = 0
    OWN_CATHEDRAL_CUBES = 1
    OWN_BISHOPRIC_CITIZENS = 2
    OWN_PALACE_CITIZENS = 3
    EVENTS_KEPT = 4
    INFLUENCE = 5
    DENIERS = 6
    OWN_BUILDING_CITIZENS = 7  # standing citizens in Palace, Bishopric and City Hall
    OWN_ACTIVITY_CITIZENS = 8  # citizens on Activity cards (slots and illustrations)


class Timing(IntEnum):
    IMMEDIATE = 0
    DELAYED = 1


class EventEffect(IntEnum):
    """Event effect codes (rules §6.2). Parameters e0, e1 per code."""

    NONE = 0
    PAY = 1  # e0 deniers
    LOSE_INFLUENCE = 2  # e0 influence
    LOSE_ACTIVITY_CUBE = 3  # e0 cubes
    LOSE_EVENT_CUBE = 4  # e0 cubes
    LOSE_CATHEDRAL_CUBE = 5  # e0 cubes
    LOSE_CITY_HALL_CITIZEN = 6  # e0 citizens
    GREY_CITIZEN = 7  # e0 building, e1 die value


# card tables: one row per card, as in the spec
# fmt: off
Y, W, R = Colour.Y, Colour.W, Colour.R
IMM, DEL = Timing.IMMEDIATE, Timing.DELAYED
E = Effect

# ---------------------------------------------------------------------------------------------
# rules §6.1.1 Activity cards. Row: (id, key, colour, level 1..3, hire, dice colour, divisor,
# timing, vp1, vp2, effect, (p0, p1, p2, p3), provisional fields)
# ---------------------------------------------------------------------------------------------
ACTIVITY_CARDS = [
    (0, "ARTISAN", Y, 1, 6, Y, 3, IMM, 2, 1, E.PAY_GAIN, (Res.INFLUENCE, 1, Res.DENIERS, 6),
     ("hire", "div", "vp1", "vp2")),
    (1, "MERCHANT", Y, 1, 4, Y, 2, IMM, 2, 1, E.GAIN, (2, 0, 0, 0), ("vp2",)),
    (2, "MILLER", Y, 1, 6, Y, 4, IMM, 2, 1, E.MILLER, (2, 0, 0, 0), ("hire", "div", "vp1", "vp2")),
    (3, "INNKEEPER", Y, 2, 8, Y, 2, IMM, 3, 2, E.PAY_GAIN, (Res.DENIERS, 1, Res.INFLUENCE, 1),
     ("hire", "div", "vp1", "vp2")),
    (4, "BLACKSMITH", Y, 2, 8, Y, 3, DEL, 3, 2, E.GROUP_PLUS, (R, 5, 0, 0),
     ("hire", "div", "vp1", "vp2")),
    (5, "MILITIA", Y, 2, 8, Y, 3, DEL, 3, 2, E.RECOLOUR, (Y, R, 0, 0),
     ("hire", "div", "vp1", "vp2")),
    (6, "JOURNEYMAN", Y, 3, 10, Y, 3, IMM, 4, 3, E.PAY_GAIN, (Res.DENIERS, 3, Res.VP, 2),
     ("hire", "div", "vp1", "vp2")),
    (7, "GOLDSMITH", Y, 3, 10, Y, 4, IMM, 4, 3, E.GAIN, (2, 0, 1, 0),
     ("hire", "div", "vp1", "vp2")),
    (8, "SCULPTOR", Y, 3, 10, Y, 3, IMM, 4, 3, E.GAIN, (0, 0, 1, 0), ("hire", "div", "vp1", "vp2")),
    (9, "TITHING", W, 1, 6, W, 4, DEL, 2, 1, E.FREE_DICE, (Y, 0, 0, 0),
     ("hire", "div", "vp1", "vp2")),
    (10, "MONK", W, 1, 6, W, 3, DEL, 2, 1, E.SPLIT, (3, Y, 0, 0), ("hire", "div", "vp1", "vp2")),
    (11, "PRIEST", W, 1, 8, W, 3, DEL, 3, 2, E.DIE_PLUS, (Y, 3, 0, 0), ("vp1", "vp2")),
    (12, "APPRENTICESHIP", W, 2, 8, W, 4, DEL, 3, 2, E.ALL_FIVES, (0, 0, 0, 0),
     ("hire", "div", "vp1", "vp2")),
    (13, "TEMPLAR", W, 2, 8, W, 3, DEL, 3, 2, E.SPLIT, (2, R, 0, 0), ("hire", "div", "vp1", "vp2")),
    (14, "CONFESSION", W, 2, 8, W, 3, DEL, 3, 2, E.DIE_PLUS, (W, 2, 0, 0),
     ("hire", "div", "vp1", "vp2", "effect")),
    (15, "PILGRIMAGE", W, 3, 10, W, 3, IMM, 4, 3, E.GAIN, (0, 0, 1, 0),
     ("hire", "div", "vp1", "vp2", "effect")),
    (16, "GLASSMAKER", W, 3, 10, W, 6, IMM, 4, 3, E.VP_PER, (Count.OWN_CATHEDRAL_CUBES, 1, 0, 0),
     ("hire", "div", "vp1", "vp2", "effect")),
    (17, "PROCESSION", W, 3, 10, W, 4, IMM, 4, 3, E.VP_PER,
     (Count.OWN_BISHOPRIC_CITIZENS, 1, 0, 0), ("hire", "div", "vp1", "vp2", "effect")),
    (18, "ARCHER", R, 1, 6, R, 2, IMM, 2, 1, E.EVENT_CUBE, (1, 3, 0, 0),
     ("hire", "div", "vp1", "vp2")),
    (19, "DIPLOMAT", R, 1, 3, R, 4, IMM, 1, 1, E.GAIN, (0, 1, 0, 0),
     ("hire", "div", "vp1", "vp2", "effect")),
    (20, "KNIGHT", R, 1, 6, R, 4, IMM, 2, 1, E.EVENT_CUBE, (1, 0, 0, 0),
     ("hire", "div", "vp1", "vp2", "effect")),
    (21, "HUNT", R, 2, 8, R, 3, IMM, 3, 2, E.GAIN, (0, 1, 0, 0),
     ("hire", "div", "vp1", "vp2", "effect")),
    (22, "MERCENARY", R, 2, 5, R, 3, IMM, 3, 2, E.GAIN, (3, 0, 0, 0),
     ("hire", "div", "vp1", "vp2", "effect")),
    (23, "RED_II_3", R, 2, 8, R, 3, IMM, 3, 2, E.GAIN, (2, 0, 0, 0),
     ("hire", "div", "vp1", "vp2", "effect")),
    (24, "CAPTAIN", R, 3, 10, R, 5, IMM, 4, 3, E.VP_PER, (Count.EVENTS_WITH_OWN_CUBE, 1, 0, 0),
     ("hire", "div", "vp1", "vp2")),
    (25, "JOUSTS", R, 3, 10, R, 4, IMM, 4, 3, E.VP_PER, (Count.OWN_PALACE_CITIZENS, 1, 0, 0),
     ("hire", "div", "vp1", "vp2", "effect")),
    (26, "TROUBADOUR", R, 3, 10, R, 4, IMM, 4, 3, E.PAY_GAIN, (Res.INFLUENCE, 1, Res.VP, 2),
     ("hire", "div", "vp1", "vp2", "effect")),
]

ACTIVITY_NAMES = [
    "Artisan", "Merchant", "Miller", "Innkeeper", "Blacksmith", "Militia", "Journeyman",
    "Goldsmith", "Sculptor", "Tithing", "Monk", "Priest", "Apprenticeship", "Templar",
    "Confession", "Pilgrimage", "Glassmaker", "Procession", "Archer", "Diplomat", "Knight", "Hunt",
    "Mercenary", "Red activity II-3", "Captain", "Jousts", "Troubadour",
]

# ---------------------------------------------------------------------------------------------
# rules §6.2.1 Event cards. Row: (id, key, colour (-1 = Marauding), black dice, effect, (e0, e1),
# combat colour, max dice, divisor, flags, R1, R2, next deck (-1 none), provisional fields)
# ---------------------------------------------------------------------------------------------
EE = EventEffect
B = Building
EVENT_CARDS = [
    (0, "MARAUDING", -1, 1, EE.NONE, (0, 0), Y, 3, 3, 3, 2, 1, -1, ("max", "flags", "R1", "R2")),
    (1, "WAR", R, 2, EE.NONE, (0, 0), R, 3, 4, 4, 4, 2, W, ("max", "div", "flags", "R1", "R2")),
    (2, "SUCCESSION_CONFLICT", R, 1, EE.GREY_CITIZEN, (B.PALACE, 1), R, 3, 4, 3, 3, 1, Y,
     ("black", "effect", "max", "div", "flags", "R1", "R2", "next")),
    (3, "RED_R3", R, 2, EE.NONE, (0, 0), R, 3, 4, 5, 5, 2, W, ("black", "R1", "R2", "next")),
    (4, "RED_R4", R, 1, EE.PAY, (2, 0), R, 3, 4, 3, 3, 1, Y,
     ("black", "effect", "max", "div", "flags", "R1", "R2", "next")),
    (5, "RED_R5", R, 2, EE.NONE, (0, 0), R, 3, 4, 4, 4, 2, W,
     ("black", "max", "div", "flags", "R1", "R2", "next")),
    (6, "RED_R6", R, 1, EE.LOSE_EVENT_CUBE, (1, 0), R, 3, 4, 3, 3, 1, Y,
     ("black", "effect", "max", "div", "flags", "R1", "R2", "next")),
    (7, "RED_R7", R, 2, EE.NONE, (0, 0), R, 3, 4, 4, 4, 2, W,
     ("black", "max", "div", "flags", "R1", "R2", "next")),
    (8, "RED_R8", R, 1, EE.LOSE_CITY_HALL_CITIZEN, (1, 0), R, 3, 4, 3, 3, 1, Y,
     ("black", "effect", "max", "div", "flags", "R1", "R2", "next")),
    (9, "THEOLOGICAL_DISPUTE", W, 0, EE.LOSE_CATHEDRAL_CUBE, (1, 0), W, 3, 4, 3, 3, 1, -1,
     ("effect", "combat", "max", "div", "flags", "R1", "R2")),
    (10, "HERESY", W, 0, EE.LOSE_INFLUENCE, (1, 0), W, 3, 4, 3, 3, 1, -1,
     ("black", "effect", "combat", "max", "div", "flags", "R1", "R2")),
    (11, "WHITE_W3", W, 0, EE.GREY_CITIZEN, (B.BISHOPRIC, 1), W, 3, 4, 3, 3, 1, -1,
     ("black", "effect", "combat", "max", "div", "flags", "R1", "R2")),
    (12, "WHITE_W4", W, 0, EE.LOSE_EVENT_CUBE, (1, 0), W, 3, 4, 3, 3, 1, -1,
     ("black", "effect", "combat", "max", "div", "flags", "R1", "R2")),
    (13, "YELLOW_Y1", Y, 0, EE.LOSE_ACTIVITY_CUBE, (1, 0), Y, 3, 5, 2, 2, 1, -1, ()),
    (14, "DROUGHT", Y, 0, EE.PAY, (2, 0), Y, 3, 4, 3, 3, 1, -1,
     ("black", "effect", "combat", "max", "div", "flags", "R1", "R2")),
    (15, "YELLOW_Y3", Y, 0, EE.GREY_CITIZEN, (B.CITY_HALL, 1), Y, 3, 4, 3, 3, 1, -1,
     ("black", "effect", "combat", "max", "div", "flags", "R1", "R2")),
    (16, "YELLOW_Y4", Y, 0, EE.LOSE_CITY_HALL_CITIZEN, (1, 0), Y, 3, 4, 3, 3, 1, -1,
     ("black", "effect", "combat", "max", "div", "flags", "R1", "R2")),
]

EVENT_NAMES = [
    "Marauding", "War", "Succession Conflict", "Red event R3", "Red event R4", "Red event R5",
    "Red event R6", "Red event R7", "Red event R8", "Theological Dispute", "Heresy",
    "White event W3", "White event W4", "Yellow event Y1", "Drought", "Yellow event Y3",
    "Yellow event Y4",
]

# ---------------------------------------------------------------------------------------------
# rules §6.3 Character cards (tier model). Row: (id, key, count code, thresholds, VP, provisional)
# ---------------------------------------------------------------------------------------------
C = Count
CHARACTER_CARDS = [
    (0, "HENRI_I", C.EVENTS_KEPT, (1, 3, 5), (2, 4, 6), ("thresholds 1 and 3", "VP")),
    (1, "HUGUES_DE_PAYNS", C.INFLUENCE, (5, 10, 15), (2, 4, 6), ("VP",)),
    (2, "URBAIN_IV", C.OWN_CATHEDRAL_CUBES, (2, 4, 6), (2, 4, 6), ("thresholds", "VP")),
    (3, "THIBAUT_II", C.DENIERS, (10, 20, 30), (2, 4, 6), ("thresholds", "VP")),
    (4, "CHRETIEN_DE_TROYES", C.OWN_BUILDING_CITIZENS, (3, 5, 7), (2, 4, 6), ("thresholds", "VP")),
    (5, "LE_FLORENTIN", C.OWN_ACTIVITY_CITIZENS, (2, 4, 6), (2, 4, 6), ("thresholds", "VP")),
]

CHARACTER_NAMES = [
    "Henri I", "Hugues de Payns", "Urbain IV", "Thibaut II", "Chretien de Troyes", "Le Florentin",
]

# ---------------------------------------------------------------------------------------------
# rules §2.1 setup per player count: citizens in supply, deniers, influence, characters each,
# rounds (= red event cards kept)
# ---------------------------------------------------------------------------------------------
SETUP = {
    2: (6, 5, 4, 2, 4),
    3: (5, 5, 4, 1, 5),
    4: (4, 5, 4, 1, 6),
}

# fmt: on

MAX_CITIZENS = 12  # rules §1: a player never owns more than 12
GREY_CITIZENS = 8  # rules §1
INCOME = 10  # rules §3 phase 1
SALARY = {Building.PALACE: 2, Building.BISHOPRIC: 1, Building.CITY_HALL: 0}  # rules §3 phase 1
PENALTY_VP = 2  # rules §3 phase 1 and 3: flat 2 VP for an unmet obligation / black die conceded
DICE_PRICE = (0, 2, 4, 6)  # rules §4.0: price per bought die by group size 1..3
INFLUENCE_MAX = 20  # rules §5
REROLL_COST = 1  # rules §5
NEW_CITIZEN_COST = 2  # rules §5
FLIP_COST = 4  # rules §5
AGRICULTURE_DIVISOR = 2  # rules §4.5
PASS_DENIERS = 2  # rules §4.6 (U-PASS: always 2)
PASS_EXTRA = 1  # rules §4.6 / ED-20: +1 each time a passed player's turn comes round
CATHEDRAL_VP = 1  # rules §4.2: +1 VP per cube
CATHEDRAL_INFLUENCE = (1, 1, 1, 2, 2, 2)  # rules §4.2: by space number 1..6
CATHEDRAL_LEVEL_PENALTY = 2  # rules §7: per Cathedral level without an own cube
UNRESOLVED_EVENT_VP = 1  # rules §7: per unresolved event holding an own cube
ALL_FIVES_VALUE = 5  # rules §6.1.2 ALL_FIVES

# U-ROWS: Palace 6 single spaces; Bishopric 3 rows x 2 (values 1-2, 3-4, 5-6); City Hall 2 rows
# x 3 (values 1-3, 4-6). Row length per building and the row a die value picks.
ROW_LENGTH = {Building.PALACE: 1, Building.BISHOPRIC: 2, Building.CITY_HALL: 3}
ROW_OF_VALUE = {
    Building.PALACE: (0, 1, 2, 3, 4, 5),
    Building.BISHOPRIC: (0, 0, 1, 1, 2, 2),
    Building.CITY_HALL: (0, 0, 0, 1, 1, 1),
}

# U-2P: grey citizens placed first with 2 players, as SPACE ids (see layout: Palace 0-5,
# Bishopric 6 + 2*row + place, City Hall 12 + 3*row + place)
GREY_2P_SPACES = (0, 1, 6, 8, 12, 15)

# returns(kind="margin") divides the score gap (own - best other) by this (documented, not a rule)
MARGIN_SCALE = 20.0

if __name__ == "__main__":  # the rules-data command lives in core, the same for every game
    raise SystemExit(
        "this command moved: python -m core.rules_file --game troyes (--check FILE | --list)"
    )
