"""One flat int64 table built from rules_data (DESIGN D2). The engine receives it as an argument.

Offsets (T_*) are module constants; the shapes never change without a layout version bump.
`build_tables(module)` rebuilds from a modified rules-data module (or any object with the same
attributes), so provisional values can be replaced without touching the engine.
"""

from __future__ import annotations

import numpy as np

from core.tables import tables_hash
from troyes_env import rules_data as _rd

N_ACT = 27
N_EV = 17
N_CHAR = 6

# activity row columns
A_COL, A_LVL, A_HIRE, A_DICE, A_DIV, A_TIMING, A_VP1, A_VP2, A_EFF, A_P0, A_P1, A_P2, A_P3 = range(
    13
)
A_W = 13
# event row columns
(E_COL, E_BLACK, E_EFF, E_E0, E_E1, E_COMBAT, E_MAX, E_DIV, E_FLAGS, E_R1, E_R2, E_NEXT) = range(12)
E_W = 12
# character row columns
C_TIERS = 3  # thresholds (and VP) of a Character card, lowest first (rules §6.3)
C_COUNT, C_TH, C_VP = 0, 1, 1 + C_TIERS
C_W = C_VP + C_TIERS

# scalar constants (indices into the T_MISC block)
(
    M_MAX_CIT,
    M_GREY,
    M_INCOME,
    M_PENALTY,
    M_INFL_MAX,
    M_REROLL,
    M_NEWCIT,
    M_FLIP,
    M_AGRI_DIV,
    M_PASS,
    M_PASS_EXTRA,
    M_CATH_VP,
    M_CATH_PEN,
    M_UNRES_VP,
    M_FIVES,
) = range(15)
N_MISC = 15

T_ACT = 0
T_EV = T_ACT + N_ACT * A_W
T_CHAR = T_EV + N_EV * E_W
T_SETUP = T_CHAR + N_CHAR * C_W  # (5 player-count rows 0..4) x 5 columns
T_PRICE = T_SETUP + 5 * 5  # 4 entries, by group size
T_SALARY = T_PRICE + 4  # 3 buildings
T_CATH_INFL = T_SALARY + 3  # 6 values
T_ROW_LEN = T_CATH_INFL + 6  # 3 buildings
T_ROW_OF = T_ROW_LEN + 3  # 3 x 6: row a die value picks
T_GREY2P = T_ROW_OF + 18  # N_GREY2P SPACE ids
N_GREY2P = 6  # grey citizens placed before pre-placement in a 2-player game (rules §2.5)
T_MISC = T_GREY2P + N_GREY2P
T_SIZE = T_MISC + N_MISC

# setup columns
SETUP_CIT, SETUP_DEN, SETUP_INF, SETUP_CHARS, SETUP_ROUNDS = range(5)
SETUP_W = 5  # columns of a T_SETUP row (one row per player count)


def build_tables(rd=_rd) -> np.ndarray:
    """The flat table for a rules-data module (default: troyes_env.rules_data)."""
    t = np.zeros(T_SIZE, dtype=np.int64)
    for row in rd.ACTIVITY_CARDS:
        i, _k, col, lvl, hire, dice, div, timing, vp1, vp2, eff, params, _prov = row
        o = T_ACT + i * A_W
        t[o : o + A_W] = [col, lvl, hire, dice, div, timing, vp1, vp2, eff, *params]
    for row in rd.EVENT_CARDS:
        i, _k, col, black, eff, (e0, e1), combat, mx, div, flags, r1, r2, nxt, _prov = row
        o = T_EV + i * E_W
        t[o : o + E_W] = [col, black, eff, e0, e1, combat, mx, div, flags, r1, r2, nxt]
    for row in rd.CHARACTER_CARDS:
        i, _k, count, th, vp, _prov = row
        o = T_CHAR + i * C_W
        t[o : o + C_W] = [count, *th, *vp]
    for n, vals in rd.SETUP.items():
        t[T_SETUP + n * 5 : T_SETUP + n * 5 + 5] = vals
    t[T_PRICE : T_PRICE + 4] = rd.DICE_PRICE
    for b in range(3):
        t[T_SALARY + b] = rd.SALARY[b]
        t[T_ROW_LEN + b] = rd.ROW_LENGTH[b]
        t[T_ROW_OF + b * 6 : T_ROW_OF + b * 6 + 6] = rd.ROW_OF_VALUE[b]
    t[T_CATH_INFL : T_CATH_INFL + 6] = rd.CATHEDRAL_INFLUENCE
    t[T_GREY2P : T_GREY2P + 6] = rd.GREY_2P_SPACES
    misc = [
        rd.MAX_CITIZENS,
        rd.GREY_CITIZENS,
        rd.INCOME,
        rd.PENALTY_VP,
        rd.INFLUENCE_MAX,
        rd.REROLL_COST,
        rd.NEW_CITIZEN_COST,
        rd.FLIP_COST,
        rd.AGRICULTURE_DIVISOR,
        rd.PASS_DENIERS,
        rd.PASS_EXTRA,
        rd.CATHEDRAL_VP,
        rd.CATHEDRAL_LEVEL_PENALTY,
        rd.UNRESOLVED_EVENT_VP,
        rd.ALL_FIVES_VALUE,
    ]
    t[T_MISC : T_MISC + N_MISC] = misc
    return t


TABLES = build_tables()
TABLES.setflags(write=False)
RULES_DATA_HASH = tables_hash(TABLES)
