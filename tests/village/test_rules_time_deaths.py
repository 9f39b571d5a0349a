"""Rules §3.3 (time), §3.4 (life track and the bridge), §3.5 (who dies); ED-8, ED-15, ED-16."""

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
    SECTION,
    SPACE,
    V,
    act,
    bury_as,
    clear_player,
    give,
    legal,
    move,
    new,
    set_board,
    set_market,
    set_time,
    v,
    visible_index,
    where,
)

from village_env import tables
from village_env.layout import (
    LOC_CHRONICLE,
    PH_CHOOSE,
    PH_CRAFT_PRODUCE,
    PH_DEATH,
    PH_MARKET,
    PH_TURN,
)


def _s(n=3):
    s = new(n, 0)
    for p in range(n):
        clear_player(s, p)
    return s


def die(loc):
    return ("die", (visible_index(loc),))


def test_time_costs_add_up_on_the_track():
    """§3.3: every hourglass moves the marker one space: plague 2, wainwright placement 2 and
    production 2 -> 6 in one turn; no bridge before 10."""
    s = _s()
    set_board(s, {"crafts": {"plague": 1, "pink": 1}, "church": {"green": 2}})
    s = act(s, "take", SPACE["crafts"], COL["plague"])
    assert v(s, "time")[0] == 2
    s = act(s, "craft_place", 0, 0)  # wainwright, generation 1
    assert v(s, "time")[0] == 4 and v(s, "phase")[0] == PH_CRAFT_PRODUCE
    s = act(s, "craft_produce", 4)  # a wagon
    assert v(s, "time")[0] == 6 and v(s, "goods")[0, 4] == 1
    assert V.current_player(s) == 1 and v(s, "chron_used").sum() == 0


@pytest.mark.parametrize(
    "t0,deaths",
    [
        (7, 0),
        (8, 1),
        (9, 1),
        (10, 0),
        (17, 0),
        (18, 1),
        (19, 1),
        (128, 1),
        (129, 1),
        (130, 0),  # ED-8: time is unbounded, the lap keeps repeating
    ],
)
def test_a_death_each_time_total_time_passes_a_multiple_of_10(t0, deaths):
    """§3.4: L = 10; a payment of n from T causes floor((T+n)/10) - floor(T/10) crossings,
    each one death (resolved at the end of the turn, ED-15)."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_BAG, 1, 3)  # one visible member: no choice, the death is applied
    set_time(s, 0, t0)
    set_board(s, {"church": {"plague": 1, "pink": 1}, "harvest": {"green": 2}})
    s = act(s, "take", SPACE["church"], COL["plague"])
    assert v(s, "time")[0] == t0 + 2
    assert v(s, "deaths_end")[0] == deaths and v(s, "phase")[0] == PH_CHOOSE
    s = act(s, "done")
    assert v(s, "deaths_end")[0] == 0
    assert v(s, "members")[0, LOC_CHRONICLE, 0] == deaths
    assert v(s, "chron_used")[SECTION["farmyard"]] == deaths
    assert v(s, "members")[0, LOC_FARM, 0] == 1 - deaths
    assert V.current_player(s) == 1


def test_death_waits_for_end_of_turn_and_takes_the_new_job_ed15_ed16():
    """§3.4 'finish your whole action first', ED-15, ED-16: the plague crossing waits; the member
    placed on the wainwright this turn may die there, counting as Crafts; owner chooses."""
    s = _s()
    set_time(s, 0, 9)
    set_board(s, {"crafts": {"plague": 1, "pink": 1}, "church": {"green": 2}})
    s = act(s, "take", SPACE["crafts"], COL["plague"])
    assert v(s, "time")[0] == 11 and v(s, "deaths_end")[0] == 1
    s = act(s, "craft_place", 0, 0)
    s = act(s, "craft_produce", 4)
    assert v(s, "time")[0] == 15 and v(s, "goods")[0, 4] == 1
    assert v(s, "phase")[0] == PH_DEATH and V.current_player(s) == 0
    assert legal(s) == {die(LOC_FARM), die(LOC_CRAFT + 0)}
    s = act(s, "die", visible_index(LOC_CRAFT + 0))
    assert where(s, 0) == {(LOC_FARM, 1): 3, (LOC_CHRONICLE, 1): 1}
    assert list(v(s, "chron_used")) == [0, 1, 0, 0, 0]  # council, crafts, travel, church, farm
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN


def test_lowest_visible_generation_dies_owner_chooses_among_ties():
    """§3.5: only visible members (farmyard, board) can die, one of the lowest generation; the
    owner picks among them: exactly the (location) options holding that generation."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_BAG, 1)  # gen 1 in the black bag: not visible
    bury_as(s, 0, 1, "council")
    bury_as(s, 0, 1, "crafts")
    bury_as(s, 0, 1, "travel")
    move(s, 0, LOC_UNBORN, LOC_FARM, 2)
    move(s, 0, LOC_UNBORN, LOC_COUNCIL + 1, 2)
    move(s, 0, LOC_UNBORN, LOC_CITY + CITY["C"], 2)
    move(s, 0, LOC_UNBORN, LOC_FARM, 3)
    v(s, "markers")[0, CITY["C"]] = 1
    set_time(s, 0, 8)
    set_board(s, {"harvest": {"plague": 1, "pink": 1}, "church": {"green": 2}})
    s = act(s, "take", SPACE["harvest"], COL["plague"])
    s = act(s, "done")
    assert legal(s) == {die(LOC_FARM), die(LOC_COUNCIL + 1), die(LOC_CITY + CITY["C"])}
    s = act(s, "die", visible_index(LOC_CITY + CITY["C"]))
    assert v(s, "members")[0, LOC_CHRONICLE].tolist() == [3, 1, 0, 0]
    assert v(s, "chron_used")[SECTION["travel"]] == 2
    assert v(s, "markers")[0, CITY["C"]] == 1  # §3.5: travel markers stay on the map
    assert where(s, 0)[(LOC_BAG, 1)] == 1 and (LOC_CITY + CITY["C"], 2) not in where(s, 0)


