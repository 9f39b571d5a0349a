"""The single-seat gymnasium env: check_env, masked rollouts, rewards in the learner's frame."""

import numpy as np
import pytest
from game_helpers import fewest, first_counts
from gymnasium.utils.env_checker import check_env
from training_helpers import GAMES

from core.bots import bot_names
from core.registry import GameNotAvailableError, get_game
from training.learn.env import SingleSeatEnv, parse_pool


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game", GAMES)
def test_check_env(game):
    check_env(SingleSeatEnv(game, fewest(get_game(game)), "random"), skip_render_check=True)


# each game at its two smallest player counts: 2 and 3 of 2-4
@pytest.mark.parametrize(
    "game,players", [(g, n) for g in GAMES for n in first_counts(get_game(g), 2)]
)
def test_masked_random_rollout(game, players):
    g = get_game(game)
    env = SingleSeatEnv(game, players, "random", reward_kind="win_loss", on_illegal="raise")
    rng = np.random.default_rng(0)
    seats, ended_by_opponent, ended_by_learner = set(), 0, 0
    obs, info = env.reset(seed=11)
    for _episode in range(6):
        done, steps = False, 0
        while not done:
            assert obs.shape == (g.OBS_SIZE,) and obs.dtype == np.float32
            assert g.current_player(env.state) == env.seat == info["seat"]
            mask = env.action_masks()
            assert mask.dtype == bool and mask.any()
            assert np.array_equal(mask, g.legal_mask(env.state))
            obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
            done = term or trunc
            if not done:
                assert reward == 0.0
        assert g.is_terminal(env.state)
        assert trunc == g.is_truncated(env.state) and term == (not trunc)
        assert reward == pytest.approx(float(g.returns(env.state, "win_loss")[env.seat]))
        assert info["outcome"]["win_loss"] == reward
        share = info["outcome"]["win_share"]
        assert share == {1.0: 1.0, -1.0: 0.0}[reward] if reward != 0.0 else 0.0 < share < 1.0
        if info["opponent_moves"]:
            ended_by_opponent += 1
        else:
            ended_by_learner += 1
        seats.add(env.seat)
        obs, info = env.reset()
    assert len(seats) > 1  # the learner's seat changes between episodes
    assert ended_by_opponent + ended_by_learner == 6


