"""Points by source: every VP change and every final-scoring term is credited, when it
happens, to exactly one source of SCORE_SOURCES (the `score_src` segment). Each row sums to the
player's VP during play and to the final score, scores(state), once the game is over."""

import numpy as np
import pytest

import troyes_env as T
from core.rng import rng_seed, split_seed
from troyes_env import layout as L
from troyes_env.engine import WORK_SIZE, init_state, settle
from troyes_env.engine.checks import HI, LO, random_game
from troyes_env.layout import PH_A_EVENTS, PH_OVER, SCORE_SOURCES, STATE_SIZE
from troyes_env.rules_data import ACTIVITY_CARDS
from troyes_env.tables import TABLES

from .conftest import (
    a,
    add_event,
    die,
    drop_sentinel,
    fix_supply,
    run,
    set_card,
    set_dice,
    turn_state,
    v,
)
from .test_cards import activate, activity_state, cube_state, spend

PASS = a("PASS")
GO_ON = a("GO_ON")
FINAL_SOURCES = (
    "supervisor_slots",
    "unresolved_events",
    "cathedral_absence",
    "characters",
    "floor",
)


def src(s, p, name):
    """Seat p's credit to source `name`."""
    return int(v(s, "score_src")[p, SCORE_SOURCES.index(name)])


def credits(s, p):
    """Seat p's non-zero sources, {name: VP}."""
    return {n: int(x) for n, x in zip(SCORE_SOURCES, v(s, "score_src")[p], strict=True) if x}


def give_vp(s, p, x, name="events"):
    """Set seat p's VP to x as if they came from source `name` (keeps the invariant)."""
    v(s, "vp")[p] = x
    v(s, "score_src")[p] = 0
    v(s, "score_src")[p, SCORE_SOURCES.index(name)] = x


# ------------------------------------------------------------------ the names and the API


def test_sources_names_and_constants():
    assert SCORE_SOURCES[: L.N_ACT_CARDS] == tuple(f"activity:{r[1]}" for r in ACTIVITY_CARDS)
    assert [r[0] for r in ACTIVITY_CARDS] == list(range(L.N_ACT_CARDS))  # card id = index
    assert SCORE_SOURCES[L.N_ACT_CARDS :] == (
        "events",
        "cathedral",
        "penalties",
        *FINAL_SOURCES,
    )
    assert len(set(SCORE_SOURCES)) == len(SCORE_SOURCES) == L.N_SCORE_SOURCES
    assert L.SRC_SLOTS == SCORE_SOURCES.index(FINAL_SOURCES[0])  # the final terms come last
    assert T.SCORE_SOURCES is SCORE_SOURCES
    assert {"SCORE_SOURCES", "score_by_source"} <= set(T.__all__)
    assert L.VERSION == 2 and T.LAYOUT.version == 2
    seg = T.LAYOUT.segments["score_src"]
    assert seg.shape == (L.MAXP, len(SCORE_SOURCES)) and seg.lo < 0 and not seg.hidden


def test_score_by_source_is_a_checked_copy():
    s = T.new_game(3, 4)
    m = T.score_by_source(s)
    assert m.shape == (3, len(SCORE_SOURCES)) and m.dtype == np.int64 and not m.any()
    m[0, 0] = 5
    assert not T.score_by_source(s).any()
    with pytest.raises(T.StateFormatError):
        T.score_by_source(s[:-1])


def test_not_observed_and_left_alone_by_hidden_information():
    s = turn_state(2)
    give_vp(s, 0, 3)
    s = run(s, PASS)
    t = s.copy()
    v(t, "score_src")[0, 5] += 7  # the observation does not read the segment
    for p in range(2):
        assert np.array_equal(T.observe(t, p), T.observe(s, p))
    for obs in (-1, 0, 1):
        d = T.determinize(s, obs, 11) if obs >= 0 else T.perturb_hidden(s, 11)
        assert np.array_equal(v(d, "score_src"), v(s, "score_src"))


