"""Rules §3.2 (a turn), §4.1 harvest: a first scenario to show the helpers at work.
Also ED-2, ED-3, ED-5, ED-11, ED-12 and ED-14 (turn-level engine decisions)."""

import pytest
from village.helpers import (
    COL,
    GOOD,
    LOC_BAG,
    LOC_COUNCIL,
    LOC_FARM,
    SPACE,
    V,
    act,
    clear_player,
    give,
    legal,
    legal_names,
    move,
    new,
    set_bag,
    set_board,
    set_market,
    set_time,
    v,
    where,
)

from village_env.layout import PH_CHOOSE, PH_MARKET, PH_TURN


def test_take_harvest_cube_then_harvest_with_horse_and_plow():
    s = new(3, 0)
    clear_player(s, 0)
    set_board(s, {"harvest": {"brown": 1}, "church": {"pink": 2, "orange": 1}})
    give(s, 0, goods={"horse": 1, "plow": 1}, grain=1)
    s = act(s, "take", 0, COL["brown"])
    assert v(s, "cubes")[0, COL["brown"]] == 1
    assert legal(s) == {("done", ()), ("harvest", ())}
    s = act(s, "harvest")
    assert v(s, "grain")[0] == 4  # 1 + 3 (horse + plow), rules §4.1
    assert V.current_player(s) == 1 and "take" in legal_names(s)
    assert v(s, "goods")[0, GOOD["horse"]] == 1  # goods are not used up


# --- §3.2 a turn, ED-2, ED-3, ED-5, ED-11, ED-12, ED-14 ----------------------------------------


def _board3():
    s = new(3, 0)
    for p in range(3):
        clear_player(s, p)
    return s


def test_take_options_are_exactly_the_cubes_on_the_board_ed11():
    """§3.2 (a), ED-11: take = (space, kind present there), plague included; no Well without 3
    of a colour (cubes + coins)."""
    s = _board3()
    set_board(
        s, {"harvest": {"brown": 1, "plague": 1}, "church": {"pink": 2}, "market": {"green": 1}}
    )
    assert legal(s) == {
        ("take", (0, COL["brown"])),
        ("take", (0, COL["plague"])),
        ("take", (6, COL["pink"])),
        ("take", (3, COL["green"])),
    }
    give(s, 0, cubes={"pink": 2}, coins=1)  # 2 pink + a coin joker = 3: Well in pink only
    assert {x for x in legal(s) if x[0] == "well"} == {("well", (COL["pink"],))}


def test_influence_cube_goes_to_farmyard_without_limit():
    """§3.2 (a): an influence cube goes onto your farmyard; there is no limit on cubes."""
    s = _board3()
    set_board(s, {})
    set_bag(s, {})
    give(s, 0, cubes={"orange": 17})
    set_board(s, {"crafts": {"orange": 1, "pink": 1}})
    s = act(s, "take", SPACE["crafts"], COL["orange"])
    assert v(s, "cubes")[0, COL["orange"]] == 18
    assert v(s, "board")[SPACE["crafts"]].sum() == 1
    assert v(s, "phase")[0] == PH_CHOOSE and V.current_player(s) == 0


def test_plague_cube_returns_to_supply_and_costs_two_time():
    """§3.2 (a), §3.3: a plague cube goes back to the supply at once and costs 2 time."""
    s = _board3()
    set_board(s, {"harvest": {"plague": 2, "brown": 1}})
    sup = v(s, "supply_cubes")[4]
    s = act(s, "take", SPACE["harvest"], COL["plague"])
    assert v(s, "time")[0] == 2
    assert v(s, "supply_cubes")[4] == sup + 1
    assert v(s, "cubes")[0].sum() == 0
    assert v(s, "board")[SPACE["harvest"]].tolist() == [1, 0, 0, 0, 1]


def test_action_after_cube_is_optional_and_only_that_space():
    """§3.2: after the cube you MAY perform that space's action; declining ends the turn."""
    s = _board3()
    set_board(s, {"family": {"green": 2}, "harvest": {"brown": 1}})
    s = act(s, "take", SPACE["family"], COL["green"])
    # family: birth (an unborn member remains) or decline; nothing on the board to recall
    assert legal(s) == {("done", ()), ("birth", ())}
    before = s.copy()
    s = act(s, "done")
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN
    assert where(s, 0) == where(before, 0) and v(s, "cubes")[0, COL["green"]] == 1


@pytest.mark.parametrize("kind", ["green", "plague"])
def test_market_cube_forces_market_day_ed11(kind):
    """§3.2 exception, ED-11: any cube from the Market space, plague included, opens market
    day at once (no decline option)."""
    s = _board3()
    set_board(s, {"market": {kind: 1}, "church": {"pink": 2}})
    give(s, 0, grain=2)
    give(s, 1, grain=2, cubes={"green": 1})
    set_market(s, stalls=[2, 3, 4, 5])  # T3 (2 grain) is servable by player 0
    s = act(s, "take", SPACE["market"], COL[kind])
    assert v(s, "phase")[0] == PH_MARKET and v(s, "mkt_active")[0] == 1
    assert v(s, "mkt_opener")[0] == 0 and V.current_player(s) == 0
    assert legal(s) == {("done", ()), ("serve", (0,))}
    assert v(s, "time")[0] == (2 if kind == "plague" else 0)


