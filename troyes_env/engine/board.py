"""Board helpers: resources, dice, buildings and citizens, events, Cathedral, counts, scoring.

All functions take the state `s` and the rules table `T` (never module-global arrays, DESIGN D2).
"""

from __future__ import annotations

from core.jit import jit, nl
from core.rng import rng_below
from troyes_env.layout import (
    B_BISHOPRIC,
    B_PALACE,
    BLD_SPACES,
    COL_R,
    DIST_DICE,
    FROM_LYING,
    FROM_SPACE,
    FROM_SUPPLY,
    GREY,
    MARAUDING,
    MAXP,
    N_ACTPOS,
    N_CATH,
    N_CHAR_SLOTS,
    N_COL,
    N_DIE_TYPES,
    N_EVENTS,
    N_LEVELS,
    N_OWNERS,
    N_SCORE_SOURCES,
    N_SPACES,
    N_VAL,
    NFLAG,
    NROW,
    RED_STRENGTH,
    S_ACARD,
    S_ASUP,
    S_CATH,
    S_CHARS,
    S_CUBES,
    S_DEN,
    S_DICE,
    S_FINAL,
    S_FLAGS,
    S_INF,
    S_KEPT,
    S_LYING,
    S_NP,
    S_RNG,
    S_ROW,
    S_SCORE_SRC,
    S_SPACES,
    S_SUP,
    S_VP,
    SRC_CATH,
    SRC_CATH_ABS,
    SRC_CHARS,
    SRC_EVENTS,
    SRC_FLOOR,
    SRC_PENALTY,
    SRC_SLOTS,
    SRC_UNRES,
    SUP_NONE,
    SUP_SLOT1,
    SUP_SLOT2,
)
from troyes_env.rules_data import Count
from troyes_env.tables import (
    A_VP1,
    A_W,
    C_COUNT,
    C_TH,
    C_TIERS,
    C_VP,
    C_W,
    E_FLAGS,
    E_R1,
    E_R2,
    E_W,
    M_CATH_PEN,
    M_CATH_VP,
    M_INFL_MAX,
    M_PENALTY,
    M_UNRES_VP,
    T_ACT,
    T_CATH_INFL,
    T_CHAR,
    T_EV,
    T_MISC,
    T_ROW_LEN,
    T_ROW_OF,
)

# count codes (rules_data.Count; tests/troyes/test_constants_sync.py)
CNT_EV_CUBE = int(Count.EVENTS_WITH_OWN_CUBE)
CNT_CATH = int(Count.OWN_CATHEDRAL_CUBES)
CNT_BISH = int(Count.OWN_BISHOPRIC_CITIZENS)
CNT_PAL = int(Count.OWN_PALACE_CITIZENS)
CNT_KEPT = int(Count.EVENTS_KEPT)
CNT_INF = int(Count.INFLUENCE)
CNT_DEN = int(Count.DENIERS)
CNT_BLD = int(Count.OWN_BUILDING_CITIZENS)
CNT_ACT = int(Count.OWN_ACTIVITY_CITIZENS)


@jit(alloc=False)
def roll_die(s):
    """One die roll 1..6 from the in-state RNG (ED-2)."""
    return 1 + rng_below(s, nl(S_RNG), nl(N_VAL))


@jit(alloc=False)
def gain_influence(s, T, p, x):
    """rules §5: the track stops at 20; influence above it is lost."""
    v = s[S_INF + p] + x
    cap = T[T_MISC + M_INFL_MAX]
    s[S_INF + p] = cap if v > cap else v


@jit(alloc=False)
def credit(s, p, src, k):
    """Points by source: add k to seat p's score source src (layout SCORE_SOURCES)."""
    s[S_SCORE_SRC + p * N_SCORE_SOURCES + src] += k


@jit(alloc=False)
def gain_vp(s, p, k, src):
    """Seat p's VP change by k (k < 0: a voluntary payment, ED-4), credited to source src.
    Every VP change during play goes through here or lose_vp."""
    s[S_VP + p] += k
    credit(s, p, src, k)


@jit(alloc=False)
def lose_vp(s, p, x, src):
    """ED-4: a VP loss stops at 0; the VP really lost are debited to src. Returns them."""
    v = s[S_VP + p] - x
    if v < 0:
        v = 0
    lost = s[S_VP + p] - v
    s[S_VP + p] = v
    credit(s, p, src, -lost)
    return lost


@jit(alloc=False)
def penalty(s, T, p):
    """rules §3: the flat 2 VP penalty (never below 0), debited to "penalties"."""
    lose_vp(s, p, T[T_MISC + M_PENALTY], nl(SRC_PENALTY))


# ---------------------------------------------------------------- dice


