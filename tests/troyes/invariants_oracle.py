"""The test oracle of Troyes' invariants: `invariant_errors`, the laws of the compiled
troyes_env/engine/checks.py `check_invariants_code` restated in plain Python (about 3 ms a
state), in the same order. test_invariants.py checks that both flag the same states."""

from __future__ import annotations

import numpy as np

from troyes_env.layout import (
    LAYOUT,
    PH_COUNTER,
    PH_FLIP,
    PH_OVER,
    PH_SETUP,
    SCORE_SOURCES,
    SRC_FLOOR,
    SRC_PENALTY,
    SRC_SLOTS,
)
from troyes_env.tables import A_TIMING, A_W, E_FLAGS, E_W, T_ACT, T_EV, T_ROW_LEN, T_SETUP


def invariant_errors(state: np.ndarray, T: np.ndarray) -> list[str]:
    """Every accounting invariant that fails (empty when all hold); T: the rules tables in use."""
    err: list[str] = []

    def v(name):
        return LAYOUT.view(state, name)

    try:
        LAYOUT.validate(state)
    except Exception as e:  # noqa: BLE001
        return [str(e)]
    n = int(v("n_players")[0])
    ph = int(v("phase")[0])
    spaces, lying, sup = v("spaces"), v("lying"), v("sup")
    start_cit = int(T[T_SETUP + n * 5])
    # citizens: each player's are in exactly one place, 12 at most
    for p in range(4):
        placed = int((spaces == p).sum()) + int(lying[:, p].sum()) + int((sup[:, p] > 0).sum())
        total = placed + int(v("supply")[p])
        if p >= n:
            if total or v("owned")[p] or v("deniers")[p] or v("vp")[p] or v("score_src")[p].any():
                err.append(f"seat {p} is not in the game but holds something")
            continue
        if total != v("owned")[p]:
            err.append(f"P{p}: citizens supply+board {total} != owned {int(v('owned')[p])}")
        if not start_cit <= v("owned")[p] <= 12:
            err.append(f"P{p}: owns {int(v('owned')[p])} citizens")
    grey = int((spaces == 4).sum()) + int(lying[:, 4].sum()) + int(v("grey_supply")[0])
    if grey != 8:
        err.append(f"grey citizens {grey} != 8")
    if (lying > 1).any():
        err.append("more than one citizen of a colour lying at a building")
    # rows have no gaps (ED-8)
    rows = [
        (b * 6 + k, int(T[T_ROW_LEN + b]))
        for b in range(3)
        for k in range(0, 6, int(T[T_ROW_LEN + b]))
    ]
    for base, rl in rows:
        row = spaces[base : base + rl]
        seen_empty = False
        for x in row:
            if x < 0:
                seen_empty = True
            elif seen_empty:
                err.append(f"gap in the row starting at space {base}")
    if ph not in (PH_SETUP,) and (spaces < 0).any() and int(v("round")[0]) == 0:
        err.append("empty space after pre-placement")
    # supervisors: slots 1 and 2 hold at most one player; only on revealed cards
    ac = v("act_card")
    for pos in range(9):
        for slot in (1, 2):
            if int((sup[pos] == slot).sum()) > 1:
                err.append(f"card {pos}: two supervisors in slot {slot}")
        if ac[pos] < 0 and (sup[pos].any() or v("act_cubes")[pos].any()):
            err.append(f"card {pos}: citizens or cubes on a face-down card")
        if ac[pos] >= 0 and T[T_ACT + ac[pos] * A_W + A_TIMING] == 0 and v("act_cubes")[pos].any():
            err.append(f"card {pos}: cubes on an immediate card")
        if ac[pos] >= 0 and v("act_hidden")[pos] >= 0:
            err.append(f"card {pos}: both revealed and face down")
    # cubes: board count matches the counters
    cath, rc, fl = v("cath"), v("row_card"), v("row_flags")
    for p in range(n):
        on = int(v("act_cubes")[:, p].sum()) + int((cath == p).sum()) + int((fl == p).sum())
        if on != v("cubes_out")[p]:
            err.append(f"P{p}: cubes on the board {on} != counter {int(v('cubes_out')[p])}")
    for lv in range(3):
        for val in range(6):
            if cath[lv, val] >= 0 and lv > 0 and cath[lv - 1, val] < 0:
                err.append(f"Cathedral value {val + 1}: level {lv + 1} over an empty level")
    # event row: Marauding first, compact, flags only within the card, no full card
    if rc[0] != 0:
        err.append("Marauding is not at the start of the row")
    seen_end = False
    in_row = set()
    for i in range(len(rc)):
        c = int(rc[i])
        if c < 0:
            seen_end = True
            if (fl[i] >= 0).any():
                err.append(f"flags on empty row position {i}")
            continue
        if seen_end:
            err.append("gap in the event row")
        in_row.add(c)
        nf = int(T[T_EV + c * E_W + E_FLAGS])
        if (fl[i, nf:] >= 0).any():
            err.append(f"row {i}: cube beyond the card's flags")
        if nf and (fl[i, :nf] >= 0).all():
            err.append(f"row {i}: full card not resolved")
    kept = v("kept_by")
    for c in in_row:
        if kept[c] >= 0:
            err.append(f"event {c} both in the row and kept")
    decks, drawn = v("decks"), v("deck_drawn")
    for col in range(3):
        for j in range(int(drawn[col])):
            c = int(decks[col, j])
            if c < 0:
                err.append(f"deck {col}: {int(drawn[col])} cards drawn, more than it holds")
            elif c not in in_row and kept[c] < 0:
                err.append(f"drawn event {c} is neither in the row nor kept")
    # dice: never more than the citizens rolled, at most 6 of a colour (ED-3)
    dice, rolled = v("dice"), v("rolled")
    for d in range(5):
        for c in range(3):
            if dice[d, c].sum() > rolled[d, c]:
                err.append(f"district {d} colour {c}: {int(dice[d, c].sum())} dice > rolled")
    for c in range(3):
        if rolled[:, c].sum() > 6:
            err.append(f"colour {c}: more than 6 dice rolled")
    if ph not in (PH_COUNTER, PH_FLIP, PH_OVER) and v("black").sum():
        err.append("black dice outside the counter step")
    if ph == PH_OVER and (dice.sum() or lying.sum()):
        err.append("dice or lying citizens left after the game")
    # points by source : the sources of play sum to the VP; the final-scoring ones are
    # credited at the end only, and then every source sums to the final score
    src = v("score_src")
    for p in range(n):
        row = [int(x) for x in src[p]]
        play, fin = sum(row[:SRC_SLOTS]), sum(row[SRC_SLOTS:])
        if play != v("vp")[p]:
            err.append(f"P{p}: score sources of play sum to {play} != VP {int(v('vp')[p])}")
        if row[SRC_PENALTY] > 0 or row[SRC_FLOOR] < 0:
            err.append(f"P{p}: penalties {row[SRC_PENALTY]} > 0 or floor {row[SRC_FLOOR]} < 0")
        if ph == PH_OVER and play + fin != v("final")[p]:
            err.append(f"P{p}: score sources sum to {play + fin} != final {int(v('final')[p])}")
        if ph != PH_OVER and any(row[SRC_SLOTS:]):
            names = [SCORE_SOURCES[k] for k in range(SRC_SLOTS, len(row)) if row[k]]
            err.append(f"P{p}: final-scoring sources {names} credited before the end")
    return err
