"""The public API written once (core.game): same signatures, same validation and the
same errors in every registered game; threads never share scratch buffers or the mask memo."""

from __future__ import annotations

import hashlib
import inspect
import re
import threading

import numpy as np
import pytest
from game_helpers import fewest, nth_count, state_with_masked_out_action, tampered_accounting

from core.errors import IllegalActionError, StateFormatError
from core.game import API_FUNCTIONS, PUBLIC_NAMES, Game, GameModule
from core.registry import GameNotAvailableError, game_names, get_game

GAMES = game_names()


@pytest.fixture(params=GAMES)
def game(request):
    return get_game(request.param)


def test_registry_lists_every_game_and_refuses_unknown_ones():
    assert {"village", "troyes"} <= set(GAMES)
    with pytest.raises(GameNotAvailableError, match=f"known games: {', '.join(sorted(GAMES))}"):
        get_game("chess")


def test_every_game_exports_the_same_api(game):
    assert isinstance(game, GameModule)
    assert isinstance(game.GAME, Game)
    assert set(PUBLIC_NAMES) <= set(dir(game)) | {"RULES_DATA_HASH"}
    assert game.RULES_DATA_HASH == game.GAME.rules_data_hash
    other = get_game(GAMES[0])
    for name in API_FUNCTIONS:  # one implementation: the same signature everywhere
        assert inspect.signature(getattr(game, name)) == inspect.signature(getattr(other, name))


def _play(m, num_players: int, seed: int, rounds: int = 1) -> str:
    """sha256 of every state and mask of a seeded game played `rounds` times."""
    h = hashlib.sha256()
    for _ in range(rounds):
        rng = np.random.default_rng(seed)
        s = m.new_game(num_players, seed=seed)
        while not m.is_terminal(s):
            mask = m.legal_mask(s)
            h.update(s.tobytes() + mask.tobytes())
            legal = np.flatnonzero(mask)
            s = m.step(s, int(legal[rng.integers(len(legal))]))
        h.update(m.scores(s).tobytes())
    return h.hexdigest()


def test_two_threads_give_the_same_games_as_one():
    """Each thread steps its own games through the module-level API, interleaved with the
    other thread's (another game, then the same game): same results as alone."""
    jobs = [(get_game(g), nth_count(get_game(g), i), 100 + i) for i, g in enumerate(GAMES * 2)]
    alone = [_play(m, n, seed, rounds=2) for m, n, seed in jobs]
    got = [None] * len(jobs)
    barrier = threading.Barrier(len(jobs))

    def run(i):
        barrier.wait()
        m, n, seed = jobs[i]
        got[i] = _play(m, n, seed, rounds=2)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == alone


def test_the_mask_memo_is_per_thread(game):
    s = game.new_game(fewest(game), seed=5)
    s2 = game.step(s, int(np.flatnonzero(game.legal_mask(s))[0]))
    assert game.GAME.memo_holds(s2)
    seen = []
    t = threading.Thread(target=lambda: seen.append(game.GAME.memo_holds(s2)))
    t.start()
    t.join()
    assert seen == [False]  # the other thread has its own (empty) memo
    m1 = game.legal_mask(s2)  # handed over once ...
    assert not game.GAME.memo_holds(s2)
    m2 = game.legal_mask(s2)  # ... then computed afresh: equal, and a new array
    assert m1 is not m2 and np.array_equal(m1, m2) and m1.dtype == np.bool_


def test_one_validation_path(game):
    n = fewest(game)
    s = game.new_game(n, seed=1)
    with pytest.raises(ValueError, match="seed must be an integer"):
        game.new_game(n, seed=1.5)
    counts = re.escape(str(tuple(game.PLAYER_COUNTS)))
    with pytest.raises(ValueError, match=f"num_players must be one of {counts}"):
        game.new_game(max(game.PLAYER_COUNTS) + 1)
    allowed = ", ".join(game.OPTIONS)
    with pytest.raises(ValueError, match=f"unknown option 'colour'; allowed options: {allowed}"):
        game.new_game(n, colour=1)
    with pytest.raises(ValueError, match=f"action ids are 0..{game.NUM_ACTIONS - 1}"):
        game.describe(99999)
    with pytest.raises(StateFormatError, match="layout version 0"):
        game.render(np.zeros_like(s))
    with pytest.raises(StateFormatError, match=r"got float64 \(\d+,\)"):
        game.legal_mask(s.astype(np.float64))
    with pytest.raises(IllegalActionError, match="action ids are"):
        game.step(s, game.NUM_ACTIONS)
    with pytest.raises(IllegalActionError, match="not an integer action"):
        game.step(s, 1.0)
    s = state_with_masked_out_action(game, n, seed=1)
    before = s.copy()
    bad = int(np.flatnonzero(~game.legal_mask(s))[0])
    with pytest.raises(IllegalActionError, match=f"illegal action {bad} "):
        game.step(s, bad)
    assert np.array_equal(s, before)


