"""Rules §4.5 market day, ED-19 (goes), ED-20 (refill), ED-11 (plague cube on the Market space).

Tiles are 0-based indices into rules_data.CUSTOMERS: 2 = T3 (2 grain, 2), 4 = T5 (horse, 3),
5 = T6 (ox, 3), 6 = T7 (wagon, 2), 0 = T1 (horse + plow, 6).
"""

import numpy as np
from village.helpers import (
    COL,
    GOOD,
    LOC_CRAFT,
    LOC_FARM,
    V,
    act,
    clear_player,
    give,
    legal,
    move,
    new,
    set_board,
    set_market,
    v,
    visible_index,
)

from village_env.layout import PH_DEATH, PH_MARKET, PH_TURN

HORSE, OX, WAGON, GRAIN2 = 4, 5, 6, 2
QUEUE = [7, 8, 9, 10, 11]


def market_state(stalls=(HORSE, OX, WAGON, GRAIN2), queue=QUEUE, n=3):
    """p0 to move; a brown and a plague cube on the Market space, more cubes elsewhere so the
    round does not end; all players start empty-handed."""
    s = new(n, 0)
    for p in range(n):
        clear_player(s, p)
    set_board(s, {"market": {"brown": 1, "plague": 1}, "harvest": {"pink": 2}})
    set_market(s, list(stalls), list(queue))
    return s


def serves(*stalls):
    return {("done", ())} | {("serve", (k,)) for k in stalls}


def test_opener_free_first_sale_then_others_pay_demand_green_and_time():
    s = market_state()
    give(s, 0, goods={"horse": 1})
    give(s, 1, goods={"ox": 1}, cubes={"green": 1})
    give(s, 2, goods={"wagon": 1}, grain=2, cubes={"green": 2})
    s = act(s, "take", 3, COL["brown"])  # Market cube: market day must be held (§3.2)
    assert v(s, "phase")[0] == PH_MARKET and V.current_player(s) == 0
    assert legal(s) == serves(0)  # the horse customer; pass is always possible
    s = act(s, "serve", 0)
    # §4.5.4: the opener's first sale is free: only the demand is paid
    assert v(s, "goods")[0, GOOD["horse"]] == 0 and v(s, "time")[0] == 0
    assert v(s, "cubes")[0, COL["green"]] == 0 and v(s, "tile_owner")[HORSE] == 0
    assert v(s, "stalls")[0] == -1
    # §4.5.5: clockwise, the next player pays the demand + 1 green + 1 time
    assert V.current_player(s) == 1 and legal(s) == serves(1)
    s = act(s, "serve", 1)
    assert v(s, "goods")[1, GOOD["ox"]] == 0 and v(s, "cubes")[1, COL["green"]] == 0
    assert v(s, "time")[1] == 1 and v(s, "tile_owner")[OX] == 1
    # p2 can pay either the wagon or the 2-grain customer
    assert V.current_player(s) == 2 and legal(s) == serves(2, 3)
    sup_grain = int(v(s, "supply_grain")[0])
    s = act(s, "serve", 3)
    assert v(s, "grain")[2] == 0 and v(s, "supply_grain")[0] == sup_grain + 2
    assert v(s, "cubes")[2, COL["green"]] == 1 and v(s, "time")[2] == 1
    # p0 and p1 cannot sell any more (auto-pass, ED-19); p2 may sell the wagon customer
    assert V.current_player(s) == 2 and legal(s) == serves(2)
    s = act(s, "serve", 2)
    assert v(s, "cubes")[2, COL["green"]] == 0 and v(s, "time")[2] == 2
    # every stall customer served: market day over, refill, next turn is p1's
    assert v(s, "mkt_active")[0] == 0 and v(s, "phase")[0] == PH_TURN
    assert V.current_player(s) == 1
    assert sorted(v(s, "tile_owner")[[HORSE, OX, WAGON, GRAIN2]]) == [0, 1, 2, 2]
    assert not V.check_invariants(s)


def test_opener_second_sale_pays_green_and_time():
    s = market_state()
    give(s, 0, goods={"horse": 1, "ox": 1}, cubes={"green": 1})
    s = act(s, "take", 3, COL["brown"])
    assert legal(s) == serves(0, 1)
    s = act(s, "serve", 0)  # free
    assert v(s, "cubes")[0, COL["green"]] == 1 and v(s, "time")[0] == 0
    # p1 and p2 have nothing and pass automatically; p0's next go pays 1 green + 1 time
    assert V.current_player(s) == 0 and v(s, "phase")[0] == PH_MARKET
    assert v(s, "mkt_passed")[:3].tolist() == [0, 1, 1]
    assert legal(s) == serves(1)
    s = act(s, "serve", 1)
    assert v(s, "cubes")[0, COL["green"]] == 0 and v(s, "time")[0] == 1
    assert v(s, "tile_owner")[OX] == 0
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN


