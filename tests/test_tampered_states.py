"""States that enter from outside: a tampered array, every entry within its
segment's range, is refused with one of the library's clear errors (StateFormatError,
IllegalActionError, ValueError) by every public call, never IndexError, ZeroDivisionError or a
crash, and the caller's array is left as it was (DESIGN D1, D5).

`fuzz` is also run by hand with NUMBA_BOUNDSCHECK=1 and an empty NUMBA_CACHE_DIR, so that an
out-of-bounds read that does not crash raises instead (a cold compile of both games):

    NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=. \
        python tests/test_tampered_states.py [MUTATIONS]
"""

from __future__ import annotations

import numpy as np
import pytest
from game_helpers import fewest

from core.errors import IllegalActionError, StateFormatError
from core.registry import game_names, get_game

GAMES = game_names()
CLEAR_ERRORS = (StateFormatError, IllegalActionError, ValueError)


@pytest.fixture(params=GAMES)
def game(request):
    return get_game(request.param)


def _refusal(fn, *args) -> Exception:
    """The clear error fn(*args) raises (pytest.raises would also take an IndexError)."""
    try:
        fn(*args)
    except CLEAR_ERRORS as e:
        return e
    raise AssertionError(f"{fn.__name__} accepted the state")


# --- the phase of a state changed to one without a decision ------------------------------------


def _troyes_phase_13():
    import troyes_env as T

    s = T.new_game(2, seed=0).copy()
    s[T.LAYOUT.offset("phase")] = 13  # PH_A_COUNTER: an internal stage, never a decision
    return T, s, "phase 13 '(counter turn)'"


def _village_over_phase():
    import village_env as V

    s = V.new_game(2, seed=0).copy()
    s[V.LAYOUT.offset("phase")] = 9  # PH_OVER while the game-over flag says it is not
    return V, s, "phase 9 'game over'"


@pytest.mark.parametrize("make", [_troyes_phase_13, _village_over_phase])
def test_a_state_with_no_legal_action_before_the_end_is_refused(make):
    m, s, phase = make()
    before = s.copy()
    assert not m.is_terminal(s)
    for call in (m.legal_mask, lambda s: m.step(s, 0)):
        with pytest.raises(StateFormatError) as e:
            call(s)
        msg = str(e.value)
        assert msg.startswith(f"{m.NAME}: inconsistent state: {phase} with no legal action")
        assert "while the game is not over" in msg and f"{m.NAME}.validate(state)" in msg
        assert np.array_equal(s, before)
    # a read-only view takes the checked slow path: the same error
    ro = s.copy()
    ro.setflags(write=False)
    with pytest.raises(StateFormatError, match="inconsistent state"):
        m.legal_mask(ro)
    with pytest.raises(StateFormatError, match="inconsistent state"):
        m.step(ro, 0)
    # and the full check names a problem too
    with pytest.raises(StateFormatError):
        m.validate(s)


def test_other_bad_inputs_are_refused(game):
    """Other bad inputs (a non-integer seed; a state of another version, dtype, size or type):
    their errors say what came."""
    s = game.new_game(fewest(game), seed=1)
    e = _refusal(game.new_game, fewest(game), 1.5)
    assert "seed must be an integer, got 1.5" in str(e)
    e = _refusal(game.render, np.zeros_like(s))
    assert isinstance(e, StateFormatError) and "layout version 0" in str(e)
    for dtype in (np.int32, np.float64):
        e = _refusal(game.legal_mask, s.astype(dtype))
        assert isinstance(e, StateFormatError)
        assert f"got {np.dtype(dtype)} ({game.STATE_SIZE},)" in str(e)
    e = _refusal(game.step, s[:-1], 0)
    assert f"got int64 ({game.STATE_SIZE - 1},)" in str(e)
    e = _refusal(game.observe, [0] * game.STATE_SIZE, 0)
    assert "got list" in str(e)


# --- the fuzz: single in-range entries of real mid-game states changed -------------------------


