"""Baseline bots: registry, exact replay from seeds, no peeking, heuristic strength vs random."""

import numpy as np
import pytest
from training_helpers import GAMES

from core.bots import bot_names, make_bot
from core.registry import get_game
from training.arena.evaluate import evaluate, play_game


@pytest.mark.parametrize("game", GAMES)
def test_registry_names_and_errors(game):
    assert "random" in bot_names(game)
    available = ", ".join(sorted(bot_names(game)))
    with pytest.raises(ValueError, match=f"no bot 'nope' for {game}; available: {available}"):
        make_bot(game, "nope")


def _needs_bot(game: str, name: str) -> None:
    if name not in bot_names(game):
        pytest.skip(f"{game} has no {name!r} bot (no position evaluation)")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_bots_replay_exactly_from_their_seeds(game, name):
    _needs_bot(game, name)
    g = get_game(game)

    def trace(seed):
        bots = [make_bot(game, name, seed), make_bot(game, "random", seed + 1)]
        s = g.new_game(2, 7)
        acts = []
        for _ in range(150):
            if g.is_terminal(s):
                break
            a = bots[g.current_player(s)].act(s)
            acts.append(a)
            s = g.step(s, a)
        return acts

    assert len(trace(3)) >= 20  # long enough for two bot seeds to part ways
    assert trace(3) == trace(3)
    assert trace(3) != trace(4)


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_does_not_peek_at_future_draws(game):
    """The lookahead runs on a reseeded copy: the real state's RNG words are never consumed."""
    _needs_bot(game, "heuristic")
    g = get_game(game)
    bot = make_bot(game, "heuristic", 0)
    s = g.new_game(2, 1)
    before = s.copy()
    bot.act(s)
    assert np.array_equal(s, before)


def test_troyes_heuristic_ignores_the_opponents_hidden_characters():
    """Swapping the opponent's secret Character cards for other cards the bot cannot see never
    changes its choice (same bot seed), all through a game."""
    g = get_game("troyes")
    o = g.LAYOUT.offset("chars")
    s = g.new_game(2, 12)
    driver = make_bot("troyes", "random", 5)
    checked = 0
    while not g.is_terminal(s):
        me = g.current_player(s)
        own = set(s[o + 2 * me : o + 2 * me + 2].tolist())
        other = 1 - me
        theirs = set(s[o + 2 * other : o + 2 * other + 2].tolist())
        alt = s.copy()
        alt[o + 2 * other : o + 2 * other + 2] = [c for c in range(6) if c not in own | theirs][:2]
        assert not np.array_equal(alt, s)
        assert np.array_equal(g.observe(alt, me), g.observe(s, me))
        if len(np.flatnonzero(g.legal_mask(s))) > 1:
            a1 = make_bot("troyes", "heuristic", 9).act(s)
            a2 = make_bot("troyes", "heuristic", 9).act(alt)
            assert a1 == a2
            checked += 1
        s = g.step(s, driver.act(s))
    assert checked >= 20


@pytest.mark.slow  # 100 games per game
@pytest.mark.parametrize("game", GAMES)
def test_heuristic_beats_random_70_percent_of_100_games(game):
    _needs_bot(game, "heuristic")
    res = evaluate(game, 2, ["heuristic", "random"], games=100, seed=2024)
    h = res["agents"][0]
    assert h["games_per_seat"] == [50, 50]
    assert h["win_rate"] >= 0.70, h


@pytest.mark.parametrize("game", GAMES)
def test_full_game_heuristic_vs_heuristic_terminates(game):
    _needs_bot(game, "heuristic")
    g = get_game(game)
    s = play_game(g, [make_bot(game, "heuristic", 1), make_bot(game, "heuristic", 2)], 9)
    assert g.is_terminal(s)


def test_troyes_heuristic_decides_in_compiled_code():
    """What keeps the heuristic at a few ms per decision, counted rather than timed (so machine
    load cannot fail it): over a whole game every decision goes through the compiled chain
    search; the Python reference search (far slower) takes over only the few decisions near the
    end where the compiled one meets a finished game, within its node budget per action."""
    from troyes_env.bots import NODE_BUDGET

    g = get_game("troyes")
    bots = [make_bot("troyes", "heuristic", 1), make_bot("troyes", "heuristic", 2)]
    count = {"compiled": 0, "handed_back": 0, "step_budget": 0, "python_steps": 0}
    for bot in bots:
        compiled, step = bot._compiled, bot._step

        def counted_compiled(probe, me, cw, legal, val, _f=compiled):
            status = _f(probe, me, cw, legal, val)
            count["compiled"] += 1
            if status != 0:
                count["handed_back"] += 1
                count["step_budget"] += len(legal) * (NODE_BUDGET + 1)
            return status

        def counted_step(*args, _f=step):
            count["python_steps"] += 1
            return _f(*args)

        bot._compiled, bot._step = counted_compiled, counted_step
    s, decisions = g.new_game(2, 3), 0
    while not g.is_terminal(s):
        decisions += int(g.legal_mask(s).sum()) > 1
        s = g.step(s, bots[g.current_player(s)].act(s))
    assert count["compiled"] == decisions > 50, (count, decisions)
    assert count["handed_back"] <= decisions // 20, (count, decisions)
    assert count["python_steps"] <= count["step_budget"], count


def test_troyes_heuristic_compiled_search_equals_the_python_one():
    """The compiled chain search (troyes_env.engine.evaluate.chain_values) gives bit-for-bit the
    values of the Python reference (TroyesHeuristic._search) at every decision of mixed games of
    2-4 players, or hands a decision near the end back to it (status 1); it never errs."""
    g = get_game("troyes")
    from troyes_env.bots import NODE_BUDGET

    compared = handed_back = 0
    for seed in range(9):
        players = 2 + seed % 3
        bots = [make_bot("troyes", "heuristic", seed=10 * seed + p) for p in range(players)]
        rng = np.random.default_rng(seed)
        s = g.new_game(players, seed)
        while not g.is_terminal(s):
            me, bot = g.current_player(s), bots[g.current_player(s)]
            legal = np.flatnonzero(g.legal_mask(s))
            probe = g.determinize(s, me, 1000 + seed)
            cw = bot.char_weights(s, me)
            got = np.full(len(legal), np.nan)
            bot._t = g.TABLES
            status = bot._compiled(probe, me, cw, legal, got)
            want = [bot._search(bot._step(probe, a), me, cw, 1, [NODE_BUDGET]) for a in legal]
            bot._t = None
            assert status in (0, 1)
            if status == 0:
                assert np.array_equal(got, np.array(want)), (seed, got, want)
                compared += 1
            else:
                handed_back += 1
            a = bot.act(s) if rng.random() < 0.7 else rng.choice(legal)
            s = g.step(s, a)
    assert compared > 1000 and handed_back > 0, (compared, handed_back)
