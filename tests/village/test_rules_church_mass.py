"""Rules §4.8 church (ED-25: 1 brown or 3 time), §4.9 Mass (ED-26..ED-29), Appendix A.5.

Window advance costs (A.5, provisional): W1->W2 1 grain, W2->W3 1, W3->W4 2. Majority: 2.
"""

import numpy as np
from village.helpers import (
    COL,
    LOC_BAG,
    LOC_FARM,
    LOC_UNBORN,
    LOC_WINDOW,
    V,
    act,
    clear_player,
    give,
    legal,
    move,
    new,
    set_board,
    start_mass,
    v,
)

from village_env.layout import PH_MASS_ADVANCE, PH_MASS_PICK, PH_TURN

W1, W2, W3, W4 = (LOC_WINDOW + i for i in range(4))


def church_turn(*, cubes=None, coins=0, gen2=False):
    s = new(3, 0)
    for p in range(3):
        clear_player(s, p)
    set_board(s, {"church": {"orange": 1}, "harvest": {"pink": 2, "green": 1}})
    give(s, 0, cubes=cubes or {}, coins=coins)
    if gen2:
        move(s, 0, LOC_UNBORN, LOC_FARM, 2)
    return act(s, "take", 6, COL["orange"])


# --- §4.8 church ------------------------------------------------------------------------------
def test_church_with_a_brown_cube_puts_a_member_in_the_bag():
    s = church_turn(cubes={"brown": 1}, gen2=True)
    # ED-25: brown or 3 time, for each generation on the farmyard
    assert legal(s) == {
        ("done", ()),
        ("church", (0, 0)),
        ("church", (0, 1)),
        ("church", (1, 0)),
        ("church", (1, 1)),
    }
    s = act(s, "church", 1, 0)
    assert v(s, "cubes")[0, COL["brown"]] == 0 and v(s, "time")[0] == 0
    assert v(s, "members")[0, LOC_BAG].tolist() == [0, 1, 0, 0]
    assert v(s, "members")[0, LOC_FARM].tolist() == [4, 0, 0, 0]
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN


def test_church_for_three_time_when_no_brown_or_coin():
    s = church_turn()
    assert legal(s) == {("done", ()), ("church", (0, 1))}
    s = act(s, "church", 0, 1)
    assert v(s, "time")[0] == 3 and v(s, "members")[0, LOC_BAG, 0] == 1


def test_church_brown_paid_by_coin_joker():
    s = church_turn(coins=1)
    assert legal(s) == {("done", ()), ("church", (0, 0)), ("church", (0, 1))}
    s = act(s, "church", 0, 0)
    assert v(s, "coins")[0] == 0 and v(s, "time")[0] == 0


# --- §4.9 Mass --------------------------------------------------------------------------------
def mass_state(n=3, start=0, bag=None, coins=None, grain=None, windows=None):
    """A cleared game; bag/windows: {p: [(loc_or_None, gen), ...]} members placed from the
    farmyard (gen 1) or unborn (gen 2+)."""
    s = new(n, 0, start_player=start)
    for p in range(n):
        clear_player(s, p)
    for where, loc in ((bag or {}, LOC_BAG), (windows or {}, None)):
        for p, items in where.items():
            for item in items:
                dst, gen = (loc, item) if loc is not None else item
                move(s, p, LOC_FARM if gen == 1 else LOC_UNBORN, dst, gen)
    for p, k in (coins or {}).items():
        give(s, p, coins=k)
    for p, k in (grain or {}).items():
        give(s, p, grain=k)
    return s


def test_picks_in_turn_order_from_the_start_player_stop_at_four():
    s = mass_state(start=1, bag={0: [1], 1: [1, 1, 2], 2: [1, 1]}, coins={0: 1, 1: 3, 2: 2})
    s = start_mass(s)
    assert v(s, "phase")[0] == PH_MASS_PICK and V.current_player(s) == 1
    assert legal(s) == {("done", ()), ("mass_pick", (0,)), ("mass_pick", (1,))}
    s = act(s, "mass_pick", 1)  # generation 2, 1 coin
    assert v(s, "coins")[1] == 2 and v(s, "members")[1, W1, 1] == 1
    s = act(s, "mass_pick", 0)
    s = act(s, "done")  # p1 stops with a coin and a member left
    assert V.current_player(s) == 2 and legal(s) == {("done", ()), ("mass_pick", (0,))}
    s = act(s, "mass_pick", 0)
    s = act(s, "mass_pick", 0)  # the 4th figure: picking ends, p0 gets no go
    assert v(s, "phase")[0] != PH_MASS_PICK
    assert v(s, "coins")[:3].tolist() == [1, 1, 0]
    assert v(s, "members")[0, LOC_BAG, 0] == 1 and v(s, "members")[1, LOC_BAG, 0] == 1
    assert v(s, "monks_bag")[0] == 4  # no random draw was needed
    # majority: p1 and p2 have 2 on W1 each, tied at W1: both score 2 (ED-29)
    assert v(s, "prestige")[:3].tolist() == [0, 2, 2]


def test_mass_runs_from_the_current_start_player_not_the_marker_holder():
    s = mass_state(start=0, bag={0: [1], 1: [1], 2: [1]}, coins={0: 1, 1: 1, 2: 1})
    v(s, "ns_holder")[0] = 2  # ED-26: the marker changes hands only when a round starts
    s = start_mass(s)
    order = []
    while v(s, "phase")[0] == PH_MASS_PICK:
        order.append(V.current_player(s))
        s = act(s, "done")
    assert order == [0, 1, 2]
    assert v(s, "round")[0] == 2 and v(s, "start_player")[0] == 2


