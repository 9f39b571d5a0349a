"""Village rules-data keys for override files (core.rules_file) and the provisional registry.

`NAMES` describes every rules-data name a file may set (its structure, field names and ranges);
upper bounds come from the state layout's declared segment ranges where a value lands in a
segment (supply counts, grain cap, members, board cubes, ...). `PROVISIONAL` is the one registry
of the values rules_data.py tags [U] PROVISIONAL, with where each is printed on the physical
game. Public: `RULES`, what `core.rules_file.load_rules_file(path, "village")` and
`core.rules_file.rules_file_data(path, "village")` read a file with.
"""

from __future__ import annotations

from core.rules_file import Choice, Counts, Int, Map, Provisional, Record, Rows, RulesKeys, Seq
from village_env import rules_data as rd
from village_env import tables
from village_env.layout import LAYOUT


def _hi(segment: str) -> int:
    return LAYOUT.segments[segment].hi


N = 0  # a count or cost: >= 0, no upper bound the layout declares
PER_N = (2, 3, 4)
NODE_NAMES = (*rd.CITIES, "Village")  # travel map nodes 0..8 (8 = the Village)
CUBE = Int(0, _hi("supply_cubes"))
GRAIN = Int(0, _hi("grain"))
COINS = Int(0, _hi("coins"))
GOODS_N = Int(0, _hi("supply_goods"))


def _per_n(node) -> Map:
    return Map({str(n): (n, node) for n in PER_N})


def _edge_label(a: int, b: int) -> str:
    return f"{NODE_NAMES[a]}-{NODE_NAMES[b]}"


_chronicle_row = Seq(Int(0, _hi("chron_used")), 3, names=("unlabelled", "label3", "label4"))

NAMES = {
    # A.1 general
    "SUPPLY_COINS": Int(0, _hi("supply_coins")),
    "SUPPLY_GRAIN": Int(0, _hi("supply_grain")),
    "SUPPLY_GOODS_EACH": Int(0, _hi("supply_goods")),
    "SUPPLY_CUBES_EACH": Int(0, _hi("supply_cubes")),
    "PLAGUE_CUBES": Int(0, _hi("supply_cubes")),
    "MONKS": Int(0, _hi("monks_bag")),
    "MEMBERS_BY_GENERATION": Seq(Int(0, _hi("members")), 4, names=("gen1", "gen2", "gen3", "gen4")),
    "STARTING_COINS": COINS,
    "TRAVEL_MARKERS": Int(0, len(rd.CITIES)),
    "GRAIN_CAP": GRAIN,
    "LAP_LENGTH": Int(1),
    "PLAGUE_TIME": Int(N),
    "MAX_ROUNDS": Int(1, _hi("round")),
    "HARVEST_BASE": GRAIN,
    "HARVEST_HORSE_PLOW": GRAIN,
    "HARVEST_OX_PLOW": GRAIN,
    "HARVEST_TIME": Int(N),
    "FAMILY_TIME": Int(N),
    "MARKET_FEE_GREEN": CUBE,
    "MARKET_FEE_TIME": Int(N),
    "WELL_CUBES": CUBE,
    # A.2 per player count
    "REFILL_PER_COLOUR": _per_n(Int(0, rd.SUPPLY_CUBES_EACH)),
    "CUBES_PER_SPACE": _per_n(Seq(Int(0, _hi("board")), len(rd.SPACES), names=rd.SPACES)),
    "SERVABLE_STALLS": _per_n(Int(1, LAYOUT.segments["stalls"].shape[0])),
    "WAITING_LINE": Int(1, LAYOUT.segments["queue"].shape[0]),
    # A.3 crafts
    "CRAFTS": Map(
        {
            b: (
                b,
                Seq(
                    [
                        Int(N),
                        Int(N),
                        Seq(CUBE, len(rd.COLOURS), names=rd.COLOURS),
                        GRAIN,
                    ],
                    4,
                    names=("place_time", "produce_time", "purchase_cubes", "purchase_grain"),
                ),
            )
            for b in rd.BUILDINGS
        }
    ),
    "PRODUCT_BUILDING": Map({g: (g, Choice({b: b for b in rd.BUILDINGS})) for g in rd.GOODS}),
    "MILL": Seq([Int(N), GRAIN, COINS], 3, names=("time", "grain", "coins")),
    # A.4 council
    "COUNCIL_GREEN": CUBE,
    "COUNCIL_SCROLL": GOODS_N,
    "COUNCIL_TIME": Seq(Int(N), 4, names=("enter_l1", "l1_l2", "l2_l3", "l3_l4")),
    "COUNCIL_SCORE": Seq(Int(N), 4, names=("l1", "l2", "l3", "l4")),
    "PRIVILEGE_CUBES": CUBE,
    "PRIVILEGE_GOODS": GOODS_N,
    "PRIVILEGE_COIN_PRESTIGE": Seq([COINS, Int(N)], 2, names=("coins", "prestige")),
    # A.5 church and Mass
    "CHURCH_BROWN": CUBE,
    "CHURCH_TIME": Int(N),
    "MASS_DRAWS": Int(0, _hi("mass_picked")),
    "MASS_PICK_COINS": COINS,
    "WINDOW_STEP_GRAIN": Seq(GRAIN, 3, names=("w1_w2", "w2_w3", "w3_w4")),
    "MASS_MAJORITY_PRESTIGE": Int(N),
    "WINDOW_SCORE": Seq(Int(N), 4, names=("w1", "w2", "w3", "w4")),
    # A.6 chronicle
    "CHRONICLE": Map({s: (s, _chronicle_row) for s in rd.SECTIONS}),
    "GRAVES": Seq(Int(0, _hi("graves_used")), 3, names=("unlabelled", "label3", "label4")),
    "CHRONICLE_SCORE": Seq(Int(N), len(rd.CHRONICLE_SCORE)),
    # A.7 travel map
    "TRAVEL_EDGES": Rows(
        [_edge_label(a, b) for a, b, *_ in rd.TRAVEL_EDGES],
        Record(
            [
                ("a", Int(0, len(NODE_NAMES) - 1)),
                ("b", Int(0, len(NODE_NAMES) - 1)),
                ("colour", Choice({c: c for c in rd.COLOURS})),
                ("time", Int(N)),
                ("wagons", GOODS_N),
                ("cubes", CUBE),
            ],
            check=lambda r: "an edge joins two different nodes" if r[0] == r[1] else None,
        ),
        resizable=True,
    ),
    "CITY_REWARDS": Rows(
        list(rd.CITIES),
        Record([("kind", Choice({k: k for k in rd.REWARD_KINDS})), ("amount", Int(N))]),
        resizable=True,
    ),
    "TRAVEL_SCORE": Seq(Int(N), len(rd.TRAVEL_SCORE)),
    # A.8 customers
    "CUSTOMERS": Rows(
        [f"T{i + 1}" for i in range(len(rd.CUSTOMERS))],
        Record(
            [
                ("demand", Counts((*rd.GOODS, "grain"), {"grain": _hi("grain")})),
                ("prestige", Int(N)),
            ],
            check=lambda r: None if r[0] else "a customer demands at least one item",
        ),
        resizable=True,
    ),
    # A.9
    "COIN_SCORE": Int(N),
}


