"""Rules §4.7 council chamber, Appendix A.4, ED-24, ED-25 (2 green or 1 scroll), ED-5, ED-7.

Times (A.4, provisional): enter 1, climb to L2 1, to L3 2, to L4 2. Privileges: L1 next start
player, L2 2 cubes of choice, L3 1 good of choice, L4 1 coin -> 3 prestige.
"""

from village.helpers import (
    COL,
    GOOD,
    LOC_COUNCIL,
    LOC_FARM,
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

from village_env.layout import PH_PRIVILEGE, PH_REWARD, PH_TURN

L1, L2, L3, L4 = (LOC_COUNCIL + i for i in range(4))


def council_turn(*, cubes=None, goods=None, coins=0, levels=(), ns=-1):
    """p0 has taken the council cube (orange) and chooses. `levels`: gen-1 members of p0 moved
    from the farmyard to these council locations first."""
    s = new(3, 0)
    for p in range(3):
        clear_player(s, p)
    set_board(s, {"council": {"orange": 1}, "harvest": {"pink": 2, "green": 1}})
    give(s, 0, cubes=cubes or {}, goods=goods or {}, coins=coins)
    for loc in levels:
        move(s, 0, LOC_FARM, loc, 1)
    v(s, "ns_holder")[0] = ns
    return act(s, "take", 5, COL["orange"])


def test_enter_with_two_green_then_level1_privilege_next_start_player():
    s = council_turn(cubes={"green": 2})
    assert legal(s) == {("done", ()), ("council_enter", (0, 0))}
    s = act(s, "council_enter", 0, 0)
    assert v(s, "time")[0] == 1 and v(s, "cubes")[0, COL["green"]] == 0
    assert v(s, "members")[0, L1, 0] == 1 and v(s, "members")[0, LOC_FARM, 0] == 3
    assert v(s, "phase")[0] == PH_PRIVILEGE
    assert legal(s) == {("done", ()), ("privilege", (0,))}
    s = act(s, "privilege", 0)
    assert v(s, "ns_holder")[0] == 0 and V.current_player(s) == 1
    # §3.1 step 1: the marker holder starts the next round, the marker goes back
    v(s, "start_player")[0] = 2
    s = start_mass(s)
    assert v(s, "round")[0] == 2 and v(s, "start_player")[0] == 0
    assert v(s, "ns_holder")[0] == -1 and V.current_player(s) == 0


def test_ed25_green_or_scroll_both_offered_when_both_payable_and_scroll_pays():
    s = council_turn(cubes={"green": 2}, goods={"scroll": 1})
    assert legal(s) == {("done", ()), ("council_enter", (0, 0)), ("council_enter", (0, 1))}
    s = act(s, "council_enter", 0, 1)
    assert v(s, "goods")[0, GOOD["scroll"]] == 0 and v(s, "cubes")[0, COL["green"]] == 2
    assert v(s, "supply_goods")[GOOD["scroll"]] == 8 and v(s, "time")[0] == 1


def test_green_cost_with_coin_joker_and_scroll_only():
    s = council_turn(cubes={"green": 1}, coins=1)
    assert legal(s) == {("done", ()), ("council_enter", (0, 0))}
    s = act(s, "council_enter", 0, 0)
    assert v(s, "cubes")[0, COL["green"]] == 0 and v(s, "coins")[0] == 0
    s = council_turn(goods={"scroll": 1}, cubes={"green": 1})  # 1 green is not enough
    assert legal(s) == {("done", ()), ("council_enter", (0, 1))}


def test_enter_when_marker_taken_gives_no_privilege():
    s = council_turn(cubes={"green": 2}, ns=2)
    s = act(s, "council_enter", 0, 0)
    # ED-24: level 1 is void, no privilege is offered: the turn is over
    assert v(s, "members")[0, L1, 0] == 1 and v(s, "ns_holder")[0] == 2
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN


def test_ed24_entering_gives_only_level1_privilege_even_with_a_member_higher_up():
    s = council_turn(cubes={"green": 2}, coins=1, levels=(L3,))
    assert ("council_enter", (0, 0)) in legal(s)
    s = act(s, "council_enter", 0, 0)
    assert v(s, "priv_max")[0] == 1
    assert legal(s) == {("done", ()), ("privilege", (0,))}


def test_climb_l1_to_l2_costs_1_time_and_offers_levels_1_2_cubes_of_choice():
    s = council_turn(cubes={"green": 2}, levels=(L1,))
    assert legal(s) == {
        ("done", ()),
        ("council_enter", (0, 0)),
        ("council_climb", (0, 0, 0)),
        ("council_privilege", ()),
    }
    s = act(s, "council_climb", 0, 0, 0)
    assert v(s, "time")[0] == 1 and v(s, "members")[0, L2, 0] == 1
    assert v(s, "members")[0, L1].sum() == 0
    assert legal(s) == {("done", ()), ("privilege", (0,)), ("privilege", (1,))}
    s = act(s, "privilege", 1)
    assert v(s, "phase")[0] == PH_REWARD
    s = act(s, "choose_cube", COL["pink"])
    s = act(s, "choose_cube", COL["pink"])
    assert v(s, "cubes")[0].tolist() == [0, 2, 1, 0]  # + the orange taken
    assert V.current_player(s) == 1


def test_climb_l2_to_l3_costs_2_time_and_gives_a_good_of_choice():
    s = council_turn(goods={"scroll": 1}, levels=(L2,))
    s = act(s, "council_climb", 1, 0, 1)
    assert v(s, "time")[0] == 2 and v(s, "members")[0, L3, 0] == 1
    assert v(s, "goods")[0, GOOD["scroll"]] == 0
    assert legal(s) == {("done", ()), ("privilege", (0,)), ("privilege", (1,)), ("privilege", (2,))}
    s = act(s, "privilege", 2)
    assert legal(s) == {("choose_good", (g,)) for g in range(5)}
    s = act(s, "choose_good", GOOD["plow"])
    assert v(s, "goods")[0].tolist() == [0, 0, 1, 0, 0] and V.current_player(s) == 1


def test_climb_l3_to_l4_costs_2_time_and_level4_buys_3_prestige_for_a_coin():
    s = council_turn(cubes={"green": 2}, coins=1, levels=(L3,))
    s = act(s, "council_climb", 2, 0, 0)
    assert v(s, "time")[0] == 2 and v(s, "members")[0, L4, 0] == 1
    assert legal(s) == {
        ("done", ()),
        ("privilege", (0,)),
        ("privilege", (1,)),
        ("privilege", (2,)),
        ("privilege", (3,)),
    }
    s = act(s, "privilege", 3)
    assert v(s, "coins")[0] == 0 and v(s, "prestige")[0] == 3  # once per action
    assert V.current_player(s) == 1


def test_level4_privilege_needs_a_coin_not_a_joker_payment():
    # the coin joker pays green (ED-7) before the privilege: no coin is left for level 4
    s = council_turn(cubes={"green": 1}, coins=1, levels=(L3,))
    s = act(s, "council_climb", 2, 0, 0)
    assert v(s, "coins")[0] == 0
    assert legal(s) == {("done", ()), ("privilege", (0,)), ("privilege", (1,)), ("privilege", (2,))}


def test_privilege_only_is_free_and_uses_the_highest_member():
    s = council_turn(levels=(L1, L3))
    assert legal(s) == {("done", ()), ("council_privilege", ())}
    s = act(s, "council_privilege")
    assert v(s, "time")[0] == 0 and v(s, "members")[0, L3, 0] == 1
    assert legal(s) == {("done", ()), ("privilege", (0,)), ("privilege", (1,)), ("privilege", (2,))}
    s = act(s, "privilege", 0)
    assert v(s, "ns_holder")[0] == 0


def test_privilege_only_not_offered_when_every_privilege_is_void():
    s = council_turn(cubes={"green": 2}, levels=(L1,), ns=1)
    assert legal(s) == {("done", ()), ("council_enter", (0, 0)), ("council_climb", (0, 0, 0))}


def test_ed5_level3_good_cannot_pay_the_climb_that_earned_it():
    s = council_turn(levels=(L2,))  # no green, no scroll, no coin: no climb at all
    assert legal(s) == {("done", ()), ("council_privilege", ())}


def test_level4_privilege_price_comes_from_the_rules_data():
    """A.4: level 4 = pay PRIVILEGE_COIN_PRESTIGE[0] coins for [1] prestige; with a price of 2
    coins a player holding 1 coin is not offered level 4 (it could not pay)."""
    from village_env import tables

    V.load_rules_data(tables.rules_with(PRIVILEGE_COIN_PRESTIGE=(2, 5)))
    try:
        s = council_turn(coins=1, levels=(L4,))
        s = act(s, "council_privilege")
        assert legal(s) == {
            ("done", ()),
            ("privilege", (0,)),
            ("privilege", (1,)),
            ("privilege", (2,)),
        }
        v(s, "coins")[0] = 2
        v(s, "supply_coins")[0] -= 1
        assert ("privilege", (3,)) in legal(s)
        s = act(s, "privilege", 3)
        assert v(s, "coins")[0] == 0 and v(s, "prestige")[0] == 5
        assert not V.check_invariants(s)
    finally:
        V.load_rules_data()


def test_ed24_level2_gives_what_the_supply_has():
    s = council_turn(levels=(L2,))
    sup, bag = v(s, "supply_cubes"), v(s, "bag")
    bag[:4] += sup[:4]  # every influence cube but one pink leaves the supply (into the bag)
    sup[:4] = 0
    sup[COL["pink"]] = 1
    bag[COL["pink"]] -= 1
    assert not V.check_invariants(s)
    s = act(s, "council_privilege")
    s = act(s, "privilege", 1)  # one unit only, the only colour there: applied at once
    assert v(s, "cubes")[0, COL["pink"]] == 1 and v(s, "supply_cubes")[:4].sum() == 0
    assert V.current_player(s) == 1
