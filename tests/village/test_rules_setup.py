"""Rules §2 (setup), Appendix A.1/A.2/A.6 and ED-1 (seats and the first start player)."""

import numpy as np
import pytest
from village.helpers import LOC_FARM, LOC_UNBORN, V, legal_names, new, v

from village_env import rules_data as rd
from village_env.engine.board import chronicle_cap, graves_cap
from village_env.layout import PH_TURN

PER_N = {  # n: (stalls, tiles face up, board total, per-space split, refill, chronicle, graves)
    2: (3, 8, 18, (3, 3, 3, 3, 2, 2, 2), 4, 10, 4),
    3: (4, 9, 21, (3, 3, 3, 3, 3, 3, 3), 5, 15, 6),
    4: (5, 10, 24, (4, 4, 4, 3, 3, 3, 3), 6, 20, 8),
}


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 7])
def test_setup_per_player_count(n, seed):
    stalls, face_up, total, split, refill, chron, graves = PER_N[n]
    s = new(n, seed)
    m = v(s, "members")
    for p in range(n):
        # §2 step 3: four generation-1 members on the farmyard, the other 7 unborn
        assert list(m[p, LOC_FARM]) == [4, 0, 0, 0]
        assert list(m[p, LOC_UNBORN]) == [0, 3, 2, 2]
        assert m[p].sum() == 11
        # step 4: time marker at the start cloud, prestige 0; step 5: one coin
        assert v(s, "time")[p] == 0 and v(s, "prestige")[p] == 0
        assert v(s, "coins")[p] == 1
        assert v(s, "grain")[p] == 0 and v(s, "goods")[p].sum() == 0
        assert v(s, "cubes")[p].sum() == 0
    for p in range(n, 4):  # unused seats hold nothing
        assert m[p].sum() == 0 and v(s, "coins")[p] == 0
    assert v(s, "supply_coins")[0] == 15 - n
    # step 6: 8/9/10 tiles face up = 3/4/5 stalls filled + a waiting line of 5
    st = v(s, "stalls")
    assert list(st[:stalls] >= 0) == [True] * stalls
    assert list(st[stalls:]) == [-1] * (5 - stalls)
    assert (v(s, "queue") >= 0).all()
    assert len(set(st[:stalls]) | set(v(s, "queue"))) == face_up
    assert v(s, "pile").sum() == 24 - face_up
    assert (v(s, "tile_owner") == -1).all()
    # step 7 / A.6: chronicle spaces and graves in play
    assert sum(chronicle_cap(s, V.TABLES, sec) for sec in range(5)) == chron
    assert [chronicle_cap(s, V.TABLES, sec) for sec in range(5)] == [chron // 5] * 5
    assert graves_cap(s, V.TABLES) == graves
    assert v(s, "chron_used").sum() == 0 and v(s, "graves_used")[0] == 0
    # step 8: next start player marker in the chamber; step 10: 4 monks in the black bag
    assert v(s, "ns_holder")[0] == -1 and v(s, "monks_bag")[0] == 4
    # step 9 + §3.1 round 1: bag filled with `refill` of each colour and all 6 plague cubes,
    # then 18/21/24 cubes seeded with the provisional split
    board, bag = v(s, "board"), v(s, "bag")
    assert board.sum() == total
    assert tuple(board.sum(axis=1)) == split
    for c in range(4):
        assert board[:, c].sum() + bag[c] == refill
        assert v(s, "supply_cubes")[c] == 18 - refill
    assert board[:, 4].sum() + bag[4] == 6 and v(s, "supply_cubes")[4] == 0
    assert list(v(s, "supply_goods")) == [8] * 5 and v(s, "supply_grain")[0] == 20
    # step 12 / ED-1: seat 0 is the start player and acts first
    assert v(s, "start_player")[0] == 0 and v(s, "round")[0] == 1
    assert v(s, "phase")[0] == PH_TURN and V.current_player(s) == 0
    assert not V.check_invariants(s)


def test_start_player_option_ed1():
    """ED-1: seat 0 stands in for the oldest player, but the first start player is configurable."""
    s = new(3, 0, start_player=2)
    assert v(s, "start_player")[0] == 2 and V.current_player(s) == 2
    assert "take" in legal_names(s)


def test_setup_seeded_and_random():
    """Seeding is chance (decision points table): same seed same board, other seeds differ."""
    boards = {new(4, seed)[V.LAYOUT.offset("board") :][:35].tobytes() for seed in range(6)}
    assert len(boards) > 1
    assert np.array_equal(new(4, 3), new(4, 3))


def test_setup_reads_appendix_values():
    """A.1 values the setup uses come from the rules data, not literals."""
    assert rd.STARTING_COINS == 1 and rd.MEMBERS_BY_GENERATION == (4, 3, 2, 2)
    assert rd.SUPPLY_COINS == 15 and rd.SUPPLY_GRAIN == 20 and rd.PLAGUE_CUBES == 6
    assert {n: sum(rd.CUBES_PER_SPACE[n]) for n in (2, 3, 4)} == {2: 18, 3: 21, 4: 24}