def _mid_game_states(m, rng) -> list[np.ndarray]:
    """States of real games at each of the game's player counts after a few random legal
    actions each."""
    out = []
    for n in m.PLAYER_COUNTS:
        for seed in (1, 2):
            s = m.new_game(n, seed=seed)
            for k in range(200):
                if k in (0, 7, 40, 150):
                    out.append(s)
                if m.is_terminal(s):
                    break
                legal = np.flatnonzero(m.legal_mask(s))
                s = m.step(s, int(legal[rng.integers(len(legal))]))
            out.append(s)  # the last one (possibly over)
    return out


def _new_value(seg, old: int, rng) -> int:
    """Another value in the segment's range: an end, a neighbour or a small one."""
    lo, hi = seg.lo, seg.hi
    pick = rng.integers(6)
    v = (lo, hi, old + 1, old - 1, lo + 1, int(rng.integers(lo, min(hi, lo + 40) + 1)))[pick]
    v = min(max(v, lo), hi)
    return v if v != old else (lo if old != lo else hi)


def _calls(m, s):
    """The public calls a tampered state may meet, each as (name, thunk)."""
    yield "legal_mask", lambda: m.legal_mask(s)

    def step_first():
        try:
            legal = np.flatnonzero(m.legal_mask(s))
        except CLEAR_ERRORS:
            legal = [0]
        a = int(legal[0]) if len(legal) else 0
        t = m.step(s, a)
        if not m.is_terminal(t):
            m.legal_mask(t)

    yield "step", step_first
    for p in range(4):
        yield f"observe({p})", lambda p=p: m.observe(s, p)
    yield "render", lambda: m.render(s)
    yield "scores", lambda: m.scores(s)
    yield "returns", lambda: m.returns(s, "rank")
    yield "phase_name", lambda: m.phase_name(s)


def _validate_says(m, s) -> str:
    try:
        m.validate(s)
    except StateFormatError:
        return " (validate refuses this state)"
    return " (validate accepts this state)"


def fuzz(m, mutations: int, seed: int = 0) -> list[str]:
    """Change one in-range entry of a mid-game state `mutations` times (seeded); every public
    call must succeed or raise a clear error, and leave the array as it was. The failures, each
    saying whether `validate` refuses that state (with NUMBA_BOUNDSCHECK=1 an out-of-bounds read
    in a state validate refuses is the documented limit of the hot path's checks, DESIGN D1)."""
    rng = np.random.default_rng(seed)
    states = _mid_game_states(m, rng)
    segs = [g for g in m.LAYOUT.segments.values() if g.lo < g.hi]
    failures = []
    for _ in range(mutations):
        s = states[rng.integers(len(states))].copy()
        seg = segs[rng.integers(len(segs))]
        i = seg.offset + int(rng.integers(seg.size))
        old = int(s[i])
        s[i] = _new_value(seg, old, rng)
        before = s.copy()
        for name, call in _calls(m, s):
            what = f"{m.NAME} {seg.name}[{i - seg.offset}] {old} -> {s[i]}: {name}"
            try:
                call()
            except CLEAR_ERRORS:
                pass
            except Exception as e:  # noqa: BLE001 - exactly what the test looks for
                failures.append(f"{what} raised {type(e).__name__}: {e}{_validate_says(m, s)}")
            if not np.array_equal(s, before):
                failures.append(f"{what} changed the caller's array")
                s[:] = before
    return failures


def test_tampered_in_range_entries_are_refused_clearly(game):
    failures = fuzz(game, 300, seed=15)
    assert failures == [], "\n".join(failures[:20])


if __name__ == "__main__":
    import sys

    import numba

    print("NUMBA_BOUNDSCHECK", numba.config.BOUNDSCHECK)
    bad = []
    for name in GAMES:
        bad += fuzz(get_game(name), int(sys.argv[1]) if len(sys.argv) > 1 else 300, seed=15)
    print("\n".join(bad) or "no failures")