def test_death_with_no_visible_member_is_lost_not_saved_ed16():
    """§3.5, ED-16: nobody visible -> nobody dies and the death is not kept for later."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_BAG, 1, 4)
    set_time(s, 0, 9)
    set_board(
        s, {"harvest": {"plague": 1, "pink": 1}, "family": {"green": 2}, "church": {"brown": 2}}
    )
    before = where(s, 0)
    s = act(s, "take", SPACE["harvest"], COL["plague"])  # no farmyard member: no harvest
    assert V.current_player(s) == 1 and v(s, "time")[0] == 11
    assert v(s, "deaths_end")[0] == 0 and where(s, 0) == before
    s = act(s, "take", SPACE["church"], COL["brown"])
    s = act(s, "done")
    s = act(s, "take", SPACE["church"], COL["brown"])
    s = act(s, "done")
    # player 0 again: a birth makes a visible member; the lost death does not come back
    s = act(s, "take", SPACE["family"], COL["green"])
    s = act(s, "birth")
    assert where(s, 0) == {(LOC_BAG, 1): 4, (LOC_FARM, 2): 1}
    assert v(s, "chron_used").sum() == 0 and V.current_player(s) == 1


def test_two_crossings_in_one_payment_two_deaths_one_at_a_time():
    """§3.4 [R], ED-16: one payment crossing the bridge twice kills two; each death takes a
    lowest-generation member visible at that moment (PLAGUE_TIME=12 makes such a payment)."""
    try:
        V.load_rules_data(tables.rules_with(PLAGUE_TIME=12))
        s = _s()
        move(s, 0, LOC_FARM, LOC_COUNCIL, 1)
        move(s, 0, LOC_FARM, LOC_BAG, 1, 2)
        move(s, 0, LOC_UNBORN, LOC_FARM, 2)
        set_time(s, 0, 9)
        set_board(s, {"harvest": {"plague": 1, "pink": 1}, "church": {"green": 2}})
        s = act(s, "take", SPACE["harvest"], COL["plague"])
        assert v(s, "time")[0] == 21 and v(s, "deaths_end")[0] == 2
        s = act(s, "done")
        assert v(s, "phase")[0] == PH_DEATH
        assert legal(s) == {die(LOC_FARM), die(LOC_COUNCIL)}
        s = act(s, "die", visible_index(LOC_FARM))
        # the second death: the only generation-1 member visible now is the councillor (forced)
        assert list(v(s, "chron_used")) == [1, 0, 0, 0, 1]
        assert where(s, 0) == {(LOC_FARM, 2): 1, (LOC_BAG, 1): 2, (LOC_CHRONICLE, 1): 2}
        assert V.current_player(s) == 1 and v(s, "deaths_end")[0] == 0
    finally:
        V.load_rules_data()


def _market_scenario(opener_time=0):
    """3 players; stalls T3 (2 grain), T4 (3 grain), T5 (horse), T6 (ox); queue T7..T11."""
    s = _s()
    set_market(s, stalls=[2, 3, 4, 5], queue=[6, 7, 8, 9, 10])
    set_time(s, 0, opener_time)
    set_board(s, {"market": {"green": 1, "plague": 1}, "church": {"pink": 2}})
    return s


def test_market_day_sale_crossing_resolves_at_once_ed15():
    """§3.4 exception, ED-15: a crossing caused by a market-day payment (here player 1's paid
    sale: 1 green + 1 time) is resolved right after that sale, before the next market go."""
    s = _market_scenario()
    move(s, 1, LOC_FARM, LOC_COUNCIL, 1)
    set_time(s, 1, 9)
    give(s, 1, grain=2, cubes={"green": 1})
    give(s, 2, grain=3, cubes={"green": 1})
    s = act(s, "take", SPACE["market"], COL["green"])  # opener 0 cannot sell: passes (ED-3)
    assert v(s, "phase")[0] == PH_MARKET and V.current_player(s) == 1
    assert legal(s) == {("done", ()), ("serve", (0,))}
    s = act(s, "serve", 0)
    assert v(s, "time")[1] == 10 and v(s, "grain")[1] == 0 and v(s, "cubes")[1, 3] == 0
    assert v(s, "phase")[0] == PH_DEATH and V.current_player(s) == 1
    assert v(s, "mkt_active")[0] == 1
    assert legal(s) == {die(LOC_FARM), die(LOC_COUNCIL)}
    s = act(s, "die", visible_index(LOC_COUNCIL))
    assert v(s, "chron_used")[SECTION["council"]] == 1
    # the market day goes on: player 2's go
    assert v(s, "phase")[0] == PH_MARKET and V.current_player(s) == 2
    assert legal(s) == {("done", ()), ("serve", (1,))}


def test_opener_paid_sale_crossing_also_resolves_at_once_ed15():
    """ED-15: the opener's second (paid) sale crossing the bridge resolves right after it."""
    s = _market_scenario(opener_time=9)
    move(s, 0, LOC_FARM, LOC_COUNCIL, 1)
    give(s, 0, grain=5, cubes={"green": 1})
    s = act(s, "take", SPACE["market"], COL["green"])
    s = act(s, "serve", 0)  # free: T3, 2 grain
    assert v(s, "time")[0] == 9
    # players 1 and 2 cannot sell and pass; the opener's second go
    assert V.current_player(s) == 0 and v(s, "phase")[0] == PH_MARKET
    s = act(s, "serve", 1)  # T4: 3 grain + 1 green + 1 time -> 10
    assert v(s, "time")[0] == 10 and v(s, "phase")[0] == PH_DEATH and v(s, "mkt_active")[0]
    s = act(s, "die", visible_index(LOC_FARM))
    assert v(s, "chron_used")[SECTION["farmyard"]] == 1
    # nothing left to sell for anyone: the market day ends, then the turn
    assert v(s, "mkt_active")[0] == 0 and V.current_player(s) == 1


