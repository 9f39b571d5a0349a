"""Compiled game flow after setup: rounds and turns (§3), market day sequencing (§4.5, ED-19/20),
deaths (§3.4-3.6, ED-15-17), the Mass (§4.9, ED-26-29), the end (§5, ED-30-34) and scoring.
A new game is set up in setup.py; the start of a turn (`start_turn`) is in board.py, so that
setup can begin the first turn without importing this module."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_below
from village_env.engine.board import (
    add_prestige,
    board_total,
    clear_context,
    count_at,
    draw_tile,
    lowest_visible_gen,
    mi,
    start_turn,
)
from village_env.engine.setup import fill_bag_and_seed
from village_env.layout import (
    LOC_BAG,
    LOC_CHRONICLE,
    LOC_COUNCIL,
    LOC_FARM,
    LOC_WINDOW,
    MAXP,
    N_GEN,
    N_LEVELS,
    N_SLOTS,
    N_WINDOWS,
    PH_CHOOSE,
    PH_DEATH,
    PH_MARKET,
    PH_MASS_ADVANCE,
    PH_MASS_PICK,
    PH_OVER,
    S_ACTOR,
    S_ALLOWED,
    S_COINS,
    S_DEND,
    S_DNOW,
    S_DPLAYER,
    S_FIDX,
    S_FN,
    S_FORDER,
    S_INFINAL,
    S_MARK,
    S_MFREE,
    S_MKT,
    S_MONKS,
    S_MOPEN,
    S_MPASSED,
    S_MPICKED,
    S_MSEAT,
    S_MSERVED,
    S_MTURN,
    S_NP,
    S_NS,
    S_OVER,
    S_OWNER,
    S_PHASE,
    S_QUEUE,
    S_RNG,
    S_ROUND,
    S_STALLS,
    S_START,
    S_TRIG,
    S_TRIGM,
    S_TRIGO,
    S_TRIGP,
    S_TRUNC,
    S_TURN,
    SCORE_SOURCES,
    SRC_FINAL,
    SRC_MASS_MAJORITY,
)
from village_env.tables import (
    CHRONICLE_SCORE_TOP,
    N_CITIES,
    N_CUSTOMERS,
    T_CHRONICLE_SCORE,
    T_COIN_SCORE,
    T_COUNCIL_SCORE,
    T_CUSTOMER_VALUE,
    T_MASS_DRAWS,
    T_MASS_PRESTIGE,
    T_MAX_ROUNDS,
    T_STALLS,
    T_TRAVEL_SCORE,
    T_WAITING_LINE,
    T_WINDOW_SCORE,
    TRAVEL_SCORE_TOP,
)

N_SCORE_PARTS = 6  # final_score_parts: travel, council, church, chronicle, customers, coins
# part k is credited to score source SRC_FINAL + k (layout.SCORE_SOURCES)
assert SCORE_SOURCES[SRC_FINAL:] == (
    "travel",
    "council",
    "church",
    "chronicle",
    "customers",
    "coins",
)


# --- rounds and turns (rules §3.1, §3.2) ------------------------------------------------------
@jit
def start_round(s, T):
    s[S_ROUND] += 1
    if s[S_NS] >= 0:  # §3.1 step 1: the next start player takes over; the marker goes back
        s[S_START] = s[S_NS]
        s[S_NS] = -1
    fill_bag_and_seed(s, T)
    start_turn(s, T, s[S_START])


@jit
def choose_action(s, allowed):
    """Decision point 2: perform an option of `allowed` (a space, or -1 for any) or decline."""
    s[S_PHASE] = PH_CHOOSE
    s[S_ALLOWED] = allowed
    s[S_ACTOR] = s[S_TURN]


@jit
def finish_action(s, T):
    """The action (and its market day) is over: end-of-turn deaths, then the turn ends (ED-15)."""
    clear_context(s)
    if setup_death(s, T, s[S_TURN], False):
        return
    end_turn(s, T)


# --- deaths (rules §3.4-3.6) ------------------------------------------------------------------
@jit
def setup_death(s, T, p, now):
    """Ask p to choose the next pending death; a death with no visible member is lost (ED-16).
    Returns True when a decision is pending."""
    off = (S_DNOW if now else S_DEND) + p
    while s[off] > 0:
        if lowest_visible_gen(s, p) < 0:
            s[off] -= 1
            continue
        s[S_PHASE] = PH_DEATH
        s[S_DPLAYER] = p
        s[S_ACTOR] = p
        return True
    return False


@jit
def after_death(s, T):
    """Continue after one death: more deaths now, else back to the market or the turn's end."""
    p = s[S_DPLAYER]
    if s[S_MKT]:
        if setup_death(s, T, p, True):
            return
        market_next_go(s, T)
        return
    if setup_death(s, T, s[S_TURN], False):
        return
    end_turn(s, T)


