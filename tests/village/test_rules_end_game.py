"""Rules §5.1 trigger and final turns, ED-13, ED-17 (after the trigger), ED-18, ED-30, ED-31,
ED-32, ED-34 (round cap), ED-35 (hidden information).

3 players: 15 chronicle spaces (3 per section) and 6 graves (Appendix A.6, provisional).
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
    add_dead,
    clear_player,
    give,
    legal,
    move,
    new,
    set_board,
    set_market,
    start_mass,
    v,
)

from village_env import tables
from village_env.layout import (
    LOC_GRAVE,
    LOC_REMOVED,
    PH_CHOOSE,
    PH_MARKET,
    PH_MASS_ADVANCE,
    PH_MASS_PICK,
    PH_OVER,
    PH_TURN,
)

SECTIONS = ("council", "crafts", "travel", "church", "farmyard")


def fill(s, counts, graves=0, seats=(1, 2)):
    """Dead members (unborn ones of `seats`, highest generation first) fill chronicle sections
    ({section: k}) and graves."""

    def donors():
        for p in seats:
            for g in (4, 3, 2):
                for _ in range(int(v(s, "members")[p, LOC_UNBORN, g - 1])):
                    yield p, g

    it = donors()
    for sec, k in counts.items():
        for _ in range(k):
            p, g = next(it)
            add_dead(s, p, g, section=sec)
    for _ in range(graves):
        p, g = next(it)
        add_dead(s, p, g)
    return s


def all_but_one_farmyard(n=3):
    cap = {2: 2, 3: 3, 4: 4}[n]
    return {sec: cap - (sec == "farmyard") for sec in SECTIONS}


def base(n=3, board=None, time0=8):
    s = new(n, 0)
    for p in range(n):
        clear_player(s, p)
    set_board(s, board or {"harvest": {"plague": 1, "pink": 1}, "family": {"green": 2}})
    v(s, "time")[0] = time0
    return s


def trigger_by_plague(s):
    """p0 takes the plague cube on the harvest space (2 time: 8 -> 10), declines the harvest;
    the end-of-turn death puts a gen-1 farmer in the chronicle or a grave."""
    s = act(s, "take", 0, 4)
    assert v(s, "phase")[0] == PH_CHOOSE
    return act(s, "done")


def test_trigger_by_last_chronicle_space_final_turns_clockwise_then_one_final_mass():
    s = base()
    fill(s, all_but_one_farmyard())
    move(s, 2, LOC_FARM, LOC_WINDOW, 1)  # p2 has a window member and 1 grain: one Mass decision
    give(s, 2, grain=1)
    s = trigger_by_plague(s)
    assert v(s, "chron_used").tolist() == [3, 3, 3, 3, 3] and v(s, "triggered")[0] == 1
    assert v(s, "trigger_player")[0] == 0 and v(s, "trigger_in_market")[0] == 0
    # ED-30: T+1, ..., T-1; the triggering player gets no further turn
    assert v(s, "final_order")[:2].tolist() == [1, 2] and v(s, "final_n")[0] == 2
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN
    assert legal(s) == {("take", (0, COL["pink"])), ("take", (1, COL["green"]))}
    s = act(s, "take", 0, COL["pink"])
    s = act(s, "done")
    # p2's final turn: taking the green cube is its only option (ED-3); then decline
    assert v(s, "turn_player")[0] == 2 and v(s, "phase")[0] == PH_CHOOSE
    assert v(s, "round")[0] == 1 and v(s, "cubes")[2, COL["green"]] == 1
    s = act(s, "done")
    # final Mass (ED-31: exactly once): p2 advances its window member W1 -> W2
    assert v(s, "phase")[0] == PH_MASS_ADVANCE and V.current_player(s) == 2
    s = act(s, "mass_advance", 0, 0)
    assert V.is_terminal(s) and v(s, "phase")[0] == PH_OVER and V.current_player(s) == -1
    assert v(s, "round")[0] == 1 and not V.is_truncated(s)
    # p2: majority 2 (one Mass) + W2 3; chronicle: p1 7 dead -> 12, p2 7 dead -> 12
    assert V.scores(s).tolist() == [0, 12, 2 + 3 + 12]


def test_trigger_by_last_grave():
    s = base()
    fill(s, {"farmyard": 3, "council": 1}, graves=5)
    s = trigger_by_plague(s)
    assert v(s, "graves_used")[0] == 6 and v(s, "members")[0, LOC_GRAVE, 0] == 1
    assert v(s, "triggered")[0] == 1 and v(s, "trigger_player")[0] == 0
    assert v(s, "in_final")[0] == 1 and v(s, "final_order")[:2].tolist() == [1, 2]


def test_no_trigger_before_the_last_space():
    s = base()
    fill(s, {"farmyard": 1, "council": 3, "crafts": 3}, graves=4)
    s = trigger_by_plague(s)
    assert v(s, "triggered")[0] == 0 and v(s, "chron_used")[4] == 2
    assert V.current_player(s) == 1 and v(s, "in_final")[0] == 0


def test_ed18_later_grave_triggers_nothing_and_deaths_without_space_are_removed():
    s = base(board={"harvest": {"plague": 3, "pink": 1}})
    fill(s, all_but_one_farmyard(), graves=5, seats=(1, 2, 0))
    v(s, "time")[1] = 8
    v(s, "time")[2] = 8
    s = trigger_by_plague(s)  # chronicle full: trigger by p0
    assert v(s, "trigger_player")[0] == 0 and V.current_player(s) == 1
    s = trigger_by_plague_for(s, 1)  # p1's final turn: the last grave (ED-18: no new trigger)
    assert v(s, "graves_used")[0] == 6 and v(s, "members")[1, LOC_GRAVE, 0] == 1
    assert v(s, "trigger_player")[0] == 0 and v(s, "final_order")[:2].tolist() == [1, 2]
    assert V.current_player(s) == 2
    s = trigger_by_plague_for(s, 2)  # no space, no grave: removed from the game (§5.1.4)
    assert v(s, "members")[2, LOC_REMOVED, 0] == 1 and v(s, "members")[2, LOC_FARM, 0] == 3
    assert V.is_terminal(s) and not V.check_invariants(s)


def trigger_by_plague_for(s, p):
    assert v(s, "turn_player")[0] == p
    s = act(s, "take", 0, 4)
    return act(s, "done")


def market_end_state():
    """p0 will open market day; p0 (horse, ox, 1 green), p2 (wagon, 2 grain, 2 green)."""
    s = base(board={"market": {"brown": 1}, "harvest": {"pink": 2, "green": 1}}, time0=0)
    fill(s, all_but_one_farmyard())
    set_market(s, [4, 5, 6, 2], [7, 8, 9, 10, 11])
    give(s, 0, goods={"horse": 1, "ox": 1}, cubes={"green": 1})
    give(s, 2, goods={"wagon": 1}, grain=2, cubes={"green": 2})
    return s


def test_ed30_opener_triggers_during_market_day():
    s = market_end_state()
    v(s, "time")[0] = 9
    s = act(s, "take", 3, COL["brown"])
    s = act(s, "serve", 0)  # free
    s = act(s, "serve", 2)  # p1 passed automatically; p2 pays the fee
    s = act(s, "serve", 1)  # p0 pays 1 time: 9 -> 10, dies at once: last chronicle space
    assert v(s, "triggered")[0] == 1 and v(s, "trigger_in_market")[0] == 1
    assert v(s, "trigger_opener")[0] == 0 and v(s, "trigger_player")[0] == 0
    # the market day finishes first (ED-30): p2 still sells
    assert v(s, "phase")[0] == PH_MARKET and V.current_player(s) == 2
    s = act(s, "serve", 3)
    assert v(s, "final_order")[:3].tolist() == [1, 2, -1] and v(s, "final_n")[0] == 2
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN


def test_ed30_other_player_triggers_during_market_day_everyone_acts_opener_last():
    s = market_end_state()
    give(s, 1, goods={"ox": 1}, cubes={"green": 1})
    give(s, 0, goods={"ox": -1})
    v(s, "time")[1] = 9
    s = act(s, "take", 3, COL["brown"])
    s = act(s, "serve", 0)  # p0 free
    s = act(s, "serve", 1)  # p1 pays 1 time: dies at once, last chronicle space
    assert v(s, "trigger_player")[0] == 1 and v(s, "trigger_in_market")[0] == 1
    assert V.current_player(s) == 2 and v(s, "phase")[0] == PH_MARKET
    s = act(s, "serve", 2)
    s = act(s, "serve", 3)
    assert v(s, "final_order")[:3].tolist() == [1, 2, 0] and v(s, "final_n")[0] == 3
    turns, n_turns = [], int(v(s, "n_turns")[0]) - 1
    while not V.is_terminal(s):
        if v(s, "n_turns")[0] > n_turns:
            n_turns = int(v(s, "n_turns")[0])
            turns.append(int(v(s, "turn_player")[0]))
        if v(s, "phase")[0] == PH_TURN:
            s = act(s, "take", 0, COL["pink"] if v(s, "board")[0, 1] else COL["green"])
        else:
            s = act(s, "done")
    assert turns == [1, 2, 0]


def test_plague_from_market_space_death_waits_so_trigger_is_not_in_market():
    s = market_end_state()
    set_board(s, {"market": {"plague": 1, "brown": 1}, "harvest": {"pink": 2, "green": 1}})
    v(s, "time")[0] = 8
    s = act(s, "take", 3, 4)  # 2 time: 8 -> 10, but the death waits for the end of the turn
    assert v(s, "phase")[0] == PH_MARKET and v(s, "triggered")[0] == 0
    s = act(s, "done")
    s = act(s, "done")  # p2 passes; market over, p0 dies: normal trigger (ED-15, ED-30)
    assert v(s, "triggered")[0] == 1 and v(s, "trigger_in_market")[0] == 0
    assert v(s, "final_order")[:2].tolist() == [1, 2] and V.current_player(s) == 1


def test_free_final_actions_on_an_empty_board_and_market_in_a_free_action():
    s = base(board={"harvest": {"plague": 1}})
    fill(s, all_but_one_farmyard())
    set_market(s, [4, 5, 6, 2], [7, 8, 9, 10, 11])
    give(s, 1, goods={"horse": 1})
    give(s, 0, goods={"ox": 1}, coins=1)
    s = trigger_by_plague(s)  # the turn took the last cube: no end-of-round Mass (ED-31)
    assert v(s, "round")[0] == 1 and v(s, "free_action")[0] == 1
    assert v(s, "phase")[0] == PH_CHOOSE and V.current_player(s) == 1
    # ED-13: any of the 7 actions with a legal option, or decline; no Well cost (p1's unborn
    # members all lie in the chronicle: no birth)
    assert legal(s) == {("done", ()), ("harvest", ()), ("market", ()), ("church", (0, 1))} | {
        ("craft_place", (b, 0)) for b in range(4)
    }
    s = act(s, "market")
    assert v(s, "phase")[0] == PH_MARKET and v(s, "mkt_opener")[0] == 1
    assert legal(s) == {("done", ()), ("serve", (0,))}
    s = act(s, "serve", 0)  # free first sale
    # ED-19: p0 (no turn left) still takes part: the ox for 1 coin (green) + 1 time
    assert V.current_player(s) == 0 and legal(s) == {("done", ()), ("serve", (1,))}
    s = act(s, "serve", 1)
    assert v(s, "coins")[0] == 0 and v(s, "time")[0] == 11 and v(s, "tile_owner")[5] == 0
    assert v(s, "time")[1] == 0 and v(s, "tile_owner")[4] == 1
    # p2's free action, then the final Mass and scoring
    assert V.current_player(s) == 2 and v(s, "free_action")[0] == 1
    s = act(s, "done")
    assert V.is_terminal(s)
    # p0: customer 3; p1: customer 3 + chronicle 7 dead -> 12; p2: chronicle 7 -> 12
    assert V.scores(s).tolist() == [3, 15, 12]


def test_only_the_final_mass_after_the_trigger():
    s = base()
    fill(s, all_but_one_farmyard())
    move(s, 1, LOC_FARM, LOC_WINDOW, 1)
    give(s, 1, grain=1)
    phases = []
    s = trigger_by_plague(s)
    while not V.is_terminal(s):
        phases.append(int(v(s, "phase")[0]))
        if v(s, "phase")[0] == PH_TURN:
            s = act(s, "take", 1, COL["green"])
        elif v(s, "phase")[0] == PH_MASS_ADVANCE:
            s = act(s, "done")
        else:
            s = act(s, "done")
    assert phases.count(PH_MASS_ADVANCE) == 1 and PH_MASS_PICK not in phases
    assert V.scores(s)[1] == 2 + 2 + 12  # one majority bonus, W1, chronicle


def test_ed34_round_cap_ends_truncated_after_that_rounds_mass():
    V.load_rules_data(tables.rules_with(MAX_ROUNDS=1))
    try:
        s = new(2, 0)
        set_board(s, {"harvest": {"pink": 1}, "family": {"green": 1}})
        s = act(s, "take", 0, COL["pink"])
        s = act(s, "done")
        s = act(s, "take", 1, COL["green"]) if v(s, "phase")[0] == PH_TURN else s
        while not V.is_terminal(s):
            s = act(s, "done")
        assert V.is_terminal(s) and V.is_truncated(s) and v(s, "round")[0] == 1
        assert v(s, "triggered")[0] == 0
        assert V.scores(s).tolist() == [1, 1]  # final scoring: the starting coin each
    finally:
        V.load_rules_data()
    s = new(2, 0)
    set_board(s, {"harvest": {"pink": 1}})
    s = act(s, "take", 0, COL["pink"])
    s = act(s, "done")
    assert not V.is_terminal(s) and v(s, "round")[0] == 2  # default cap restored


def test_ed35_observations_do_not_change_under_reseed():
    states = [new(3, 7), market_end_state()]
    s = market_end_state()
    states.append(act(s, "take", 3, COL["brown"]))  # in market day
    m = new(3, 1)
    move(m, 0, LOC_FARM, LOC_BAG, 1)
    give(m, 0, coins=1)
    m = start_mass(m)
    assert v(m, "phase")[0] == PH_MASS_PICK and not V.check_invariants(m)
    states.append(m)  # in the Mass picks
    for st in states:
        for seed in (1, 99, 12345):
            r = V.reseed(st, seed)
            assert not np.array_equal(r, st)  # the RNG words differ ...
            for p in range(3):
                assert np.array_equal(V.observe(r, p), V.observe(st, p))  # ... unseen
            assert np.array_equal(V.observe(V.determinize(st, 0, seed), 0), V.observe(st, 0))
    # future draws do depend on the seed: the next round's seeding differs
    boards = set()
    for seed in range(5):
        t = start_mass(V.reseed(new(3, 0), seed))
        boards.add(v(t, "board").tobytes())
    assert len(boards) > 1


def test_ed31_final_turn_after_an_earlier_final_turn_emptied_the_board_is_free():
    s = base(board={"harvest": {"plague": 1, "pink": 1}})
    fill(s, all_but_one_farmyard())
    s = trigger_by_plague(s)
    # p1's final turn: the last cube is its only option (taken at once, ED-3)
    assert v(s, "turn_player")[0] == 1 and v(s, "free_action")[0] == 0
    assert v(s, "cubes")[1, COL["pink"]] == 1 and v(s, "board").sum() == 0
    s = act(s, "harvest")
    assert v(s, "grain")[1] == 2
    # p2 starts with an empty board: a free action, no Well cost, no new round
    assert V.current_player(s) == 2 and v(s, "free_action")[0] == 1
    assert v(s, "phase")[0] == PH_CHOOSE and v(s, "round")[0] == 1
    s = act(s, "craft_place", 0, 0)  # wainwright: 2 time to place
    assert v(s, "time")[2] == 2
    s = act(s, "craft_produce", 4)  # 2 more time: a wagon
    assert v(s, "goods")[2, 4] == 1 and v(s, "time")[2] == 4
    assert V.is_terminal(s)


def test_ed32_a_final_turn_is_an_ordinary_turn_well_and_market_day_included():
    s = base(board={"harvest": {"plague": 1, "pink": 1}, "family": {"green": 2}})
    fill(s, all_but_one_farmyard())
    set_market(s, [4, 5, 6, 2], [7, 8, 9, 10, 11])
    give(s, 1, cubes={"brown": 3}, goods={"horse": 1})
    give(s, 0, goods={"ox": 1}, cubes={"green": 1})
    s = trigger_by_plague(s)
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN
    assert legal(s) == {
        ("take", (0, COL["pink"])),
        ("take", (1, COL["green"])),
        ("well", (COL["brown"],)),
    }
    s = act(s, "well", COL["brown"])  # the Well cost is paid: this is not a free action
    assert v(s, "cubes")[1, COL["brown"]] == 0 and v(s, "free_action")[0] == 0
    s = act(s, "market")
    s = act(s, "serve", 0)  # p1 free
    # p2 has nothing (auto-pass); p0, the triggering player, sells with the fee
    assert V.current_player(s) == 0 and legal(s) == {("done", ()), ("serve", (1,))}
    s = act(s, "serve", 1)
    assert v(s, "time")[0] == 11 and v(s, "cubes")[0, COL["green"]] == 0
    assert v(s, "turn_player")[0] == 2 and v(s, "phase")[0] == PH_TURN
