"""Scenario tests for the Engine decisions (rules §10, ED-n) not already pinned elsewhere.

Where another file covers an ED, the test there names it: ED-5 (forced choices) in most files,
ED-8/ED-28 in test_rules_actions (rows, placement), ED-10 in test_rules_rounds (pre-placement),
ED-14/ED-15 in test_cards (event choices), ED-16..18 in test_rules_rounds (counters),
ED-27 (Cathedral), ED-30/31 (activations, Archer), ED-32/33 (combat), ED-34/35 (scoring, hidden).
"""

import numpy as np

import troyes_env as T
from troyes_env.layout import PH_CUBE, PH_DICE, PH_EVENT, PH_SOURCE, PH_TURN
from troyes_env.tables import TABLES

from .conftest import (
    a,
    add_event,
    die,
    event_id,
    fix_supply,
    legal,
    run,
    set_card,
    set_dice,
    set_spaces,
    turn_state,
    v,
)

PASS = a("PASS")
CONFIRM = a("CONFIRM")


def _events_now(s, pos=1):
    from troyes_env.engine import WORK_SIZE, advance, settle
    from troyes_env.engine.rounds import enter_card
    from troyes_env.layout import PH_A_EVENTS

    v(s, "ev_pos")[0] = pos
    v(s, "black_n")[0] = 0
    v(s, "phase")[0] = PH_A_EVENTS
    enter_card(s, TABLES)
    advance(s, TABLES)
    settle(s, TABLES, np.zeros(T.NUM_ACTIONS, np.bool_), np.zeros(WORK_SIZE, np.int64))
    return s


def test_ed1_seats_clockwise_start_player_moves_left():
    s = turn_state(3)
    s = run(s, PASS, PASS, PASS)
    assert v(s, "start_player")[0] == 1 and int(v(s, "round")[0]) == 2


def test_ed4_voluntary_costs_must_be_paid_in_full():
    s = turn_state(2)
    set_dice(s, 0, "R", 2)
    v(s, "influence")[0] = 0
    assert not {a("REROLL", 2, 1), a("FLIP"), a("NEW_CITIZEN")} & legal(s)
    v(s, "influence")[0] = 3
    assert a("FLIP") not in legal(s) and a("REROLL", 2, 1) in legal(s)


def test_ed7_hire_source_lying_and_other_card():
    s = turn_state(2)
    set_card(s, 0, "MERCHANT")
    set_card(s, 6, "DIPLOMAT")
    v(s, "sup")[6, 0] = 2
    v(s, "lying")[1, 0] = 1
    v(s, "spaces")[6] = -1
    v(s, "spaces")[7] = -1
    set_spaces(s, list(v(s, "spaces")[:6]) + [1, -1] + list(v(s, "spaces")[8:]))
    set_dice(s, 0, "Y", 6)
    s = run(s, a("ACTIVITY", 0))
    assert int(v(s, "phase")[0]) == PH_SOURCE
    lg = legal(s)
    assert a("LYING", 1) in lg and a("ACTIVITY", 6) in lg and a("ACTIVITY", 0) not in lg
    s2 = run(s, a("ACTIVITY", 6))
    assert v(s2, "sup")[6, 0] == 0 and v(s2, "sup")[0, 0] == 1
    s3 = run(s, a("LYING", 1))
    assert v(s3, "lying")[1, 0] == 0 and T.check_invariants(s3) == []


def test_ed11_two_characters_each_and_every_dealt_card_scores_for_both():
    s = T.new_game(2, 5)
    assert (v(s, "chars")[:2] >= 0).all()
    from troyes_env.engine.board import score_final

    t = turn_state(2)
    v(t, "chars")[:] = -1
    v(t, "chars")[0] = [1, 3]  # Hugues de Payns, Thibaut II (seat 0)
    v(t, "chars")[1] = [2, -1]  # Urbain IV (seat 1)
    v(t, "influence")[:2] = [10, 5]
    v(t, "deniers")[:2] = [0, 20]
    v(t, "cath")[:] = -1
    out = np.zeros(4, np.int64)
    score_final(t, TABLES, out)
    # every dealt card scores for both; nobody has a Cathedral cube: -6 each, clamped at 0
    v(t, "vp")[:2] = [20, 20]
    score_final(t, TABLES, out)
    assert out[0] == 20 - 6 + 4 + 0 + 0 and out[1] == 20 - 6 + 2 + 4 + 0


def test_ed12_no_second_card_from_an_empty_deck():
    from troyes_env.engine.rounds import start_round

    s = turn_state(2)
    red = list(v(s, "decks")[2])
    w = red.index(event_id("WAR"))
    red[0], red[w] = red[w], red[0]
    v(s, "decks")[2] = red
    v(s, "deck_drawn")[:] = [0, 4, 0]  # the white deck is used up
    start_round(s, TABLES)
    assert [int(x) for x in v(s, "row_card") if x >= 0] == [0, event_id("WAR")]


def test_ed13_effect_choices_from_the_start_player():
    s = turn_state(2)
    v(s, "start_player")[0] = 1
    add_event(s, "WAR", [0, 1])
    i = add_event(s, "RED_R6")
    for p in range(2):
        set_dice(s, p, "R", 6)
    add_event(s, "HERESY", [0, 1])  # another card holding both players' cubes
    s = _events_now(s, i)
    # seat 1 (start player) chooses first between War and Heresy
    assert int(v(s, "phase")[0]) == PH_EVENT and int(v(s, "cur")[0]) == 1


