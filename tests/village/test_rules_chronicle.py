"""Rules §3.6 (village chronicle and anonymous graves), §2 step 7 (covered spaces), A.6;
ED-17 (placement) and ED-18 (the end triggers once)."""

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
    set_time,
    v,
    visible_index,
    where,
)

from village_env.layout import LOC_CHRONICLE, LOC_GRAVE, LOC_REMOVED, PH_CHOOSE, PH_TURN

CAP = {2: 2, 3: 3, 4: 4}  # chronicle spaces per section in play (A.6, provisional)
GRAVES = {2: 4, 3: 6, 4: 8}


def _s(n=3):
    s = new(n, 0)
    for p in range(n):
        clear_player(s, p)
    return s


def _prefill(s, counts, players):
    """Bury unborn members (gen 2..4) of `players`, round robin: {section or 'grave': k}."""
    m = v(s, "members")
    i = 0
    for section, k in counts.items():
        for _ in range(k):
            for _try in range(len(players)):
                p = players[i % len(players)]
                i += 1
                gens = [g for g in (2, 3, 4) if m[p, LOC_UNBORN, g - 1] > 0]
                if gens:
                    bury_as(s, p, gens[0], section)
                    break
            else:
                raise AssertionError("not enough unborn members to prefill")
    return s


def _die_by_plague(s, p, t0=8):
    """p takes a plague cube from the harvest space at time t0 (crossing at 10) and declines."""
    set_time(s, p, t0)
    set_board(s, {"harvest": {"plague": 2, "pink": 1}, "church": {"green": 2, "brown": 1}})
    v(s, "turn_player")[0] = p
    v(s, "actor")[0] = p
    s = act(s, "take", SPACE["harvest"], COL["plague"])
    if v(s, "phase")[0] == PH_CHOOSE and v(s, "turn_player")[0] == p:
        s = act(s, "done")
    return s


@pytest.mark.parametrize(
    "loc,section",
    [
        (LOC_FARM, "farmyard"),
        (LOC_CRAFT + 1, "crafts"),  # stables
        (LOC_COUNCIL + 3, "council"),  # level 4
        (LOC_CITY + CITY["H"], "travel"),
        (LOC_WINDOW + 2, "church"),  # W3
    ],
)
def test_dead_member_goes_to_the_section_of_its_occupation(loc, section):
    """§3.6: council / crafts / travel / church / farmyard by where the member stood."""
    s = _s()
    move(s, 0, LOC_FARM, LOC_BAG, 1, 3)
    if loc != LOC_FARM:
        move(s, 0, LOC_FARM, loc, 1)
    s = _die_by_plague(s, 0)
    expect = [0] * 5
    expect[SECTION[section]] = 1
    assert list(v(s, "chron_used")) == expect
    assert where(s, 0) == {(LOC_BAG, 1): 3, (LOC_CHRONICLE, 1): 1}
    assert v(s, "graves_used")[0] == 0 and V.current_player(s) == 1


def test_full_section_sends_the_dead_to_a_grave_ed17():
    """§3.6, ED-17: no free space in the section -> a free anonymous grave; the owner chooses
    only who dies, not where it goes (other sections' free spaces do not matter)."""
    s = _s(2)
    _prefill(s, {"farmyard": 2}, [1])
    move(s, 0, LOC_FARM, LOC_COUNCIL, 1)
    s = _die_by_plague(s, 0)
    assert legal(s) == {("die", (visible_index(LOC_FARM),)), ("die", (visible_index(LOC_COUNCIL),))}
    s = act(s, "die", visible_index(LOC_FARM))
    assert v(s, "graves_used")[0] == 1 and v(s, "members")[0, LOC_GRAVE, 0] == 1
    assert list(v(s, "chron_used")) == [0, 0, 0, 0, 2]
    assert V.current_player(s) == 1 and v(s, "triggered")[0] == 0


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("filled_offset,to_grave", [(1, False), (0, True)])
def test_covered_chronicle_spaces_per_player_count(n, filled_offset, to_grave):
    """§2 step 7, A.6: 2/3/4 spaces per section in play for 2/3/4 players (the "3"/"4" ones
    covered): with cap-1 used a farmer still fits; with cap used it goes to a grave."""
    s = _s(n)
    others = list(range(1, n))
    _prefill(s, {"farmyard": CAP[n] - filled_offset}, others)
    s = _die_by_plague(s, 0)
    assert v(s, "chron_used")[SECTION["farmyard"]] == CAP[n]
    assert v(s, "graves_used")[0] == (1 if to_grave else 0)
    assert v(s, "members")[0, LOC_GRAVE if to_grave else LOC_CHRONICLE, 0] == 1
    assert v(s, "triggered")[0] == 0


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("used_offset,triggers", [(2, False), (1, True)])
def test_graves_in_play_per_player_count_and_trigger(n, used_offset, triggers):
    """§2 step 7, A.6: 4/6/8 graves in play; placing on the last free grave triggers the end
    (§3.6, ED-18); one before it does not."""
    s = _s(n)
    _prefill(s, {"farmyard": CAP[n], "grave": GRAVES[n] - used_offset}, list(range(1, n)))
    s = _die_by_plague(s, 0)
    assert v(s, "graves_used")[0] == GRAVES[n] - used_offset + 1
    assert v(s, "triggered")[0] == int(triggers)
    if triggers:
        assert v(s, "trigger_player")[0] == 0 and v(s, "trigger_in_market")[0] == 0
        assert list(v(s, "final_order")[: n - 1]) == list(range(1, n))


