"""Troyes rules-data keys: the declaration of every rules-data name, and the provisional registry.

`NAMES` declares, once, every top-level name of rules_data.py that `tables.build_tables` reads:
card rows are addressed by their key (`ACTIVITY_CARDS.MERCHANT.hire`, `EVENT_CARDS.WAR.R1`,
`CHARACTER_CARDS.HENRI_I.vp`), setup rows by player count (`SETUP.2.deniers`), buildings by name
(`SALARY.PALACE`). A card's `id` and `key` columns are its identity (`Fixed`: they cannot change),
its `provisional` column is not read. `_check` adds the rules across keys. Both serve every path
(core.rules_file): a rules override file and `troyes_env.load_rules_data(rd)` are checked by them
alike. Ranges come from the spec (docs/rules/troyes.md) and the state layout where a value lands
in a segment (influence 0..20, citizens 0..12, rounds 4..6, ...); where the spec gives no bound
they keep the engine sound (every integer has an upper bound, so no table entry overflows). The
provisional registry is derived from the rows' `provisional` columns (one place: rules_data.py)
plus the spec's §8 unknowns (U-ROWS, U-2P, U-PASS). Public: `RULES`, what `core.rules_file`
reads a file and checks rules data with.
"""

from __future__ import annotations

from collections import Counter

from core.rules_file import Choice, Fixed, Int, Map, Note, Provisional, Record, Rows, RulesKeys, Seq
from troyes_env import rules_data as rd
from troyes_env import tables
from troyes_env.layout import BLD_SPACES, LAYOUT, N_GREY, NFLAG


def _hi(segment: str) -> int:
    return LAYOUT.segments[segment].hi


