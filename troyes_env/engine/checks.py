"""Compiled accounting checks and random sweeps (tests, benchmarks).

`invariant_code` is a fast subset used inside the compiled sweeps (codes E_CITIZENS..E_LONG).
`full_invariant_code` checks every invariant of invariants.py `invariant_errors` (the readable
reference), the per-entry ranges of the layout included, and returns the first failure's code
(F_* below, > 0) or 0 when all hold; `troyes_env.check_invariants` calls it first. The tables and
the per-entry bounds (`layout_bounds`) are arguments (D2)."""

from __future__ import annotations

import numpy as np

from core.agents import pick_legal
from core.jit import jit
from troyes_env.actions import NUM_ACTIONS
from troyes_env.engine.apply import apply_action
from troyes_env.engine.board import own_flags
from troyes_env.engine.groups import TIMING_IMMEDIATE
from troyes_env.engine.legal import legal_mask_into
from troyes_env.engine.rules import advance
from troyes_env.engine.step import settle
from troyes_env.layout import (
    DIST_DICE,
    N_ACTPOS,
    N_CATH,
    N_DIE_TYPES,
    N_SCORE_SOURCES,
    N_SPACES,
    N_VAL,
    NFLAG,
    NROW,
    PH_COUNTER,
    PH_FLIP,
    PH_OVER,
    PH_SETUP,
    S_ACARD,
    S_ACUBE,
    S_AHID,
    S_ASUP,
    S_BLACK,
    S_CATH,
    S_CUBES,
    S_DECKS,
    S_DEN,
    S_DICE,
    S_DRAWN,
    S_FINAL,
    S_FLAGS,
    S_GREY,
    S_INF,
    S_KEPT,
    S_LYING,
    S_NP,
    S_OWNED,
    S_PHASE,
    S_ROLLED,
    S_ROUND,
    S_ROW,
    S_SCORE_SRC,
    S_SPACES,
    S_SUP,
    S_VP,
    SRC_FLOOR,
    SRC_PENALTY,
    SRC_SLOTS,
    STATE_SIZE,
)
from troyes_env.tables import A_TIMING, A_W, E_FLAGS, E_W, T_ACT, T_EV, T_SETUP

E_CITIZENS, E_GREY, E_CUBES, E_LYING, E_DICE, E_NEG, E_ROW, E_EMPTY_MASK, E_LONG, E_SCORE_SRC = (
    range(1, 11)
)


@jit(alloc=False)
def score_src_ok(s, p):
    """Points by source (issue 14) for seat p in the game: its score sources sum to its VP
    during play and to its final score once the game is over; the final-scoring sources are 0
    before the end; penalties are <= 0 and the floor >= 0."""
    o = S_SCORE_SRC + p * N_SCORE_SOURCES
    play = 0
    for k in range(SRC_SLOTS):
        play += s[o + k]
    fin = 0
    for k in range(SRC_SLOTS, N_SCORE_SOURCES):
        fin += s[o + k]
    if play != s[S_VP + p] or s[o + SRC_PENALTY] > 0 or s[o + SRC_FLOOR] < 0:
        return False
    if s[S_PHASE] == PH_OVER:
        return play + fin == s[S_FINAL + p]
    for k in range(SRC_SLOTS, N_SCORE_SOURCES):
        if s[o + k] != 0:
            return False
    return True


@jit(alloc=False)
def score_src_empty(s, p):
    """A seat not in the game has no score source."""
    for k in range(N_SCORE_SOURCES):
        if s[S_SCORE_SRC + p * N_SCORE_SOURCES + k] != 0:
            return False
    return True


