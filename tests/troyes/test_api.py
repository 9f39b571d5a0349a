"""Public API: shapes, errors, determinism, serialisation, hidden information, determinize."""

import numpy as np
import pytest

import troyes_env as T
from core.errors import IllegalActionError, StateFormatError
from troyes_env.layout import LAYOUT
from troyes_env.tables import TABLES

from .conftest import v


def random_play(s, seed, steps=10_000, each=None):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if T.is_terminal(s):
            break
        legal = np.flatnonzero(T.legal_mask(s))
        assert len(legal) > 0, "empty mask before the end (D5)"
        s = T.step(s, int(rng.choice(legal)))
        if each:
            each(s)
    return s


def test_constants():
    assert T.NAME == "troyes" and T.PLAYER_COUNTS == (2, 3, 4)
    assert T.NUM_ACTIONS == 177 and T.ACTIONS.n == 177
    assert len(T.RULES_DATA_HASH) == 16
    assert T.OBS_SIZE == T.observe(T.new_game(2, 0), 0).shape[0]


def test_bad_player_count_and_options():
    with pytest.raises(ValueError, match=r"\(2, 3, 4\)"):
        T.new_game(5, 0)
    with pytest.raises(ValueError, match="allowed"):
        T.new_game(2, 0, bogus=1)
    with pytest.raises(ValueError, match="allowed"):
        T.check_options({"x": 1})


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup(n):
    s = T.new_game(n, 7)
    cit, den, inf, nch, rounds = TABLES[5 * n + T.tables.T_SETUP : 5 * n + T.tables.T_SETUP + 5]
    assert v(s, "n_rounds")[0] == rounds
    assert list(v(s, "deniers")[:n]) == [den] * n and list(v(s, "influence")[:n]) == [inf] * n
    assert list(v(s, "supply")[:n]) == [cit] * n
    ch = v(s, "chars")
    dealt = [int(x) for x in ch[:n].ravel() if x >= 0]
    assert len(dealt) == n * nch and len(set(dealt)) == len(dealt)
    assert (v(s, "act_hidden") >= 0).all() and (v(s, "act_card") < 0).all()
    assert v(s, "row_card")[0] == 0  # Marauding
    assert T.phase_name(s) == "pre-placement" and T.current_player(s) == 0
    if n == 2:
        assert sorted(np.flatnonzero(v(s, "spaces") == 4)) == [0, 1, 6, 8, 12, 15]
    assert T.check_invariants(s) == []


def test_illegal_action_leaves_state_untouched():
    s = T.new_game(3, 1)
    before = s.copy()
    illegal = int(np.flatnonzero(~T.legal_mask(s))[0])
    with pytest.raises(IllegalActionError) as ei:
        T.step(s, illegal)
    assert ei.value.action == illegal and ei.value.phase == "pre-placement" and ei.value.why
    assert np.array_equal(s, before)
    with pytest.raises(IllegalActionError):
        T.step(s, 10_000)
    with pytest.raises(IllegalActionError):
        T.step(s, -1)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_full_game_determinism_and_round_trip(n):
    s1 = random_play(T.new_game(n, 11), 3)
    s2 = random_play(T.new_game(n, 11), 3)
    assert np.array_equal(s1, s2)
    assert T.is_terminal(s1) and T.current_player(s1) == -1
    assert not T.legal_mask(s1).any()
    assert T.check_invariants(s1) == []
    assert np.array_equal(T.from_bytes(T.to_bytes(s1)), s1)
    sc = T.scores(s1)
    assert sc.shape == (n,) and (sc >= 0).all()
    r = T.returns(s1)
    assert r.shape == (n,) and r.max() in (0.0, 1.0)
    assert T.tiebreaks(s1).shape == (n, 1)
    for kind in ("rank", "margin"):
        assert T.returns(s1, kind).shape == (n,)
    assert "final" in T.render(s1)


def test_from_bytes_refuses_bad_states():
    s = T.new_game(2, 0)
    data = T.to_bytes(s)
    with pytest.raises(StateFormatError):
        T.from_bytes(data[:-8])
    bad = s.copy()
    v(bad, "influence")[0] = 21
    with pytest.raises(StateFormatError, match="influence"):
        T.from_bytes(T.to_bytes(bad))
    with pytest.raises(StateFormatError):
        T.step(s.astype(np.int32), 0)


