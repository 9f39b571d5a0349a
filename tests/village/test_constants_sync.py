"""The compiled engine's named constants agree with the rules data, the state layout, the table
layout and the action space they stand for (the engine holds no bare numbers)."""

from __future__ import annotations

import numpy as np

from village_env import layout as L
from village_env import observation as O
from village_env import rules_data as rd
from village_env import tables as tb
from village_env.actions import ACTIONS, N_RECALL, RECALL_LOCS, VISIBLE_LOCS
from village_env.engine import board as B
from village_env.engine import rounds


def test_enum_indices_match_rules_data():
    assert [B.SEC_COUNCIL, B.SEC_CRAFTS, B.SEC_TRAVEL, B.SEC_CHURCH, B.SEC_FARMYARD] == [
        rd.SECTIONS.index(x) for x in ("council", "crafts", "travel", "church", "farmyard")
    ]
    assert [B.G_SCROLL, B.G_HORSE, B.G_PLOW, B.G_OX, B.G_WAGON] == [
        rd.GOODS.index(x) for x in ("scroll", "horse", "plow", "ox", "wagon")
    ]
    assert [B.C_BROWN, B.C_PINK, B.C_ORANGE, B.C_GREEN, B.C_PLAGUE] == [
        rd.CUBE_KINDS.index(x) for x in ("brown", "pink", "orange", "green", "plague")
    ]
    assert B.C_PLAGUE == rd.PLAGUE
    assert [
        B.SP_HARVEST,
        B.SP_FAMILY,
        B.SP_CRAFTS,
        B.SP_MARKET,
        B.SP_TRAVEL,
        B.SP_COUNCIL,
        B.SP_CHURCH,
    ] == list(range(len(rd.SPACES)))
    assert rd.SPACES[B.SP_MARKET] == "market" and rd.SPACES[B.SP_TRAVEL] == "travel"
    assert [B.RW_PRESTIGE, B.RW_COINS, B.RW_CUBES, B.RW_GOODS] == [
        rd.REWARD_KINDS.index(x) for x in ("prestige", "coins", "cubes", "goods")
    ]
    # a city reward of cubes / goods becomes a reward of choice of that kind (apply.py)
    assert B.RW_GOODS - B.RW_CUBES == L.PK_GOODS - L.PK_CUBES
    assert B.VILLAGE == rd.VILLAGE_NODE and B.VILLAGE not in range(len(rd.CITIES))
    assert all(B.VILLAGE in (a, b) or max(a, b) < len(rd.CITIES) for a, b, *_ in rd.TRAVEL_EDGES)


def test_layout_counts_match_rules_data():
    assert L.N_COLOURS == len(rd.COLOURS)
    assert L.N_KINDS == len(rd.CUBE_KINDS) == L.N_COLOURS + 1
    assert L.N_GOODS == len(rd.GOODS)
    assert L.N_SPACES == len(rd.SPACES)
    assert L.N_SECTIONS == len(rd.SECTIONS)
    assert L.N_BUILDINGS == len(rd.BUILDINGS)
    assert L.N_GEN == len(rd.MEMBERS_BY_GENERATION)
    assert L.N_LEVELS == len(rd.COUNCIL_SCORE) == len(rd.COUNCIL_TIME)
    assert L.N_WINDOWS == len(rd.WINDOW_SCORE) == len(rd.WINDOW_STEP_GRAIN) + 1
    assert L.MAXP == max(rd.SERVABLE_STALLS) and O.MIN_PLAYERS == min(rd.SERVABLE_STALLS)
    assert L.N_SLOTS == rd.WAITING_LINE == max(rd.SERVABLE_STALLS.values())
    assert tb.N_CITIES == len(rd.CITIES)
    # member locations: blocks of buildings, council levels, cities, windows
    assert L.LOC_COUNCIL - L.LOC_CRAFT == L.N_BUILDINGS
    assert L.LOC_CITY - L.LOC_COUNCIL == L.N_LEVELS
    assert L.LOC_BAG - L.LOC_CITY == tb.N_CITIES
    assert L.LOC_CHRONICLE - L.LOC_WINDOW == L.N_WINDOWS


def test_board_locations_match_the_action_space():
    assert B.N_RECALL_LOW + L.N_WINDOWS == N_RECALL
    assert [B.recall_loc.py_func(i) for i in range(N_RECALL)] == list(RECALL_LOCS)
    assert [B.visible_loc.py_func(j) for j in range(len(VISIBLE_LOCS))] == list(VISIBLE_LOCS)
    assert [loc for loc in range(L.N_LOC) if B.is_visible.py_func(loc)] == sorted(VISIBLE_LOCS)
    shape = {name: seg.shape for name, seg in ACTIONS.segments.items()}
    assert shape["take"] == (L.N_SPACES, L.N_KINDS)
    assert shape["well"] == (L.N_COLOURS,)
    assert shape["recall"] == (N_RECALL, L.N_GEN)
    assert shape["craft_place"] == (L.N_BUILDINGS, L.N_GEN)
    assert shape["craft_produce"] == shape["craft_buy"] == (L.N_GOODS,)
    assert shape["travel"] == (tb.N_EDGES, 2, L.N_GEN)
    assert shape["council_enter"] == (L.N_GEN, 2)
    assert shape["council_climb"] == (L.N_LEVELS - 1, L.N_GEN, 2)
    assert shape["church"] == (L.N_GEN, 2)
    assert shape["choose_cube"] == (L.N_COLOURS,)
    assert shape["choose_good"] == (L.N_GOODS,)
    assert shape["serve"] == (L.N_SLOTS,)
    assert shape["mass_advance"] == (L.N_WINDOWS - 1, L.N_GEN)


