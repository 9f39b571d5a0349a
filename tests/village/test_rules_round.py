"""Rules §3.1 (round structure), ED-1 (clockwise order), ED-9 (seeding), ED-10 (round end)."""

import pytest
from village.helpers import (
    COL,
    LOC_COUNCIL,
    LOC_FARM,
    SPACE,
    V,
    act,
    clear_player,
    give,
    legal,
    move,
    new,
    set_bag,
    set_board,
    v,
    visible_index,
)

from village_env import tables
from village_env.layout import PH_CHOOSE, PH_DEATH, PH_TURN


def _end_round_by(s, p, colour="brown"):
    """p takes the last cube on the board (harvest, p at the grain cap: no option, ED-3), which
    ends the round; the Mass has no decision (nobody in the bag), so the next round starts."""
    give(s, p, grain=5 - int(v(s, "grain")[p]))
    set_board(s, {"harvest": {colour: 1}})
    v(s, "turn_player")[0] = p
    v(s, "actor")[0] = p
    return act(s, "take", SPACE["harvest"], COL[colour])


@pytest.mark.parametrize("holder", [-1, 0, 2])
def test_next_start_player_takes_over_and_marker_returns(holder):
    """§3.1 step 1: the holder of the next start player marker becomes start player and the
    marker goes back to the council chamber; without a holder the start player stays."""
    s = new(3, 1, start_player=1)
    v(s, "ns_holder")[0] = holder
    s = _end_round_by(s, 0)
    expect = 1 if holder < 0 else holder
    assert v(s, "round")[0] == 2
    assert v(s, "start_player")[0] == expect
    assert v(s, "ns_holder")[0] == -1  # back in the chamber: level 1 can take it again
    assert v(s, "phase")[0] == PH_TURN and V.current_player(s) == expect


def test_bag_refill_by_colour_capped_by_supply_and_all_plague():
    """§3.1 step 2: add the setup-card count of each colour (what the supply has if less) and
    every plague cube in the supply; leftovers in the bag stay. Step 3: 18 cubes seeded (2p)."""
    s = new(2, 4)
    # the supply keeps only 2 brown (players hold the rest); 3 pink left over in the bag
    clear_player(s, 0)
    clear_player(s, 1)
    set_board(s, {})
    set_bag(s, {"pink": 3, "plague": 2})
    give(s, 1, cubes={"brown": 16})
    assert list(v(s, "supply_cubes")) == [2, 15, 18, 18, 4]
    s = _end_round_by(s, 0, "green")  # the green cube taken leaves the supply: player 0 has it
    board, bag = v(s, "board"), v(s, "bag")
    got = board.sum(axis=0) + bag
    # brown: min(4, 2) = 2; pink: 3 left over + 4; orange, green: 4; plague: 2 + all 4 = 6
    assert list(got) == [2, 7, 4, 4, 6]
    assert list(v(s, "supply_cubes")) == [0, 11, 14, 13, 0]
    assert v(s, "cubes")[0, COL["green"]] == 1
    assert tuple(board.sum(axis=1)) == (3, 3, 3, 3, 2, 2, 2)  # 18 drawn, A.2 2p split
    assert bag.sum() == 23 - 18
    assert not V.check_invariants(s)


def test_all_plague_cubes_enter_the_bag_only_from_the_supply():
    """§3.1 step 2: plague cubes still in the bag are not doubled: the bag holds 6 in all."""
    s = new(4, 2)
    set_board(s, {})
    set_bag(s, {"plague": 6})
    s = _end_round_by(s, 3)
    assert v(s, "board")[:, 4].sum() + v(s, "bag")[4] == 6
    assert v(s, "supply_cubes")[4] == 0


