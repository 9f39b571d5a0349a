"""Compiled invariants of a Troyes state and random sweeps (tests, benchmarks, `validate`).

`check_invariants_code(s, T, lo, hi)` is the one invariant check: the state's size, every entry
within its segment's range (`lo`, `hi`: `layout_bounds(LAYOUT)`, passed like the tables, D2),
then the accounting laws; it returns 0 when all hold, else the code (F_* below) of the first
broken one, worded by INVARIANT_MESSAGES. tests/troyes/invariants_oracle.py restates the same
laws in plain Python as the test oracle; tests/troyes/test_invariants.py checks that both flag
the same states."""

from __future__ import annotations

import numpy as np

from core.agents import pick_legal
from core.jit import jit
from troyes_env.actions import NUM_ACTIONS
from troyes_env.engine.apply import apply_action
from troyes_env.engine.groups import TIMING_IMMEDIATE
from troyes_env.engine.legal import legal_mask_into
from troyes_env.engine.rules import advance
from troyes_env.engine.step import settle
from troyes_env.layout import (
    BLD_SPACES,
    DECK_LEN,
    DIST_DICE,
    GREY,
    LAYOUT,
    MARAUDING,
    MAX_OWNED,
    MAX_ROLLED,
    MAXP,
    N_ACTPOS,
    N_BLD,
    N_CATH,
    N_COL,
    N_DECKS,
    N_DIE_TYPES,
    N_DIST,
    N_GREY,
    N_LEVELS,
    N_OWNERS,
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
    SUP_NONE,
    SUP_SLOT1,
    SUP_SLOT2,
)
from troyes_env.tables import (
    A_TIMING,
    A_W,
    E_FLAGS,
    E_W,
    SETUP_CIT,
    SETUP_W,
    T_ACT,
    T_EV,
    T_ROW_LEN,
    T_SETUP,
)


