"""Village rules data as one flat int64 table for the compiled engine (DESIGN D2).

`build_tables(rd)` reads a rules-data module (or any object with the same names, e.g. a modified
copy) and returns the table; compiled functions receive it as an argument, so a replaced table
reaches the engine without recompiling. `T_*` are offsets into the table (shape, not values).
"""

from __future__ import annotations

import types

import numpy as np

from core import tables as core_tables
from core.tables import tables_hash
from village_env import rules_data as _default


def _entries(rd) -> list[tuple[str, np.ndarray]]:
    cidx = {c: i for i, c in enumerate(rd.COLOURS)}
    gidx = {g: i for i, g in enumerate(rd.GOODS)}
    bidx = {b: i for i, b in enumerate(rd.BUILDINGS)}
    rkind = {k: i for i, k in enumerate(rd.REWARD_KINDS)}
    per_n = lambda d: [0, 0] + [d[n] for n in (2, 3, 4)]  # noqa: E731 index by player count
    space_cubes = np.zeros((5, 7), dtype=np.int64)
    for n in (2, 3, 4):
        space_cubes[n] = rd.CUBES_PER_SPACE[n]
    crafts = [rd.CRAFTS[b] for b in rd.BUILDINGS]
    demand = np.zeros((len(rd.CUSTOMERS), 6), dtype=np.int64)  # goods 0..4, grain 5
    for t, (dem, _v) in enumerate(rd.CUSTOMERS):
        for item, k in dem.items():
            demand[t, 5 if item == "grain" else gidx[item]] = k
    edges = np.array(
        [(a, b, cidx[c], tm, w, k) for a, b, c, tm, w, k in rd.TRAVEL_EDGES], dtype=np.int64
    )
    return [
        ("supply_coins", [rd.SUPPLY_COINS]),
        ("supply_grain", [rd.SUPPLY_GRAIN]),
        ("supply_goods_each", [rd.SUPPLY_GOODS_EACH]),
        ("supply_cubes_each", [rd.SUPPLY_CUBES_EACH]),
        ("plague_cubes", [rd.PLAGUE_CUBES]),
        ("monks", [rd.MONKS]),
        ("members_by_gen", rd.MEMBERS_BY_GENERATION),
        ("starting_coins", [rd.STARTING_COINS]),
        ("travel_markers", [rd.TRAVEL_MARKERS]),
        ("grain_cap", [rd.GRAIN_CAP]),
        ("lap", [rd.LAP_LENGTH]),
        ("plague_time", [rd.PLAGUE_TIME]),
        ("max_rounds", [rd.MAX_ROUNDS]),
        ("harvest", [rd.HARVEST_BASE, rd.HARVEST_HORSE_PLOW, rd.HARVEST_OX_PLOW]),
        ("harvest_time", [rd.HARVEST_TIME]),
        ("family_time", [rd.FAMILY_TIME]),
        ("market_fee", [rd.MARKET_FEE_GREEN, rd.MARKET_FEE_TIME]),
        ("well_cubes", [rd.WELL_CUBES]),
        ("refill", per_n(rd.REFILL_PER_COLOUR)),
        ("space_cubes", space_cubes),
        ("stalls", per_n(rd.SERVABLE_STALLS)),
        ("waiting_line", [rd.WAITING_LINE]),
        ("craft_place", [c[0] for c in crafts]),
        ("craft_produce", [c[1] for c in crafts]),
        ("craft_buy_cubes", [c[2] for c in crafts]),
        ("craft_buy_grain", [c[3] for c in crafts]),
        ("product_building", [bidx[rd.PRODUCT_BUILDING[g]] for g in rd.GOODS]),
        ("mill", rd.MILL),
        ("council_cost", [rd.COUNCIL_GREEN, rd.COUNCIL_SCROLL]),
        ("council_time", rd.COUNCIL_TIME),
        ("council_score", rd.COUNCIL_SCORE),
        ("privilege", [rd.PRIVILEGE_CUBES, rd.PRIVILEGE_GOODS] + list(rd.PRIVILEGE_COIN_PRESTIGE)),
        ("church", [rd.CHURCH_BROWN, rd.CHURCH_TIME]),
        ("mass", [rd.MASS_DRAWS, rd.MASS_PICK_COINS, rd.MASS_MAJORITY_PRESTIGE]),
        ("window_grain", rd.WINDOW_STEP_GRAIN),
        ("window_score", rd.WINDOW_SCORE),
        ("chronicle", [rd.CHRONICLE[s] for s in rd.SECTIONS]),
        ("graves", rd.GRAVES),
        ("chronicle_score", rd.CHRONICLE_SCORE),
        ("edges", edges),
        ("city_reward", [(rkind[k], n) for k, n in rd.CITY_REWARDS]),
        ("travel_score", rd.TRAVEL_SCORE),
        ("customer_demand", demand),
        ("customer_value", [v for _d, v in rd.CUSTOMERS]),
        ("coin_score", [rd.COIN_SCORE]),
    ]