def test_table_positions_match_rules_data():
    # distinct values, so a position that points at the wrong number is caught
    rdx = tb.rules_with(
        HARVEST_BASE=201,
        HARVEST_HORSE_PLOW=202,
        HARVEST_OX_PLOW=203,
        MARKET_FEE_GREEN=211,
        MARKET_FEE_TIME=212,
        MILL=(221, 222, 223),
        COUNCIL_GREEN=231,
        COUNCIL_SCROLL=232,
        PRIVILEGE_CUBES=241,
        PRIVILEGE_GOODS=242,
        PRIVILEGE_COIN_PRESTIGE=(243, 244),
        CHURCH_BROWN=251,
        CHURCH_TIME=252,
        MASS_DRAWS=261,
        MASS_PICK_COINS=262,
        MASS_MAJORITY_PRESTIGE=263,
    )
    T = tb.build_tables(rdx)
    assert [T[tb.T_HARVEST_BASE], T[tb.T_HARVEST_HORSE_PLOW], T[tb.T_HARVEST_OX_PLOW]] == [
        201,
        202,
        203,
    ]
    assert [T[tb.T_MARKET_FEE_GREEN], T[tb.T_MARKET_FEE_TIME]] == [211, 212]
    assert [T[tb.T_MILL_TIME], T[tb.T_MILL_GRAIN], T[tb.T_MILL_COINS]] == [221, 222, 223]
    assert [T[tb.T_COUNCIL_GREEN], T[tb.T_COUNCIL_SCROLL]] == [231, 232]
    assert [
        T[tb.T_PRIVILEGE_CUBES],
        T[tb.T_PRIVILEGE_GOODS],
        T[tb.T_PRIVILEGE_COIN],
        T[tb.T_PRIVILEGE_PRESTIGE],
    ] == [241, 242, 243, 244]
    assert [T[tb.T_CHURCH_BROWN], T[tb.T_CHURCH_TIME]] == [251, 252]
    assert [T[tb.T_MASS_DRAWS], T[tb.T_MASS_PICK_COINS], T[tb.T_MASS_PRESTIGE]] == [261, 262, 263]

    T = tb.TABLES
    assert tb.SPACE_CUBES_ROW == len(rd.SPACES)
    assert tb.CRAFT_BUY_ROW == len(rd.COLOURS)
    assert tb.CHRONICLE_ROW == len(rd.GRAVES) == len(next(iter(rd.CHRONICLE.values())))
    assert tb.CITY_REWARD_ROW == 2
    colour = {c: i for i, c in enumerate(rd.COLOURS)}
    for e, (a, b, c, tm, w, k) in enumerate(rd.TRAVEL_EDGES):
        row = T[tb.T_EDGES + tb.EDGE_ROW * e :][: tb.EDGE_ROW]
        assert [
            row[tb.E_NODE_A],
            row[tb.E_NODE_B],
            row[tb.E_COLOUR],
            row[tb.E_TIME],
            row[tb.E_WAGONS],
            row[tb.E_CUBES],
        ] == [a, b, colour[c], tm, w, k]
    assert tb.DEMAND_ROW == len(rd.GOODS) + 1
    for t, (demand, _value) in enumerate(rd.CUSTOMERS):
        row = T[tb.T_CUSTOMER_DEMAND + tb.DEMAND_ROW * t :][: tb.DEMAND_ROW]
        assert row[tb.DEMAND_GRAIN] == demand.get("grain", 0)
    assert tb.TRAVEL_SCORE_TOP == len(rd.TRAVEL_SCORE) - 1
    assert tb.CHRONICLE_SCORE_TOP == len(rd.CHRONICLE_SCORE) - 1


def test_score_parts_and_observation_sizes():
    import village_env as V

    parts = np.full(rounds.N_SCORE_PARTS + 1, -7, dtype=np.int64)
    rounds.final_score_parts.py_func(V.new_game(4, 0), V.TABLES, 0, parts)
    assert (parts[:-1] != -7).all() and parts[-1] == -7  # writes exactly N_SCORE_PARTS parts
    # the documented observation layout did not move (the constants are names, not sizes)
    assert [n for _, n in O.OBS_SEGMENTS] == [
        10,
        4,
        1,
        3,
        1,
        4,
        5,
        35,
        5,
        12,
        8,
        1,
        3,
        5,
        5,
        3,
        4,
        4,
        4,
        40,
        40,
        25,
        10,
        2,
        2,
        3,
        4,
        524,
    ]
    assert O.OBS_SIZE == 767 and O.PLAYER_BLOCK == 131
