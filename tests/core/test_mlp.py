"""Trained actors compiled (core.mlp): the forward pass is numpy's (training.agents.policy.
mlp_logits) within float32 rounding, and the choice is PolicyAgent.act's, draw for draw."""

import numpy as np
import pytest

from core.bots import BotRng
from core.mlp import MAX_LAYERS, actor_choice, actor_logits, pack_actors, packable
from training.agents.policy import masked_probs, mlp_logits


def _actor(rng, sizes, acts):
    a = {}
    for i in range(len(sizes) - 1):
        a[f"W{i}"] = rng.normal(size=(sizes[i + 1], sizes[i])).astype(np.float32) / 3
        a[f"b{i}"] = rng.normal(size=sizes[i + 1]).astype(np.float32)
    a["activations"] = np.array(acts, dtype="<U8")
    return a


def _obs(rng, n):
    x = rng.normal(size=n).astype(np.float32)
    x[rng.random(n) < 0.7] = 0.0  # observations are mostly zeros: the pass skips them
    return x


def test_the_compiled_forward_pass_is_numpys():
    rng = np.random.default_rng(0)
    actors = [
        _actor(rng, [50, 16, 8, 30], ["tanh", "relu"]),
        _actor(rng, [50, 24, 30], ["relu"]),
        _actor(rng, [50, 30], []),
    ]
    w, meta, widest = pack_actors(actors)
    assert widest == 24 and meta.shape[0] == 3
    h = np.zeros((2, widest), dtype=np.float32)
    out = np.zeros(30, dtype=np.float32)
    for k, a in enumerate(actors):
        for _ in range(20):
            x = _obs(rng, 50)
            actor_logits(w, meta, k, x, h, out)
            want = mlp_logits(a, x[None])[0]
            np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_the_compiled_choice_is_policy_agent_acts():
    """Argmax among the legal actions (the first of equals) when deterministic; else the same
    32-bit draw from the seat's stream, into the same softmax over the legal actions."""
    rng = np.random.default_rng(1)
    cdf = np.zeros(40)
    for t in range(500):
        logits = (rng.normal(size=40) * 3).astype(np.float32)
        mask = rng.random(40) < 0.3
        mask[rng.integers(40)] = True
        det = actor_choice(logits, mask, True, BotRng(t).words, cdf)
        assert det == int(np.argmax(np.where(mask, logits, -np.inf)))
        ours, theirs = BotRng(t), BotRng(t)
        got = actor_choice(logits, mask, False, ours.words, cdf)
        c = np.cumsum(masked_probs(logits, mask))
        u = theirs.seed32() / 2.0**32 * c[-1]
        want = int(np.searchsorted(c, u, side="right"))
        assert got == want and mask[got]
        assert np.array_equal(ours.words, theirs.words)
    assert actor_choice(logits, np.zeros(40, dtype=bool), False, BotRng(0).words, cdf) == -1


def test_actors_it_cannot_pack_are_refused():
    rng = np.random.default_rng(2)
    deep = _actor(rng, [4] * (MAX_LAYERS + 2), ["tanh"] * MAX_LAYERS)
    odd = _actor(rng, [4, 4, 4], ["gelu"])
    assert not packable(deep) and not packable(odd)
    assert packable(_actor(rng, [4] * MAX_LAYERS, ["relu"] * (MAX_LAYERS - 1)))
    with pytest.raises(ValueError, match="at most"):
        pack_actors([deep])
    with pytest.raises(ValueError, match="unknown activation"):
        pack_actors([odd])


def test_the_engine_refuses_actors_of_another_shape_and_codes_of_no_actor():
    from core.batch import SEAT_CALLER, SEAT_POLICY
    from core.registry import game_names, get_game

    g = get_game(game_names()[0])
    eng = g.make_batch(2, min(g.PLAYER_COUNTS), seed=0)
    rng = np.random.default_rng(3)
    with pytest.raises(ValueError, match="needs"):
        eng.set_actors([_actor(rng, [g.OBS_SIZE + 1, 8, g.NUM_ACTIONS], ["tanh"])])
    eng.set_actors([_actor(rng, [g.OBS_SIZE, 8, g.NUM_ACTIONS], ["tanh"])])
    mp = eng.spec.max_players
    codes = np.full((2, mp), SEAT_CALLER, dtype=np.int64)
    codes[0, :] = SEAT_POLICY - 1  # actor 1: there is only actor 0
    rngs, moves = np.zeros((2, mp, 4), dtype=np.int64), np.zeros(2, dtype=np.int64)
    before = eng.states.copy()
    with pytest.raises(ValueError, match="names actor 1"):
        eng.play_seats(eng._all, codes, rngs, moves)
    assert np.array_equal(eng.states, before)