def _layout(rd) -> tuple[dict[str, int], dict[str, tuple[int, ...]], int]:
    off, shapes, pos = {}, {}, 0
    for name, vals in _entries(rd):
        arr = np.asarray(vals, dtype=np.int64)
        off[name], shapes[name] = pos, arr.shape
        pos += arr.size
    return off, shapes, pos


OFFSETS, SHAPES, TABLE_SIZE = _layout(_default)


def build_tables(rd=_default) -> np.ndarray:
    """The flat table for rules data `rd`; refuses data whose shapes differ from the layout."""
    parts = []
    for name, vals in _entries(rd):
        arr = np.asarray(vals, dtype=np.int64)
        if arr.shape != SHAPES[name]:
            raise ValueError(
                f"rules data {name!r} has shape {arr.shape}, the table layout needs "
                f"{SHAPES[name]} (a shape change needs a layout version bump)"
            )
        parts.append(arr.ravel())
    return np.concatenate(parts).astype(np.int64)


def rules_with(**changes) -> types.SimpleNamespace:
    """A copy of the default rules data with some names replaced (for studies and tests)."""
    return core_tables.rules_with(_default, **changes)


TABLES = build_tables()
RULES_DATA_HASH = tables_hash(TABLES)

# offsets used by compiled code (module-level ints are compile-time constants: shape, not data)
T_SUPPLY_COINS = OFFSETS["supply_coins"]
T_SUPPLY_GRAIN = OFFSETS["supply_grain"]
T_SUPPLY_GOODS_EACH = OFFSETS["supply_goods_each"]
T_SUPPLY_CUBES_EACH = OFFSETS["supply_cubes_each"]
T_PLAGUE_CUBES = OFFSETS["plague_cubes"]
T_MONKS = OFFSETS["monks"]
T_MEMBERS_BY_GEN = OFFSETS["members_by_gen"]
T_STARTING_COINS = OFFSETS["starting_coins"]
T_TRAVEL_MARKERS = OFFSETS["travel_markers"]
T_GRAIN_CAP = OFFSETS["grain_cap"]
T_LAP = OFFSETS["lap"]
T_PLAGUE_TIME = OFFSETS["plague_time"]
T_MAX_ROUNDS = OFFSETS["max_rounds"]
T_HARVEST = OFFSETS["harvest"]
T_HARVEST_TIME = OFFSETS["harvest_time"]
T_FAMILY_TIME = OFFSETS["family_time"]
T_MARKET_FEE = OFFSETS["market_fee"]
T_WELL_CUBES = OFFSETS["well_cubes"]
T_REFILL = OFFSETS["refill"]
T_SPACE_CUBES = OFFSETS["space_cubes"]
T_STALLS = OFFSETS["stalls"]
T_WAITING_LINE = OFFSETS["waiting_line"]
T_CRAFT_PLACE = OFFSETS["craft_place"]
T_CRAFT_PRODUCE = OFFSETS["craft_produce"]
T_CRAFT_BUY_CUBES = OFFSETS["craft_buy_cubes"]
T_CRAFT_BUY_GRAIN = OFFSETS["craft_buy_grain"]
T_PRODUCT_BUILDING = OFFSETS["product_building"]
T_MILL = OFFSETS["mill"]
T_COUNCIL_COST = OFFSETS["council_cost"]
T_COUNCIL_TIME = OFFSETS["council_time"]
T_COUNCIL_SCORE = OFFSETS["council_score"]
T_PRIVILEGE = OFFSETS["privilege"]
T_CHURCH = OFFSETS["church"]
T_MASS = OFFSETS["mass"]
T_WINDOW_GRAIN = OFFSETS["window_grain"]
T_WINDOW_SCORE = OFFSETS["window_score"]
T_CHRONICLE = OFFSETS["chronicle"]
T_GRAVES = OFFSETS["graves"]
T_CHRONICLE_SCORE = OFFSETS["chronicle_score"]
T_EDGES = OFFSETS["edges"]
T_CITY_REWARD = OFFSETS["city_reward"]
T_TRAVEL_SCORE = OFFSETS["travel_score"]
T_CUSTOMER_DEMAND = OFFSETS["customer_demand"]
T_CUSTOMER_VALUE = OFFSETS["customer_value"]
T_COIN_SCORE = OFFSETS["coin_score"]
N_EDGES = SHAPES["edges"][0]
N_CUSTOMERS = SHAPES["customer_value"][0]
N_CITIES = SHAPES["city_reward"][0]