@jit
def invariant_code(s, T):
    n = s[S_NP]
    for p in range(n):
        placed = s[S_SUP + p]
        for i in range(N_SPACES):
            if s[S_SPACES + i] == p:
                placed += 1
        for b in range(3):
            placed += s[S_LYING + b * 5 + p]
            if s[S_LYING + b * 5 + p] > 1:
                return E_LYING
        for pos in range(N_ACTPOS):
            if s[S_ASUP + pos * 4 + p] > 0:
                placed += 1
        if placed != s[S_OWNED + p] or s[S_OWNED + p] > 12:
            return E_CITIZENS
        cubes = 0
        for pos in range(N_ACTPOS):
            cubes += s[S_ACUBE + pos * 4 + p]
        for i in range(N_CATH):
            if s[S_CATH + i] == p:
                cubes += 1
        for i in range(NROW):
            cubes += own_flags(s, i, p)
        if cubes != s[S_CUBES + p]:
            return E_CUBES
        if s[S_DEN + p] < 0 or s[S_VP + p] < 0 or s[S_INF + p] < 0 or s[S_INF + p] > 20:
            return E_NEG
        if not score_src_ok(s, p):
            return E_SCORE_SRC
    g = s[S_GREY]
    for i in range(N_SPACES):
        if s[S_SPACES + i] == 4:
            g += 1
    for b in range(3):
        g += s[S_LYING + b * 5 + 4]
    if g != 8:
        return E_GREY
    for d in range(5):
        for c in range(3):
            k = 0
            for v in range(6):
                k += s[S_DICE + d * DIST_DICE + c * N_VAL + v]
            if k > s[S_ROLLED + d * 3 + c]:
                return E_DICE
    if s[S_ROW] != 0:
        return E_ROW
    for i in range(NROW):
        if s[S_ROW + i] < 0:
            for f in range(NFLAG):
                if s[S_FLAGS + i * NFLAG + f] >= 0:
                    return E_ROW
    return 0


@jit
def random_game(s, T, mask, work, rng4, spare, explore, max_steps):
    """Play one random game from s. After every decision the invariants are checked; with
    `explore`, every legal action is also tried on a copy (spare) and must give a state with
    valid invariants and a non-empty mask unless over (D5). Returns (decisions, error code)."""
    k = 0
    while s[S_PHASE] != PH_OVER:
        if k >= max_steps:
            return k, E_LONG
        m = legal_mask_into(s, T, mask, work)
        if m == 0:
            return k, E_EMPTY_MASK
        if explore:
            for a in range(NUM_ACTIONS):
                legal_mask_into(s, T, mask, work)
                if not mask[a]:
                    continue
                for i in range(STATE_SIZE):
                    spare[i] = s[i]
                apply_action(spare, T, a, work)
                advance(spare, T)
                settle(spare, T, mask, work)
                e = invariant_code(spare, T)
                if e != 0:
                    return k, e
                if spare[S_PHASE] != PH_OVER and legal_mask_into(spare, T, mask, work) == 0:
                    return k, E_EMPTY_MASK
            m = legal_mask_into(s, T, mask, work)
        act = pick_legal(mask, rng4)  # RandomAgent's draw among the m legal actions
        apply_action(s, T, act, work)
        advance(s, T)
        settle(s, T, mask, work)
        k += 1
        e = invariant_code(s, T)
        if e != 0:
            return k, e
    return k, 0


# Codes of full_invariant_code, one per check of invariants.py invariant_errors, in its order.
(
    F_SIZE,  # the state has the wrong number of entries
    F_RANGE,  # an entry is outside its segment's [lo, hi] (Layout.validate)
    F_ABSENT_SEAT,  # a seat not in the game holds citizens, money or VP
    F_CITIZENS,  # a player's citizens (supply + board) differ from the number owned
    F_OWNED,  # a player owns fewer citizens than at the start, or more than 12
    F_GREY,  # grey citizens (board + lying + supply) != 8
    F_LYING,  # two citizens of one colour lying at one building
    F_SPACE_GAP,  # a gap in a Bishopric / City Hall row (ED-8)
    F_PREPLACE,  # an empty building space after pre-placement in round 0
    F_SLOT,  # two supervisors in slot 1 or 2 of one Activity card
    F_FACE_DOWN,  # citizens or cubes on a face-down Activity card
    F_IMMEDIATE,  # cubes on an immediate Activity card
    F_BOTH_FACES,  # an Activity card position both revealed and face down
    F_CUBES,  # a player's cubes on the board != cubes_out counter
    F_CATH,  # a Cathedral level over an empty level
    F_MARAUDING,  # Marauding is not at the start of the event row
    F_ROW_FLAGS_EMPTY,  # flags on an empty event row position
    F_ROW_GAP,  # a gap in the event row
    F_ROW_BEYOND,  # a cube beyond the card's flag spaces
    F_ROW_FULL,  # a full event card left unresolved
    F_ROW_KEPT,  # an event card both in the row and kept
    F_DRAWN,  # a drawn event card neither in the row nor kept (or drawn past the deck)
    F_DICE,  # more dice of a district and colour than were rolled
    F_ROLLED,  # more than 6 dice of a colour rolled (ED-3)
    F_BLACK,  # black dice outside the counter step
    F_OVER,  # dice or lying citizens left after the game
    F_SCORE_SRC,  # a seat's score sources do not sum to its VP (its final score once over)
) = range(1, 28)