def test_ed15_penalty_once_per_card_per_round():
    s = turn_state(2)
    add_event(s, "RED_R4")
    add_event(s, "DROUGHT")
    for p in range(2):
        set_dice(s, p, "R", 6)
    v(s, "deniers")[:2] = [0, 10]
    v(s, "vp")[:2] = [10, 10]
    s = _events_now(s, 1)
    assert list(v(s, "vp")[:2]) == [6, 10] and list(v(s, "deniers")[:2]) == [0, 6]


def test_ed19_no_influence_after_the_target():
    s = turn_state(2)
    set_dice(s, 0, "Y", 3)
    set_dice(s, 0, "Y", 4)
    v(s, "influence")[0] = 10
    assert a("REROLL", 0, 2) in legal(s)
    s = run(s, a("AGRICULTURE"))
    assert int(v(s, "phase")[0]) == PH_DICE
    assert not any(x in legal(s) for x in (a("REROLL", 0, 2), a("FLIP"), a("NEW_CITIZEN")))


def test_ed21_pass_always_legal_and_ed23_buy_from_passed_player():
    s = turn_state(2)
    assert PASS in legal(s)  # even with no dice at all
    set_dice(s, 0, "W", 6)  # seat 0 passes holding a die
    s = run(s, PASS)
    assert int(v(s, "cur")[0]) == 1
    s = run(s, a("CATHEDRAL"))  # seat 1 buys the passed player's die: all forced
    assert v(s, "deniers")[1] == 18 and v(s, "deniers")[0] == 22
    assert v(s, "cath")[0, 5] == 1


def test_ed23_costs_paid_from_money_held_before_the_action():
    s = turn_state(2)
    set_card(s, 0, "MERCHANT")
    set_dice(s, 1, "Y", 6)
    v(s, "deniers")[0] = 5  # hire 4 + die 2 = 6 > 5, though the action would earn 6
    assert a("ACTIVITY", 0) not in legal(s)
    v(s, "deniers")[0] = 6
    s = run(s, a("ACTIVITY", 0))
    assert int(v(s, "phase")[0]) == PH_SOURCE


def test_ed24_cube_usable_after_supervisor_left_and_counts_bought_dice():
    s = turn_state(2)
    set_card(s, 3, "PRIEST")
    set_card(s, 0, "MERCHANT")
    v(s, "act_cubes")[3, 0] = 1
    v(s, "cubes_out")[0] = 1
    v(s, "sup")[0, 0] = 1  # no supervisor on the Priest any more
    fix_supply(s)
    set_dice(s, 1, "Y", 1)  # bought: 1 + 3 = 4 -> 2 activations
    s = run(s, a("ACTIVITY", 0))
    assert v(s, "act_cubes")[3, 0] == 0 and v(s, "deniers")[0] == 20 - 2 + 4


def test_ed25_priest_not_for_city_hall_placement():
    s = turn_state(2)
    set_card(s, 3, "PRIEST")
    v(s, "act_cubes")[3, 0] = 1
    v(s, "cubes_out")[0] = 1
    set_dice(s, 0, "Y", 1)
    s = run(s, a("BUILDING", 2))
    assert int(v(s, "phase")[0]) not in (PH_CUBE,)
    assert v(s, "act_cubes")[3, 0] == 1


def test_ed26_split_is_exactly_one_white_die():
    s = turn_state(2)
    set_card(s, 3, "MONK")
    set_card(s, 0, "MERCHANT")
    v(s, "act_cubes")[3, 0] = 1
    v(s, "cubes_out")[0] = 1
    v(s, "sup")[0, 0] = 1
    fix_supply(s)
    set_dice(s, 0, "W", 2)
    set_dice(s, 0, "W", 3)
    set_dice(s, 0, "Y", 2)
    s = run(s, a("ACTIVITY", 0))
    assert int(v(s, "phase")[0]) == PH_CUBE
    s = run(s, a("ACTIVITY", 3))
    assert legal(s) == {die(0, "W", 2), die(0, "W", 3)}  # no yellow die with a Monk cube
    s = run(s, die(0, "W", 3))  # one die only: confirm forced; 3 x 3 = 9 -> 4 activations
    assert v(s, "deniers")[0] == 20 + 8 and v(s, "dice")[0, 1, 1] == 1


def test_ed29_miller_counts_after_the_hire_move():
    s = turn_state(2)
    set_card(s, 0, "MILLER")
    set_spaces(s, [0, 0, 0, 1, 1, 1] + [0, 1, 0, 1, 0, 1] + [1, 1, 1, 4, 4, 4])
    set_dice(s, 0, "Y", 4)
    s = run(s, a("ACTIVITY", 0), a("SPACE", 0))  # a Palace citizen becomes the supervisor
    # Palace 2, Bishopric 3 after the move: 2 deniers x 3, hire 6
    assert v(s, "deniers")[0] == 20 - 6 + 6


def test_ed22_event_needs_one_cube():
    s = turn_state(2)
    i = add_event(s, "WAR")
    set_dice(s, 0, "R", 3)  # 3 // 4 = 0 cubes
    assert a("EVENT", i) not in legal(s)
    _ = (PH_TURN, set_spaces)
