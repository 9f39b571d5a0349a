"""Rules §5.2 final scoring (every category, Appendix A.4-A.9), §5.3 winner and ties, ED-33.

Each game is ended for real: in a 2-player game p1 fills the last anonymous grave at the end of
its turn, p0 takes its final turn, then the final Mass and scoring run (§5.1).
"""

import numpy as np
import pytest
from village.helpers import (
    LOC_BAG,
    LOC_COUNCIL,
    LOC_CRAFT,
    LOC_FARM,
    LOC_UNBORN,
    LOC_WINDOW,
    V,
    act,
    add_dead,
    aid,
    clear_player,
    give,
    move,
    new,
    set_board,
    set_market,
    set_prestige,
    set_turn,
    v,
)

from village_env import rules_data as rd
from village_env.engine import rounds
from village_env.layout import LOC_REMOVED, PH_TURN


def ending_state():
    """2 players, p1 to move, about to fill the last grave; both players empty-handed.
    p1: 2 dead in the crafts chronicle (scores 0), 3 in graves, 4 gen-1 on the wainwright."""
    s = new(2, 0)
    for p in range(2):
        clear_player(s, p)
    set_board(s, {"harvest": {"plague": 1, "pink": 1}})
    add_dead(s, 1, 4, section="crafts", k=2)
    add_dead(s, 1, 3, k=2)
    add_dead(s, 1, 2, k=1)
    move(s, 1, LOC_FARM, LOC_CRAFT, 1, k=4)
    v(s, "time")[1] = 8
    set_turn(s, 1)
    return s


def play_out(s):
    """p1 takes the plague cube (dies at the end of the turn: last grave, trigger), then every
    later decision declines / takes the first option."""
    s = act(s, "take", 0, 4)
    assert v(s, "triggered")[0] == 1 and v(s, "trigger_player")[0] == 1
    assert v(s, "turn_player")[0] == 0 and v(s, "final_order")[:2].tolist() == [0, -1]
    while not V.is_terminal(s):
        mask = V.legal_mask(s)
        s = V.step(s, aid("done") if mask[aid("done")] else int(np.flatnonzero(mask)[0]))
    return s


def final_scores(prep):
    s = ending_state()
    prep(s)
    assert not V.check_invariants(s)
    return V.scores(play_out(s)).tolist()


def test_nothing_scores_nothing():
    assert final_scores(lambda s: None) == [0, 0]


@pytest.mark.parametrize("k,pts", list(enumerate(rd.TRAVEL_SCORE)))
def test_travel_markers(k, pts):
    def prep(s):
        v(s, "markers")[0, :k] = 1

    assert (k, pts) in [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 14), (6, 18)]
    assert final_scores(prep) == [pts, 0]


@pytest.mark.parametrize("level,pts", [(1, 0), (2, 2), (3, 4), (4, 6)])
def test_council_per_member_and_level(level, pts):
    def prep(s):
        move(s, 0, LOC_FARM, LOC_COUNCIL + level - 1, 1, k=2)

    assert final_scores(prep) == [2 * pts, 0]


@pytest.mark.parametrize("window,pts", [(1, 2), (2, 3), (3, 4), (4, 6)])
def test_church_window_per_member(window, pts):
    def prep(s):
        move(s, 0, LOC_FARM, LOC_WINDOW + window - 1, 1)

    # + 2: the final Mass majority (p0 is alone in the church)
    assert final_scores(prep) == [pts + 2, 0]


def test_black_bag_members_score_nothing():
    s = ending_state()
    move(s, 0, LOC_FARM, LOC_BAG, 1, k=3)
    parts = np.zeros(6, dtype=np.int64)
    rounds.final_score_parts(s, V.TABLES, 0, parts)
    assert parts.tolist() == [0, 0, 0, 0, 0, 0]


