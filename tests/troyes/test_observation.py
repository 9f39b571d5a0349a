"""The observation's scaled counts (troyes_env/observation.py) as the layout documents them, and
the reciprocal products observe_into uses instead of divisions."""

from __future__ import annotations

import numpy as np
import pytest

import troyes_env as T
from core.agents import RandomAgent
from troyes_env.engine import observe as obs_mod
from troyes_env.layout import S_DEN, S_DICE, S_INF, S_KEPT, S_NP, S_VP
from troyes_env.observation import OB_DICE, OB_PLAYERS


def test_reciprocal_products_equal_the_divisions():
    """float32(x * (1/d)) is float32(x / d) for every integer |x| < 2**22, for each scale."""
    names = [k for k in vars(obs_mod) if k.startswith("_BY")]
    assert len(names) >= 9
    x = np.arange(-(2**22), 2**22, dtype=np.int64).astype(np.float64)
    for name in names:
        d = int(name[3:])
        inv = getattr(obs_mod, name)
        assert inv == 1.0 / d
        np.testing.assert_array_equal(
            (x * inv).astype(np.float32), (x / d).astype(np.float32), err_msg=name
        )


def _states(n, seed):
    s = T.new_game(n, seed)
    bot = RandomAgent(seed)
    while not T.is_terminal(s):
        yield s
        s = T.step(s, bot.act_mask(T.legal_mask(s)))
    yield s


@pytest.mark.parametrize("n, seed", [(2, 43), (3, 43), (4, 41)])  # seeds where events are kept
def test_scaled_counts_follow_the_layout(n, seed):
    """Per relative seat: deniers/20, influence/20, VP/20, events kept/5; dice count/6 per
    relative district, colour and value (float32 of the exact quotient)."""
    checked_kept = 0
    for s in _states(n, seed):
        assert s[S_NP] == n
        for p in range(n):
            o = T.observe(s, p)
            for q in range(n):
                r = (q - p) % n
                base = OB_PLAYERS + r * 10
                assert o[base + 0] == np.float32(s[S_DEN + q] / 20)
                assert o[base + 1] == np.float32(s[S_INF + q] / 20)
                assert o[base + 2] == np.float32(s[S_VP + q] / 20)
                kept = int(np.sum(s[S_KEPT : S_KEPT + 17] == q))
                assert o[base + 7] == np.float32(kept / 5)
                checked_kept += kept
                for i in range(18):
                    assert o[OB_DICE + r * 18 + i] == np.float32(s[S_DICE + q * 18 + i] / 6)
            for i in range(18):  # the neutral dice after the four relative districts
                assert o[OB_DICE + 4 * 18 + i] == np.float32(s[S_DICE + 4 * 18 + i] / 6)
    assert checked_kept > 0  # some event card was kept in these games