F_NAMES = (
    "",
    "size",
    "range",
    "absent seat",
    "citizens",
    "owned",
    "grey",
    "lying",
    "space gap",
    "pre-placement",
    "supervisor slot",
    "face-down card",
    "immediate card",
    "both faces",
    "cubes",
    "cathedral",
    "marauding",
    "row flags on empty",
    "row gap",
    "row beyond flags",
    "row full",
    "row kept",
    "drawn",
    "dice",
    "rolled",
    "black",
    "over",
    "score sources",
)


def layout_bounds(layout):
    """Per-entry lowest and highest legal values (int64 arrays) of a core.layout.Layout."""
    lo = np.empty(layout.size, dtype=np.int64)
    hi = np.empty(layout.size, dtype=np.int64)
    for seg in layout.segments.values():
        lo[seg.offset : seg.offset + seg.size] = seg.lo
        hi[seg.offset : seg.offset + seg.size] = seg.hi
    return lo, hi


@jit
def full_invariant_code(s, T, lo, hi):
    """First failing invariant of invariants.py (F_* code), 0 when every one holds."""
    if s.shape[0] != lo.shape[0] or s.shape[0] != STATE_SIZE:
        return F_SIZE
    for i in range(STATE_SIZE):
        if s[i] < lo[i] or s[i] > hi[i]:
            return F_RANGE
    n = s[S_NP]
    ph = s[S_PHASE]
    start_cit = T[T_SETUP + n * 5]
    # citizens: each player's are in exactly one place, 12 at most
    for p in range(4):
        total = s[S_SUP + p]
        for i in range(N_SPACES):
            if s[S_SPACES + i] == p:
                total += 1
        for b in range(3):
            total += s[S_LYING + b * 5 + p]
        for pos in range(N_ACTPOS):
            if s[S_ASUP + pos * 4 + p] > 0:
                total += 1
        own = s[S_OWNED + p]
        if p >= n:
            if total != 0 or own != 0 or s[S_DEN + p] != 0 or s[S_VP + p] != 0:
                return F_ABSENT_SEAT
            if not score_src_empty(s, p):
                return F_ABSENT_SEAT
            continue
        if total != own:
            return F_CITIZENS
        if own < start_cit or own > 12:
            return F_OWNED
    g = s[S_GREY]
    for i in range(N_SPACES):
        if s[S_SPACES + i] == 4:
            g += 1
    for b in range(3):
        g += s[S_LYING + b * 5 + 4]
    if g != 8:
        return F_GREY
    for i in range(15):
        if s[S_LYING + i] > 1:
            return F_LYING
    # rows have no gaps (ED-8): Bishopric 3 rows of 2 from space 6, City Hall 2 of 3 from 12
    for r in range(5):
        base = 6 + 2 * r if r < 3 else 12 + 3 * (r - 3)
        rl = 2 if r < 3 else 3
        seen_empty = False
        for x in range(rl):
            if s[S_SPACES + base + x] < 0:
                seen_empty = True
            elif seen_empty:
                return F_SPACE_GAP
    if ph != PH_SETUP and s[S_ROUND] == 0:
        for i in range(N_SPACES):
            if s[S_SPACES + i] < 0:
                return F_PREPLACE
    # supervisors: slots 1 and 2 hold at most one player; only on revealed cards
    for pos in range(9):
        for slot in range(1, 3):
            k = 0
            for p in range(4):
                if s[S_ASUP + pos * 4 + p] == slot:
                    k += 1
            if k > 1:
                return F_SLOT
        anything = False
        cubes = False
        for p in range(4):
            if s[S_ASUP + pos * 4 + p] != 0:
                anything = True
            if s[S_ACUBE + pos * 4 + p] != 0:
                cubes = True
        ac = s[S_ACARD + pos]
        if ac < 0 and (anything or cubes):
            return F_FACE_DOWN
        if ac >= 0 and T[T_ACT + ac * A_W + A_TIMING] == TIMING_IMMEDIATE and cubes:
            return F_IMMEDIATE
        if ac >= 0 and s[S_AHID + pos] >= 0:
            return F_BOTH_FACES
    # cubes: board count matches the counters
    for p in range(n):
        on = 0
        for pos in range(N_ACTPOS):
            on += s[S_ACUBE + pos * 4 + p]
        for i in range(N_CATH):
            if s[S_CATH + i] == p:
                on += 1
        for i in range(NROW * NFLAG):
            if s[S_FLAGS + i] == p:
                on += 1
        if on != s[S_CUBES + p]:
            return F_CUBES
    for lv in range(1, 3):
        for val in range(6):
            if s[S_CATH + lv * 6 + val] >= 0 and s[S_CATH + (lv - 1) * 6 + val] < 0:
                return F_CATH
    # event row: Marauding first, compact, flags only within the card, no full card
    if s[S_ROW] != 0:
        return F_MARAUDING
    seen_end = False
    for i in range(NROW):
        c = s[S_ROW + i]
        if c < 0:
            seen_end = True
            for f in range(NFLAG):
                if s[S_FLAGS + i * NFLAG + f] >= 0:
                    return F_ROW_FLAGS_EMPTY
            continue
        if seen_end:
            return F_ROW_GAP
        nf = T[T_EV + c * E_W + E_FLAGS]
        for f in range(nf, NFLAG):
            if s[S_FLAGS + i * NFLAG + f] >= 0:
                return F_ROW_BEYOND
        if nf > 0:
            full = True
            for f in range(nf):
                if s[S_FLAGS + i * NFLAG + f] < 0:
                    full = False
            if full:
                return F_ROW_FULL
        if s[S_KEPT + c] >= 0:
            return F_ROW_KEPT
    for col in range(3):
        for j in range(s[S_DRAWN + col]):
            c = s[S_DECKS + col * 8 + j]
            if c < 0:
                return F_DRAWN
            if s[S_KEPT + c] >= 0:
                continue
            in_row = False
            for i in range(NROW):
                if s[S_ROW + i] == c:
                    in_row = True
            if not in_row:
                return F_DRAWN
    # dice: never more than the citizens rolled, at most 6 of a colour (ED-3)
    for d in range(5):
        for c in range(3):
            k = 0
            for v in range(6):
                k += s[S_DICE + d * DIST_DICE + c * N_VAL + v]
            if k > s[S_ROLLED + d * 3 + c]:
                return F_DICE
    for c in range(3):
        k = 0
        for d in range(5):
            k += s[S_ROLLED + d * 3 + c]
        if k > 6:
            return F_ROLLED
    if ph != PH_COUNTER and ph != PH_FLIP and ph != PH_OVER:
        for v in range(6):
            if s[S_BLACK + v] != 0:
                return F_BLACK
    if ph == PH_OVER:
        for i in range(N_DIE_TYPES):
            if s[S_DICE + i] != 0:
                return F_OVER
        for i in range(15):
            if s[S_LYING + i] != 0:
                return F_OVER
    # points by source (issue 14): each seat's sources sum to its VP, or final score once over
    for p in range(n):
        if not score_src_ok(s, p):
            return F_SCORE_SRC
    return 0