@pytest.mark.parametrize(
    "refill,expect",
    [
        (0, (3, 3, 0, 0, 0, 0, 0)),  # only the 6 plague cubes: A and B filled, then the bag is dry
        (1, (3, 3, 3, 1, 0, 0, 0)),  # 4 + 6 = 10 cubes: A, B, C full, D gets the last one
    ],
)
def test_seeding_fallback_fills_spaces_in_board_order(refill, expect):
    """§3.1 step 3 engine fallback, ED-9: with a short bag, spaces A..G are filled in order until
    the bag is empty; all 6 plague cubes always reach the board then (at least one turn)."""
    rd = tables.rules_with(REFILL_PER_COLOUR={2: refill, 3: refill, 4: refill})
    try:
        V.load_rules_data(rd)
        s = new(2, 5)
        board = v(s, "board")
        assert tuple(board.sum(axis=1)) == expect
        assert v(s, "bag").sum() == 0
        assert board[:, 4].sum() == 6
        if refill == 0:
            assert legal(s) == {("take", (0, 4)), ("take", (1, 4))}
    finally:
        V.load_rules_data()
    assert V.RULES_DATA_HASH == tables.RULES_DATA_HASH


def test_seeding_draws_without_replacement_from_the_bag():
    """ED-9: round 2 puts on the board exactly what the bag loses: bag + board per kind is the
    round-1 content (less the brown cube player 0 took) plus the refill of 5 per colour."""
    s = new(3, 9)
    for seed in range(3):
        t = _end_round_by(V.reseed(s, seed), 0)
        after = v(t, "bag") + v(t, "board").sum(axis=0)
        assert list(after) == [5 - 1 + 5, 10, 10, 10, 6]
        assert v(t, "board").sum() == 21


def test_turns_go_clockwise_from_the_start_player_ed1():
    """§3.1 step 4, ED-1: start player first, then clockwise (seat + 1 mod N)."""
    s = new(3, 0, start_player=1)
    set_board(s, {"harvest": {"brown": 3}, "church": {"pink": 5}})
    order = []
    for _ in range(4):
        order.append(V.current_player(s))
        s = act(s, "take", SPACE["church"], COL["pink"])
        s = act(s, "done")
    assert order == [1, 2, 0, 1]


def test_last_cube_taker_still_acts_then_round_ends_ed10():
    """§3.1 step 4, ED-10: the player who takes the last cube still performs the action; then the
    round ends (Mass, then round 2 from the start player)."""
    s = new(2, 3)
    clear_player(s, 1)
    set_board(s, {"harvest": {"green": 1}})
    v(s, "turn_player")[0] = 1
    v(s, "actor")[0] = 1
    s = act(s, "take", SPACE["harvest"], COL["green"])
    assert v(s, "board").sum() == 0 and v(s, "phase")[0] == PH_CHOOSE
    assert legal(s) == {("done", ()), ("harvest", ())}
    s = act(s, "harvest")
    assert v(s, "grain")[1] == 2 and v(s, "cubes")[1, COL["green"]] == 1
    assert v(s, "round")[0] == 2 and V.current_player(s) == 0
    assert v(s, "board").sum() == 18


def test_well_turn_never_ends_the_round_ed10():
    """ED-10: a Well turn takes no cube, so the round goes on (next player's turn)."""
    s = new(2, 3)
    clear_player(s, 0)
    give(s, 0, cubes={"orange": 3})
    set_board(s, {"church": {"brown": 1, "pink": 1}})
    s = act(s, "well", COL["orange"])
    s = act(s, "done")  # the payment stands (ED-12)
    assert v(s, "cubes")[0, COL["orange"]] == 0
    assert v(s, "round")[0] == 1 and V.current_player(s) == 1
    assert v(s, "board").sum() == 2 and v(s, "phase")[0] == PH_TURN


def test_end_of_turn_death_comes_before_the_round_ends_ed10_ed8():
    """ED-10, ED-15: the turn that takes the last cube ends with its deaths, then the Mass and
    the next round; ED-8: the time track is not reset between rounds."""
    s = new(2, 3)
    clear_player(s, 0)
    move(s, 0, LOC_FARM, LOC_COUNCIL, 1)
    v(s, "time")[0] = 8
    set_board(s, {"church": {"plague": 1}})
    s = act(s, "take", SPACE["church"], COL["plague"])
    s = act(s, "done")  # decline the church
    assert v(s, "phase")[0] == PH_DEATH and v(s, "round")[0] == 1 and V.current_player(s) == 0
    s = act(s, "die", visible_index(LOC_COUNCIL))
    assert v(s, "chron_used")[0] == 1  # council section
    assert v(s, "round")[0] == 2 and v(s, "phase")[0] == PH_TURN and V.current_player(s) == 0
    assert v(s, "time")[0] == 10 and v(s, "board").sum() == 18