def test_from_bytes_checks_the_segment():
    s = turn_state(2)
    give_vp(s, 0, 4, "cathedral")
    assert np.array_equal(T.from_bytes(T.to_bytes(s)), s)
    bad = s.copy()
    v(bad, "score_src")[0, SCORE_SOURCES.index("cathedral")] = 3  # sums to 3, VP 4
    with pytest.raises(T.StateFormatError, match="score sources"):
        T.from_bytes(T.to_bytes(bad))
    bad = s.copy()
    v(bad, "score_src")[0, SCORE_SOURCES.index("floor")] = 1  # a final term during play
    with pytest.raises(T.StateFormatError, match="score sources"):  # the same invariant
        T.from_bytes(T.to_bytes(bad))


# ------------------------------------------------------------------ sweeps


def _sweep_game(n, g, mask, work, rng4, spare):
    s = np.zeros(STATE_SIZE, np.int64)
    init_state(s, TABLES, n, *split_seed(500 * n + g))
    settle(s, TABLES, mask, work)
    rng_seed(rng4, 0, g, n, 14)
    k, err = random_game(s, TABLES, LO, HI, mask, work, rng4, spare, False, 5000)
    assert err == 0, f"{n}p game {g}: error code {err} after {k} decisions"
    return s


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_rows_sum_to_scores(n):
    """16 seeded random games per player count (compiled; the sweep checks the sources against
    the VP after every decision): each finished game's rows sum exactly to scores()."""
    bufs = (
        np.zeros(T.NUM_ACTIONS, np.bool_),
        np.zeros(WORK_SIZE, np.int64),
        np.zeros(4, np.int64),
        np.zeros(STATE_SIZE, np.int64),
    )
    seen = set()
    for g in range(16):
        s = _sweep_game(n, g, *bufs)
        assert int(v(s, "phase")[0]) == PH_OVER
        m = T.score_by_source(s)
        assert np.array_equal(m.sum(axis=1), T.scores(s))
        play = m[:, : L.SRC_SLOTS].sum(axis=1)
        assert np.array_equal(play, v(s, "vp")[:n])
        assert (m[:, L.SRC_PENALTY] <= 0).all() and (m[:, L.SRC_FLOOR] >= 0).all()
        assert (m[:, L.SRC_CATH_ABS] <= 0).all()
        assert T.check_invariants(s) == []
        seen |= {SCORE_SOURCES[k] for k in np.flatnonzero(m.any(axis=0))}
    assert {"events", "cathedral", "cathedral_absence"} <= seen


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_step_sums_to_vp(n):
    """A game through the public API: after every step the rows sum to the VP, the final terms
    are 0 until the end, then the rows sum to the final score."""
    rng = np.random.default_rng(100 + n)
    s = T.new_game(n, 40 + n)
    while not T.is_terminal(s):
        s = T.step(s, int(rng.choice(np.flatnonzero(T.legal_mask(s)))))
        m = T.score_by_source(s)
        if not T.is_terminal(s):
            assert np.array_equal(m.sum(axis=1), v(s, "vp")[:n])
            assert not m[:, L.SRC_SLOTS :].any()
    assert np.array_equal(T.score_by_source(s).sum(axis=1), T.scores(s))


def test_heuristic_bot_games():
    """Two games of heuristic bots (their lookahead projects scores on copies: nothing may be
    credited twice)."""
    from core.bots import make_bot

    for n, seed in ((2, 1), (3, 2)):
        bots = [make_bot("troyes", "heuristic", seed=10 * seed + p) for p in range(n)]
        s = T.new_game(n, seed)
        while not T.is_terminal(s):
            s = T.step(s, bots[T.current_player(s)].act(s))
            assert T.check_invariants(s) == []
        assert np.array_equal(T.score_by_source(s).sum(axis=1), T.scores(s))


# ------------------------------------------------------------------ scenarios: activity cards