def test_random_draws_fill_up_to_four_and_monks_go_back():
    base = mass_state(bag={0: [1, 1]})  # 4 monks + 2 members, nobody can pick (no coins)
    drawn = []
    for seed in range(300):
        s = V.reseed(base, seed)
        s = start_mass(s)
        k = int(v(s, "members")[0, W1, 0])
        assert k + int(v(s, "members")[0, LOC_BAG, 0]) == 2
        assert v(s, "monks_bag")[0] == 4 and not V.check_invariants(s)
        assert v(s, "prestige")[0] == (2 if k else 0)
        drawn.append(k)
    # 4 of 6 figures drawn without replacement: P(0) = 1/15, P(1) = 8/15, P(2) = 6/15
    counts = np.bincount(drawn, minlength=3)
    assert counts.sum() == 300 and all(counts > 0)
    assert abs(np.mean(drawn) - 4 / 3) < 0.15


def test_picks_then_draws_only_the_rest():
    base = mass_state(bag={0: [1, 1, 1], 1: [1]}, coins={0: 3})
    outcomes = set()
    for seed in range(40):
        s = start_mass(V.reseed(base, seed))
        s = act(s, "mass_pick", 0)
        s = act(s, "mass_pick", 0)
        s = act(s, "mass_pick", 0)
        s = act(s, "done") if v(s, "phase")[0] == PH_MASS_PICK else s
        # exactly one random draw among 4 monks and p1's member
        outcomes.add(int(v(s, "members")[1, W1, 0]))
        assert v(s, "members")[0, W1, 0] == 3 and v(s, "monks_bag")[0] == 4
    assert outcomes == {0, 1}


def test_advance_costs_1_1_2_grain_and_multi_step_jump():
    s = mass_state(windows={0: [(W1, 1)]}, grain={0: 5})
    s = start_mass(s)
    assert v(s, "phase")[0] == PH_MASS_ADVANCE and V.current_player(s) == 0
    assert legal(s) == {("done", ()), ("mass_advance", (0, 0))}
    s = act(s, "mass_advance", 0, 0)
    assert v(s, "grain")[0] == 4 and v(s, "members")[0, W2, 0] == 1
    assert legal(s) == {("done", ()), ("mass_advance", (1, 0))}
    s = act(s, "mass_advance", 1, 0)
    assert v(s, "grain")[0] == 3
    assert legal(s) == {("done", ()), ("mass_advance", (2, 0))}
    s = act(s, "mass_advance", 2, 0)
    # W1 -> W4 cost 4 grain in one go (the seed's example); W4 is the end: go over
    assert v(s, "grain")[0] == 1 and v(s, "members")[0, W4, 0] == 1
    assert v(s, "prestige")[0] == 2 and v(s, "round")[0] == 2


def test_advance_needs_the_step_grain_and_picked_members_may_move():
    s = mass_state(bag={0: [1]}, coins={0: 1}, windows={0: [(W3, 2)]}, grain={0: 1})
    s = start_mass(s)
    s = act(s, "mass_pick", 0)
    # the member picked this Mass may move; W3 -> W4 needs 2 grain: not offered
    assert legal(s) == {("done", ()), ("mass_advance", (0, 0))}
    s = act(s, "mass_advance", 0, 0)
    assert v(s, "members")[0, W2, 0] == 1 and v(s, "grain")[0] == 0


def test_advance_order_follows_start_player_one_go_each():
    s = mass_state(start=2, windows={0: [(W1, 1)], 2: [(W1, 1)]}, grain={0: 2, 2: 2})
    s = start_mass(s)
    assert V.current_player(s) == 2
    s = act(s, "mass_advance", 0, 0)
    s = act(s, "done")
    assert V.current_player(s) == 0
    s = act(s, "mass_advance", 0, 0)
    s = act(s, "mass_advance", 1, 0)
    # p0 has W3 (further left), p2 W2: equal counts, p0 wins the tie
    assert v(s, "prestige")[:3].tolist() == [2, 0, 0]


def _majority(windows):
    s = start_mass(mass_state(windows=windows))
    return v(s, "prestige")[:3].tolist()


def test_majority_most_members_wins():
    assert _majority({0: [(W1, 1), (W1, 1)], 1: [(W4, 1)]}) == [2, 0, 0]


def test_majority_tie_broken_by_leftmost_member():
    assert _majority({0: [(W1, 1), (W3, 1)], 1: [(W2, 1), (W2, 1)], 2: [(W4, 1)]}) == [2, 0, 0]


def test_majority_still_tied_everyone_tied_scores():
    assert _majority({0: [(W1, 1), (W3, 1)], 1: [(W3, 1), (W2, 1)], 2: [(W1, 1)]}) == [2, 2, 0]


def test_majority_nobody_in_church_nobody_scores():
    s = start_mass(mass_state(bag={0: [1]}))  # a bag member alone is not in the church
    # the random draw may bring it to W1 (then it scores); with no window member nobody does
    k = int(v(s, "members")[0, W1, 0])
    assert v(s, "prestige")[:3].tolist() == [2 * k, 0, 0]
    assert _majority({}) == [0, 0, 0]
