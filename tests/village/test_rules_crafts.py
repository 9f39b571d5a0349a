"""Rules §4.3 (crafts), §4.4 (goods), §3.2 coins as jokers; ED-6, ED-7, ED-21, ED-25 (crafts:
time route or purchase), Appendix A.3."""

import pytest
from village.helpers import (
    BLD,
    CITY,
    COL,
    GOOD,
    LOC_COUNCIL,
    LOC_CRAFT,
    LOC_FARM,
    LOC_UNBORN,
    SPACE,
    V,
    act,
    clear_player,
    give,
    legal,
    move,
    new,
    set_board,
    v,
    where,
)

from village_env.layout import LOC_CITY, PH_CRAFT_PRODUCE

W, ST, OF, BS = BLD["wainwright"], BLD["stables"], BLD["office"], BLD["blacksmith"]
# A.3: building -> (place time, produce time, purchase cubes {colour: n}, purchase grain, goods)
CRAFTS = {
    W: (2, 2, {"orange": 1, "pink": 1}, 0, ("wagon",)),
    ST: (3, 3, {}, 3, ("horse", "ox")),
    OF: (2, 2, {"pink": 2}, 0, ("scroll",)),
    BS: (2, 2, {"orange": 2}, 0, ("plow",)),
}


def _s(n=3):
    s = new(n, 0)
    for p in range(n):
        clear_player(s, p)
    return s


def _crafts(s, p=0):
    set_board(s, {"crafts": {"brown": 2}, "church": {"pink": 2}})
    v(s, "turn_player")[0] = p
    v(s, "actor")[0] = p
    return act(s, "take", SPACE["crafts"], COL["brown"])


def test_crafts_options_exact_set_ed21_ed25():
    """ED-21 / decision point 4: place (building, generation) for each farmyard generation at the
    4 buildings (not the mill), produce only where a member stands, purchase what can be paid,
    the mill with enough grain; ED-25: time route and purchase both offered."""
    s = _s()
    move(s, 0, LOC_UNBORN, LOC_FARM, 2)
    move(s, 0, LOC_FARM, LOC_CRAFT + W, 1)
    give(s, 0, cubes={"orange": 1, "pink": 1}, grain=2)
    s = _crafts(s)
    expect = {("done", ())}
    expect |= {("craft_place", (b, g)) for b in range(4) for g in (0, 1)}
    expect |= {("craft_produce", (GOOD["wagon"],)), ("craft_buy", (GOOD["wagon"],))}
    expect |= {("mill", ())}
    assert legal(s) == expect


@pytest.mark.parametrize("b", [W, ST, OF, BS])
def test_time_route_place_then_produce(b):
    """§4.3 (a): place a farmyard member (placement time), then produce (production time)."""
    place, produce, _c, _g, goods = CRAFTS[b]
    s = _s()
    s = _crafts(s)
    s = act(s, "craft_place", b, 0)
    assert v(s, "time")[0] == place and v(s, "phase")[0] == PH_CRAFT_PRODUCE
    assert where(s, 0) == {(LOC_FARM, 1): 3, (LOC_CRAFT + b, 1): 1}
    # at the stables the player chooses horse or ox (ED-21)
    assert legal(s) == {("done", ())} | {("craft_produce", (GOOD[g],)) for g in goods}
    s = act(s, "craft_produce", GOOD[goods[-1]])
    assert v(s, "time")[0] == place + produce
    assert v(s, "goods")[0].tolist() == [int(g == goods[-1]) for g in GOOD]
    assert V.current_player(s) == 1


def test_place_without_producing():
    """§4.3 (a) [R]: placing without producing is allowed: placement time only."""
    s = _s()
    s = _crafts(s)
    s = act(s, "craft_place", OF, 0)
    s = act(s, "done")
    assert v(s, "time")[0] == 2 and v(s, "goods")[0].sum() == 0
    assert where(s, 0)[(LOC_CRAFT + OF, 1)] == 1 and V.current_player(s) == 1


