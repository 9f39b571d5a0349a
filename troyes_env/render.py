"""Words for actions (`describe`) and a text board (`render`, render_mode="ansi")."""

from __future__ import annotations

import numpy as np

from troyes_env.actions import ACTIONS
from troyes_env.layout import (
    GREY,
    LAYOUT,
    NEUTRAL,
    PH_ARCHER,
    PH_COUNTER,
    PH_CUBE,
    PH_DICE,
    PH_EVENT,
    PH_FLIP,
    PH_OVER,
    PH_SOURCE,
    PHASE_NAMES,
    TK_ACT,
)
from troyes_env.rules_data import ACTIVITY_NAMES, CHARACTER_NAMES, EVENT_NAMES, EventEffect
from troyes_env.tables import E_EFF, E_FLAGS, E_W, T_EV, TABLES

COL = "YWR"
COLOUR_WORDS = ("yellow", "white", "red")
BUILD = ("Palace", "Bishopric", "City Hall")
OWNER = {-1: ".", GREY: "g"}


def _v(state, name):
    return LAYOUT.view(state, name)


def _own(o: int) -> str:
    return OWNER.get(int(o), str(int(o)))


def space_name(sp: int) -> str:
    if sp < 6:
        return f"Palace space {sp + 1}"
    if sp < 12:
        r, k = divmod(sp - 6, 2)
        return f"Bishopric row {r + 1} place {k + 1}"
    r, k = divmod(sp - 12, 3)
    return f"City Hall row {r + 1} place {k + 1}"


def _card_at(state, pos):
    if state is None:
        return f"card position {COL[pos // 3]}{pos % 3 + 1}"
    c = int(_v(state, "act_card")[pos])
    return ACTIVITY_NAMES[c] if c >= 0 else f"face-down {COL[pos // 3]}{pos % 3 + 1}"


def _event_at(state, i):
    if state is None:
        return f"event row position {i}"
    c = int(_v(state, "row_card")[i])
    return EVENT_NAMES[c] if c >= 0 else f"empty row position {i}"


def describe(action: int, state: np.ndarray | None = None, T: np.ndarray = TABLES) -> str:
    """Words for an action; with a state, worded for the current phase (T: the rules tables in
    use, for the shape every game's describe has; the words need none)."""
    try:
        seg, idx = ACTIONS.decode(action)
    except ValueError:
        return f"invalid action {action}"
    ph = int(_v(state, "phase")[0]) if state is not None else -1
    tk = int(_v(state, "tgt_kind")[0]) if state is not None else -1
    if seg == "SPACE":
        where = space_name(idx[0])
        if ph == PH_EVENT:
            return f"event: send home the citizen at {where}"
        if ph == PH_SOURCE:
            return f"citizen source: the citizen standing at {where}"
        return f"place a citizen at {where}"
    if seg == "LYING":
        return f"citizen source: own citizen lying at the {BUILD[idx[0]]}"
    if seg == "BUILDING":
        return f"place a citizen in the {BUILD[idx[0]]}"
    if seg == "ACTIVITY":
        name = _card_at(state, idx[0])
        if ph == PH_CUBE:
            return f"spend a cube from {name}"
        if ph == PH_SOURCE:
            return f"citizen source: own supervisor on {name}"
        if ph == PH_EVENT:
            return f"event: give up a cube from {name}"
        return f"activate {name}"
    if seg == "EVENT":
        name = _event_at(state, idx[0])
        if ph == PH_EVENT:
            return f"event: give up a cube from {name}"
        if ph == PH_ARCHER:
            return f"cube on {name}"
        return f"fight {name}"
    if seg == "DIE":
        d, c, v = idx
        who = "own" if d == 0 else ("neutral" if d == NEUTRAL else f"player +{d}")
        verb = "flip" if ph == PH_FLIP else ("counter with" if ph == PH_COUNTER else "use")
        return f"{verb} {who} {COLOUR_WORDS[c]} die {v + 1}"
    if seg == "BLACK":
        return f"also counter a black die {idx[0] + 1}"
    if seg == "REROLL":
        c, v = idx
        return f"influence: reroll own {COLOUR_WORDS[c]} die {v + 1}"
    if seg == "CATH_VALUE":
        return f"event: lose the Cathedral cube of value {idx[0] + 1}"
    words = {
        "PASS": "pass",
        "CATHEDRAL": "build the Cathedral",
        "AGRICULTURE": "agriculture",
        "NO_CUBE": "spend no cube",
        "SUPPLY": "citizen from the personal supply",
        "FLIP": "influence: flip dice",
        "NEW_CITIZEN": "influence: new citizen",
        "CONFIRM": "confirm",
        "CONCEDE": "concede the black die (lose 2 VP)",
        "GO_ON": "activate once more",
        "STOP": "stop activating",
    }
    w = words[seg]
    if seg == "CONFIRM" and ph == PH_DICE and tk == TK_ACT and state is not None:
        w = f"confirm the dice for {_card_at(state, int(_v(state, 'tgt_idx')[0]))}"
    return w