@jit(alloc=False)
def dice_idx(d, c, v):
    return S_DICE + d * DIST_DICE + c * N_VAL + v - 1


@jit(alloc=False)
def district_count(s, d):
    n = 0
    for i in range(DIST_DICE):
        n += s[S_DICE + d * DIST_DICE + i]
    return n


@jit(alloc=False)
def any_dice(s):
    for i in range(N_DIE_TYPES):
        if s[S_DICE + i] > 0:
            return True
    return False


@jit(alloc=False)
def own_strength(s, p):
    """Total of a player's own dice, red counting double (rules §3 phase 3)."""
    t = 0
    for c in range(N_COL):
        m = RED_STRENGTH if c == COL_R else 1
        for v in range(1, N_VAL + 1):
            t += s[dice_idx(p, c, v)] * v * m
    return t


# ---------------------------------------------------------------- buildings and citizens


@jit(alloc=False)
def building_colour(b):
    """rules §4.4: red -> Palace (0), white -> Bishopric (1), yellow -> City Hall (2)."""
    return COL_R - b


@jit(alloc=False)
def row_base(T, b, v):
    """First SPACE id of the row (Palace: the space) a die of value v picks in building b."""
    rl = T[T_ROW_LEN + b]
    return BLD_SPACES * b + T[T_ROW_OF + b * N_VAL + v - 1] * rl


