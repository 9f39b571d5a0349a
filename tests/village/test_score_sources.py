"""Prestige by source: `score_src` credits every change of a player's prestige to one
of layout.SCORE_SOURCES when it happens; `score_by_source(state)` reads it.

(a) a seeded sweep over random (and a few heuristic-bot) games: rows sum to prestige at every
step and to `scores()` at the end, the final-scoring sources equal `final_score_parts` of the
finished state and the travel rewards equal the rewards of the marked cities; (b) scenarios with
exact credits from the rules: travel reward (§4.6), level-4 privilege (§4.7), Mass majority
(§4.9 step 3, ED-29), every final-scoring category (§5.2).
"""

import numpy as np
import pytest
from village.helpers import (
    LOC_COUNCIL,
    LOC_WINDOW,
    V,
    act,
    start_mass,
    v,
)
from village.test_rules_church_mass import mass_state
from village.test_rules_council import council_turn
from village.test_rules_scoring import ending_state, every_category, play_out
from village.test_rules_travel import travel_turn

from core.errors import StateFormatError
from village_env.engine.board import RW_PRESTIGE
from village_env.engine.rounds import N_SCORE_PARTS, final_score_parts
from village_env.layout import N_SCORE_SOURCES, SCORE_SOURCES, SRC_FINAL
from village_env.tables import (
    CITY_REWARD_ROW,
    T_CITY_REWARD,
    T_MASS_PRESTIGE,
    T_PRIVILEGE_PRESTIGE,
)

SRC = {name: k for k, name in enumerate(SCORE_SOURCES)}
W1, W2, W3, W4 = (LOC_WINDOW + i for i in range(4))
L3 = LOC_COUNCIL + 2


def credits(s, p):
    """{source: prestige} of p's nonzero sources."""
    row = V.score_by_source(s)[p]
    return {SCORE_SOURCES[k]: int(row[k]) for k in np.flatnonzero(row)}


def final_parts(s, p):
    out = np.zeros(N_SCORE_PARTS, dtype=np.int64)
    final_score_parts(s, V.TABLES, p, out)
    return out


def check_finished(s):
    """Every finished game: the sources add up to the score, exactly, category by category."""
    n = V.num_players(s)
    src = V.score_by_source(s)
    assert src.shape == (n, N_SCORE_SOURCES) and src.dtype == np.int64
    assert (src >= 0).all()
    assert src.sum(axis=1).tolist() == V.scores(s).tolist()
    assert src.sum(axis=1).tolist() == v(s, "prestige")[:n].tolist()
    T = V.TABLES
    for p in range(n):
        # §5.2: each final-scoring category credited once, to its own source
        assert src[p, SRC_FINAL:].tolist() == final_parts(s, p).tolist()
        # §4.6: a marker is placed with its city's reward, once (markers are never removed)
        rewards = 0
        for c in np.flatnonzero(v(s, "markers")[p]):
            if T[T_CITY_REWARD + CITY_REWARD_ROW * c] == RW_PRESTIGE:
                rewards += T[T_CITY_REWARD + CITY_REWARD_ROW * c + 1]
        assert src[p, SRC["travel_rewards"]] == rewards
        assert src[p, SRC["council_privilege"]] % T[T_PRIVILEGE_PRESTIGE] == 0
        assert src[p, SRC["mass_majority"]] % T[T_MASS_PRESTIGE] == 0
    assert not V.check_invariants(s)


def random_game(n, seed, every_step=False):
    rng = np.random.default_rng(seed)
    s = V.new_game(n, seed)
    before = V.score_by_source(s)
    assert not before.any()
    while not V.is_terminal(s):
        s = V.step(s, int(rng.choice(np.flatnonzero(V.legal_mask(s)))))
        if every_step:
            src = V.score_by_source(s)
            assert src.sum(axis=1).tolist() == v(s, "prestige")[:n].tolist()
            assert (src >= before).all()  # prestige never goes down, in any source
            if not V.is_terminal(s):  # final scoring happens once, at the end
                assert not src[:, SRC_FINAL:].any()
            before = src
    return s


# --- (a) sweeps -------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_sources_sum_to_scores(n):
    seen = np.zeros(N_SCORE_SOURCES, dtype=bool)
    for seed in range(14):
        s = random_game(n, 1400 * n + seed, every_step=seed < 3)
        check_finished(s)
        seen |= V.score_by_source(s).any(axis=0)
    # the sweep reaches the in-game sources too, not only final scoring
    assert seen[[SRC["travel_rewards"], SRC["mass_majority"], SRC["customers"]]].all()


def test_heuristic_bot_games_sources_sum_to_scores():
    bots = pytest.importorskip("core.bots")
    for n in (2, 3, 4):
        players = [bots.make_bot("village", "heuristic", seed=10 * n + p) for p in range(n)]
        s = V.new_game(n, 77 + n)
        while not V.is_terminal(s):
            s = V.step(s, players[V.current_player(s)].act(s))
        check_finished(s)


