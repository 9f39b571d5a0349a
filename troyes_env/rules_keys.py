"""Troyes rules-data keys for override files (core.rules_file) and the provisional registry.

`NAMES` describes every rules-data name a file may set: card rows are addressed by their key
(`ACTIVITY_CARDS.MERCHANT.hire`, `EVENT_CARDS.WAR.R1`, `CHARACTER_CARDS.HENRI_I.vp`), setup rows
by player count (`SETUP.2.deniers`), buildings by name (`SALARY.PALACE`). A card's `id`, `key`
and `provisional` columns are its identity, not values. Upper bounds come from the state layout
where a value lands in a segment (influence 0..20, citizens 0..12, rounds 4..6, ...). The
provisional registry is derived from the rows' `provisional` columns (one place: rules_data.py)
plus the spec's §8 unknowns (U-ROWS, U-2P, U-PASS). Public: `RULES`, what
`core.rules_file.load_rules_file(path, "troyes")` and
`core.rules_file.rules_file_data(path, "troyes")` read a file with.
"""

from __future__ import annotations

from collections import Counter

from core.rules_file import Choice, Int, Map, Provisional, Record, Rows, RulesKeys, Seq
from troyes_env import rules_data as rd
from troyes_env import tables
from troyes_env.layout import LAYOUT, NFLAG


def _hi(segment: str) -> int:
    return LAYOUT.segments[segment].hi


N = 0
PER_N = (2, 3, 4)
COLOUR = Choice({c.name: c for c in rd.Colour})
COLOUR_OR_NONE = Choice({"none": -1, **{c.name: c for c in rd.Colour}})
BUILDINGS = {b.name: b for b in rd.Building}
N_SPACES = LAYOUT.segments["spaces"].shape[0]
DIE = Int(1, 6)

_COLOUR_PARAMS = {  # activity effect -> positions of p0..p3 that hold a colour
    rd.Effect.DIE_PLUS: (0,),
    rd.Effect.GROUP_PLUS: (0,),
    rd.Effect.RECOLOUR: (0, 1),
    rd.Effect.SPLIT: (1,),
    rd.Effect.FREE_DICE: (0,),
}


def _activity_check(row) -> str | None:
    eff, p = row[10], row[11]
    for i in _COLOUR_PARAMS.get(eff, ()):
        if p[i] >= len(rd.Colour):
            return f"params.p{i} of {eff.name} is a colour: 0..{len(rd.Colour) - 1}"
    if eff == rd.Effect.PAY_GAIN and (p[0] >= len(rd.Res) or p[2] >= len(rd.Res)):
        return f"params.p0 and p2 of PAY_GAIN are resources: 0..{len(rd.Res) - 1}"
    if eff == rd.Effect.VP_PER and p[0] >= len(rd.Count):
        return f"params.p0 of VP_PER is a count code: 0..{len(rd.Count) - 1}"
    if eff == rd.Effect.SPLIT and p[0] < 1:
        return "params.p0 of SPLIT (virtual dice) must be >= 1"
    return None


def _event_check(row) -> str | None:
    eff, (e0, e1) = row[4], row[5]
    if eff == rd.EventEffect.GREY_CITIZEN and (e0 >= len(rd.Building) or not 1 <= e1 <= 6):
        return "e of GREY_CITIZEN is (building 0..2, die value 1..6)"
    if row[10] > row[9]:
        return "R2 (the lower reward) exceeds R1"
    return None


def _character_check(row) -> str | None:
    th = row[3]
    return None if list(th) == sorted(th) else "thresholds must not decrease"