def render(state: np.ndarray, T: np.ndarray = TABLES) -> str:
    """A readable text board (T: the rules tables in use)."""
    n = int(_v(state, "n_players")[0])
    lines = []
    ph = int(_v(state, "phase")[0])
    lines.append(
        f"Troyes {n}p  round {int(_v(state, 'round')[0])}/{int(_v(state, 'n_rounds')[0])}  "
        f"start player {int(_v(state, 'start_player')[0])}  phase: {PHASE_NAMES[ph]}  "
        f"to act: {int(_v(state, 'cur')[0])}"
    )
    den, inf, vp = _v(state, "deniers"), _v(state, "influence"), _v(state, "vp")
    sup, own, pas, dd = (
        _v(state, "supply"),
        _v(state, "owned"),
        _v(state, "passed"),
        _v(state, "dist_den"),
    )
    for p in range(n):
        lines.append(
            f"  P{p}: {den[p]} deniers, {inf[p]} influence, {vp[p]} VP, citizens {sup[p]}/{own[p]}"
            f" in supply{', passed' if pas[p] else ''}{f', {dd[p]} on district' if dd[p] else ''}"
        )
    sp = _v(state, "spaces")
    ly = _v(state, "lying")
    lines.append("  Palace    " + " ".join(_own(x) for x in sp[0:6]) + "   lying " + _lying(ly[0]))
    lines.append(
        "  Bishopric "
        + " | ".join(" ".join(_own(x) for x in sp[6 + 2 * r : 8 + 2 * r]) for r in range(3))
        + "   lying "
        + _lying(ly[1])
    )
    lines.append(
        "  City Hall "
        + " | ".join(" ".join(_own(x) for x in sp[12 + 3 * r : 15 + 3 * r]) for r in range(2))
        + "   lying "
        + _lying(ly[2])
    )
    ac, sups, cubes = _v(state, "act_card"), _v(state, "sup"), _v(state, "act_cubes")
    for pos in range(9):
        c = int(ac[pos])
        if c < 0:
            continue
        who = ", ".join(
            f"P{q}@{'slot1 slot2 art'.split()[int(sups[pos, q]) - 1]}"
            for q in range(n)
            if sups[pos, q]
        )
        cb = ", ".join(f"P{q}x{int(cubes[pos, q])}" for q in range(n) if cubes[pos, q])
        lines.append(
            f"  [{COL[pos // 3]}{pos % 3 + 1}] {ACTIVITY_NAMES[c]}: {who or '-'}"
            f"{'  cubes ' + cb if cb else ''}"
        )
    cath = _v(state, "cath")
    lines.append("  Cathedral " + " / ".join("".join(_own(x) for x in cath[lv]) for lv in range(3)))
    rc, fl = _v(state, "row_card"), _v(state, "row_flags")
    for i in range(len(rc)):
        c = int(rc[i])
        if c < 0:
            break
        nf = int(T[T_EV + c * E_W + E_FLAGS])
        eff = EventEffect(int(T[T_EV + c * E_W + E_EFF])).name
        lines.append(
            f"  event {i}: {EVENT_NAMES[c]} ({eff}) flags " + "".join(_own(x) for x in fl[i, :nf])
        )
    dice = _v(state, "dice")
    for d in range(5):
        if d >= n and d != NEUTRAL:
            continue
        txt = " ".join(
            f"{COL[c]}{v + 1}" + (f"x{int(dice[d, c, v])}" if dice[d, c, v] > 1 else "")
            for c in range(3)
            for v in range(6)
            if dice[d, c, v]
        )
        lines.append(f"  district {'N' if d == NEUTRAL else d}: {txt or '-'}")
    bl = _v(state, "black")
    if bl.sum():
        # a die per value, or value x count for more than 6 of one (a state edited by hand can
        # hold up to 2**30: the text stays short)
        lines.append(
            "  black dice: "
            + " ".join(
                " ".join([str(v + 1)] * int(bl[v])) if bl[v] <= 6 else f"{v + 1}x{int(bl[v])}"
                for v in range(6)
                if bl[v]
            )
        )
    if ph == PH_OVER:
        fin = _v(state, "final")
        lines.append("  final: " + ", ".join(f"P{p} {int(fin[p])}" for p in range(n)))
        ch = _v(state, "chars")
        lines.append(
            "  characters: "
            + ", ".join(
                f"P{p} " + "+".join(CHARACTER_NAMES[int(x)] for x in ch[p] if x >= 0)
                for p in range(n)
            )
        )
    return "\n".join(lines)


def _lying(row) -> str:
    return " ".join(_own(o) for o in range(5) for _ in range(int(row[o]))) or "-"