# --- market day (rules §4.5, ED-19, ED-20) ----------------------------------------------------
@jit
def stall_customers(s):
    k = 0
    for i in range(N_SLOTS):
        if s[S_STALLS + i] >= 0:
            k += 1
    return k


@jit
def open_market(s, T, p):
    s[S_MKT] = 1
    s[S_MOPEN] = p
    s[S_MFREE] = 1
    s[S_MSERVED] = 0
    for q in range(MAXP):
        s[S_MPASSED + q] = 0
    if stall_customers(s) == 0:  # ED-20: no stall customer, the market day ends at once
        close_market(s, T)
        finish_action(s, T)
        return
    s[S_MTURN] = p
    s[S_ACTOR] = p
    s[S_PHASE] = PH_MARKET


@jit
def market_next_go(s, T):
    """ED-19: next go clockwise, skipping passed players, until no stall customer is left or
    everyone has passed."""
    n = s[S_NP]
    if stall_customers(s) > 0:
        q = s[S_MTURN]
        for _ in range(n):
            q = (q + 1) % n
            if s[S_MPASSED + q] == 0:
                s[S_MTURN] = q
                s[S_ACTOR] = q
                s[S_PHASE] = PH_MARKET
                return
    close_market(s, T)
    finish_action(s, T)


@jit
def close_market(s, T):
    if s[S_MSERVED]:
        refill_market(s, T)
    s[S_MKT] = 0
    s[S_MOPEN] = -1
    s[S_MTURN] = -1
    s[S_MFREE] = 0
    s[S_MSERVED] = 0
    for q in range(MAXP):
        s[S_MPASSED + q] = 0


@jit
def refill_market(s, T):
    """§4.5 step 8, ED-20: queue fronts fill empty stalls in play, then the pile refills the
    back of the queue."""
    n_stalls = T[T_STALLS + s[S_NP]]
    for k in range(n_stalls):
        if s[S_STALLS + k] < 0 and s[S_QUEUE] >= 0:
            s[S_STALLS + k] = s[S_QUEUE]
            for j in range(N_SLOTS - 1):
                s[S_QUEUE + j] = s[S_QUEUE + j + 1]
            s[S_QUEUE + N_SLOTS - 1] = -1
    line = T[T_WAITING_LINE]
    for j in range(line):
        if s[S_QUEUE + j] < 0:
            s[S_QUEUE + j] = draw_tile(s)


# --- end of turn, final turns (rules §5.1, ED-30, ED-31) -----------------------------------------
@jit
def set_final_order(s):
    n = s[S_NP]
    if s[S_TRIGM]:
        o = s[S_TRIGO]
        k = n - 1 if s[S_TRIGP] == o else n
        for i in range(k):
            s[S_FORDER + i] = (o + 1 + i) % n
    else:
        t = s[S_TRIGP]
        k = n - 1
        for i in range(k):
            s[S_FORDER + i] = (t + 1 + i) % n
    s[S_FN] = k
    s[S_FIDX] = 0
    s[S_INFINAL] = 1


@jit
def end_turn(s, T):
    n = s[S_NP]
    clear_context(s)
    if s[S_INFINAL]:
        s[S_FIDX] += 1
        if s[S_FIDX] < s[S_FN]:
            start_turn(s, T, s[S_FORDER + s[S_FIDX]])
        else:
            start_mass(s, T)  # the final Mass (§5.1 step 6)
        return
    if s[S_TRIG]:  # the triggering turn is over: no new round, no Mass (ED-31)
        set_final_order(s)
        if s[S_FN] > 0:
            start_turn(s, T, s[S_FORDER])
        else:
            start_mass(s, T)
        return
    if board_total(s) == 0:  # §3.1 step 4: the last cube is gone, the round ends
        start_mass(s, T)
        return
    start_turn(s, T, (s[S_TURN] + 1) % n)


# --- the Mass (rules §4.9, ED-26..29) -----------------------------------------------------------
@jit
def start_mass(s, T):
    clear_context(s)
    s[S_MPICKED] = 0
    s[S_MSEAT] = 0
    mass_pick_go(s, T)


@jit
def mass_pick_go(s, T):
    n = s[S_NP]
    if s[S_MSEAT] < n and s[S_MPICKED] < T[T_MASS_DRAWS]:
        s[S_PHASE] = PH_MASS_PICK
        s[S_ACTOR] = (s[S_START] + s[S_MSEAT]) % n
        return
    mass_draws(s, T)
    s[S_MSEAT] = 0
    mass_advance_go(s, T)