# positions inside packed entries and row lengths of 2-D entries (shape, not data; the entries
# above list the names in this order; tests/village/test_constants_sync.py checks them)
T_HARVEST_BASE, T_HARVEST_HORSE_PLOW, T_HARVEST_OX_PLOW = T_HARVEST, T_HARVEST + 1, T_HARVEST + 2
T_MARKET_FEE_GREEN, T_MARKET_FEE_TIME = T_MARKET_FEE, T_MARKET_FEE + 1
T_MILL_TIME, T_MILL_GRAIN, T_MILL_COINS = T_MILL, T_MILL + 1, T_MILL + 2
T_COUNCIL_GREEN, T_COUNCIL_SCROLL = T_COUNCIL_COST, T_COUNCIL_COST + 1
T_PRIVILEGE_CUBES, T_PRIVILEGE_GOODS = T_PRIVILEGE, T_PRIVILEGE + 1
T_PRIVILEGE_COIN, T_PRIVILEGE_PRESTIGE = T_PRIVILEGE + 2, T_PRIVILEGE + 3
T_CHURCH_BROWN, T_CHURCH_TIME = T_CHURCH, T_CHURCH + 1
T_MASS_DRAWS, T_MASS_PICK_COINS, T_MASS_PRESTIGE = T_MASS, T_MASS + 1, T_MASS + 2
SPACE_CUBES_ROW = SHAPES["space_cubes"][1]  # spaces A..G, one row per player count
CRAFT_BUY_ROW = SHAPES["craft_buy_cubes"][1]  # cube colours, one row per building
CHRONICLE_ROW = SHAPES["chronicle"][1]  # (unlabelled, "3", "4") spaces, one row per section
EDGE_ROW = SHAPES["edges"][1]  # one row per travel edge:
E_NODE_A, E_NODE_B, E_COLOUR, E_TIME, E_WAGONS, E_CUBES = range(6)
DEMAND_ROW = SHAPES["customer_demand"][1]  # one row per customer tile: goods 0..4, then grain
DEMAND_GRAIN = DEMAND_ROW - 1
CITY_REWARD_ROW = SHAPES["city_reward"][1]  # (kind, amount) per city
TRAVEL_SCORE_TOP = SHAPES["travel_score"][0] - 1  # markers beyond this score as many
CHRONICLE_SCORE_TOP = SHAPES["chronicle_score"][0] - 1  # chronicle members beyond this likewise