def test_hidden_information_invariance_and_determinize():
    s = random_play(T.new_game(4, 5), 1, steps=60)
    for obs in range(4):
        d = T.determinize(s, obs, 99)
        assert T.check_invariants(d) == []
        assert np.array_equal(T.observe(d, obs), T.observe(s, obs))
        # own characters kept, the multiset of dealt cards a permutation of the unseen ones
        assert list(v(d, "chars")[obs]) == list(v(s, "chars")[obs])
        assert np.array_equal(T.legal_mask(d), T.legal_mask(s))
    # every hidden segment can change without changing any observation of the observer
    d = T.determinize(s, 0, 12345)
    assert not np.array_equal(d, s)
    for seg in LAYOUT.hidden_segments():
        assert seg.name in {"rng", "chars", "act_hidden", "decks"}


def test_observation_hides_other_characters():
    s = T.new_game(4, 3)
    t = s.copy()
    ch = v(t, "chars")
    ch[1, 0], ch[2, 0] = ch[2, 0], ch[1, 0]
    assert np.array_equal(T.observe(s, 0), T.observe(t, 0))
    assert not np.array_equal(T.observe(s, 1), T.observe(t, 1))


def test_reseed_changes_future_chance_only():
    s = random_play(T.new_game(2, 4), 2, steps=30)
    r = T.reseed(s, 77)
    diff = np.flatnonzero(r != s)
    rng = LAYOUT.segments["rng"]
    assert all(rng.offset <= i < rng.offset + 4 for i in diff)


def test_describe_and_phase_name():
    s = T.new_game(2, 0)
    assert T.describe(0, s).startswith("place a citizen")
    assert "Palace" in T.describe(0)
    assert T.describe(T.ACTIONS.encode("PASS")) == "pass"
    for a_ in range(T.NUM_ACTIONS):
        assert isinstance(T.describe(a_), str)


def test_engine_follows_a_modified_table():
    """D2: compiled code reads the table it is given, not a frozen global."""
    from troyes_env import rules_data
    from troyes_env.engine.setup import init_state
    from troyes_env.tables import SETUP_DEN, T_SETUP, build_tables

    t2 = build_tables(rules_data).copy()
    t2[T_SETUP + 3 * 5 + SETUP_DEN] = 17
    s = np.zeros(LAYOUT.size, dtype=np.int64)
    init_state(s, t2, 3, 1, 2, 3)
    assert list(v(s, "deniers")[:3]) == [17, 17, 17]


def test_start_player_option_and_num_players():
    s = T.new_game(3, 0, start_player=2)
    assert T.current_player(s) == 2 and T.num_players(s) == 3
    seen = []
    for _ in range(4):
        seen.append(T.current_player(s))
        s = T.step(s, int(np.flatnonzero(T.legal_mask(s))[0]))
    assert seen == [2, 0, 1, 1]  # snake order from the start player (ED-10)
    with pytest.raises(ValueError):
        T.new_game(2, 0, start_player=2)
    assert list(T.returns(T.new_game(2, 0))) == [0.0, 0.0]
    with pytest.raises(ValueError):
        T.observe(T.new_game(2, 0), 3)


def test_load_rules_data_replaces_the_tables():
    import types

    from troyes_env import rules_data

    old = T.RULES_DATA_HASH
    rd = types.SimpleNamespace(
        **{k: getattr(rules_data, k) for k in dir(rules_data) if k.isupper()}
    )
    rd.SETUP = dict(rules_data.SETUP)
    rd.SETUP[2] = (6, 9, 4, 2, 4)
    try:
        h = T.load_rules_data(rd)
        assert h != old and T.RULES_DATA_HASH == h
        s = T.new_game(2, 0)
        assert list(v(s, "deniers")[:2]) == [9, 9]
        with pytest.raises(StateFormatError, match="rules data"):
            T.load_rules_data()
            T.from_bytes(T.to_bytes(s)[:0] + T.to_bytes(s))  # same hash: fine
            T.load_rules_data(rd)
            data = T.to_bytes(s)
            T.load_rules_data()
            T.from_bytes(data)
    finally:
        T.load_rules_data()
    assert T.RULES_DATA_HASH == old