def test_player_counts_and_seeds_are_integers(game):
    """Finding: new_game(num_players=2.0) was accepted (2.0 == 2): a float or a bool is not a
    player count; nor is a bool a seed or a start seat."""
    n = min(game.PLAYER_COUNTS)
    counts = re.escape(str(tuple(game.PLAYER_COUNTS)))
    for bad in (float(n), np.float64(n), True, False, str(n), None):
        with pytest.raises(ValueError, match=f"num_players must be one of {counts}, got "):
            game.new_game(bad)
    for bad in (True, 1.0, "1", None):
        with pytest.raises(ValueError, match="seed must be an integer, got "):
            game.new_game(n, seed=bad)
        with pytest.raises(ValueError, match="start_player must be a seat number, got "):
            game.new_game(n, start_player=bad)
    s = game.new_game(np.int64(n), np.int32(3), start_player=np.int8(1))
    assert np.array_equal(s, game.new_game(n, 3, start_player=1))


def test_determinize_checks_its_arguments_as_observe_does(game):
    """Finding: determinize(s, '0', 1) was accepted (and a float seat was truncated) while
    observe refuses both: the observer is a seat number (an integer, not a bool) in range, the
    seed an integer."""
    n = 3 if 3 in game.PLAYER_COUNTS else max(game.PLAYER_COUNTS)
    s = game.new_game(n, 5)
    before = s.copy()
    for bad in ("0", 1.5, 1.0, True, None, -1, n, 2**70):
        with pytest.raises(ValueError, match=rf"observer must be a seat in 0\.\.{n - 1}, got "):
            game.determinize(s, bad, 1)
        with pytest.raises(ValueError, match=rf"player must be a seat in 0\.\.{n - 1}, got "):
            game.observe(s, bad)
    for bad in ("1", 1.5, True, None):
        with pytest.raises(ValueError, match="seed must be an integer, got "):
            game.determinize(s, 0, bad)
    assert np.array_equal(s, before)
    got = game.determinize(s, np.int32(n - 1), np.int64(9))
    assert np.array_equal(got, game.determinize(s, n - 1, 9))


def test_from_bytes_checks_invariants_in_every_game(game):
    s = game.new_game(nth_count(game, 1), seed=2)  # 3 players at counts 2, 3, 4
    assert np.array_equal(game.from_bytes(game.to_bytes(s)), s)
    assert game.check_invariants(s) == []
    # a state whose every entry is within its segment's range but whose accounting is broken
    tampered = tampered_accounting(game, s)
    assert game.check_invariants(tampered)
    with pytest.raises(StateFormatError, match="inconsistent state"):
        game.from_bytes(game.to_bytes(tampered))


def test_load_rules_data_swaps_tables_without_module_globals(game):
    before = game.RULES_DATA_HASH
    assert game.load_rules_data() == before  # the default rules data again: same hash
    assert game.GAME.tables.flags.writeable is False


def test_every_entry_point_taking_a_count_or_seed_wants_an_integer(game):
    """Finding: the batch engine, the AEC env and the player-count check of every training
    command truncated 2.7 to 2 (or took "2"), and reseed took a float seed: a count, a batch size
    or a seed is an integer (Python or NumPy), never a bool, a float or a string."""
    from core.registry import check_players

    n = min(game.PLAYER_COUNTS)
    for bad in (n + 0.7, float(n), str(n), True):
        with pytest.raises(ValueError, match="players must be an integer, got "):
            check_players(game, bad)
        with pytest.raises(ValueError, match="num_players must be an integer, got "):
            game.make_batch(2, bad)
        with pytest.raises(ValueError, match="num_players must be an integer, got "):
            game.raw_env(num_players=bad)
    for bad in (2.0, "2", True):
        with pytest.raises(ValueError, match="batch_size must be an integer, got "):
            game.make_batch(bad, n)
        with pytest.raises(ValueError, match="seed must be an integer, got "):
            game.make_batch(2, n, seed=bad)
    s = game.new_game(n, 1)
    for bad in (1.5, 1.0, "1", True):
        with pytest.raises(ValueError, match="seed must be an integer, got "):
            game.reseed(s, bad)
        with pytest.raises(ValueError, match="seed must be an integer, got "):
            game.perturb_hidden(s, bad)
    assert check_players(game, np.int64(n)) == n
    assert np.array_equal(game.reseed(s, np.int32(4)), game.reseed(s, 4))
