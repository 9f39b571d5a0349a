"""The compiled API entry points (engine/api.py of each game) and the memo of the last stepped
state's mask (core.game, per thread): the memo never changes an outcome, edited states get
fresh masks, and odd inputs take the checked slow path."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from game_helpers import fewest, nth_count

from core.agents import RandomAgent
from core.errors import IllegalActionError, StateFormatError
from core.registry import game_names, get_game

GAMES = game_names()


@pytest.fixture(params=GAMES)
def game(request):
    return importlib.import_module(f"{request.param}_env")


def _cache_holds(game, s) -> bool:
    return game.GAME.memo_holds(s)


def test_cached_and_computed_paths_agree(game):
    """Every decision of seeded games at each of the game's player counts in turn: the mask read
    from the cache equals the one computed from scratch, and step with cached legality gives the
    same state as without."""
    hits = decisions = 0
    for seed in range(6):
        s = game.new_game(nth_count(game, seed), seed)
        bot = RandomAgent(seed)
        while not game.is_terminal(s):
            hits += _cache_holds(game, s)
            m_cached = game.legal_mask(s)
            a = bot.act_mask(m_cached)
            s_cached = game.step(s, a)
            assert not _cache_holds(game, s)  # the memo holds s_cached now
            m_fresh = game.legal_mask(s)
            s_fresh = game.step(s, a)
            np.testing.assert_array_equal(m_cached, m_fresh)
            np.testing.assert_array_equal(s_cached, s_fresh)
            s = s_fresh
            decisions += 1
        assert not game.legal_mask(s).any()
    assert hits >= decisions - 6  # all but the first decision of each game came from the cache


def test_state_edited_in_place_gets_a_fresh_mask(game):
    s = game.new_game(nth_count(game, 1), 5)  # 3 players at counts 2, 3, 4
    bot = RandomAgent(5)
    for _ in range(5):
        s = game.step(s, bot.act_mask(game.legal_mask(s)))
    assert _cache_holds(game, s)
    edited = s.copy()
    # an in-place edit of the cached state itself: a different position, so a different mask
    fields = game.GAME.spec.fields
    s[fields.over] = fields.over_value  # flag the game as over, which leaves no legal action
    assert not game.legal_mask(s).any()
    with pytest.raises(IllegalActionError):
        game.step(s, int(np.flatnonzero(game.legal_mask(edited))[0]))
    assert game.legal_mask(edited).any()


def test_a_returned_mask_is_the_callers_own(game):
    s = game.new_game(fewest(game), 3)
    s = game.step(s, int(np.flatnonzero(game.legal_mask(s))[0]))
    first = game.legal_mask(s)
    want = first.copy()
    first[:] = ~first  # the caller scribbles on its mask: the memo keeps its own
    np.testing.assert_array_equal(game.legal_mask(s), want)


def test_same_bytes_in_another_dtype_or_shape_miss_the_memo(game):
    s = game.new_game(fewest(game), 4)
    s = game.step(s, int(np.flatnonzero(game.legal_mask(s))[0]))
    assert _cache_holds(game, s)
    for odd in (s.view(np.float64), s.view(np.uint64), s.reshape(1, -1)):
        assert not _cache_holds(game, odd)
    with pytest.raises(StateFormatError):
        game.legal_mask(s.view(np.float64))


def test_read_only_and_non_contiguous_states_take_the_checked_path(game):
    s = game.new_game(max(game.PLAYER_COUNTS), 2)
    want_mask = game.legal_mask(s)
    want_obs = game.observe(s, 1)
    a = int(np.flatnonzero(want_mask)[0])
    want_next = game.step(s, a)
    ro = s.copy()
    ro.setflags(write=False)
    strided = np.zeros(2 * s.size, dtype=np.int64)[::2]
    strided[:] = s
    for odd in (ro, strided):
        np.testing.assert_array_equal(game.legal_mask(odd), want_mask)
        np.testing.assert_array_equal(game.observe(odd, 1), want_obs)
        np.testing.assert_array_equal(game.step(odd, a), want_next)
    np.testing.assert_array_equal(ro, s)  # the input is never modified


@pytest.mark.parametrize("bad", ["int32", "short", "zeros", "2d", "list", "float"])
def test_foreign_states_are_refused_by_every_entry_point(game, bad):
    s = game.new_game(fewest(game), 0)
    odd = {
        "int32": lambda: s.astype(np.int32),
        "short": lambda: s[:-1].copy(),
        "zeros": lambda: np.zeros_like(s),
        "2d": lambda: s.reshape(1, -1),
        "list": lambda: list(s),
        "float": lambda: s.astype(np.float64),
    }[bad]()
    for call in (game.legal_mask, lambda x: game.observe(x, 0), lambda x: game.step(x, 0)):
        with pytest.raises(StateFormatError):
            call(odd)


def test_seat_must_be_an_integer_in_range(game):
    n = nth_count(game, 1)  # 3 players at counts 2, 3, 4
    s = game.new_game(n, 0)
    np.testing.assert_array_equal(game.observe(s, np.int32(n - 1)), game.observe(s, n - 1))
    for bad in (1.5, n, -1, "0", 2**70):
        with pytest.raises(ValueError):
            game.observe(s, bad)


def test_action_ids_beyond_int64_are_out_of_range(game):
    s = game.new_game(fewest(game), 0)
    for a in (2**70, -(2**70)):
        with pytest.raises(IllegalActionError):
            game.step(s, a)


def test_the_memo_hands_its_mask_out_once(game):
    """core.game's per-thread memo: a state equal entry by entry takes the very array step
    built, once; an edited state or new rules tables never do."""
    s = game.new_game(fewest(game), 3)
    s = game.step(s, int(np.flatnonzero(game.legal_mask(s))[0]))
    edited = s.copy()
    edited[game.GAME.spec.fields.rng] ^= 1  # another future: same position, other bytes
    assert game.GAME.memo_holds(s.copy()) and not game.GAME.memo_holds(edited)
    first = game.legal_mask(s.copy())
    assert not game.GAME.memo_holds(s)  # handed out: forgotten
    assert game.legal_mask(s) is not first
    s = game.step(s, int(np.flatnonzero(first)[0]))
    assert game.GAME.memo_holds(s)
    game.load_rules_data()  # new tables (same values): the memo's mask is not served
    assert not game.GAME.memo_holds(s)


def test_a_second_mask_of_the_same_state_is_computed(game):
    s = game.new_game(nth_count(game, 1), 4)  # 3 players at counts 2, 3, 4
    s = game.step(s, int(np.flatnonzero(game.legal_mask(s))[0]))
    first = game.legal_mask(s)  # from the memo
    second = game.legal_mask(s)  # computed
    assert first is not second
    np.testing.assert_array_equal(first, second)


# --- the entry points and the step driver are written once, in core ------------------------------


@pytest.mark.parametrize("module", ["step", "api"])
@pytest.mark.parametrize("name", GAMES)
def test_rendered_entry_points_and_step_driver_match_their_templates(name, module):
    from numba.core.dispatcher import Dispatcher

    from core.codegen import TEMPLATES

    pkg = get_game(name).__name__
    generated = importlib.import_module(f"{pkg}.engine.{module}")
    template = importlib.import_module(f"core.{TEMPLATES[module].stem}")

    def compiled(mod):
        return [
            k
            for k, v in vars(mod).items()
            if isinstance(v, Dispatcher) and v.py_func.__module__ == mod.__name__
        ]

    assert compiled(generated) == compiled(template)


def test_game_contract_stubs_only_raise():
    from core import game_contract

    for name in (*game_contract.__all__, *game_contract.OPTIONAL):
        value = getattr(game_contract, name, None)
        if callable(value):
            with pytest.raises(NotImplementedError):
                value(*[None] * value.__code__.co_argcount)


@pytest.mark.parametrize("name", GAMES)
def test_every_game_defines_the_game_contract(name):
    """Every required name in engine/rules.py (or engine/kernels.py), and the rendered contract
    holds every name the loops call: the game's, core's adapters and the defaults."""
    from core import contract_template, game_contract
    from core.codegen import game_names_defined

    pkg = get_game(name).__name__
    defined = game_names_defined(pkg)
    missing = [n for n in game_contract.__all__ if n not in defined]
    assert not missing, f"{name}: engine/rules.py lacks {missing}"
    contract = importlib.import_module(f"{pkg}.engine.contract")
    for n in contract_template.__all__:
        ours = getattr(contract, n)
        if n in defined:  # the game's own, from the module that defines it
            module = importlib.import_module(f"{pkg}.engine.{defined[n]}")
            assert ours is getattr(module, n), n