PER_N = (2, 3, 4)
COLOUR = Choice({c.name: c for c in rd.Colour})
COLOUR_OR_NONE = Choice({"none": -1, **{c.name: c for c in rd.Colour}})
BUILDINGS = {b.name: b for b in rd.Building}
N_SPACES = LAYOUT.segments["spaces"].shape[0]
DIE = Int(1, 6)
# Deniers, VP and the numbers of card effects: money and VP tokens are unlimited (§1) and the spec
# gives no bound. Ten thousand per value keeps a game's deniers and VP (at most 6 rounds of a
# bounded number of actions) far inside the state's 0..2^30 segments.
BIG = 10**4
MONEY = Int(0, BIG)
# VP gained or lost: >= 0, the sign the rules give (a penalty is a loss of its value, §3)
VP = Int(0, BIG)
INFLUENCE = Int(0, _hi("influence"))
DIVISOR = Int(1, BIG)  # a dice total is divided by it (§4.1, §4.3, §4.5): never 0
IDENTITY = Fixed("the card's identity")

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
                ("id", IDENTITY),
                ("key", IDENTITY),
                ("colour", COLOUR),
                ("level", Int(1, 3)),
                ("hire", MONEY),
                ("dice", COLOUR),
                ("div", DIVISOR),
                ("timing", Choice({t.name: t for t in rd.Timing})),
                ("vp1", VP),
                ("vp2", VP),
                ("effect", Choice({e.name: e for e in rd.Effect})),
                ("params", Seq(Int(0, BIG), 4, names=("p0", "p1", "p2", "p3"))),
                ("provisional", Note()),
            ],
            rule=_activity_check,
        ),
        as_list=True,
    ),
    "EVENT_CARDS": Rows(
        [r[1] for r in rd.EVENT_CARDS],
        Record(
            [
                ("id", IDENTITY),
                ("key", IDENTITY),
                ("colour", COLOUR_OR_NONE),
                ("black", Int(0, 6)),  # black dice taken: the game has 6 (§1)
                ("effect", Choice({e.name: e for e in rd.EventEffect})),
                ("e", Seq(Int(0, BIG), 2, names=("e0", "e1"))),
                ("combat", COLOUR),
                ("max", Int(1, LAYOUT.segments["sel"].shape[0])),
                ("div", DIVISOR),
                ("flags", Int(0, NFLAG)),
                ("R1", VP),
                ("R2", VP),
                ("next", COLOUR_OR_NONE),
                ("provisional", Note()),
            ],
            rule=_event_check,
        ),
        as_list=True,
    ),
    "CHARACTER_CARDS": Rows(
        [r[1] for r in rd.CHARACTER_CARDS],
        Record(
            [
                ("id", IDENTITY),
                ("key", IDENTITY),
                ("count", Choice({c.name: c for c in rd.Count})),
                ("thresholds", Seq(Int(0, BIG), 3)),
                ("vp", Seq(VP, 3)),
                ("provisional", Note()),
            ],
            rule=_character_check,
        ),
        as_list=True,
    ),
    "SETUP": Map(
        {
            str(n): (
                n,
                Seq(
                    [
                        # at least 1: pre-placement (§2.5) ends after the last starting citizen
                        # is placed, so with none no player would have a move
                        Int(1, _hi("supply")),
                        MONEY,
                        INFLUENCE,
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
    # §1: 8 grey citizens; the state's invariants count them against the layout's N_GREY
    "GREY_CITIZENS": Int(N_GREY, N_GREY),
    "INCOME": MONEY,
    "SALARY": Map({name: (b, MONEY) for name, b in BUILDINGS.items()}),
    "PENALTY_VP": VP,
    "DICE_PRICE": Seq(MONEY, 4),
    "INFLUENCE_MAX": Int(1, _hi("influence")),
    # influence costs (§5): a cost above the most influence a player can hold is never payable
    "REROLL_COST": INFLUENCE,
    "NEW_CITIZEN_COST": INFLUENCE,
    "FLIP_COST": INFLUENCE,
    "AGRICULTURE_DIVISOR": DIVISOR,
    "PASS_DENIERS": MONEY,
    "PASS_EXTRA": MONEY,
    "CATHEDRAL_VP": VP,
    "CATHEDRAL_INFLUENCE": Seq(INFLUENCE, 6),
    "CATHEDRAL_LEVEL_PENALTY": VP,
    "UNRESOLVED_EVENT_VP": VP,
    "ALL_FIVES_VALUE": DIE,
    "ROW_LENGTH": Map({name: (b, Int(1, 6)) for name, b in BUILDINGS.items()}),
    "ROW_OF_VALUE": Map({name: (b, Seq(Int(0, 5), 6)) for name, b in BUILDINGS.items()}),
    "GREY_2P_SPACES": Seq(Int(0, N_SPACES - 1), len(rd.GREY_2P_SPACES)),
}


def _check(ns) -> list[tuple[str, str]]:
    """Rules across keys (each value has passed its own range): (key, message) per problem."""
    out = []
    # §6.1: 27 Activity cards, 3 per colour and level (setup draws one of each, §2.2)
    want = Counter((r[2], r[3]) for r in rd.ACTIVITY_CARDS)
    if Counter((r[2], r[3]) for r in ns.ACTIVITY_CARDS) != want:
        out.append(("ACTIVITY_CARDS", "each colour needs 3 cards of each level (the layout)"))
    # §2.3: the red, white and yellow decks keep the sizes the layout's decks hold
    want = Counter(int(r[2]) for r in rd.EVENT_CARDS)
    if Counter(int(r[2]) for r in ns.EVENT_CARDS) != want:
        out.append(("EVENT_CARDS", "event colours must keep the deck sizes the layout holds"))
    # §4.4, §8 U-ROWS: each building's 6 spaces split into rows of ROW_LENGTH
    for name, b in BUILDINGS.items():
        n = ns.ROW_LENGTH[b]
        if 6 % n or max(ns.ROW_OF_VALUE[b]) >= 6 // n:
            out.append((f"ROW_OF_VALUE.{name}", f"rows of {n} must fit the building's 6 spaces"))
    # §5: a reroll or a flip that costs no influence can be bought again and again: a game
    # without end
    for key in ("REROLL_COST", "FLIP_COST"):
        if getattr(ns, key) < 1:
            out.append(
                (key, f"{getattr(ns, key)} makes it free to repeat without end (allowed: 1..20)")
            )
    for n in PER_N:
        cit, _den, inf = ns.SETUP[n][:3]
        # §1: a player never owns more than MAX_CITIZENS; setup gives each its starting citizens
        if cit > ns.MAX_CITIZENS:
            out.append(
                (
                    f"SETUP.{n}.citizens",
                    f"{cit} exceeds MAX_CITIZENS {ns.MAX_CITIZENS} "
                    f"(allowed: at most {ns.MAX_CITIZENS})",
                )
            )
        # §5: influence starts on the track, which ends at INFLUENCE_MAX
        if inf > ns.INFLUENCE_MAX:
            out.append(
                (
                    f"SETUP.{n}.influence",
                    f"{inf} exceeds INFLUENCE_MAX {ns.INFLUENCE_MAX} "
                    f"(allowed: at most {ns.INFLUENCE_MAX})",
                )
            )
        # §2.5, ED-10: every starting citizen (and with 2 players the grey placed first) needs an
        # empty space of the 18, or pre-placement has no move; then grey fills every space left
        first = len(ns.GREY_2P_SPACES) if n == 2 else 0
        need = n * cit + first
        if need > N_SPACES:
            grey = f" + {first} grey placed first" if first else ""
            out.append(
                (
                    f"SETUP.{n}.citizens",
                    f"{n} players x {cit} citizens{grey} need {need} spaces, the buildings have "
                    f"{N_SPACES} (allowed: at most {(N_SPACES - first) // n})",
                )
            )
        elif N_SPACES - n * cit > ns.GREY_CITIZENS:
            out.append(
                (
                    f"SETUP.{n}.citizens",
                    f"{n} players x {cit} citizens leave {N_SPACES - n * cit} spaces for "
                    f"{ns.GREY_CITIZENS} grey citizens (allowed: at least "
                    f"{-(-(N_SPACES - ns.GREY_CITIZENS) // n)})",
                )
            )
    # §2.5, U-2P: the grey citizens placed first in a 2-player game, one per space, fill rows
    # from the front like every citizen (ED-8: a row has no gap)
    spaces = list(ns.GREY_2P_SPACES)
    for sp in spaces:
        if spaces.count(sp) > 1:
            out.append(("GREY_2P_SPACES", f"space {sp} appears twice (one grey citizen per space)"))
            break
        b = sp // BLD_SPACES
        rl = ns.ROW_LENGTH[rd.Building(b)]
        base = BLD_SPACES * b + (sp - BLD_SPACES * b) // rl * rl
        if any(x not in spaces for x in range(base, sp)):
            out.append(
                (
                    "GREY_2P_SPACES",
                    f"space {sp} leaves a gap in front of it in its row (rows fill from the "
                    f"front: spaces {base}..{base + rl - 1})",
                )
            )
            break
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