def test_member_already_there_pays_production_time_only_and_makes_only_that_good():
    """§4.3 (a), ED-21 (ii): with a member on the stables, produce for 3 time; a member there
    makes only horse or ox (no other building's good)."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_CRAFT + ST, 1)
    move(s, 0, LOC_FARM, LOC_COUNCIL, 1, 3)  # no farmyard member: no placement
    s = _crafts(s)
    assert legal(s) == {
        ("done", ()),
        ("craft_produce", (GOOD["horse"],)),
        ("craft_produce", (GOOD["ox"],)),
    }
    s = act(s, "craft_produce", GOOD["ox"])
    assert v(s, "time")[0] == 3 and v(s, "goods")[0, GOOD["ox"]] == 1
    assert where(s, 0)[(LOC_CRAFT + ST, 1)] == 1  # the member stays


def test_second_member_may_be_placed_where_one_stands_ed21():
    """ED-21 (i): placing is legal where you already have a member (no limit per building)."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_CRAFT + BS, 1)
    s = _crafts(s)
    assert ("craft_place", (BS, 0)) in legal(s)
    s = act(s, "craft_place", BS, 0)
    s = act(s, "craft_produce", GOOD["plow"])
    assert where(s, 0)[(LOC_CRAFT + BS, 1)] == 2
    assert v(s, "time")[0] == 4 and v(s, "goods")[0, GOOD["plow"]] == 1


def test_members_of_any_colour_share_a_building():
    """§4 general: any number of members of any colours may share a building."""
    s = _s()
    move(s, 1, LOC_FARM, LOC_CRAFT + W, 1, 2)
    s = _crafts(s)
    s = act(s, "craft_place", W, 0)
    s = act(s, "done")
    assert v(s, "members")[1, LOC_CRAFT + W, 0] == 2 and v(s, "members")[0, LOC_CRAFT + W, 0] == 1


@pytest.mark.parametrize("b", [W, ST, OF, BS])
def test_purchase_route_pays_cubes_or_grain_no_member_needed(b):
    """§4.3 (b), A.3: pay the cube cost (grain at the stables), no member needed, no time."""
    _p, _q, cubes, grain, goods = CRAFTS[b]
    s = _s()
    move(s, 0, LOC_FARM, LOC_COUNCIL, 1, 4)  # nobody on the farmyard or the buildings
    give(s, 0, cubes=cubes, grain=grain)
    s = _crafts(s)
    want = {("craft_buy", (GOOD[g],)) for g in goods} | ({("mill", ())} if grain >= 2 else set())
    assert legal(s) - {("done", ())} == want
    sup_cubes = v(s, "supply_cubes").copy()
    s = act(s, "craft_buy", GOOD[goods[0]])
    assert v(s, "goods")[0, GOOD[goods[0]]] == 1 and v(s, "time")[0] == 0
    assert v(s, "cubes")[0].tolist() == [1, 0, 0, 0]  # only the brown cube taken this turn
    for c, k in cubes.items():
        assert v(s, "supply_cubes")[COL[c]] == sup_cubes[COL[c]] + k
    assert v(s, "grain")[0] == 0 and v(s, "supply_grain")[0] == 20


@pytest.mark.parametrize(
    "orange,pink,coins,legal_buy,left",
    [
        (1, 1, 1, True, (0, 0, 1)),  # cubes first: the coin is kept (ED-7)
        (1, 0, 1, True, (0, 0, 0)),  # a coin replaces the missing pink
        (0, 0, 2, True, (0, 0, 0)),  # two coins pay the whole cost
        (0, 1, 1, True, (0, 0, 0)),
        (0, 0, 1, False, None),
        (2, 0, 0, False, None),  # cubes of another colour do not pay
    ],
)
def test_coins_are_jokers_in_a_mixed_craft_purchase_ed7(orange, pink, coins, legal_buy, left):
    """§3.2 coins are jokers, ED-7: the wainwright's 1 orange + 1 pink is settled colour by
    colour, own cubes first, a coin per missing cube."""
    s = _s()
    give(s, 0, cubes={"orange": orange, "pink": pink}, coins=coins)
    s = _crafts(s)
    assert (("craft_buy", (GOOD["wagon"],)) in legal(s)) == legal_buy
    if not legal_buy:
        return
    coins_sup = v(s, "supply_coins")[0]
    s = act(s, "craft_buy", GOOD["wagon"])
    c = v(s, "cubes")[0]
    assert (int(c[COL["orange"]]), int(c[COL["pink"]]), int(v(s, "coins")[0])) == left
    assert v(s, "supply_coins")[0] == coins_sup + coins - left[2]
    assert v(s, "goods")[0, GOOD["wagon"]] == 1