def _check(ns) -> list[tuple[str, str]]:
    """Rules across keys: the layout's member counts and the stall / waiting-line split."""
    out = []
    for n in PER_N:
        if ns.SERVABLE_STALLS[n] > ns.WAITING_LINE:
            out.append((f"SERVABLE_STALLS.{n}", "more servable stalls than waiting-line places"))
    if ns.STARTING_COINS * 4 > ns.SUPPLY_COINS:
        out.append(("STARTING_COINS", "4 players' starting coins exceed SUPPLY_COINS"))
    return out


# --- the provisional registry ([U] PROVISIONAL in rules_data.py) ---------------------------------
_SETUP_CARD = "setup card for {n} players"
_PROV = [
    *(
        Provisional(
            f"REFILL_PER_COLOUR.{n}",
            _SETUP_CARD.format(n=n) + ": influence cubes of each colour put in the bag per round",
        )
        for n in PER_N
    ),
    *(
        Provisional(
            f"CUBES_PER_SPACE.{n}",
            _SETUP_CARD.format(n=n) + ": cubes drawn onto action spaces A-G",
            "totals 18 / 21 / 24 are sourced; the split is not",
        )
        for n in PER_N
    ),
    Provisional("CRAFTS.office.purchase_cubes", "game board, Crafts (C), Office: purchase cost"),
    Provisional(
        "CRAFTS.blacksmith",
        "game board, Crafts (C), Blacksmith: time to place / produce and purchase cost",
    ),
    Provisional("MILL.time", "game board, Crafts (C), Mill: time cost"),
    Provisional("MILL.grain", "game board, Crafts (C), Mill: grain cost", "2 coins gained is [C]"),
    Provisional(
        "COUNCIL_TIME", "game board, Council chamber (F): time cost on the entry and each climb"
    ),
    Provisional("WINDOW_STEP_GRAIN", "game board, Church (G): grain cost between the windows"),
    *(
        Provisional(
            f"CHRONICLE.{s}",
            f"game board, village chronicle, {s} section: spaces unlabelled / labelled 3 / 4",
        )
        for s in rd.SECTIONS
    ),
    Provisional("GRAVES", "game board, anonymous graves: unlabelled / labelled 3 / 4"),
    *(
        Provisional(
            f"TRAVEL_EDGES.{_edge_label(a, b)}.colour",
            f"game board, travel map: colour of the road {_edge_label(a, b)}",
            "the whole map topology is a placeholder (spec A.7)",
        )
        for a, b, *_ in rd.TRAVEL_EDGES
        if a != 8
    ),
    Provisional("CITY_REWARDS.A.amount", "game board, travel map, city A: reward number"),
    *(
        Provisional(
            f"CITY_REWARDS.{c}", f"game board, travel map, city {c}: reward icon and number"
        )
        for c in rd.CITIES[1:]
    ),
    Provisional("CUSTOMERS.T2.prestige", "customer tile T2: prestige number"),
    *(
        Provisional(f"CUSTOMERS.T{i}", f"customer tile T{i}: demand icons and prestige number")
        for i in range(3, len(rd.CUSTOMERS) + 1)
    ),
]

RULES = RulesKeys(
    game="village",
    default=rd,
    names=NAMES,
    build_tables=tables.build_tables,
    tables_hash=tables.tables_hash,
    provisional=_PROV,
    check=_check,
)