def test_filling_one_section_does_not_trigger_but_the_whole_chronicle_does():
    """§3.6: the trigger is the last free space of the WHOLE chronicle (all five sections)."""
    s = _s(2)
    _prefill(s, {"farmyard": 1}, [0, 1])
    s = _die_by_plague(s, 0)
    assert v(s, "chron_used")[SECTION["farmyard"]] == 2 and v(s, "triggered")[0] == 0
    t = _s(2)
    _prefill(t, {"council": 2, "crafts": 2, "travel": 2, "church": 2, "farmyard": 1}, [0, 1])
    t = _die_by_plague(t, 1)
    assert v(t, "chron_used").sum() == 10
    assert v(t, "triggered")[0] == 1 and v(t, "trigger_player")[0] == 1
    assert list(v(t, "final_order")[:1]) == [0] and V.current_player(t) == 0


def test_end_triggers_once_and_later_placements_change_nothing_ed18():
    """ED-18: player 0 fills the last grave (trigger); in player 1's final turn a death fills
    the last chronicle space: no second trigger, the final order stays."""
    s = _s(2)
    _prefill(
        s, {"farmyard": 2, "grave": 3, "council": 1, "crafts": 2, "travel": 2, "church": 2}, [0, 1]
    )
    move(s, 0, LOC_FARM, LOC_BAG, 1, 3)
    move(s, 1, LOC_FARM, LOC_BAG, 1, 3)
    move(s, 1, LOC_FARM, LOC_COUNCIL, 1)
    s = _die_by_plague(s, 0)
    assert v(s, "graves_used")[0] == 4 and v(s, "triggered")[0] == 1
    assert v(s, "trigger_player")[0] == 0
    assert v(s, "in_final")[0] == 1 and v(s, "final_n")[0] == 1
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN
    set_time(s, 1, 8)
    s = act(s, "take", SPACE["harvest"], COL["plague"])
    # player 1's councillor died into the last chronicle space; the final Mass then ended it
    assert v(s, "chron_used").sum() == 10 and v(s, "members")[1, LOC_CHRONICLE, 0] == 1
    assert v(s, "trigger_player")[0] == 0 and v(s, "game_over")[0] == 1
    assert v(s, "final_n")[0] == 1 and v(s, "final_order")[0] == 1


def test_after_the_trigger_a_death_with_no_space_is_removed_ed17():
    """§3.6, §5.1 step 4, ED-17: after the trigger a member with no free space or grave in its
    section leaves the game."""
    s = _s(2)
    _prefill(s, {"farmyard": 2, "grave": 3}, [0, 1])
    move(s, 0, LOC_FARM, LOC_BAG, 1, 3)
    move(s, 1, LOC_FARM, LOC_BAG, 1, 3)
    s = _die_by_plague(s, 0)  # the last grave: trigger
    assert v(s, "triggered")[0] == 1 and V.current_player(s) == 1
    set_time(s, 1, 8)
    s = act(s, "take", SPACE["harvest"], COL["plague"])
    s = act(s, "done")  # decline the harvest; the farmer dies: farmyard section and graves full
    assert v(s, "members")[1, LOC_REMOVED, 0] == 1
    assert v(s, "graves_used")[0] == 4 and v(s, "chron_used")[SECTION["farmyard"]] == 2
    assert v(s, "game_over")[0] == 1 and not V.check_invariants(s)


def test_trigger_on_the_last_cube_gives_free_final_actions_ed13():
    """ED-13 (with ED-31): the trigger comes in the turn that took the last cube; the other
    player's final turn starts with an empty board, so it is a free action: any of the 7
    actions with a legal option, or decline; no cube, no Well."""
    s = _s(2)
    _prefill(s, {"farmyard": 2, "grave": 3}, [0, 1])
    move(s, 0, LOC_FARM, LOC_BAG, 1, 3)
    give(s, 1, cubes={"green": 3}, coins=1)
    set_time(s, 0, 8)
    set_board(s, {"harvest": {"plague": 1}})
    s = act(s, "take", SPACE["harvest"], COL["plague"])  # the last cube on the board
    s = act(s, "done")  # no harvest; the farmer dies into the last grave
    assert v(s, "triggered")[0] == 1 and v(s, "board").sum() == 0
    assert V.current_player(s) == 1 and v(s, "free_action")[0] == 1
    assert v(s, "phase")[0] == PH_CHOOSE and v(s, "allowed")[0] == -1
    names = {name for name, _ in legal(s)}
    assert names == {"done", "harvest", "birth", "craft_place", "market", "council_enter", "church"}
    s = act(s, "harvest")
    assert v(s, "grain")[1] == 2 and v(s, "game_over")[0] == 1
    assert v(s, "cubes")[1].tolist() == [0, 0, 0, 3]  # no Well cost was paid