NAMES = {
    "ACTIVITY_CARDS": Rows(
        [r[1] for r in rd.ACTIVITY_CARDS],
        Record(
            [
                (None, None),  # id
                (None, None),  # key
                ("colour", COLOUR),
                ("level", Int(1, 3)),
                ("hire", Int(N)),
                ("dice", COLOUR),
                ("div", Int(1)),
                ("timing", Choice({t.name: t for t in rd.Timing})),
                ("vp1", Int(N)),
                ("vp2", Int(N)),
                ("effect", Choice({e.name: e for e in rd.Effect})),
                ("params", Seq(Int(N), 4, names=("p0", "p1", "p2", "p3"))),
                (None, None),  # provisional
            ],
            check=_activity_check,
        ),
        as_list=True,
    ),
    "EVENT_CARDS": Rows(
        [r[1] for r in rd.EVENT_CARDS],
        Record(
            [
                (None, None),
                (None, None),
                ("colour", COLOUR_OR_NONE),
                ("black", Int(N)),
                ("effect", Choice({e.name: e for e in rd.EventEffect})),
                ("e", Seq(Int(N), 2, names=("e0", "e1"))),
                ("combat", COLOUR),
                ("max", Int(1, LAYOUT.segments["sel"].shape[0])),
                ("div", Int(1)),
                ("flags", Int(0, NFLAG)),
                ("R1", Int(N)),
                ("R2", Int(N)),
                ("next", COLOUR_OR_NONE),
                (None, None),
            ],
            check=_event_check,
        ),
        as_list=True,
    ),
    "CHARACTER_CARDS": Rows(
        [r[1] for r in rd.CHARACTER_CARDS],
        Record(
            [
                (None, None),
                (None, None),
                ("count", Choice({c.name: c for c in rd.Count})),
                ("thresholds", Seq(Int(N), 3)),
                ("vp", Seq(Int(N), 3)),
                (None, None),
            ],
            check=_character_check,
        ),
        as_list=True,
    ),
    "SETUP": Map(
        {
            str(n): (
                n,
                Seq(
                    [
                        Int(0, _hi("supply")),
                        Int(N),
                        Int(0, _hi("influence")),
                        Int(1, len(rd.CHARACTER_CARDS) // n),
                        Int(LAYOUT.segments["n_rounds"].lo, _hi("n_rounds")),
                    ],
                    5,
                    names=("citizens", "deniers", "influence", "characters", "rounds"),
                ),
            )
            for n in PER_N
        }
    ),
    "MAX_CITIZENS": Int(1, _hi("owned")),
    "GREY_CITIZENS": Int(0, _hi("grey_supply")),
    "INCOME": Int(N),
    "SALARY": Map({name: (b, Int(N)) for name, b in BUILDINGS.items()}),
    "PENALTY_VP": Int(N),
    "DICE_PRICE": Seq(Int(N), 4),
    "INFLUENCE_MAX": Int(1, _hi("influence")),
    "REROLL_COST": Int(N),
    "NEW_CITIZEN_COST": Int(N),
    "FLIP_COST": Int(N),
    "AGRICULTURE_DIVISOR": Int(1),
    "PASS_DENIERS": Int(N),
    "PASS_EXTRA": Int(N),
    "CATHEDRAL_VP": Int(N),
    "CATHEDRAL_INFLUENCE": Seq(Int(N), 6),
    "CATHEDRAL_LEVEL_PENALTY": Int(N),
    "UNRESOLVED_EVENT_VP": Int(N),
    "ALL_FIVES_VALUE": DIE,
    "ROW_LENGTH": Map({name: (b, Int(1, 6)) for name, b in BUILDINGS.items()}),
    "ROW_OF_VALUE": Map({name: (b, Seq(Int(0, 5), 6)) for name, b in BUILDINGS.items()}),
    "GREY_2P_SPACES": Seq(Int(0, N_SPACES - 1), len(rd.GREY_2P_SPACES)),
}


def _check(ns) -> list[tuple[str, str]]:
    """Rules across keys: the deck structure the layout holds and each building's 6 spaces."""
    out = []
    want = Counter((r[2], r[3]) for r in rd.ACTIVITY_CARDS)
    if Counter((r[2], r[3]) for r in ns.ACTIVITY_CARDS) != want:
        out.append(("ACTIVITY_CARDS", "each colour needs 3 cards of each level (the layout)"))
    want = Counter(int(r[2]) for r in rd.EVENT_CARDS)
    if Counter(int(r[2]) for r in ns.EVENT_CARDS) != want:
        out.append(("EVENT_CARDS", "event colours must keep the deck sizes the layout holds"))
    for name, b in BUILDINGS.items():
        n = ns.ROW_LENGTH[b]
        if 6 % n or max(ns.ROW_OF_VALUE[b]) >= 6 // n:
            out.append((f"ROW_OF_VALUE.{name}", f"rows of {n} must fit the building's 6 spaces"))
    return out


# --- the provisional registry -------------------------------------------------------------------
_ACT_WHERE = {
    "hire": "hire cost (top left of the info area)",
    "div": "dice divisor (bottom left)",
    "vp1": "VP printed on supervisor slot 1",
    "vp2": "VP printed on supervisor slot 2",
    "effect": "effect text / icons",
    "params": "numbers of the effect",
}
_EV_WHERE = {
    "black": "black dice taken",
    "effect": "effect text / icons",
    "e": "numbers of the effect",
    "combat": "colour of the dice that fight it",
    "max": "most dice per combat action",
    "div": "combat divisor",
    "flags": "number of flag spaces",
    "R1": "higher VP reward (R1)",
    "R2": "lower VP reward (R2)",
    "next": "deck the next card is drawn from",
}
_TAG_FIELDS = {  # the spec's provisional tags -> addressed fields
    "effect": ("effect", "params"),
    "VP": ("vp",),
    "thresholds": ("thresholds",),
    "thresholds 1 and 3": ("thresholds.0", "thresholds.2"),
}


def _registry() -> list[Provisional]:
    out = []
    tables_ = (
        ("ACTIVITY_CARDS", rd.ACTIVITY_CARDS, rd.ACTIVITY_NAMES, "Activity card", _ACT_WHERE),
        ("EVENT_CARDS", rd.EVENT_CARDS, rd.EVENT_NAMES, "Event card", _EV_WHERE),
        ("CHARACTER_CARDS", rd.CHARACTER_CARDS, rd.CHARACTER_NAMES, "Character card", {}),
    )
    for table, rows, names, kind, where in tables_:
        for row, title in zip(rows, names, strict=True):
            for tag in row[-1]:
                fields = _TAG_FIELDS.get(tag, (tag,))
                if table == "EVENT_CARDS" and tag == "effect":
                    fields = ("effect", "e")
                for f in fields:
                    what = where.get(f, f)
                    if table == "CHARACTER_CARDS":
                        what = {"vp": "VP per tier", "thresholds": "tier thresholds"}.get(f)
                        what = what or f"tier threshold {int(f[-1]) + 1}"
                    out.append(Provisional(f"{table}.{row[1]}.{f}", f"{kind} {title}: {what}"))
    out += [
        Provisional(
            "PASS_DENIERS", "rulebook, pass action: deniers given", "spec §8 U-PASS (always 2)"
        ),
        *(
            Provisional(
                f"{name}.{b}",
                f"game board, {b.replace('_', ' ').title()}: rows of citizen spaces",
                "spec §8 U-ROWS",
            )
            for name in ("ROW_LENGTH", "ROW_OF_VALUE")
            for b in BUILDINGS
        ),
        Provisional(
            "GREY_2P_SPACES", "rulebook, 2-player setup: where grey citizens start", "spec §8 U-2P"
        ),
    ]
    return out


RULES = RulesKeys(
    game="troyes",
    default=rd,
    names=NAMES,
    build_tables=tables.build_tables,
    tables_hash=tables.tables_hash,
    provisional=_registry(),
    check=_check,
)
