"""Rules §4.1 (grain harvest), §4.2 (family), §4.4 (what goods do, harvest part); ED-4, ED-6,
ED-22."""

import pytest
from village.helpers import (
    CITY,
    COL,
    LOC_BAG,
    LOC_CITY,
    LOC_COUNCIL,
    LOC_CRAFT,
    LOC_FARM,
    LOC_UNBORN,
    LOC_WINDOW,
    SPACE,
    V,
    act,
    clear_player,
    give,
    legal,
    move,
    new,
    recall_index,
    set_board,
    v,
    where,
)

from village_env import tables


def _s(n=3):
    s = new(n, 0)
    for p in range(n):
        clear_player(s, p)
    return s


def _take(s, space, p=0):
    set_board(s, {space: {"brown": 2}, "church": {"pink": 2}})
    v(s, "turn_player")[0] = p
    v(s, "actor")[0] = p
    return act(s, "take", SPACE[space], COL["brown"])


@pytest.mark.parametrize(
    "goods,gain",
    [
        ({}, 2),
        ({"plow": 1}, 2),
        ({"horse": 1, "ox": 1}, 2),
        ({"horse": 1, "plow": 1}, 3),
        ({"ox": 1, "plow": 1}, 4),
        ({"horse": 1, "ox": 1, "plow": 1}, 4),  # ED-22: the best combination
        ({"horse": 2, "ox": 2, "plow": 2}, 4),  # only one combination applies
        ({"scroll": 3, "wagon": 2}, 2),
    ],
)
def test_harvest_amount_by_goods(goods, gain):
    """§4.1, §4.4, ED-22: 2 grain; horse + plow 3; ox + plow 4; no second harvest; goods and
    members are not used up; no time cost."""
    s = _s()
    give(s, 0, goods=goods)
    move(s, 0, LOC_FARM, LOC_COUNCIL, 1, 3)  # one farmyard member is enough
    s = _take(s, "harvest")
    assert legal(s) == {("done", ()), ("harvest", ())}
    s = act(s, "harvest")
    assert v(s, "grain")[0] == gain
    assert v(s, "supply_grain")[0] == 20 - gain
    assert v(s, "goods")[0].sum() == sum(goods.values())
    assert where(s, 0) == {(LOC_FARM, 1): 1, (LOC_COUNCIL, 1): 3}
    assert v(s, "time")[0] == 0 and V.current_player(s) == 1