@pytest.mark.parametrize("k,pts", [(0, 0), (1, 0), (2, 0), (3, 4), (4, 7), (5, 12), (6, 12)])
def test_chronicle_table(k, pts):
    def prep(s):
        for i in range(k):
            add_dead(s, 0, 2 + i % 3, section=("council", "travel", "church")[i // 2])

    assert final_scores(prep) == [pts, 0]


def test_customers_and_coins():
    def prep(s):
        v(s, "tile_owner")[0] = 0  # T1: 6
        v(s, "tile_owner")[23] = 0  # T24: 10
        v(s, "tile_owner")[6] = 1  # T7: 2
        set_market(s, [1, 2, 3], [4, 5, 7, 8, 9])
        give(s, 0, coins=4)
        give(s, 1, coins=1)

    assert final_scores(prep) == [6 + 10 + 4, 2 + 1]


def every_category(s):
    """Seat 0 of an ending state scores in every category: 5 prestige from travel rewards, then
    travel 6, council 12, church 15, chronicle 4, customers 9, coins 3 (and the Mass majority 2
    when the game is played out)."""
    set_prestige(s, 0, 5, "travel_rewards")
    v(s, "markers")[0, [0, 2, 5]] = 1  # 3 markers: 6
    for lv in range(4):  # one member on each council level: 0 + 2 + 4 + 6
        move(s, 0, LOC_FARM, LOC_COUNCIL + lv, 1)
    for w, g in ((0, 2), (1, 2), (2, 2), (3, 3)):  # one on each window: 2 + 3 + 4 + 6
        move(s, 0, LOC_UNBORN, LOC_WINDOW + w, g)
    add_dead(s, 0, 3, section="council")
    add_dead(s, 0, 4, section="travel", k=2)  # 3 in the chronicle: 4
    v(s, "tile_owner")[[0, 4]] = 0  # T1 6 + T5 3
    set_market(s, [1, 2, 3], [5, 6, 7, 8, 9])
    give(s, 0, coins=3)


def test_all_categories_add_to_in_game_prestige():
    # 5 + Mass majority 2 + travel 6 + council 12 + church 15 + chronicle 4 + customers 9 + coins 3
    assert final_scores(every_category) == [56, 0]


# --- §5.3 winner and ties, ED-33 --------------------------------------------------------------
def ended(prestige, customers, dead=None, n=3):
    """A terminal state with these prestige totals, customers served per seat (counts) and
    dead members per seat (taken from the farmyard into graves)."""
    s = new(n, 0)
    t = 0
    for p, k in enumerate(customers):
        for _ in range(k):
            v(s, "tile_owner")[t] = p
            t += 1
    set_market(s, [], [])
    for p, k in (dead or {}).items():
        add_dead(s, p, 1, src=LOC_FARM, k=k)
    for p, k in enumerate(prestige):
        set_prestige(s, p, k, "customers")
    v(s, "game_over")[0] = 1
    assert not V.check_invariants(s)
    return s


def test_most_prestige_wins():
    s = ended([12, 11, 3], [0, 5, 0])
    assert V.returns(s).tolist() == [1, -1, -1]


def test_tie_broken_by_customers_served():
    s = ended([12, 12, 3], [1, 2, 0])
    assert V.tiebreaks(s)[:, 0].tolist() == [1, 2, 0]
    assert V.returns(s).tolist() == [-1, 1, -1]


def test_then_by_living_members_ed33():
    s = ended([12, 12, 12], [1, 1, 1], dead={0: 1, 2: 2})
    # living: farmyard, board and black bag count; unborn and dead do not
    move(s, 1, LOC_FARM, LOC_BAG, 1)
    move(s, 1, LOC_FARM, LOC_WINDOW, 1)
    move(s, 1, LOC_UNBORN, LOC_FARM, 2)  # born: 5 living
    assert V.tiebreaks(s).tolist() == [[1, 3], [1, 5], [1, 2]]
    assert V.returns(s).tolist() == [-1, 1, -1]


def test_still_tied_players_share_the_win():
    s = ended([12, 12, 4], [1, 1, 0])
    assert V.returns(s).tolist() == [0, 0, -1]  # co-winners get 0 (DESIGN D7)
    s = ended([7, 7], [0, 0], n=2)
    assert V.returns(s).tolist() == [0, 0]


def test_unborn_removed_members_do_not_count_as_living():
    s = new(2, 0)
    move(s, 0, LOC_FARM, LOC_REMOVED, 1)
    assert V.tiebreaks(s).tolist() == [[0, 3], [0, 4]]
    assert v(s, "phase")[0] == PH_TURN
