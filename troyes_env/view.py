"""Troyes as the viewer (training.view) draws it: the position JSON and its page drawing.

Only public information goes out. Every field is read from a named, non-hidden layout segment
(`LAYOUT.view`) and labelled with the names of the rules data; the hidden segments (the RNG
words, the face-down Activity cards, the event decks and the Character cards) are never read,
except that a finished game's final scoring reveals every Character card, so a finished position
lists them. By default the viewer is a spectator: no seat's secrets are shown. With
`viewer=SEAT` (play mode: a human plays that seat) the position is that seat's point of view:
its own Character cards are listed too (the `chars` row of that seat only).

`FIELDS` documents every top-level field (the viewer's tests hold it and `position` to the same
names). `SCRIPT` is the page's drawing of these positions (view.js, next to this module), served
by the viewer and registered with the page as `registerGame("troyes", ...)`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from troyes_env import layout as tl
from troyes_env import rules_data as trd

SCRIPT = "view.js"

FIELDS = {
    "game": "'troyes'",
    "round": "current round (0 during pre-placement)",
    "rounds": "rounds in the game (red event cards kept)",
    "phase": "the decision the state waits for (PHASE_NAMES)",
    "to_act": "seat that must decide now; null once the game is over",
    "start_player": "seat holding the start player card",
    "buildings": "Palace, Bishopric, City Hall: rows of spaces (owner: seat, 'grey' or null), "
    "citizens lying beside the building by owner",
    "activities": "the nine Activity card positions (colour, level): the card once revealed "
    "(null face down), supervisors (seat, slot), cubes by seat",
    "cathedral": "Cathedral levels 1..3: owner of the space of each die value 1..6",
    "events": "the event row: card, effect, flag spaces (owner)",
    "kept_events": "event cards kept (by seat, or 'out' when they left the game)",
    "decks_drawn": "event decks yellow, white, red: cards drawn so far (their order is hidden)",
    "districts": "dice per district (each seat's, then the neutral one): colour, value, count",
    "black_dice": "black dice values still to counter",
    "grey_supply": "grey citizens in the general supply",
    "over": "the game is over",
    "players": "per seat: deniers, influence, VP, citizens in supply / owned, passed, deniers "
    "on the district, cubes out; once the game is over the final score and the Character cards "
    "(in play mode the human's own Character cards all along)",
}


def _seat(x) -> int | None:
    return None if int(x) < 0 else int(x)


_T_COLOURS = ("yellow", "white", "red")
_T_BUILDINGS = ("Palace", "Bishopric", "City Hall")
_T_ROWS = ((6, 1), (3, 2), (2, 3))  # rows x places per building (layout docstring)
_T_SLOTS = {1: "slot 1", 2: "slot 2", 3: "artisan"}


def _owner(o) -> int | str | None:
    o = int(o)
    return None if o < 0 else ("grey" if o == tl.GREY else o)


def position(state: np.ndarray, T: np.ndarray, viewer: int | None = None) -> dict[str, Any]:
    """The public Troyes position (fields: FIELDS); hidden segments are never read,
    Character cards only once the game is over (the final scoring reveals them), except the
    `viewer` seat's own ones (play mode), which that seat always sees."""

    def v(name):
        if tl.LAYOUT.segments[name].hidden and not (name == "chars" and over):
            raise KeyError(f"hidden segment {name!r}")  # a guard: never reached by this code
        return tl.LAYOUT.view(state, name)

    over = int(tl.LAYOUT.view(state, "phase")[0]) == tl.PH_OVER
    n = int(v("n_players")[0])
    buildings = _buildings(v)
    activities = _activities(v, n)
    events = _events(v)
    districts = _districts(v, n)
    players = _players(state, v, n, over, viewer)
    kept = v("kept_by")
    return {
        "game": "troyes",
        "players": players,
        "round": int(v("round")[0]),
        "rounds": int(v("n_rounds")[0]),
        "phase": tl.PHASE_NAMES[int(v("phase")[0])],
        "to_act": _seat(v("cur")[0]),
        "start_player": int(v("start_player")[0]),
        "buildings": buildings,
        "activities": activities,
        "cathedral": [[_owner(x) for x in v("cath")[lv]] for lv in range(3)],
        "events": events,
        "kept_events": [
            {"card": trd.EVENT_NAMES[c], "by": "out" if kept[c] == tl.GREY else int(kept[c])}
            for c in range(kept.shape[0])
            if kept[c] >= 0
        ],
        "decks_drawn": {col: int(v("deck_drawn")[i]) for i, col in enumerate(_T_COLOURS)},
        "districts": districts,
        "black_dice": [val + 1 for val in range(6) for _ in range(int(v("black")[val]))],
        "grey_supply": int(v("grey_supply")[0]),
        "over": over,
    }