def test_second_sale_needs_the_green_fee():
    """Without a green cube or coin, a paid sale is impossible even with the goods (§4.5.6)."""
    s = market_state()
    give(s, 0, goods={"horse": 1, "ox": 1})
    s = act(s, "take", 3, COL["brown"])
    s = act(s, "serve", 0)
    # p0 cannot pay the fee, p1 and p2 have nothing: market day over at once
    assert v(s, "mkt_active")[0] == 0 and V.current_player(s) == 1
    assert v(s, "goods")[0, GOOD["ox"]] == 1 and v(s, "tile_owner")[OX] == -1


def test_coin_is_joker_for_the_green_fee_and_cube_is_used_first():
    s = market_state()
    give(s, 0, goods={"horse": 1})
    give(s, 1, goods={"ox": 1}, coins=1)  # no green: the coin pays it (§4.5 other rules)
    give(s, 2, goods={"wagon": 1}, coins=1, cubes={"green": 1})  # cube first (ED-7)
    coins_sup = int(v(s, "supply_coins")[0])
    s = act(s, "take", 3, COL["brown"])
    s = act(s, "serve", 0)
    assert legal(s) == serves(1)
    s = act(s, "serve", 1)
    assert v(s, "coins")[1] == 0 and v(s, "supply_coins")[0] == coins_sup + 1
    assert v(s, "time")[1] == 1
    s = act(s, "serve", 2)
    assert v(s, "coins")[2] == 1 and v(s, "cubes")[2, COL["green"]] == 0


def test_pass_is_final_and_goes_skip_passed_players():
    s = market_state()
    give(s, 0, goods={"horse": 1, "wagon": 1}, cubes={"green": 1})
    give(s, 1, goods={"ox": 1}, cubes={"green": 2}, grain=2)
    give(s, 2, goods={"ox": 1, "wagon": 1}, cubes={"green": 2}, grain=2)
    s = act(s, "take", 3, COL["brown"])
    s = act(s, "serve", 0)  # p0 free: horse
    assert V.current_player(s) == 1 and legal(s) == serves(1, 3)
    s = act(s, "done")  # p1 passes although able to sell
    assert v(s, "mkt_passed")[1] == 1
    assert V.current_player(s) == 2
    s = act(s, "serve", 1)  # p2 takes the ox customer
    assert V.current_player(s) == 0 and legal(s) == serves(2)
    s = act(s, "serve", 2)  # p0 takes the wagon customer, paying the fee
    # p1 is skipped for good, although they could still serve the 2-grain customer
    assert V.current_player(s) == 2 and v(s, "phase")[0] == PH_MARKET
    assert legal(s) == serves(3)
    s = act(s, "serve", 3)
    assert v(s, "tile_owner")[GRAIN2] == 2 and v(s, "grain")[1] == 2
    assert v(s, "mkt_active")[0] == 0 and V.current_player(s) == 1


def test_opener_passing_first_go_forfeits_the_free_sale():
    s = market_state()
    give(s, 0, goods={"horse": 1}, cubes={"green": 1})
    give(s, 1, goods={"ox": 1})  # could only sell for free: cannot pay the fee
    give(s, 2, goods={"wagon": 1}, cubes={"green": 1})
    s = act(s, "take", 3, COL["brown"])
    assert legal(s) == serves(0)
    s = act(s, "done")  # ED-19: the opener passes the free go; out for this market day
    assert v(s, "mkt_free")[0] == 0 and v(s, "mkt_passed")[0] == 1
    # p1 has the ox but no green or coin: passes automatically; p2 sells paying the fee
    assert V.current_player(s) == 2 and legal(s) == serves(2)
    s = act(s, "serve", 2)
    assert v(s, "cubes")[2, COL["green"]] == 0 and v(s, "time")[2] == 1
    # nobody is left: p0 never got a (free) go again
    assert v(s, "mkt_active")[0] == 0 and V.current_player(s) == 1
    assert v(s, "goods")[0, GOOD["horse"]] == 1 and v(s, "tile_owner")[HORSE] == -1
    assert v(s, "goods")[1, GOOD["ox"]] == 1


def test_refill_queue_fronts_into_empty_stalls_then_pile_to_the_back():
    s = market_state()
    give(s, 0, goods={"horse": 1})
    give(s, 2, goods={"wagon": 1}, cubes={"green": 1})
    pile_before = set(np.flatnonzero(v(s, "pile")).tolist())
    assert len(pile_before) == 24 - 9
    s = act(s, "take", 3, COL["brown"])
    s = act(s, "serve", 0)  # stall 0 emptied
    s = act(s, "serve", 2)  # p1 passed automatically; p2 empties stall 2
    assert v(s, "mkt_active")[0] == 0
    # ED-20: queue fronts 7 and 8 fill the two empty stalls (an unordered set)
    st = v(s, "stalls")
    assert sorted(st[:4].tolist()) == sorted([OX, GRAIN2, 7, 8]) and st[4] == -1
    assert st[1] == OX and st[3] == GRAIN2  # unserved customers stay where they are
    q = v(s, "queue").tolist()
    assert q[:3] == [9, 10, 11]  # the rest of the line moved forward
    assert q[3] in pile_before and q[4] in pile_before and q[3] != q[4]  # drawn to the back
    assert set(np.flatnonzero(v(s, "pile")).tolist()) == pile_before - {q[3], q[4]}
    assert not V.check_invariants(s)