@jit
def mass_draws(s, T):
    """Draw uniformly from every figure in the bag until T_MASS_DRAWS (4) are out; monks return
    after (§4.9)."""
    n = s[S_NP]
    monks_out = 0
    while s[S_MPICKED] < T[T_MASS_DRAWS]:
        total = s[S_MONKS]
        for p in range(n):
            total += count_at(s, p, LOC_BAG)
        if total == 0:
            break
        r = rng_below(s, S_RNG, total)
        s[S_MPICKED] += 1
        if r < s[S_MONKS]:
            s[S_MONKS] -= 1
            monks_out += 1
            continue
        r -= s[S_MONKS]
        done = False
        for p in range(n):
            for g in range(N_GEN):
                k = s[mi(p, LOC_BAG, g)]
                if r < k:
                    s[mi(p, LOC_BAG, g)] -= 1
                    s[mi(p, LOC_WINDOW, g)] += 1
                    done = True
                    break
                r -= k
            if done:
                break
    s[S_MONKS] += monks_out


@jit
def mass_advance_go(s, T):
    n = s[S_NP]
    if s[S_MSEAT] < n:
        s[S_PHASE] = PH_MASS_ADVANCE
        s[S_ACTOR] = (s[S_START] + s[S_MSEAT]) % n
        return
    mass_majority(s, T)
    end_mass(s, T)


@jit
def mass_majority(s, T):
    """ED-29: most window members; tie -> leftmost member furthest left; still tied -> all."""
    n = s[S_NP]
    best_m = 0
    for p in range(n):
        m = 0
        for w in range(N_WINDOWS):
            m += count_at(s, p, LOC_WINDOW + w)
        best_m = max(best_m, m)
    if best_m == 0:
        return
    best_left = -1
    for p in range(n):
        m = 0
        left = -1
        for w in range(N_WINDOWS):
            c = count_at(s, p, LOC_WINDOW + w)
            m += c
            if c > 0:
                left = w
        if m == best_m:
            best_left = max(best_left, left)
    for p in range(n):
        m = 0
        left = -1
        for w in range(N_WINDOWS):
            c = count_at(s, p, LOC_WINDOW + w)
            m += c
            if c > 0:
                left = w
        if m == best_m and left == best_left:
            add_prestige(s, p, T[T_MASS_PRESTIGE], SRC_MASS_MAJORITY)  # rules §4.9 step 3


@jit
def end_mass(s, T):
    if s[S_INFINAL] or s[S_TRIG]:
        final_scoring(s, T)
        return
    if s[S_ROUND] >= T[T_MAX_ROUNDS]:  # ED-34: safety cap, flagged as truncated
        final_scoring(s, T)
        s[S_TRUNC] = 1
        return
    start_round(s, T)


# --- final scoring (rules §5.2) ---------------------------------------------------------------
@jit
def final_score_part(s, T, p, k):
    """Final-scoring category k (0 travel, 1 council, 2 church, 3 chronicle, 4 customers,
    5 coins) of player p as the state stands (rules §5.2)."""
    if k == 0:
        markers = 0
        for c in range(N_CITIES):
            markers += s[S_MARK + N_CITIES * p + c]
        return T[T_TRAVEL_SCORE + min(markers, TRAVEL_SCORE_TOP)]
    if k == 1:
        council = 0
        for lv in range(N_LEVELS):
            council += count_at(s, p, LOC_COUNCIL + lv) * T[T_COUNCIL_SCORE + lv]
        return council
    if k == 2:
        church = 0
        for w in range(N_WINDOWS):
            church += count_at(s, p, LOC_WINDOW + w) * T[T_WINDOW_SCORE + w]
        return church
    if k == 3:
        return T[T_CHRONICLE_SCORE + min(count_at(s, p, LOC_CHRONICLE), CHRONICLE_SCORE_TOP)]
    if k == 4:
        cust = 0
        for t in range(N_CUSTOMERS):
            if s[S_OWNER + t] == p:
                cust += T[T_CUSTOMER_VALUE + t]
        return cust
    return s[S_COINS + p] * T[T_COIN_SCORE]


@jit
def final_score_parts(s, T, p, out):
    """out[0..N_SCORE_PARTS-1] = travel, council, church, chronicle, customers, coins for p."""
    for k in range(N_SCORE_PARTS):
        out[k] = final_score_part(s, T, p, k)


@jit
def final_scoring(s, T):
    for p in range(s[S_NP]):
        for k in range(N_SCORE_PARTS):  # rules §5.2, each category to its own source
            add_prestige(s, p, final_score_part(s, T, p, k), SRC_FINAL + k)
    clear_context(s)
    s[S_PHASE] = PH_OVER
    s[S_ACTOR] = -1
    s[S_OVER] = 1


@jit
def living_members(s, p):
    """ED-33: members on the farmyard, on the board or in the black bag."""
    k = 0
    for loc in range(LOC_FARM, LOC_CHRONICLE):
        k += count_at(s, p, loc)
    return k


@jit
def customers_served(s, p):
    k = 0
    for t in range(N_CUSTOMERS):
        if s[S_OWNER + t] == p:
            k += 1
    return k