@pytest.mark.parametrize(
    "key,colour,values,extra,vp",
    [
        ("SCULPTOR", "Y", [6], [], 2),  # GAIN 1 VP, 6 // 3 = 2 activations
        ("GOLDSMITH", "Y", [4], [], 1),  # GAIN 2 deniers + 1 VP, one activation
        ("PILGRIMAGE", "W", [6], [], 2),
        ("JOURNEYMAN", "Y", [6], [GO_ON], 4),  # PAY_GAIN 3 deniers -> 2 VP, twice
        ("TROUBADOUR", "R", [4], [], 2),  # PAY_GAIN 1 influence -> 2 VP
    ],
)
def test_activation_vp_goes_to_its_card(key, colour, values, extra, vp):
    """rules §6.1.2: the VP of an activation are credited to "activity:<KEY>"."""
    s = activity_state(key, colour, values)
    give_vp(s, 1, 3)  # the other seat's sources are left alone
    s = activate(s, 0, extra)
    assert int(v(s, "vp")[0]) == vp
    assert credits(s, 0) == {f"activity:{key}": vp}
    assert credits(s, 1) == {"events": 3}
    assert T.check_invariants(s) == []


def test_vp_per_card_counts_at_activation():
    s = activity_state("GLASSMAKER", "W", [6])
    v(s, "cath")[0, :3] = 0
    v(s, "cubes_out")[0] = 3
    s = activate(s)
    assert credits(s, 0) == {"activity:GLASSMAKER": 3}


def test_cube_modifier_credits_the_activated_card():
    """A Confession cube (+2 per white die) raises a Pilgrimage activation: 1 + 2 = 3 -> one
    activation, its VP credited to the Pilgrimage, the card activated."""
    s = cube_state("CONFESSION", "PILGRIMAGE", [(0, "W", 1)], cube_pos=8, target_pos=3)
    s = spend(s, 3, 8, [die(0, "W", 1)])
    assert credits(s, 0) == {"activity:PILGRIMAGE": 1}


# ------------------------------------------------------------------ scenarios: events, Cathedral


def test_event_resolution_credits_events():
    """rules §4.3: sole owner of Marauding's 3 flags: R1 + R2 = 3 VP to "events"."""
    s = turn_state(2)
    for _ in range(3):
        set_dice(s, 0, "Y", 6)
    s = run(s, a("EVENT", 0), die(0, "Y", 6), die(0, "Y", 6))
    assert credits(s, 0) == {"events": 3} and int(v(s, "vp")[0]) == 3


def test_event_tie_shares_credit_events():
    """Yellow Y1: one cube each, (2 + 1) // 2 = 1 VP each, both to "events"."""
    s = turn_state(2)
    i = add_event(s, "YELLOW_Y1", [1])
    set_dice(s, 0, "Y", 5)
    s = run(s, a("EVENT", i))
    assert credits(s, 0) == {"events": 1} and credits(s, 1) == {"events": 1}


def test_knight_cube_resolving_an_event_credits_events():
    """A cube the Knight places fills Marauding: the reward is an event's, not the card's."""
    s = activity_state("KNIGHT", "R", [4])
    v(s, "row_flags")[0, :2] = 0
    v(s, "cubes_out")[0] += 2
    s = run(s, a("ACTIVITY", 0))
    if int(v(s, "phase")[0]) == L.PH_ARCHER:
        s = run(s, a("EVENT", 0))
    assert credits(s, 0) == {"events": 3}


def test_cathedral_credits_one_vp_per_cube():
    s = turn_state(2)
    for val in (2, 2, 5):
        set_dice(s, 0, "W", val)
    s = run(s, a("CATHEDRAL"), die(0, "W", 2), die(0, "W", 2), die(0, "W", 5))
    assert credits(s, 0) == {"cathedral": 3}


# ------------------------------------------------------------------ scenarios: penalties


def _apply_event(s, key):
    from troyes_env.engine.rounds import enter_card

    i = add_event(s, key)
    v(s, "ev_pos")[0] = i
    v(s, "phase")[0] = PH_A_EVENTS
    enter_card(s, TABLES)
    return s