def test_refill_with_a_short_pile_leaves_the_back_of_the_line_empty():
    s = market_state()
    give(s, 0, goods={"horse": 1})
    # every pile tile but 13 leaves the game (served earlier by p1)
    for t in np.flatnonzero(v(s, "pile")):
        if t != 13:
            v(s, "pile")[t] = 0
            v(s, "tile_owner")[t] = 1
    s = act(s, "take", 3, COL["brown"])
    s = act(s, "serve", 0)
    assert v(s, "mkt_active")[0] == 0
    assert sorted(v(s, "stalls")[:4].tolist()) == sorted([OX, WAGON, GRAIN2, 7])
    assert v(s, "queue").tolist() == [8, 9, 10, 11, 13]
    # a second sale: the pile is empty now, the line shrinks (ED-20)
    s = act(s, "take", 0, COL["pink"])
    s = act(s, "done")
    give(s, 2, goods={"ox": 1})
    s = act(s, "take", 3, 4)  # p2 takes the plague cube from the Market space
    s = act(s, "serve", [k for k in range(4) if v(s, "stalls")[k] == OX][0])
    assert v(s, "queue").tolist() == [9, 10, 11, 13, -1]
    assert v(s, "pile").sum() == 0


def test_no_refill_when_nothing_was_sold():
    s = market_state()
    give(s, 0, goods={"horse": 1})
    give(s, 1, goods={"ox": 1}, cubes={"green": 1})
    before = (v(s, "stalls").copy(), v(s, "queue").copy(), v(s, "pile").copy(), s[:4].copy())
    s = act(s, "take", 3, COL["brown"])
    s = act(s, "done")
    s = act(s, "done")
    assert v(s, "mkt_active")[0] == 0 and V.current_player(s) == 1
    assert (v(s, "stalls") == before[0]).all() and (v(s, "queue") == before[1]).all()
    assert (v(s, "pile") == before[2]).all()
    assert v(s, "time")[:3].tolist() == [0, 0, 0]


def test_market_day_without_stall_customer_ends_at_once():
    s = market_state(stalls=(), queue=QUEUE)
    give(s, 0, goods={"horse": 1})
    s = act(s, "take", 3, COL["brown"])
    # ED-20: nothing to serve: no go for anyone, no refill; p1's turn
    assert v(s, "mkt_active")[0] == 0 and v(s, "phase")[0] == PH_TURN
    assert V.current_player(s) == 1
    assert v(s, "stalls").tolist() == [-1] * 5 and v(s, "queue").tolist() == QUEUE
    assert v(s, "cubes")[0, COL["brown"]] == 1


def test_plague_cube_on_market_space_forces_market_day_with_free_first_sale():
    s = market_state()
    give(s, 0, goods={"horse": 1})
    plague_sup = int(v(s, "supply_cubes")[4])
    s = act(s, "take", 3, 4)  # ED-11: any cube from the Market space forces market day
    assert v(s, "time")[0] == 2 and v(s, "supply_cubes")[4] == plague_sup + 1
    assert v(s, "phase")[0] == PH_MARKET and V.current_player(s) == 0
    assert v(s, "mkt_opener")[0] == 0 and legal(s) == serves(0)
    s = act(s, "serve", 0)
    assert v(s, "time")[0] == 2 and v(s, "tile_owner")[HORSE] == 0  # still free


def test_market_sale_crossing_the_bridge_resolves_the_death_before_the_next_go():
    s = market_state()
    give(s, 0, goods={"horse": 1})
    give(s, 1, goods={"ox": 1}, cubes={"green": 1})
    give(s, 2, goods={"wagon": 1}, cubes={"green": 1})
    v(s, "time")[1] = 9
    move(s, 1, LOC_FARM, LOC_CRAFT, 1)  # gen-1 members on the farmyard and the wainwright
    s = act(s, "take", 3, COL["brown"])
    s = act(s, "serve", 0)
    s = act(s, "serve", 1)  # p1 pays 1 time: 9 -> 10 crosses the bridge (§4.5, ED-15)
    assert v(s, "phase")[0] == PH_DEATH and V.current_player(s) == 1
    assert legal(s) == {("die", (visible_index(LOC_FARM),)), ("die", (visible_index(LOC_CRAFT),))}
    s = act(s, "die", visible_index(LOC_CRAFT))
    assert v(s, "chron_used").tolist() == [0, 1, 0, 0, 0]  # crafts section
    assert v(s, "phase")[0] == PH_MARKET and V.current_player(s) == 2


def test_two_players_refill_only_the_three_stalls_in_play():
    s = market_state(stalls=(HORSE, OX, WAGON), n=2)
    give(s, 0, goods={"horse": 1})
    s = act(s, "take", 3, COL["brown"])
    s = act(s, "serve", 0)
    assert sorted(v(s, "stalls")[:3].tolist()) == sorted([7, OX, WAGON])
    assert v(s, "stalls")[3:].tolist() == [-1, -1]  # unused stalls stay empty (§2 step 6)
    assert v(s, "queue")[:4].tolist() == [8, 9, 10, 11] and v(s, "queue")[4] >= 0