def test_score_by_source_is_a_copy_and_checks_the_state():
    s = random_game(3, 5)
    src = V.score_by_source(s)
    src[:] = 99
    assert V.score_by_source(s).sum(axis=1).tolist() == V.scores(s).tolist()
    with pytest.raises(StateFormatError):
        V.score_by_source(s[:-1])
    assert "score_by_source" in V.__all__ and "SCORE_SOURCES" in V.__all__


def test_invariant_and_from_bytes_refuse_unaccounted_prestige():
    s = random_game(2, 9)
    assert V.from_bytes(V.to_bytes(s)).tolist() == s.tolist()
    bad = s.copy()
    v(bad, "prestige")[0] += 1  # prestige from no source
    assert V.check_invariants(bad) == ["prestige by source (score_src) does not add up to prestige"]
    with pytest.raises(StateFormatError, match="score_src"):
        V.from_bytes(V.to_bytes(bad))
    bad = s.copy()
    v(bad, "score_src")[1, SRC["coins"]] = -1  # outside the segment's range
    v(bad, "score_src")[1, SRC["travel"]] += 1
    with pytest.raises(StateFormatError, match="segment 'score_src'"):
        V.from_bytes(V.to_bytes(bad))


# --- (b) scenarios ----------------------------------------------------------------------------
def test_travel_reward_prestige_credits_travel_rewards():
    s = travel_turn(cubes={"brown": 2})
    s = act(s, "travel", 0, 0, 0)  # Village -> A: reward 3 prestige (A.7)
    assert credits(s, 0) == {"travel_rewards": 3} and v(s, "prestige")[0] == 3


def test_level4_privilege_credits_council_privilege():
    s = council_turn(cubes={"green": 2}, coins=1, levels=(L3,))
    s = act(s, "council_climb", 2, 0, 0)
    s = act(s, "privilege", 3)  # §4.7 level 4: pay 1 coin, gain 3 prestige at once
    assert credits(s, 0) == {"council_privilege": int(V.TABLES[T_PRIVILEGE_PRESTIGE])}
    assert credits(s, 0) == {"council_privilege": 3}
    assert not V.check_invariants(s)


def test_mass_majority_credits_mass_majority_each_mass():
    bonus = int(V.TABLES[T_MASS_PRESTIGE])
    assert bonus == 2
    s = start_mass(mass_state(windows={0: [(W1, 1), (W1, 1)], 1: [(W4, 1)]}))
    assert credits(s, 0) == {"mass_majority": bonus}
    assert credits(s, 1) == {} and credits(s, 2) == {}
    s = start_mass(s)  # the next round's Mass: the same majority scores again
    assert credits(s, 0) == {"mass_majority": 2 * bonus}
    assert not V.check_invariants(s)


def test_mass_majority_tie_credits_every_tied_player():
    s = start_mass(mass_state(windows={0: [(W1, 1), (W3, 1)], 1: [(W3, 1), (W2, 1)]}))
    assert [credits(s, p) for p in range(3)] == [{"mass_majority": 2}] * 2 + [{}]


def test_final_scoring_credits_each_category_to_its_source():
    s = ending_state()
    every_category(s)
    assert not V.check_invariants(s)
    s = play_out(s)
    assert V.is_terminal(s)
    assert credits(s, 0) == {
        "travel_rewards": 5,
        "mass_majority": 2,  # the final Mass: p0 alone has window members
        "travel": 6,
        "council": 12,
        "church": 15,
        "chronicle": 4,
        "customers": 9,
        "coins": 3,
    }
    assert V.scores(s)[0] == 56 == sum(credits(s, 0).values())
    for p in range(2):
        assert V.score_by_source(s)[p, SRC_FINAL:].tolist() == final_parts(s, p).tolist()
    assert V.score_by_source(s).sum(axis=1).tolist() == V.scores(s).tolist()
    assert not V.check_invariants(s)


def test_final_scoring_sources_match_the_parts_of_a_capped_game():
    """ED-34: a game ended by the round cap is scored the same way."""
    from village_env import tables

    V.load_rules_data(tables.rules_with(MAX_ROUNDS=2))
    try:
        s = random_game(3, 4)
        assert V.is_truncated(s)
        check_finished(s)
    finally:
        V.load_rules_data()


def test_coin_reward_credits_no_prestige():
    """§4.6: a city whose reward is coins (B, A.7) changes no prestige and credits nothing."""
    s = travel_turn(cubes={"pink": 2})
    s = act(s, "travel", 1, 0, 0)  # Village -> B: 1 coin
    assert v(s, "coins")[0] == 1 and v(s, "markers")[0, 1] == 1
    assert credits(s, 0) == {} and v(s, "prestige")[0] == 0