@jit(alloc=False)
def space_row_base(T, sp):
    b = sp // BLD_SPACES
    rl = T[T_ROW_LEN + b]
    return BLD_SPACES * b + ((sp - BLD_SPACES * b) // rl) * rl


@jit(alloc=False)
def leave_space(s, T, sp):
    """ED-8: a standing citizen leaves; the citizens behind it move up one place."""
    b = sp // BLD_SPACES
    rl = T[T_ROW_LEN + b]
    base = space_row_base(T, sp)
    end = base + rl
    for i in range(sp, end - 1):
        s[S_SPACES + i] = s[S_SPACES + i + 1]
    s[S_SPACES + end - 1] = -1


@jit(alloc=False)
def place_citizen(s, T, owner, b, v):
    """rules §4.4: enter at the front of the row for v (Palace: space v); expel the last one of a
    full row (lying at the building). Returns the expelled owner or -1. No legality check."""
    rl = T[T_ROW_LEN + b]
    base = row_base(T, b, v)
    last = s[S_SPACES + base + rl - 1]
    for i in range(base + rl - 1, base, -1):
        s[S_SPACES + i] = s[S_SPACES + i - 1]
    s[S_SPACES + base] = owner
    if last >= 0:
        s[S_LYING + b * N_OWNERS + last] += 1
    return last


@jit(alloc=False)
def placement_ok(s, T, owner, b, v, src_kind, src_idx):
    """rules §4.4 protection rule and ED-28, with the citizen's source (ED-7) leaving first.

    src_kind: FROM_SUPPLY supply / general supply, FROM_SPACE standing at SPACE src_idx,
    FROM_LYING lying at building src_idx, FROM_CARD supervisor on Activity card src_idx."""
    rl = T[T_ROW_LEN + b]
    base = row_base(T, b, v)
    if src_kind == FROM_SPACE and base <= src_idx < base + rl:
        if src_idx == base:
            return False  # ED-28: it would return to the very place it left
        return True  # the row shortens first, so nobody is expelled
    last = s[S_SPACES + base + rl - 1]
    if last < 0:
        return True
    ly = s[S_LYING + b * N_OWNERS + last]
    if src_kind == FROM_LYING and src_idx == b and last == owner:
        ly -= 1
    return ly == 0


@jit(alloc=False)
def citizen_leave(s, T, p, src_kind, src_idx):
    """ED-7: the citizen leaves its place (supply, a building space, lying, a card)."""
    if src_kind == FROM_SUPPLY:
        s[S_SUP + p] -= 1
    elif src_kind == FROM_SPACE:
        leave_space(s, T, src_idx)
    elif src_kind == FROM_LYING:
        s[S_LYING + src_idx * N_OWNERS + p] -= 1
    else:
        s[S_ASUP + src_idx * MAXP + p] = SUP_NONE


@jit(alloc=False)
def standing(s, p, b):
    n = 0
    for i in range(BLD_SPACES):
        if s[S_SPACES + BLD_SPACES * b + i] == p:
            n += 1
    return n


# ---------------------------------------------------------------- events


@jit(alloc=False)
def row_len(s):
    n = 0
    for i in range(NROW):
        if s[S_ROW + i] >= 0:
            n += 1
    return n


@jit(alloc=False)
def ev_flags(T, card):
    return T[T_EV + card * E_W + E_FLAGS]


@jit(alloc=False)
def free_flags(s, T, i):
    card = s[S_ROW + i]
    nf = ev_flags(T, card)
    n = 0
    for f in range(nf):
        if s[S_FLAGS + i * NFLAG + f] < 0:
            n += 1
    return n


@jit(alloc=False)
def own_flags(s, i, p):
    n = 0
    for f in range(NFLAG):
        if s[S_FLAGS + i * NFLAG + f] == p:
            n += 1
    return n


@jit(alloc=False)
def resolve_event(s, T, i):
    """rules §4.3, ED-33: pay the majorities, give the card to its keeper, empty the flags."""
    card = s[S_ROW + i]
    nf = ev_flags(T, card)
    r1 = T[T_EV + card * E_W + E_R1]
    r2 = T[T_EV + card * E_W + E_R2]
    mx = 0
    for o in range(N_OWNERS):
        c = own_flags(s, i, o)
        if c > mx:
            mx = c
    nmx = 0
    npres = 0
    for o in range(N_OWNERS):
        c = own_flags(s, i, o)
        if c > 0:
            npres += 1
        if c == mx:
            nmx += 1
    keeper = -1
    if npres == 1 or nmx == 1:
        for o in range(N_OWNERS):
            if own_flags(s, i, o) == mx:
                keeper = o
    # VP rewards credited to "events" (rules §4.3)
    if npres == 1:
        if keeper < GREY:
            gain_vp(s, keeper, r1 + r2, nl(SRC_EVENTS))
    elif nmx == 1:
        if keeper < GREY:
            gain_vp(s, keeper, r1, nl(SRC_EVENTS))
        sc = 0
        for o in range(N_OWNERS):
            c = own_flags(s, i, o)
            if c < mx and c > sc:
                sc = c
        nsc = 0
        for o in range(N_OWNERS):
            if own_flags(s, i, o) == sc:
                nsc += 1
        share = r2 // nsc
        for o in range(MAXP):
            if own_flags(s, i, o) == sc:
                gain_vp(s, o, share, nl(SRC_EVENTS))
    else:
        share = (r1 + r2) // nmx
        for o in range(MAXP):
            if own_flags(s, i, o) == mx:
                gain_vp(s, o, share, nl(SRC_EVENTS))
        # ED-33: the tied player holding the lowest-numbered flag keeps the card
        for f in range(nf):
            o = s[S_FLAGS + i * NFLAG + f]
            if o >= 0 and own_flags(s, i, o) == mx:
                keeper = o
                break
    for f in range(NFLAG):
        o = s[S_FLAGS + i * NFLAG + f]
        if 0 <= o < GREY:
            s[S_CUBES + o] -= 1
        s[S_FLAGS + i * NFLAG + f] = -1
    if card != MARAUDING:  # Marauding stays in play, emptied (rules §4.3)
        s[S_KEPT + card] = keeper  # GREY (grey majority): the card leaves the game
        for j in range(i, NROW - 1):
            s[S_ROW + j] = s[S_ROW + j + 1]
            for f in range(NFLAG):
                s[S_FLAGS + j * NFLAG + f] = s[S_FLAGS + (j + 1) * NFLAG + f]
        s[S_ROW + NROW - 1] = -1
        for f in range(NFLAG):
            s[S_FLAGS + (NROW - 1) * NFLAG + f] = -1


@jit(alloc=False)
def place_event_cube(s, T, p, i):
    """One cube on the first empty flag of row card i, +1 influence; resolve when full (§4.3)."""
    nf = ev_flags(T, s[S_ROW + i])
    for f in range(nf):
        if s[S_FLAGS + i * NFLAG + f] < 0:
            s[S_FLAGS + i * NFLAG + f] = p
            s[S_CUBES + p] += 1
            gain_influence(s, T, p, nl(1))
            break
    if free_flags(s, T, i) == 0:
        resolve_event(s, T, i)


# ---------------------------------------------------------------- Cathedral


@jit(alloc=False)
def cath_height(s, v):
    h = 0
    for lv in range(N_LEVELS):
        if s[S_CATH + lv * N_VAL + v - 1] >= 0:
            h = lv + 1
    return h


@jit(alloc=False)
def build_cathedral_cube(s, T, p, v):
    """rules §4.2: cube on the lowest empty level of value v; +1 VP, +1/+2 influence."""
    h = cath_height(s, v)
    s[S_CATH + h * N_VAL + v - 1] = p
    s[S_CUBES + p] += 1
    gain_vp(s, p, T[T_MISC + M_CATH_VP], nl(SRC_CATH))
    gain_influence(s, T, p, T[T_CATH_INFL + v - 1])


# ---------------------------------------------------------------- counts and scoring


@jit(alloc=False)
def count_of(s, T, p, code):
    """rules §6.1.2 VP_PER counts and §6.3 character counts."""
    n = 0
    if code == CNT_EV_CUBE:
        for i in range(NROW):
            if s[S_ROW + i] >= 0 and own_flags(s, i, p) > 0:
                n += 1
    elif code == CNT_CATH:
        for i in range(N_CATH):
            if s[S_CATH + i] == p:
                n += 1
    elif code == CNT_BISH:
        n = standing(s, p, nl(B_BISHOPRIC))
    elif code == CNT_PAL:
        n = standing(s, p, nl(B_PALACE))
    elif code == CNT_KEPT:
        for c in range(N_EVENTS):
            if s[S_KEPT + c] == p:
                n += 1
    elif code == CNT_INF:
        n = s[S_INF + p]
    elif code == CNT_DEN:
        n = s[S_DEN + p]
    elif code == CNT_BLD:
        for i in range(N_SPACES):
            if s[S_SPACES + i] == p:
                n += 1
    elif code == CNT_ACT:
        for pos in range(N_ACTPOS):
            if s[S_ASUP + pos * MAXP + p] > SUP_NONE:
                n += 1
    return n


@jit(alloc=False)
def character_vp(s, T, ch, p):
    """rules §6.3 tier model: VP of the highest threshold reached, 0 below the first."""
    o = T_CHAR + ch * C_W
    cnt = count_of(s, T, p, T[o + C_COUNT])
    vp = 0
    for k in range(C_TIERS):
        if cnt >= T[o + C_TH + k]:
            vp = T[o + C_VP + k]
    return vp


@jit(alloc=False)
def final_unresolved(s, T, p):
    """rules §7 item 2: +1 VP per unresolved event card (Marauding included) with an own cube."""
    t = 0
    for i in range(NROW):
        if s[S_ROW + i] >= 0 and own_flags(s, i, p) > 0:
            t += T[T_MISC + M_UNRES_VP]
    return t


@jit(alloc=False)
def final_slots(s, T, p):
    """rules §7 item 3: the VP printed on each Activity slot holding p's supervisor."""
    t = 0
    for pos in range(N_ACTPOS):
        w = s[S_ASUP + pos * MAXP + p]
        if w == SUP_SLOT1 or w == SUP_SLOT2:
            card = s[S_ACARD + pos]
            t += T[T_ACT + card * A_W + A_VP1 + w - 1]
    return t


@jit(alloc=False)
def final_cathedral_absence(s, T, p):
    """rules §7 item 4: -2 VP per Cathedral level without a cube of p (a term <= 0)."""
    t = 0
    for lv in range(N_LEVELS):
        has = False
        for v in range(N_VAL):
            if s[S_CATH + lv * N_VAL + v] == p:
                has = True
        if not has:
            t -= T[T_MISC + M_CATH_PEN]
    return t


@jit(alloc=False)
def final_characters(s, T, p):
    """rules §7 item 5, §6.3: every dealt Character card, scored for p (ED-11)."""
    t = 0
    for q in range(MAXP):
        for k in range(N_CHAR_SLOTS):
            ch = s[S_CHARS + q * N_CHAR_SLOTS + k]
            if ch >= 0:
                t += character_vp(s, T, ch, p)
    return t


@jit(alloc=False)
def final_unclamped(s, T, p):
    """rules §7 items 1-5 for seat p, before the clamp at 0."""
    return (
        s[S_VP + p]
        + final_unresolved(s, T, p)
        + final_slots(s, T, p)
        + final_cathedral_absence(s, T, p)
        + final_characters(s, T, p)
    )


@jit(alloc=False)
def score_final(s, T, out):
    """rules §7 final scoring into out[0..P) (clamped at 0, U-VP-FLOOR). Reads s only: callers
    may project the score of any state (evaluate.py); score sources are credited only by
    credit_final_scoring, when the game ends."""
    n = s[S_NP]
    for p in range(n):
        t = final_unclamped(s, T, p)
        out[p] = t if t > 0 else 0
    return 0


@jit(alloc=False)
def credit_final_scoring(s, T):
    """The end of the game (rules §7, ED-34): credit each final term to its score source and the
    clamp at 0 to "floor", so each seat's score sources sum to its final score (S_FINAL, which
    the caller has just written with score_final)."""
    n = s[S_NP]
    for p in range(n):
        u = final_unresolved(s, T, p)
        w = final_slots(s, T, p)
        c = final_cathedral_absence(s, T, p)
        ch = final_characters(s, T, p)
        credit(s, p, nl(SRC_UNRES), u)
        credit(s, p, nl(SRC_SLOTS), w)
        credit(s, p, nl(SRC_CATH_ABS), c)
        credit(s, p, nl(SRC_CHARS), ch)
        credit(s, p, nl(SRC_FLOOR), s[S_FINAL + p] - (s[S_VP + p] + u + w + c + ch))
