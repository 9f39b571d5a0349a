"""Seeded random-game sweeps (compiled): invariants after every decision, no dead ends,
termination, determinism, byte round trips and hidden-information invariance."""

import numpy as np
import pytest

import troyes_env as T
from core.rng import rng_seed, split_seed
from troyes_env.engine import WORK_SIZE, init_state, settle
from troyes_env.engine.checks import HI, LO, random_game
from troyes_env.layout import STATE_SIZE
from troyes_env.tables import TABLES

GAMES = 1000


def _buffers():
    return (
        np.zeros(T.NUM_ACTIONS, np.bool_),
        np.zeros(WORK_SIZE, np.int64),
        np.zeros(4, np.int64),
        np.zeros(STATE_SIZE, np.int64),
    )


def _new(n, seed, mask, work):
    s = np.zeros(STATE_SIZE, np.int64)
    init_state(s, TABLES, n, *split_seed(seed))
    settle(s, TABLES, mask, work)
    return s


@pytest.mark.slow  # 1,000 games per player count
@pytest.mark.parametrize("n", [2, 3, 4])
def test_sweep(n):
    mask, work, rng4, spare = _buffers()
    total = 0
    finals = []
    for g in range(GAMES):
        s = _new(n, 1000 * n + g, mask, work)
        rng_seed(rng4, 0, g, n, 7)
        k, err = random_game(s, TABLES, LO, HI, mask, work, rng4, spare, g < 20, 5000)
        assert err == 0, f"game {g}: error code {err} after {k} decisions\n{T.render(s)}"
        total += k
        if g % 100 == 0:
            assert T.check_invariants(s) == []
            assert np.array_equal(T.from_bytes(T.to_bytes(s)), s)
            finals.append((g, s.copy()))
    # determinism: the same seeds give byte-identical final states
    for g, fin in finals:
        s = _new(n, 1000 * n + g, mask, work)
        rng_seed(rng4, 0, g, n, 7)
        random_game(s, TABLES, LO, HI, mask, work, rng4, spare, False, 5000)
        assert np.array_equal(s, fin)
    assert total > GAMES * 20


@pytest.mark.parametrize("n", [2, 3, 4])
def test_python_path_hidden_info_and_rejections(n):
    """A few games through the public API: invariants each step, masked-out ids rejected with
    the state unchanged (sampled), observations unchanged by determinize for every observer."""
    rng = np.random.default_rng(n)
    for g in range(3):
        s = T.new_game(n, g)
        step_i = 0
        while not T.is_terminal(s):
            m = T.legal_mask(s)
            legal = np.flatnonzero(m)
            assert len(legal)
            if step_i % 7 == 0:
                bad = np.flatnonzero(~m)
                for x in rng.choice(bad, size=min(3, len(bad)), replace=False):
                    before = s.copy()
                    with pytest.raises(T.IllegalActionError):
                        T.step(s, int(x))
                    assert np.array_equal(s, before)
                obs = int(rng.integers(n))
                d = T.determinize(s, obs, int(rng.integers(1 << 30)))
                assert np.array_equal(T.observe(d, obs), T.observe(s, obs))
                assert T.current_player(d) == T.current_player(s)
                assert np.array_equal(T.legal_mask(d), m)
            s = T.step(s, int(rng.choice(legal)))
            assert T.check_invariants(s) == [], T.render(s)
            step_i += 1
