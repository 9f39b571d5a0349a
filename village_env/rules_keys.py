"""Village rules-data keys: the declaration of every rules-data name, and the provisional registry.

`NAMES` declares, once, every top-level name of rules_data.py that `tables.build_tables` reads:
its structure, field names and range (`Fixed` for the index names the compiled engine is built
on). `_check` adds the rules across keys. Both serve every path (core.rules_file): a rules
override file and `village_env.load_rules_data(rd)` are checked by them alike. Ranges come from
the spec (docs/rules/village.md) where it gives one and otherwise keep the engine sound: a value
that lands in a state segment stays inside the segment's declared range (supply counts, grain cap,
members, board cubes, ...), and every integer has an upper bound so no table entry overflows.
`PROVISIONAL` is the one registry of the values rules_data.py tags [U] PROVISIONAL, with where each
is printed on the physical game. Public: `RULES`, what `core.rules_file` reads a file and checks
rules data with.
"""

from __future__ import annotations

from core.rules_file import (
    Choice,
    Counts,
    Fixed,
    Int,
    Map,
    Provisional,
    Record,
    Rows,
    RulesKeys,
    Seq,
)
from village_env import rules_data as rd
from village_env import tables
from village_env.layout import LAYOUT


def _hi(segment: str) -> int:
    return LAYOUT.segments[segment].hi