@pytest.mark.parametrize("game", GAMES)
def test_reward_kinds_follow_returns(game):
    g = get_game(game)
    counts = sorted(g.PLAYER_COUNTS)
    players = counts[len(counts) // 2]  # a middle count: 3 of 2-4
    for kind in ("rank", "margin"):
        env = SingleSeatEnv(game, players, "random", reward_kind=kind)
        rng = np.random.default_rng(1)
        env.reset(seed=3)
        done = False
        while not done:
            _o, r, te, tr, _i = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = te or tr
        assert r == pytest.approx(float(g.returns(env.state, kind)[env.seat]))


@pytest.mark.parametrize("game", GAMES)
def test_opponent_ends_game_reward_in_learner_frame(game):
    """Play until some episode ends on an opponent's move; the reward is still the learner's."""
    g = get_game(game)
    players = min(g.PLAYER_COUNTS)
    env = SingleSeatEnv(game, players, "random", reward_kind="margin")
    rng = np.random.default_rng(5)
    for ep in range(40):
        env.reset(seed=100 + ep)
        done = False
        while not done:
            _o, r, te, tr, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = te or tr
        if info["opponent_moves"] > 0:
            mine = float(g.returns(env.state, "margin")[env.seat])
            theirs = float(g.returns(env.state, "margin")[(env.seat + 1) % players])
            assert r == pytest.approx(mine)
            assert mine != theirs or mine == 0.0
            return
    pytest.fail("no episode in 40 ended on an opponent's move")


def test_truncated_game_ends_episode_as_truncated():
    import village_env as V
    from village_env import tables

    old = V.RULES_DATA_HASH
    try:
        V.load_rules_data(tables.rules_with(MAX_ROUNDS=1))
        env = SingleSeatEnv("village", 2, "random", reward_kind="win_loss")
        rng = np.random.default_rng(0)
        env.reset(seed=0)
        done = False
        while not done:
            _o, r, te, tr, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = te or tr
        assert tr and not te and info["outcome"]["truncated"]
        assert r == pytest.approx(float(V.returns(env.state, "win_loss")[env.seat]))
    finally:
        V.load_rules_data()
    assert V.RULES_DATA_HASH == old


@pytest.mark.parametrize("game", GAMES)
def test_reset_seed_replays_exactly(game):
    pool = "random:1,heuristic:1" if "heuristic" in bot_names(game) else "random"
    players = min(get_game(game).PLAYER_COUNTS)

    def run():
        env = SingleSeatEnv(game, players, pool)
        obs, _ = env.reset(seed=42)
        rng = np.random.default_rng(9)
        trace = [obs]
        for _ in range(60):
            obs, r, te, tr, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            trace.append(obs)
            if te or tr:
                obs, _ = env.reset()
        return np.stack(trace), env.state.copy()

    (a, sa), (b, sb) = run(), run()
    assert np.array_equal(a, b) and np.array_equal(sa, sb)


def _to_a_decision_with_an_illegal_action(env) -> int:
    """Reset with seed 0 and play the first legal action until some action is illegal (a small
    game may allow every action at first); that action. A game that ends first (a legal game may
    allow every action at every decision) skips the test that needs one."""
    env.reset(seed=0)
    for _ in range(10_000):
        mask = env.action_masks()
        if not mask.all():
            return int(np.flatnonzero(~mask)[0])
        _o, _r, te, tr, _i = env.step(int(np.flatnonzero(mask)[0]))
        if te or tr:
            pytest.skip("the game ended with every action legal at every decision")
    raise AssertionError("no illegal action in 10000 decisions")


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_modes(game):
    from core.errors import IllegalActionError

    players = min(get_game(game).PLAYER_COUNTS)
    env = SingleSeatEnv(game, players, "random")
    bad = _to_a_decision_with_an_illegal_action(env)
    _o, r, te, tr, info = env.step(bad)
    assert te and not tr and r == -1.0 and info["illegal_action"]
    env = SingleSeatEnv(game, players, "random", on_illegal="raise")
    assert _to_a_decision_with_an_illegal_action(env) == bad
    before = env.state.copy()
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert np.array_equal(before, env.state)


@pytest.mark.parametrize("game", GAMES)
def test_bad_settings_are_refused(game):
    counts = get_game(game).PLAYER_COUNTS
    with pytest.raises(ValueError, match="players must be one of"):
        SingleSeatEnv(game, max(counts) + 1)
    with pytest.raises(ValueError, match="reward_kind"):
        SingleSeatEnv(game, min(counts), reward_kind="points")
    with pytest.raises(ValueError, match="neither a bot"):
        SingleSeatEnv(game, min(counts), "no_such_bot")
    with pytest.raises(GameNotAvailableError, match="unknown game"):
        SingleSeatEnv("chess", 2)
    with pytest.raises(ValueError, match="zero total weight"):
        parse_pool("random:0")
    assert parse_pool("random:2, heuristic") == [("random", 2.0), ("heuristic", 1.0)]


def test_pool_members_keep_the_commas_of_their_specs():
    """Specs with parameters (search settings, a restricted agent wrapping another spec, a network
    with settings) are pool members whole, each with its own weight."""
    text = "restrict:forbid=a+b,agent=mcts:iters=100:2, az:sims=100,mix=0.5:3, mcts:iters=50,c=0.5"
    assert parse_pool(text) == [
        ("restrict:forbid=a+b,agent=mcts:iters=100", 2.0),
        ("az:sims=100,mix=0.5", 3.0),
        ("mcts:iters=50,c=0.5", 1.0),
    ]
    with pytest.raises(ValueError, match="follows no agent spec"):
        parse_pool("iters=100,random")