def test_harvest_needs_a_farmyard_member():
    """§4.1: with no member on the farmyard the harvest is not allowed (only decline: applied)."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_CRAFT, 1, 4)
    give(s, 0, goods={"ox": 1, "plow": 1})
    s = _take(s, "harvest")
    assert v(s, "grain")[0] == 0 and V.current_player(s) == 1


@pytest.mark.parametrize("held,gain", [(4, 1), (3, 2), (5, None)])
def test_harvest_capped_by_the_farmyard_limit(held, gain):
    """§4.1 grain limit 5, ED-6: extra grain is not taken; at 5 the harvest is void and not
    offered (ED-3), so the turn ends after the cube."""
    s = _s()
    give(s, 0, grain=held, goods={"ox": 1, "plow": 1})
    s = _take(s, "harvest")
    if gain is None:
        assert V.current_player(s) == 1 and v(s, "grain")[0] == 5
        return
    s = act(s, "harvest")
    assert v(s, "grain")[0] == held + gain
    assert v(s, "supply_grain")[0] == 20 - held - gain


def test_harvest_capped_by_the_supply_ed6():
    """ED-6 / §1 supply limits: with 12 grain in the game (SUPPLY_GRAIN=12) and 10 on other
    farmyards, an ox + plow harvest gains the 2 left."""
    try:
        V.load_rules_data(tables.rules_with(SUPPLY_GRAIN=12))
        s = _s()
        give(s, 1, grain=5)
        give(s, 2, grain=5)
        give(s, 0, goods={"ox": 1, "plow": 1})
        s = _take(s, "harvest")
        s = act(s, "harvest")
        assert v(s, "grain")[0] == 2 and v(s, "supply_grain")[0] == 0
        assert not V.check_invariants(s)
    finally:
        V.load_rules_data()


def test_birth_takes_the_lowest_unborn_generation():
    """§4.2 birth, ED-22: the lowest-numbered unborn member comes (one "2", two "3", two "4" left:
    the "2"); no time cost."""
    s = _s()
    move(s, 0, LOC_UNBORN, LOC_FARM, 2, 2)
    assert list(v(s, "members")[0, LOC_UNBORN]) == [0, 1, 2, 2]
    s = _take(s, "family")
    assert legal(s) == {("done", ()), ("birth", ())}
    s = act(s, "birth")
    assert list(v(s, "members")[0, LOC_UNBORN]) == [0, 0, 2, 2]
    assert list(v(s, "members")[0, LOC_FARM]) == [4, 3, 0, 0]
    assert v(s, "time")[0] == 0 and V.current_player(s) == 1
    # next birth of player 0 gives a "3"
    s = _take(s, "family")
    s = act(s, "birth")
    assert list(v(s, "members")[0, LOC_UNBORN]) == [0, 0, 1, 2]


def test_birth_impossible_when_none_unborn():
    """§4.2: no unborn member left: no birth (and nothing to recall: the turn ends)."""
    s = _s()
    for g, k in ((2, 3), (3, 2), (4, 2)):
        move(s, 0, LOC_UNBORN, LOC_FARM, g, k)
    s = _take(s, "family")
    assert V.current_player(s) == 1
    assert list(v(s, "members")[0, LOC_FARM]) == [4, 3, 2, 2]


def test_recall_options_are_board_members_by_location_and_generation_ed4_ed22():
    """§4.2 recall, ED-4, ED-22: one option per (board location, generation) holding a member;
    two members of one (location, generation) are one option; the black bag is not the board."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_CRAFT + 2, 1, 2)  # two at the office
    move(s, 0, LOC_FARM, LOC_BAG, 1, 2)
    move(s, 0, LOC_UNBORN, LOC_COUNCIL + 1, 2)
    move(s, 0, LOC_UNBORN, LOC_CITY + CITY["C"], 2)
    move(s, 0, LOC_UNBORN, LOC_WINDOW, 3)
    v(s, "markers")[0, CITY["C"]] = 1
    v(s, "markers")[0, CITY["A"]] = 1
    s = _take(s, "family")
    assert legal(s) == {
        ("done", ()),
        ("birth", ()),
        ("recall", (recall_index(LOC_CRAFT + 2), 0)),
        ("recall", (recall_index(LOC_COUNCIL + 1), 1)),
        ("recall", (recall_index(LOC_CITY + CITY["C"]), 1)),
        ("recall", (recall_index(LOC_WINDOW), 2)),
    }
    s = act(s, "recall", recall_index(LOC_CITY + CITY["C"]), 1)
    assert where(s, 0) == {
        (LOC_CRAFT + 2, 1): 2,
        (LOC_BAG, 1): 2,
        (LOC_COUNCIL + 1, 2): 1,
        (LOC_FARM, 2): 1,
        (LOC_WINDOW, 3): 1,
    }
    assert list(v(s, "markers")[0, :3]) == [1, 0, 1]  # §4.2: the city markers stay
    assert v(s, "time")[0] == 0 and V.current_player(s) == 1


def test_recall_from_a_church_window():
    """§4.2 [R]: recall also works from a church window."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_WINDOW + 3, 1, 4)
    for g, k in ((2, 3), (3, 2), (4, 2)):
        move(s, 0, LOC_UNBORN, LOC_BAG, g, k)
    s = _take(s, "family")  # the only option besides declining: a forced choice is still a choice
    assert legal(s) == {("done", ()), ("recall", (recall_index(LOC_WINDOW + 3), 0))}
    s = act(s, "recall", recall_index(LOC_WINDOW + 3), 0)
    assert where(s, 0)[(LOC_FARM, 1)] == 1 and where(s, 0)[(LOC_WINDOW + 3, 1)] == 3