PER_N = (2, 3, 4)
NODE_NAMES = (*rd.CITIES, "Village")  # travel map nodes 0..8 (8 = the Village)
CUBE = Int(0, _hi("supply_cubes"))
GRAIN = Int(0, _hi("grain"))
COINS = Int(0, _hi("coins"))
GOODS_N = Int(0, _hi("supply_goods"))
# Time costs (the spec's are 0..3; "more than any listed cost" is 11, §3.4): each bridge crossing
# is a death counted in deaths_end / deaths_now until the turn resolves it, and a turn pays at most
# three time costs (a plague cube, then placing and producing at a craft building); with a lap of
# 1 each unit of time is a crossing, so a third of the counters' range per cost keeps them inside.
TIME = Int(0, min(_hi("deaths_end"), _hi("deaths_now")) // 3)
# Prestige values: no rule bounds them. A million each keeps a game's prestige (at most
# MAX_ROUNDS <= 1000 rounds of Mass bonuses and level-4 buys, plus the final scoring) far inside
# the prestige segment (0..2^40), and every table entry inside int64.
SCORE = Int(0, 10**6)
# The structure the compiled engine's index constants are built from (village_env/engine/board.py)
STRUCTURE = Fixed("index names the compiled engine is built on")


def _per_n(node) -> Map:
    return Map({str(n): (n, node) for n in PER_N})


def _edge_label(a: int, b: int) -> str:
    return f"{NODE_NAMES[a]}-{NODE_NAMES[b]}"


_chronicle_row = Seq(Int(0, _hi("chron_used")), 3, names=("unlabelled", "label3", "label4"))

NAMES = {
    # names (indices used throughout): build_tables maps rules-data names to these indices
    "COLOURS": STRUCTURE,
    "GOODS": STRUCTURE,
    "BUILDINGS": STRUCTURE,
    "SECTIONS": STRUCTURE,
    "REWARD_KINDS": STRUCTURE,
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
    # the life track's divisor (§3.4): at least 1; no upper rule (a lap longer than any game's
    # time only means nobody dies), bounded like a prestige value
    "LAP_LENGTH": Int(1, SCORE.hi),
    "PLAGUE_TIME": TIME,
    # ED-34: the engine's round cap; at least one round, at most what the round segment holds
    "MAX_ROUNDS": Int(1, _hi("round")),
    "HARVEST_BASE": GRAIN,
    "HARVEST_HORSE_PLOW": GRAIN,
    "HARVEST_OX_PLOW": GRAIN,
    "HARVEST_TIME": TIME,
    "FAMILY_TIME": TIME,
    "MARKET_FEE_GREEN": CUBE,
    "MARKET_FEE_TIME": TIME,
    "WELL_CUBES": CUBE,
    # A.2 per player count
    "REFILL_PER_COLOUR": _per_n(CUBE),
    "CUBES_PER_SPACE": _per_n(Seq(Int(0, _hi("board")), len(rd.SPACES), names=rd.SPACES)),
    "SERVABLE_STALLS": _per_n(Int(1, LAYOUT.segments["stalls"].shape[0])),
    "WAITING_LINE": Int(1, LAYOUT.segments["queue"].shape[0]),
    # A.3 crafts
    "CRAFTS": Map(
        {
            b: (
                b,
                Seq(
                    [TIME, TIME, Seq(CUBE, len(rd.COLOURS), names=rd.COLOURS), GRAIN],
                    4,
                    names=("place_time", "produce_time", "purchase_cubes", "purchase_grain"),
                ),
            )
            for b in rd.BUILDINGS
        }
    ),
    "PRODUCT_BUILDING": Map({g: (g, Choice({b: b for b in rd.BUILDINGS})) for g in rd.GOODS}),
    "MILL": Seq([TIME, GRAIN, COINS], 3, names=("time", "grain", "coins")),
    # A.4 council
    "COUNCIL_GREEN": CUBE,
    "COUNCIL_SCROLL": GOODS_N,
    "COUNCIL_TIME": Seq(TIME, 4, names=("enter_l1", "l1_l2", "l2_l3", "l3_l4")),
    "COUNCIL_SCORE": Seq(SCORE, 4, names=("l1", "l2", "l3", "l4")),
    "PRIVILEGE_CUBES": CUBE,
    "PRIVILEGE_GOODS": GOODS_N,
    "PRIVILEGE_COIN_PRESTIGE": Seq([COINS, SCORE], 2, names=("coins", "prestige")),
    # A.5 church and Mass
    "CHURCH_BROWN": CUBE,
    "CHURCH_TIME": TIME,
    "MASS_DRAWS": Int(0, _hi("mass_picked")),
    "MASS_PICK_COINS": COINS,
    "WINDOW_STEP_GRAIN": Seq(GRAIN, 3, names=("w1_w2", "w2_w3", "w3_w4")),
    "MASS_MAJORITY_PRESTIGE": SCORE,
    "WINDOW_SCORE": Seq(SCORE, 4, names=("w1", "w2", "w3", "w4")),
    # A.6 chronicle
    "CHRONICLE": Map({s: (s, _chronicle_row) for s in rd.SECTIONS}),
    "GRAVES": Seq(Int(0, _hi("graves_used")), 3, names=("unlabelled", "label3", "label4")),
    "CHRONICLE_SCORE": Seq(SCORE, len(rd.CHRONICLE_SCORE)),
    # A.7 travel map
    "TRAVEL_EDGES": Rows(
        [_edge_label(a, b) for a, b, *_ in rd.TRAVEL_EDGES],
        Record(
            [
                ("a", Int(0, len(NODE_NAMES) - 1)),
                ("b", Int(0, len(NODE_NAMES) - 1)),
                ("colour", Choice({c: c for c in rd.COLOURS})),
                ("time", TIME),
                ("wagons", GOODS_N),
                ("cubes", CUBE),
            ],
            rule=lambda r: "an edge joins two different nodes" if r[0] == r[1] else None,
        ),
        resizable=True,
    ),
    "CITY_REWARDS": Rows(
        list(rd.CITIES),
        # a cubes or goods reward is chosen unit by unit from pending_units (ED-23): the amount
        # stays inside that segment's range (any kind, so a kind can change alone)
        Record(
            [
                ("kind", Choice({k: k for k in rd.REWARD_KINDS})),
                ("amount", Int(0, _hi("pending_units"))),
            ]
        ),
        resizable=True,
    ),
    "TRAVEL_SCORE": Seq(SCORE, len(rd.TRAVEL_SCORE)),
    # A.8 customers: a demand no player can ever hold (more than the grain cap or a good's
    # supply) is refused
    "CUSTOMERS": Rows(
        [f"T{i + 1}" for i in range(len(rd.CUSTOMERS))],
        Record(
            [
                (
                    "demand",
                    Counts(
                        (*rd.GOODS, "grain"),
                        {**{g: _hi("supply_goods") for g in rd.GOODS}, "grain": _hi("grain")},
                    ),
                ),
                ("prestige", SCORE),
            ],
            rule=lambda r: None if any(r[0].values()) else "a customer demands at least one item",
        ),
        resizable=True,
    ),
    # A.9
    "COIN_SCORE": SCORE,
}


def _check(ns) -> list[tuple[str, str]]:
    """Rules across keys (each value has passed its own range): (key, message) per problem."""
    out = []
    for n in PER_N:
        # §2 step 6: the face-up tiles are the stalls in play plus the waiting line of 5, and the
        # labelled "3" / "4" spaces that stay empty are stalls: never more stalls than places in
        # the line
        stalls, line = ns.SERVABLE_STALLS[n], ns.WAITING_LINE
        if stalls > line:
            out.append(
                (
                    f"SERVABLE_STALLS.{n}",
                    f"{stalls} servable stalls exceed the WAITING_LINE of {line} "
                    f"(allowed: at most {line})",
                )
            )
        # §3.1 step 2: the refill is taken from a supply of SUPPLY_CUBES_EACH per colour
        refill, supply = ns.REFILL_PER_COLOUR[n], ns.SUPPLY_CUBES_EACH
        if refill > supply:
            out.append(
                (
                    f"REFILL_PER_COLOUR.{n}",
                    f"{refill} cubes of each colour per round exceed SUPPLY_CUBES_EACH {supply} "
                    f"(allowed: at most {supply})",
                )
            )
    # §4.10: a Well turn costs no time, and coins stand in for its cubes; an action it pays for
    # that costs no time must give back fewer cubes or coins than it costs, or a player can
    # repeat it for ever and the game never ends: the council's privilege (§4.7: cubes, or a
    # coin and prestige) and a mill without a time cost (§4.3)
    well = ns.WELL_CUBES
    back = [
        ("PRIVILEGE_CUBES", ns.PRIVILEGE_CUBES),
        ("PRIVILEGE_COIN_PRESTIGE.coins", ns.PRIVILEGE_COIN_PRESTIGE[0]),
    ]
    if ns.MILL[0] == 0:  # MILL.time
        back.append(("MILL.coins", ns.MILL[2]))
    for key, gain in back:
        if well <= gain:
            out.append(
                (
                    "WELL_CUBES",
                    f"a Well turn costing {well} cubes would buy {key} {gain} back without end "
                    f"(allowed: more than {gain})",
                )
            )
            break
    # §2 step 5: every player gets STARTING_COINS from the supply, so 4 players' worth must be in it
    coins, supply = ns.STARTING_COINS, ns.SUPPLY_COINS
    if coins * max(PER_N) > supply:
        out.append(
            (
                "STARTING_COINS",
                f"{coins} coins for each of {max(PER_N)} players exceed SUPPLY_COINS {supply} "
                f"(allowed: at most {supply // max(PER_N)})",
            )
        )
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