@jit(alloc=False)
def score_src_ok(s, p):
    """Points by source for seat p in the game: its score sources sum to its VP
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


# Codes of check_invariants_code, one per invariant, in the order it checks them (the order of
# tests/troyes/invariants_oracle.py too).
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

INVARIANT_MESSAGES = (
    "ok",
    "the state has the wrong number of entries",
    "an entry is outside its segment's range",
    "a seat not in the game holds citizens, money, VP or score sources",
    "a player's citizens in the supply and on the board differ from the citizens owned",
    "a player owns fewer citizens than at the start, or more than 12",
    "grey citizens on the board, lying and in the supply are not 8",
    "two citizens of one colour lie at one building",
    "a gap in a Bishopric or City Hall row",
    "an empty building space after pre-placement",
    "two supervisors in slot 1 or slot 2 of one Activity card",
    "citizens or cubes on a face-down Activity card",
    "cubes on an immediate Activity card",
    "an Activity card position both revealed and face down",
    "a player's cubes on the board differ from the cubes_out counter",
    "a Cathedral level over an empty level",
    "Marauding is not at the start of the event row",
    "flags on an empty event row position",
    "a gap in the event row",
    "a cube beyond the card's flag spaces",
    "a full event card left unresolved",
    "an event card both in the row and kept",
    "a drawn event card neither in the row nor kept, or drawn past the end of its deck",
    "more dice of a district and colour than were rolled",
    "more than 6 dice of a colour rolled",
    "black dice outside the counter step",
    "dice or lying citizens left after the game",
    "a seat's score sources do not sum to its VP (its final score once the game is over)",
)
N_INVARIANTS = len(INVARIANT_MESSAGES) - 1
# random_game's own failures, after the invariants' codes
E_EMPTY_MASK = N_INVARIANTS + 1  # no legal action before the end (D5)
E_LONG = N_INVARIANTS + 2  # the game ran past max_steps decisions
SWEEP_MESSAGES = (*INVARIANT_MESSAGES, "no legal action before the end", "the game ran too long")


def layout_bounds(layout):
    """Per-entry lowest and highest legal values (int64 arrays) of a core.layout.Layout."""
    lo = np.empty(layout.size, dtype=np.int64)
    hi = np.empty(layout.size, dtype=np.int64)
    for seg in layout.segments.values():
        lo[seg.offset : seg.offset + seg.size] = seg.lo
        hi[seg.offset : seg.offset + seg.size] = seg.hi
    return lo, hi


@jit
def check_invariants_code(s, T, lo, hi):
    """0 when every invariant holds, else the F_* code of the first broken one."""
    if s.shape[0] != lo.shape[0] or s.shape[0] != STATE_SIZE:
        return F_SIZE
    for i in range(STATE_SIZE):
        if s[i] < lo[i] or s[i] > hi[i]:
            return F_RANGE
    n = s[S_NP]
    ph = s[S_PHASE]
    start_cit = T[T_SETUP + n * SETUP_W + SETUP_CIT]
    # citizens: each player's are in exactly one place, 12 at most
    for p in range(MAXP):
        total = s[S_SUP + p]
        for i in range(N_SPACES):
            if s[S_SPACES + i] == p:
                total += 1
        for b in range(N_BLD):
            total += s[S_LYING + b * N_OWNERS + p]
        for pos in range(N_ACTPOS):
            if s[S_ASUP + pos * MAXP + p] > SUP_NONE:
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
        if own < start_cit or own > MAX_OWNED:
            return F_OWNED
    g = s[S_GREY]
    for i in range(N_SPACES):
        if s[S_SPACES + i] == GREY:
            g += 1
    for b in range(N_BLD):
        g += s[S_LYING + b * N_OWNERS + GREY]
    if g != N_GREY:
        return F_GREY
    for i in range(N_BLD * N_OWNERS):
        if s[S_LYING + i] > 1:
            return F_LYING
    # rows have no gaps (ED-8): the rows of each building (Palace: rows of 1)
    for b in range(N_BLD):
        rl = T[T_ROW_LEN + b]
        for base in range(b * BLD_SPACES, (b + 1) * BLD_SPACES, rl):
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
    for pos in range(N_ACTPOS):
        for slot in range(SUP_SLOT1, SUP_SLOT2 + 1):
            k = 0
            for p in range(MAXP):
                if s[S_ASUP + pos * MAXP + p] == slot:
                    k += 1
            if k > 1:
                return F_SLOT
        anything = False
        cubes = False
        for p in range(MAXP):
            if s[S_ASUP + pos * MAXP + p] != SUP_NONE:
                anything = True
            if s[S_ACUBE + pos * MAXP + p] != 0:
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
            on += s[S_ACUBE + pos * MAXP + p]
        for i in range(N_CATH):
            if s[S_CATH + i] == p:
                on += 1
        for i in range(NROW * NFLAG):
            if s[S_FLAGS + i] == p:
                on += 1
        if on != s[S_CUBES + p]:
            return F_CUBES
    for lv in range(1, N_LEVELS):
        for val in range(N_VAL):
            if s[S_CATH + lv * N_VAL + val] >= 0 and s[S_CATH + (lv - 1) * N_VAL + val] < 0:
                return F_CATH
    # event row: Marauding first, compact, flags only within the card, no full card
    if s[S_ROW] != MARAUDING:
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
    for col in range(N_DECKS):
        for j in range(s[S_DRAWN + col]):
            c = s[S_DECKS + col * DECK_LEN + j]
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
    for d in range(N_DIST):
        for c in range(N_COL):
            k = 0
            for v in range(N_VAL):
                k += s[S_DICE + d * DIST_DICE + c * N_VAL + v]
            if k > s[S_ROLLED + d * N_COL + c]:
                return F_DICE
    for c in range(N_COL):
        k = 0
        for d in range(N_DIST):
            k += s[S_ROLLED + d * N_COL + c]
        if k > MAX_ROLLED:
            return F_ROLLED
    if ph != PH_COUNTER and ph != PH_FLIP and ph != PH_OVER:
        for v in range(N_VAL):
            if s[S_BLACK + v] != 0:
                return F_BLACK
    if ph == PH_OVER:
        for i in range(N_DIE_TYPES):
            if s[S_DICE + i] != 0:
                return F_OVER
        for i in range(N_BLD * N_OWNERS):
            if s[S_LYING + i] != 0:
                return F_OVER
    # points by source: each seat's sources sum to its VP, or final score once over
    for p in range(n):
        if not score_src_ok(s, p):
            return F_SCORE_SRC
    return 0


# per-entry bounds of the layout (Layout.validate's segment ranges): the lo, hi arguments
LO, HI = layout_bounds(LAYOUT)
LO.setflags(write=False)
HI.setflags(write=False)


@jit
def random_game(s, T, lo, hi, mask, work, rng4, spare, explore, max_steps):
    """Play one random game from s. After every decision the invariants are checked
    (check_invariants_code with the layout's bounds lo, hi); with `explore`, every legal action
    is also tried on a copy (spare) and must give a state with valid invariants and a non-empty
    mask unless over (D5). Returns (decisions, error code: 0, an F_* code, E_EMPTY_MASK or
    E_LONG; SWEEP_MESSAGES words it)."""
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
                e = check_invariants_code(spare, T, lo, hi)
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
        e = check_invariants_code(s, T, lo, hi)
        if e != 0:
            return k, e
    return k, 0