def test_coins_never_pay_grain_ed7():
    """ED-7: coins replace cubes only, never grain (stables purchase = 3 grain)."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_COUNCIL, 1, 4)
    give(s, 0, grain=2, coins=5)
    s = _crafts(s)
    assert ("craft_buy", (GOOD["horse"],)) not in legal(s)
    # 5 coins pay the 2-cube purchases (wagon, scroll, plow), never the stables' grain
    assert legal(s) == {("done", ()), ("mill", ())} | {
        ("craft_buy", (GOOD[g],)) for g in ("wagon", "scroll", "plow")
    }


def test_time_route_or_purchase_player_chooses_ed25():
    """ED-25: both routes payable -> both offered; purchase costs no time, the time route keeps
    the cubes."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_CRAFT + OF, 1)
    give(s, 0, cubes={"pink": 2})
    s = _crafts(s)
    assert {("craft_produce", (GOOD["scroll"],)), ("craft_buy", (GOOD["scroll"],))} <= legal(s)
    a = act(s, "craft_buy", GOOD["scroll"])
    assert v(a, "time")[0] == 0 and v(a, "cubes")[0, COL["pink"]] == 0
    b = act(s, "craft_produce", GOOD["scroll"])
    assert v(b, "time")[0] == 2 and v(b, "cubes")[0, COL["pink"]] == 2
    assert v(a, "goods")[0, GOOD["scroll"]] == v(b, "goods")[0, GOOD["scroll"]] == 1


def test_mill_time_and_grain_for_two_coins():
    """§4.3 mill, A.3: pay 1 time + 2 grain, gain 2 coins; no member ever goes on the mill."""
    s = _s()
    give(s, 0, grain=3)
    s = _crafts(s)
    s = act(s, "mill")
    assert v(s, "coins")[0] == 2 and v(s, "grain")[0] == 1 and v(s, "time")[0] == 1
    assert v(s, "supply_grain")[0] == 19
    t = _s()
    give(t, 0, grain=1)
    t = _crafts(t)
    assert ("mill", ()) not in legal(t)


def test_mill_gain_capped_by_coin_supply_ed6():
    """ED-6: the mill stays legal when the coin supply is short; it gives what is there."""
    s = _s()
    give(s, 1, coins=14)
    give(s, 0, grain=2)
    assert v(s, "supply_coins")[0] == 1
    s = _crafts(s)
    s = act(s, "mill")
    assert v(s, "coins")[0] == 1 and v(s, "supply_coins")[0] == 0 and v(s, "grain")[0] == 0


def test_produce_with_empty_goods_supply_still_pays_time_ed6():
    """ED-6: costs are paid in full, the gain is capped by the supply, even to nothing."""
    s = _s()
    give(s, 1, goods={"wagon": 8})
    move(s, 0, LOC_FARM, LOC_CRAFT + W, 1)
    s = _crafts(s)
    assert ("craft_produce", (GOOD["wagon"],)) in legal(s)
    s = act(s, "craft_produce", GOOD["wagon"])
    assert v(s, "time")[0] == 2 and v(s, "goods")[0, GOOD["wagon"]] == 0


def test_one_product_per_crafts_action():
    """§4.3: one Crafts action gives one product from one building."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_CRAFT + W, 1)
    give(s, 0, cubes={"orange": 3, "pink": 3}, grain=5)
    s = _crafts(s)
    s = act(s, "craft_buy", GOOD["plow"])
    assert v(s, "goods")[0].sum() == 1 and V.current_player(s) == 1


def test_goods_wagon_spent_on_travel_scroll_pays_council_section_4_4():
    """§4.4: a wagon is returned to the supply on each travel move; a scroll can replace the
    2 green of a council step."""
    s = _s()
    give(s, 0, goods={"wagon": 2}, cubes={"brown": 2})
    set_board(s, {"travel": {"green": 2}, "council": {"green": 2}, "church": {"pink": 1}})
    s = act(s, "take", SPACE["travel"], COL["green"])
    s = act(s, "travel", 0, 0, 0)  # Village -> A (brown path), generation 1
    assert v(s, "goods")[0, GOOD["wagon"]] == 1 and v(s, "supply_goods")[GOOD["wagon"]] == 7
    assert v(s, "members")[0, LOC_CITY + CITY["A"], 0] == 1
    t = _s()
    give(t, 0, goods={"scroll": 1})
    set_board(t, {"council": {"brown": 2}, "church": {"pink": 1}})
    t = act(t, "take", SPACE["council"], COL["brown"])
    assert {x for x in legal(t) if x[0] == "council_enter"} == {("council_enter", (0, 1))}
    t = act(t, "council_enter", 0, 1)
    assert v(t, "goods")[0, GOOD["scroll"]] == 0 and v(t, "members")[0, LOC_COUNCIL, 0] == 1