def test_penalty_records_only_the_vp_really_lost():
    """ED-4: Drought (pay 2 deniers) with 1 denier each: the 2 VP penalty takes 1 VP from a seat
    holding 1 (recorded -1) and nothing from a seat holding 0 (recorded 0)."""
    s = turn_state(2)
    v(s, "deniers")[:2] = [1, 1]
    give_vp(s, 0, 1)
    s = _apply_event(s, "DROUGHT")
    assert list(v(s, "vp")[:2]) == [0, 0]
    assert src(s, 0, "penalties") == -1 and src(s, 1, "penalties") == 0
    assert credits(s, 0) == {"events": 1, "penalties": -1}
    assert credits(s, 1) == {}
    # a seat with VP to spare loses the full 2
    s = turn_state(2)
    v(s, "deniers")[:2] = [1, 1]
    give_vp(s, 0, 5, "cathedral")
    s = _apply_event(s, "DROUGHT")
    assert credits(s, 0) == {"cathedral": 5, "penalties": -2} and int(v(s, "vp")[0]) == 3


def test_conceded_black_die_is_a_penalty():
    """ED-18: a player with no dice concedes automatically and loses 2 VP."""
    from troyes_env.engine.events import begin_counter

    s = turn_state(2)
    v(s, "dice")[:] = 0
    v(s, "rolled")[:] = 0
    give_vp(s, 0, 4)
    v(s, "black")[5] = 1
    begin_counter(s, TABLES, 0)
    assert credits(s, 0) == {"events": 4, "penalties": -2}


# ------------------------------------------------------------------ scenarios: final scoring


def _last_round_end(s):
    """Both seats pass in the last round: the game ends (rules §7)."""
    v(s, "round")[0] = v(s, "n_rounds")[0]
    drop_sentinel(s)
    for _ in range(2):  # no dice left: the first pass may end the round already (ED-20)
        if not T.is_terminal(s):
            s = run(s, PASS)
    assert T.is_terminal(s)
    return s


def test_final_terms_and_floor():
    s = turn_state(2)
    v(s, "chars")[:] = -1
    give_vp(s, 0, 10)
    set_card(s, 0, "MERCHANT")
    v(s, "sup")[0, 0] = 1  # slot 1: 2 VP (rules §7 item 3)
    fix_supply(s)
    v(s, "row_flags")[0, 0] = 0  # a cube on unresolved Marauding: +1 (item 2)
    v(s, "cubes_out")[0] = 1
    v(s, "cath")[0, 0] = 0  # seat 0 lacks levels 2 and 3: -4 (item 4); seat 1 lacks all: -6
    v(s, "cubes_out")[0] += 1
    v(s, "kept_by")[1:4] = 0
    v(s, "chars")[0] = [0, -1]  # Henri I, 3 kept events: 4 VP, for seat 0 only (item 5)
    before = T.score_by_source(s)
    s = _last_round_end(s)
    m = T.score_by_source(s)
    assert list(T.scores(s)) == [10 + 2 + 1 - 4 + 4, 0]
    assert credits(s, 0) == {
        "events": 10,
        "supervisor_slots": 2,
        "unresolved_events": 1,
        "cathedral_absence": -4,
        "characters": 4,
    }
    # seat 1: 0 VP, -6 for the Cathedral, clamped at 0 (U-VP-FLOOR): the floor adds 6
    assert credits(s, 1) == {"cathedral_absence": -6, "floor": 6}
    assert np.array_equal(m.sum(axis=1), T.scores(s))
    assert np.array_equal(m[:, : L.SRC_SLOTS], before[:, : L.SRC_SLOTS])
    assert T.check_invariants(s) == []


def test_score_final_projection_credits_nothing():
    """score_final and the bots' projection read the state: only the real end credits."""
    from troyes_env.engine.board import score_final
    from troyes_env.engine.evaluate import TMP_NEED, evaluate_into

    s = turn_state(2)
    v(s, "chars")[:] = -1
    give_vp(s, 0, 3)
    before = s.copy()
    out = np.zeros(4, np.int64)
    score_final(s, TABLES, out)
    evaluate_into(s, TABLES, np.zeros(4), np.zeros(TMP_NEED, np.int64))
    assert np.array_equal(s, before)
    assert out[0] == 0 and out[1] == 0  # 3 - 6: floored, and nothing was credited