def test_single_option_is_applied_and_none_is_skipped_ed3():
    """ED-3: after a Family cube with no unborn and nobody on the board the only option is to
    decline: it is applied at once and the next player is on turn."""
    s = _board3()
    for g, k in ((2, 3), (3, 2), (4, 2)):
        move(s, 0, 0, LOC_FARM, g, k)  # everyone born: no birth left
    set_board(s, {"family": {"brown": 1, "pink": 1}, "church": {"green": 1}})
    s = act(s, "take", SPACE["family"], COL["brown"])
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN
    assert v(s, "cubes")[0, COL["brown"]] == 1


def test_void_harvest_is_not_offered_ed3():
    """ED-3: a harvest that would gain no grain (farmyard at the cap of 5) equals declining."""
    s = _board3()
    give(s, 0, grain=5)
    set_board(s, {"harvest": {"brown": 2}, "church": {"green": 1}})
    s = act(s, "take", SPACE["harvest"], COL["brown"])
    assert V.current_player(s) == 1 and v(s, "grain")[0] == 5


def test_one_player_decides_at_a_time_ed2():
    """ED-2: every state has exactly one actor, who owns every legal action (here through a
    market day where goes pass seat by seat)."""
    s = _board3()
    set_market(s, stalls=[2, 3, 4, 5])
    for p in range(3):
        give(s, p, grain=5, cubes={"green": 2}, goods={"horse": 1, "ox": 1})
    set_board(s, {"market": {"green": 1}, "church": {"pink": 2}})
    s = act(s, "take", SPACE["market"], COL["green"])
    seen = []
    while v(s, "mkt_active")[0]:
        seen.append(V.current_player(s))
        assert all(name in ("serve", "done") for name, _ in legal(s))
        opts = sorted(i for name, i in legal(s) if name == "serve")
        s = act(s, "serve", *opts[0]) if opts else act(s, "done")
    assert seen == [0, 1, 2, 0]
    assert list(v(s, "tile_owner")[2:6]) == [0, 1, 2, 0]


def test_no_farmyard_member_still_takes_turns_ed14():
    """ED-14: with nobody on the farmyard a player still takes cubes; harvest (needs a farmyard
    member) is missing, so the turn ends after the cube."""
    s = _board3()
    move(s, 0, LOC_FARM, LOC_COUNCIL, 1, 4)
    set_board(s, {"harvest": {"brown": 2}, "church": {"green": 1}})
    assert ("take", (0, COL["brown"])) in legal(s)
    s = act(s, "take", SPACE["harvest"], COL["brown"])
    assert V.current_player(s) == 1 and v(s, "cubes")[0, COL["brown"]] == 1


def test_no_visible_member_still_takes_turns_ed14():
    """ED-14: with every member in the black bag, the turn still offers every cube."""
    s = _board3()
    move(s, 0, LOC_FARM, LOC_BAG, 1, 4)
    set_board(s, {"harvest": {"brown": 2}, "church": {"green": 1}})
    assert legal(s) == {("take", (0, COL["brown"])), ("take", (6, COL["green"]))}
    set_time(s, 0, 9)
    s = act(s, "take", SPACE["church"], COL["green"])  # church needs a farmyard member: none
    assert V.current_player(s) == 1


def test_well_pays_three_then_any_action_or_none_ed12():
    """ED-12 / §4.10: pay 3 of the named colour (cubes first, coins for the rest), then any of
    the 7 actions with a legal option, or decline; the payment stands either way."""
    s = _board3()
    give(s, 0, cubes={"brown": 2}, coins=2, grain=5)
    set_board(s, {"church": {"green": 1, "pink": 1}})
    s = act(s, "well", COL["brown"])
    assert v(s, "cubes")[0, COL["brown"]] == 0 and v(s, "coins")[0] == 1
    names = legal_names(s)
    # harvest is void at 5 grain; family (birth), crafts, market, church are open; travel
    # (no wagon) and council (no green / scroll, 1 coin) are not
    assert names == {"done", "birth", "craft_place", "craft_buy", "mill", "market", "church"}
    assert v(s, "allowed")[0] == -1
    s = act(s, "done")
    assert V.current_player(s) == 1 and v(s, "board").sum() == 2
    assert v(s, "cubes")[0, COL["brown"]] == 0 and v(s, "coins")[0] == 1


def test_gains_cannot_pay_for_the_action_that_gives_them_ed5():
    """ED-5: a climb to council level 3 would give a scroll (privilege), but that scroll cannot
    pay the climb: with no scroll, green or coin the climb is not offered."""
    s = _board3()
    move(s, 0, LOC_FARM, LOC_COUNCIL + 1, 1)  # a member on level 2
    set_board(s, {"council": {"brown": 2}, "church": {"pink": 1}})
    s = act(s, "take", SPACE["council"], COL["brown"])
    assert legal(s) == {("done", ()), ("council_privilege", ())}
    give(s, 0, goods={"scroll": 1})
    assert ("council_climb", (1, 0, 1)) in legal(s)