def test_plague_from_market_waits_until_after_market_day_and_refill_ed15():
    """ED-15: a plague cube from the Market space is taken before market day opens; its
    crossing waits for the end of the turn, after the market day and its refill."""
    s = _market_scenario(opener_time=9)
    move(s, 0, LOC_FARM, LOC_COUNCIL, 1)
    give(s, 0, grain=2)
    s = act(s, "take", SPACE["market"], COL["plague"])
    assert v(s, "time")[0] == 11 and v(s, "deaths_end")[0] == 1
    assert v(s, "phase")[0] == PH_MARKET and V.current_player(s) == 0
    s = act(s, "serve", 0)  # free sale of T3; everyone else passes, so does the opener
    assert v(s, "mkt_active")[0] == 0
    assert list(v(s, "stalls")[:4]) == [6, 3, 4, 5]  # refilled from the waiting line first
    assert list(v(s, "queue")[:4]) == [7, 8, 9, 10] and v(s, "queue")[4] >= 0
    assert v(s, "phase")[0] == PH_DEATH and V.current_player(s) == 0
    assert legal(s) == {die(LOC_FARM), die(LOC_COUNCIL)}
    s = act(s, "die", visible_index(LOC_COUNCIL))
    assert V.current_player(s) == 1 and v(s, "deaths_end")[0] == 0


