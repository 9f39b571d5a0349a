"""Public API and PettingZoo conformance for Village."""

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import village_env as V
from core.errors import IllegalActionError, StateFormatError


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pettingzoo_api_and_seed(n):
    api_test(V.env(num_players=n), num_cycles=1000)
    seed_test(lambda: V.env(num_players=n), num_cycles=1000)


def test_registered_in_pettingzoo():
    e = pettingzoo.make("aec", "village_v0", num_players=3)
    e.reset(seed=1)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match=r"\(2, 3, 4\)"):
        V.new_game(5, 0)
    with pytest.raises(ValueError, match=r"\(2, 3, 4\)"):
        V.env(num_players=1)
    with pytest.raises(ValueError, match="allowed options"):
        V.env(num_players=2, bogus=1)
    with pytest.raises(ValueError, match="render_mode"):
        V.env(num_players=2, render_mode="rgb")
    with pytest.raises(ValueError, match="allowed"):
        V.returns(V.new_game(2, 0), "bogus")


def test_illegal_action_raises_and_leaves_state():
    s = V.new_game(3, 5)
    before = s.copy()
    illegal = int(np.flatnonzero(~V.legal_mask(s))[0])
    with pytest.raises(IllegalActionError) as ei:
        V.step(s, illegal)
    assert ei.value.action == illegal and "legal actions" in ei.value.why
    assert ei.value.description == V.describe(illegal, s)
    with pytest.raises(IllegalActionError, match="out of range"):
        V.step(s, V.NUM_ACTIONS)
    assert np.array_equal(s, before)


def test_step_does_not_modify_input_and_is_deterministic():
    a = V.new_game(4, 11)
    b = V.new_game(4, 11)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, V.new_game(4, 12))
    act = int(np.flatnonzero(V.legal_mask(a))[0])
    c = V.step(a, act)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_bytes_round_trip_and_refusals():
    s = V.new_game(2, 3)
    data = V.to_bytes(s)
    assert np.array_equal(V.from_bytes(data), s)
    with pytest.raises(StateFormatError):
        V.from_bytes(data[:-8])
    with pytest.raises(StateFormatError, match="not a saved state"):
        V.from_bytes(b"JUNK" + data[4:])
    bad = s.copy()
    bad[V.LAYOUT.offset("grain")] = 9  # above the cap of 5
    with pytest.raises(StateFormatError, match="grain"):
        V.from_bytes(V.to_bytes(bad))
    bad = s.copy()
    bad[V.LAYOUT.offset("coins")] += 1  # a coin from nowhere
    with pytest.raises(StateFormatError, match="coins"):
        V.from_bytes(V.to_bytes(bad))
    with pytest.raises(StateFormatError):
        V.legal_mask(s.astype(np.int32))


def test_observation_shape_and_no_rng():
    s = V.new_game(3, 9)
    o = V.observe(s, 1)
    assert o.shape == (V.OBS_SIZE,) and o.dtype == np.float32
    t = V.reseed(s, 12345)
    assert not np.array_equal(s, t)
    for p in range(3):
        assert np.array_equal(V.observe(s, p), V.observe(t, p))
    d = V.determinize(s, 0, 99)
    assert np.array_equal(V.observe(d, 0), V.observe(s, 0))


def test_render_and_describe():
    s = V.new_game(2, 0)
    text = V.render(s)
    assert "Village, 2 players" in text and "player_1" in text
    for a in np.flatnonzero(V.legal_mask(s)):
        assert V.describe(int(a), s)
    e = V.env(num_players=2, render_mode="ansi")
    e.reset(seed=0)
    assert "round 1" in e.render()


def test_render_describe_and_invariants_follow_a_loaded_variant():
    """With a rules variant loaded, render, describe and the invariant check read its tables,
    never the module defaults; the defaults come back afterwards."""
    from village_env import rules_data as rd
    from village_env.actions import ACTIONS
    from village_env.spec import invariant_problems
    from village_env.tables import TABLES as DEFAULT_TABLES
    from village_env.tables import rules_with

    edges = list(rd.TRAVEL_EDGES)
    a, b, *rest = edges[0]
    edges[0] = (b, a, *rest)  # the first edge's ends swapped: travel is worded the other way
    variant = rules_with(
        WELL_CUBES=4,
        COUNCIL_GREEN=3,
        CHURCH_TIME=4,
        SUPPLY_COINS=rd.SUPPLY_COINS - 1,
        CUSTOMERS=tuple((dem, value + 10) for dem, value in rd.CUSTOMERS),
        TRAVEL_EDGES=tuple(edges),
    )
    well = ACTIONS.offset("well")
    council = ACTIONS.offset("council_enter")
    church = ACTIONS.offset("church") + 1  # generation 1, paying time
    travel = ACTIONS.offset("travel")  # edge 0, from its first end, generation 1
    try:
        V.load_rules_data(variant)
        s = V.new_game(2, 0)
        assert V.check_invariants(s) == []  # the coin total of the variant's supply
        assert invariant_problems(s, DEFAULT_TABLES) != []  # the defaults would call it broken
        text = V.render(s)
        stalls = [int(t) for t in V.LAYOUT.view(s, "stalls") if t >= 0]
        assert stalls
        for t in stalls:
            value = rd.CUSTOMERS[t][1]
            assert f"T{t + 1} (" in text and f"{value + 10} prestige)" in text, text
        assert V.describe(well, s).startswith("use the Well paying 4 ")
        assert V.describe(council, s).endswith("paying 3 green")
        assert V.describe(church, s).endswith("paying 4 time")
        assert V.describe(travel, s).endswith("from city A to the Village")
        e = V.env(num_players=2, render_mode="ansi")
        e.reset(seed=0)
        assert f"{rd.CUSTOMERS[stalls[0]][1] + 10} prestige)" in e.render()
    finally:
        V.load_rules_data()
    s = V.new_game(2, 0)
    assert V.check_invariants(s) == []
    assert V.describe(well, s).startswith("use the Well paying 3 ")
    assert V.describe(travel, s).endswith("from the Village to city A")


def test_reseed_changes_future_only():
    s = V.new_game(2, 1)
    t = V.reseed(s, 2)
    assert np.array_equal(V.legal_mask(s), V.legal_mask(t))