def _buildings(v) -> list[dict[str, Any]]:
    """The buildings field: each building's rows of spaces (owners) and the citizens lying beside
    it (`v` reads a named, non-hidden segment of the state)."""
    spaces, lying = v("spaces"), v("lying")
    buildings = []
    for b, (rows, places) in enumerate(_T_ROWS):
        own = spaces[b * tl.BLD_SPACES : (b + 1) * tl.BLD_SPACES]
        buildings.append(
            {
                "building": _T_BUILDINGS[b],
                "colour": _T_COLOURS[int(trd.BUILDING_COLOUR[trd.Building(b)])],
                "rows": [
                    [_owner(x) for x in own[r * places : (r + 1) * places]] for r in range(rows)
                ],
                "lying": {
                    ("grey" if o == tl.GREY else str(o)): int(lying[b, o])
                    for o in range(5)
                    if lying[b, o]
                },
            }
        )
    return buildings


def _activities(v, n: int) -> list[dict[str, Any]]:
    """The activities field: the nine Activity card positions with their card (once revealed),
    supervisors and cubes."""
    ac, sup, cubes = v("act_card"), v("sup"), v("act_cubes")
    return [
        {
            "position": f"{'YWR'[pos // 3]}{pos % 3 + 1}",
            "colour": _T_COLOURS[pos // 3],
            "level": pos % 3 + 1,
            "card": trd.ACTIVITY_NAMES[int(ac[pos])] if ac[pos] >= 0 else None,
            "supervisors": [
                {"seat": q, "slot": _T_SLOTS[int(sup[pos, q])]} for q in range(n) if sup[pos, q]
            ],
            "cubes": {str(q): int(cubes[pos, q]) for q in range(n) if cubes[pos, q]},
        }
        for pos in range(tl.N_ACTPOS)
    ]


def _events(v) -> list[dict[str, Any]]:
    """The events field: the cards of the event row with their effect and flag spaces."""
    rc, fl = v("row_card"), v("row_flags")
    events = []
    for i in range(tl.NROW):
        c = int(rc[i])
        if c < 0:
            continue
        card = trd.EVENT_CARDS[c]
        events.append(
            {
                "position": i,
                "card": trd.EVENT_NAMES[c],
                "colour": "marauding" if card[2] < 0 else _T_COLOURS[int(card[2])],
                "effect": trd.EventEffect(int(card[4])).name.lower().replace("_", " "),
                "flags": [_owner(x) for x in fl[i, : int(card[9])]],
            }
        )
    return events


def _districts(v, n: int) -> list[dict[str, Any]]:
    """The districts field: the dice of each seat's district, then of the neutral one."""
    dice = v("dice")
    districts = []
    for d in range(tl.N_DIST):
        if d >= n and d != tl.N_DIST - 1:
            continue
        districts.append(
            {
                "district": "neutral" if d == tl.N_DIST - 1 else d,
                "dice": [
                    {"colour": _T_COLOURS[c], "value": val + 1, "count": int(dice[d, c, val])}
                    for c in range(tl.N_COL)
                    for val in range(tl.N_VAL)
                    if dice[d, c, val]
                ],
            }
        )
    return districts


def _players(state: np.ndarray, v, n: int, over: bool, viewer: int | None) -> list[dict[str, Any]]:
    """The players field; the Character cards of every seat once the game is `over`, else only
    the `viewer` seat's own ones."""

    def own_chars(p: int) -> list[str]:  # only the viewer's own row of the hidden segment
        assert viewer is not None and p == viewer
        return [trd.CHARACTER_NAMES[int(x)] for x in tl.LAYOUT.view(state, "chars")[p] if x >= 0]

    players = []
    for p in range(n):
        pl = {
            "seat": p,
            "deniers": int(v("deniers")[p]),
            "influence": int(v("influence")[p]),
            "vp": int(v("vp")[p]),
            "citizens_supply": int(v("supply")[p]),
            "citizens_owned": int(v("owned")[p]),
            "passed": bool(v("passed")[p]),
            "district_deniers": int(v("dist_den")[p]),
            "cubes_out": int(v("cubes_out")[p]),
        }
        if over:
            pl["final"] = int(v("final")[p])
            pl["characters"] = [trd.CHARACTER_NAMES[int(x)] for x in v("chars")[p] if x >= 0]
        elif viewer is not None and p == int(viewer):
            pl["characters"] = own_chars(p)
        players.append(pl)
    return players