def test_recalled_member_dies_as_farmer_ed16():
    """ED-16: a member recalled earlier in the turn dies in its new place (the farmyard)."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_BAG, 1, 3)
    move(s, 0, LOC_FARM, LOC_COUNCIL + 2, 1)
    move(s, 0, LOC_UNBORN, LOC_FARM, 2)
    set_time(s, 0, 8)
    set_board(s, {"family": {"plague": 1, "pink": 1}, "church": {"green": 2}})
    s = act(s, "take", SPACE["family"], COL["plague"])
    assert legal(s) == {("done", ()), ("birth", ()), ("recall", (6, 0))}
    s = act(s, "recall", 6, 0)  # council level 3, generation 1
    # only one generation-1 member is visible (on the farmyard): the death is forced
    assert list(v(s, "chron_used")) == [0, 0, 0, 0, 1]
    assert where(s, 0) == {(LOC_BAG, 1): 3, (LOC_CHRONICLE, 1): 1, (LOC_FARM, 2): 1}
    assert V.current_player(s) == 1


def test_member_put_in_the_bag_this_turn_cannot_die_ed16():
    """ED-16, §3.5: a member sent into the black bag this turn is not visible; the lowest
    visible generation (2) dies instead."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_BAG, 1, 3)
    move(s, 0, LOC_UNBORN, LOC_FARM, 2)
    move(s, 0, LOC_UNBORN, LOC_COUNCIL, 2)
    give(s, 0, cubes={"brown": 1})
    set_time(s, 0, 8)
    set_board(s, {"church": {"plague": 1, "pink": 1}, "harvest": {"green": 2}})
    s = act(s, "take", SPACE["church"], COL["plague"])
    s = act(s, "church", 0, 0)  # generation 1 into the bag, paying the brown cube
    assert v(s, "phase")[0] == PH_DEATH
    assert legal(s) == {die(LOC_FARM), die(LOC_COUNCIL)}
    s = act(s, "die", visible_index(LOC_FARM))
    assert where(s, 0) == {(LOC_BAG, 1): 4, (LOC_COUNCIL, 2): 1, (LOC_CHRONICLE, 2): 1}


def test_second_death_of_a_payment_takes_the_next_lowest_generation_ed16():
    """ED-16: with one generation-1 member visible, the first of two deaths takes it (forced);
    the second is chosen among the generation-2 members visible then."""
    try:
        V.load_rules_data(tables.rules_with(PLAGUE_TIME=12))
        s = _s()
        move(s, 0, LOC_FARM, LOC_BAG, 1, 3)
        move(s, 0, LOC_UNBORN, LOC_FARM, 2)
        move(s, 0, LOC_UNBORN, LOC_CRAFT + 3, 2)
        set_time(s, 0, 9)
        set_board(s, {"church": {"plague": 1, "pink": 1}, "harvest": {"green": 2}})
        s = act(s, "take", SPACE["church"], COL["plague"])
        s = act(s, "done")
        assert v(s, "phase")[0] == PH_DEATH and v(s, "deaths_end")[0] == 1
        assert v(s, "members")[0, LOC_CHRONICLE].tolist() == [1, 0, 0, 0]
        assert legal(s) == {die(LOC_FARM), die(LOC_CRAFT + 3)}
        s = act(s, "die", visible_index(LOC_CRAFT + 3))
        assert v(s, "members")[0, LOC_CHRONICLE].tolist() == [1, 1, 0, 0]
        assert list(v(s, "chron_used")) == [0, 1, 0, 0, 1]
        assert V.current_player(s) == 1
    finally:
        V.load_rules_data()
