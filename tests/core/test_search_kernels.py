"""The search kernels of the game contract (core/game_contract.py), for every game:
k_determinize (reads nothing the observer cannot see, keeps what they know) and k_evaluate (the
heuristic bot's projected final score: exact values from the rules tables, the same numbers the
bot sees, no allocation)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from core.agents import RandomAgent
from core.registry import game_names, game_packages, get_game
from core.rng import split_seed

GAMES = game_names()


def _kernels(name):
    return importlib.import_module(f"{game_packages()[name]}.engine.contract")


def _work(name, fill=0):
    return np.full(max(1, _kernels(name).WORK_SIZE), fill, dtype=np.int64)


def _positions(g, games=6, every=9):
    """States along random games at each of the game's player counts in turn (the final state
    included)."""
    out = []
    counts = sorted(g.PLAYER_COUNTS)
    for k in range(games):
        n = counts[k % len(counts)]
        s, agent, i = g.new_game(n, 100 + k), RandomAgent(k), 0
        while not g.is_terminal(s):
            if i % every == 0:
                out.append(s)
            s = g.step(s, agent.act_mask(g.legal_mask(s)))
            i += 1
        out.append(s)
    return out


def _det(name, s, observer, words, work_fill=0):
    g = get_game(name)
    d = s.copy()
    _kernels(name).k_determinize(d, g.TABLES, observer, *words, _work(name, work_fill))
    return d


@pytest.mark.parametrize("name", GAMES)
def test_determinize_ignores_what_the_observer_cannot_see(name):
    """perturb_hidden changes only hidden content: the same (observer, words) give the same
    state, whatever the scratch held."""
    g = get_game(name)
    for k, s in enumerate(_positions(g)):
        for obs in range(g.num_players(s)):
            words = split_seed(1_000_003 * k + obs)
            want = _det(name, s, obs, words)
            pert = g.perturb_hidden(s, 77 + k)
            assert np.array_equal(_det(name, pert, obs, words, work_fill=-5), want)
            assert not np.array_equal(_det(name, s, obs, split_seed(k + 5)), want)


@pytest.mark.parametrize("name", GAMES)
def test_determinize_keeps_what_the_observer_knows(name):
    g = get_game(name)
    for k, s in enumerate(_positions(g, games=3)):
        actor = g.current_player(s)
        for obs in range(g.num_players(s)):
            d = _det(name, s, obs, split_seed(k))
            assert np.array_equal(g.observe(d, obs), g.observe(s, obs))
            if obs == actor:
                assert np.array_equal(g.legal_mask(d), g.legal_mask(s))
            g.validate(d)
            # the public API runs the same kernel
            assert np.array_equal(
                g.determinize(s, obs, 31 * k + 1), _det(name, s, obs, split_seed(31 * k + 1))
            )


def test_village_determinize_is_a_reseed():
    """ED-35: only future draws are hidden in Village."""
    g = get_game("village")
    for k, s in enumerate(_positions(g, games=3)):
        assert np.array_equal(_det("village", s, 0, split_seed(k)), g.reseed(s, k))


def _troyes_view(s):
    from troyes_env.layout import LAYOUT

    def view(seg):
        x = LAYOUT.segments[seg]
        return s[x.offset : x.offset + x.size].reshape(x.shape)

    return view


def test_troyes_determinize_ignores_other_characters_deck_order_and_face_down_cards():
    """Hand-made changes of each hidden segment (consistent with the observer's own cards) give
    the same determinization."""
    from troyes_env.tables import A_COL, A_LVL, A_W, N_ACT, N_CHAR, T_ACT

    g = get_game("troyes")
    T = g.TABLES
    changed = 0
    for k, s in enumerate(_positions(g, games=6, every=17)):
        n = g.num_players(s)
        for obs in range(n):
            t = s.copy()
            v = _troyes_view(t)
            chars, decks, drawn, hid = v("chars"), v("decks"), v("deck_drawn"), v("act_hidden")
            own = {int(c) for c in chars[obs] if c >= 0}
            unseen = [c for c in range(N_CHAR) if c not in own]
            slots = [(q, j) for q in range(n) if q != obs for j in range(2) if chars[q, j] >= 0]
            shift = [unseen[(i + 1 + k) % len(unseen)] for i in range(len(unseen))]
            for (q, j), c in zip(slots, shift[: len(slots)], strict=True):
                chars[q, j] = c
            for col in range(decks.shape[0]):
                m = int((decks[col] >= 0).sum())
                decks[col, drawn[col] : m] = decks[col, drawn[col] : m][::-1].copy()
            for pos in np.flatnonzero(hid >= 0):
                col, lvl = pos // 3, pos % 3 + 1
                cands = [
                    c
                    for c in range(N_ACT)
                    if T[T_ACT + c * A_W + A_COL] == col and T[T_ACT + c * A_W + A_LVL] == lvl
                ]
                hid[pos] = cands[(cands.index(hid[pos]) + 1) % len(cands)]
            t[g.LAYOUT.offset("rng")] ^= 12345
            g.validate(t)
            assert np.array_equal(g.observe(t, obs), g.observe(s, obs))
            changed += not np.array_equal(t, s)
            words = split_seed(7 * k + obs)
            assert np.array_equal(_det("troyes", t, obs, words), _det("troyes", s, obs, words))
    assert changed > 20


def test_troyes_determinize_deals_the_unseen_characters():
    g = get_game("troyes")
    for k, s in enumerate(_positions(g, games=3, every=25)):
        n = g.num_players(s)
        for obs in range(-1, n):
            d = _det("troyes", s, obs, split_seed(k + 11))
            cs, cd = _troyes_view(s)("chars"), _troyes_view(d)("chars")
            held = [int(c) for c in cd[:n].ravel() if c >= 0]
            assert len(held) == len(set(held)) == int((cs[:n] >= 0).sum())
            if obs >= 0:
                assert list(cd[obs]) == list(cs[obs])
            else:  # observer -1: every card stays with its owner
                assert np.array_equal(cd, cs)


# --- k_evaluate ---------------------------------------------------------------------------------


def _evaluate(name, s):
    g = get_game(name)
    out = np.full(4, -99.0)
    tmp = np.full(g.STATE_SIZE + 16, -7, dtype=np.int64)
    before = s.copy()
    _kernels(name).k_evaluate(s, g.TABLES, out, tmp)
    assert np.array_equal(s, before)
    assert not out[g.num_players(s) :].any()
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_village_evaluate_a_fresh_game(n):
    """Rules §2 and Appendix A: 1 coin (1 prestige, §5.2), 4 members on the farmyard (2 count,
    0.6 each) and 7 unborn (0.1 each); no goods, so no stall customer counts."""
    from village_env import rules_data as rd
    from village_env.engine.evaluate import EVAL_WEIGHTS, W_FARM, W_UNBORN_LEFT

    g = get_game("village")
    out = _evaluate("village", g.new_game(n, 3))
    first, later = rd.MEMBERS_BY_GENERATION[0], sum(rd.MEMBERS_BY_GENERATION[1:])
    want = (
        rd.STARTING_COINS * rd.COIN_SCORE
        + min(first, 2) * EVAL_WEIGHTS[W_FARM]
        + later * EVAL_WEIGHTS[W_UNBORN_LEFT]
    )
    assert want == pytest.approx(1 + 1.2 + 0.7)
    assert out[:n] == pytest.approx([want] * n, abs=1e-12)


def test_village_evaluate_a_hand_built_position():
    """Every term of the projection, worked out by hand from docs/rules/village.md §5.2 and the
    weights of village_env/engine/evaluate.py."""
    from village_env.layout import (
        LOC_BAG,
        LOC_CHRONICLE,
        LOC_CITY,
        LOC_COUNCIL,
        LOC_CRAFT,
        LOC_FARM,
        LOC_UNBORN,
        LOC_WINDOW,
    )

    g = get_game("village")
    s = g.new_game(2, 3)
    L = g.LAYOUT

    def seg(name):
        x = L.segments[name]
        return s[x.offset : x.offset + x.size].reshape(x.shape or (1,))

    p = 1
    seg("prestige")[p] = 5
    seg("markers")[p, [0, 3, 5]] = 1  # 3 markers: travel 6
    mem = seg("members")
    mem[p] = 0
    for loc, k in [
        (LOC_FARM, 3),  # 2 count: 1.2
        (LOC_COUNCIL + 3, 1),  # level 4: 6, and a council member: 1.0
        (LOC_WINDOW + 1, 1),  # W2: 3
        (LOC_CHRONICLE, 3),  # 3 in the chronicle: 4
        (LOC_CRAFT, 1),  # two craft buildings occupied: 2.0
        (LOC_CRAFT + 2, 2),
        (LOC_CITY, 2),  # 3 on the map, 2 count: 0.8
        (LOC_CITY + 2, 1),
        (LOC_BAG, 1),  # 1.2
        (LOC_UNBORN, 5),  # 0.5
    ]:
        mem[p, loc, 0] = k
    seg("tile_owner")[[0, 2]] = p  # T1 (6) and T3 (2): 8
    seg("coins")[p] = 3  # 3
    seg("cubes")[p] = [1, 2, 0, 2]  # 3 x 0.35 + 2 green x 0.45
    seg("goods")[p] = [0, 1, 1, 0, 0]  # horse, plow: 2 x 1.1
    seg("grain")[p] = 2  # 0.8
    seg("time")[p] = 4  # -1.2
    seg("stalls")[:] = [0, -1, -1, -1, -1]  # T1 wants horse + plow: 6 x 0.35
    scored = 5 + 6 + 6 + 3 + 4 + 8 + 3
    later = 1.05 + 0.9 + 2.2 + 0.8 - 1.2 + 1.2 + 2.0 + 1.0 + 0.8 + 1.2 + 0.5 + 2.1
    out = _evaluate("village", s)
    assert out[p] == pytest.approx(scored + later, abs=1e-12)
    assert out[0] == pytest.approx(1 + 1.2 + 0.7, abs=1e-12)  # seat 0 as at the start


def test_troyes_evaluate_a_fresh_game():
    """Rules §2.1 (2 players: 5 deniers, influence 4, 6 citizens in supply) and §7: no VP, the
    3 Cathedral penalties clamped at 0, no Character card reaches a threshold; round 0 keeps the
    full weights: 5 x 0.22 + 4 x 0.25 + 6 x 0.35."""
    g = get_game("troyes")
    out = _evaluate("troyes", g.new_game(2, 3))
    assert out[:2] == pytest.approx([4.2, 4.2], abs=1e-12)


def test_troyes_evaluate_a_hand_built_position():
    """§7 items 1-5 and the fading weights, worked out by hand; a Character card nobody holds
    does not count."""
    g = get_game("troyes")
    s = g.new_game(2, 3)
    v = _troyes_view(s)
    assert sorted(v("chars")[:2].ravel()) == [0, 1, 2, 4]  # Thibaut II (3) is out of the game
    v("vp")[0] = 7
    v("cath")[0, 2] = v("cath")[1, 0] = 0  # 2 levels with a cube: -2 once; Urbain IV (2): 2
    v("row_flags")[0, 0] = 0  # a cube on the unresolved Marauding card: +1
    v("round")[...] = 3  # of 4: the weights fade to 0.25 + 0.75 / 3 = 0.5
    v("deniers")[0], v("dist_den")[0] = 20, 2  # 22 x 0.22 (Thibaut II would give 4)
    v("influence")[0] = 10  # 10 x 0.25, Hugues de Payns (1): 4
    v("act_cubes")[0, 0] = 3  # 3 x 0.7
    v("spaces")[:2] = 0  # 2 standing: 2 x 1.1
    v("dice")[0, 0, 2] = 1  # a yellow 3 and two red 6: 3 dice x 0.12, 15 pips x 0.02
    v("dice")[0, 2, 5] = 2
    fin = 7 - 2 + 1 + 2 + 4
    faded = 0.5 * (22 * 0.22 + 10 * 0.25 + 3 * 0.7 + 2 * 1.1 + 6 * 0.35)
    out = _evaluate("troyes", s)
    assert out[0] == pytest.approx(fin + faded + 0.36 + 0.3, abs=1e-12)
    assert out[1] == pytest.approx(0.5 * (5 * 0.22 + 4 * 0.25 + 6 * 0.35), abs=1e-12)
    v("chars")[1] = [0, 3]  # now Thibaut II is in play (and Chretien de Troyes, 0 VP, is not)
    assert _evaluate("troyes", s)[0] == pytest.approx(out[0] + 4, abs=1e-12)


@pytest.mark.parametrize("name", GAMES)
def test_the_bot_sees_the_compiled_evaluation(name):
    """The generic greedy `heuristic` (core.bots; its Python reference tests/bot_oracles.py, which
    the compiled bot equals decision by decision) values states by the compiled k_evaluate."""
    from bot_oracles import GreedyOracle

    from core.bots import GreedyHeuristic, make_bot

    g = get_game(name)
    if not isinstance(make_bot(name, "heuristic", 0), GreedyHeuristic):
        pytest.skip(f"{name} has a heuristic of its own (its tests check what it sees)")
    bot = GreedyOracle(g, 0)
    states = [s for s in _positions(g, games=3) if not g.is_terminal(s)]
    for s in states:
        n = g.num_players(s)
        want = _evaluate(name, s)
        got = bot.projected(s[None])[0]
        assert np.array_equal(got[:n], want[:n])
        me = g.current_player(s)
        val = bot.evaluate(s[None], me)[0]
        assert val == want[me] - max(want[q] for q in range(n) if q != me)


def test_the_troyes_bot_sees_the_compiled_evaluation():
    """Troyes' own heuristic (its Python reference, tests/bot_oracles.py; its cw: the cards some
    seat holds count in full)."""
    from bot_oracles import TroyesOracle

    g = get_game("troyes")
    bot = TroyesOracle(g, 0)
    states = [s for s in _positions(g, games=3) if not g.is_terminal(s)]
    for s in states:
        n = g.num_players(s)
        want = _evaluate("troyes", s)
        held = _troyes_view(s)("chars")[:n].ravel()
        cw = np.zeros(6)
        cw[held[held >= 0]] = 1.0
        assert np.array_equal(bot.projected(s, cw), want[:n])


@pytest.mark.parametrize("name", GAMES)
def test_search_kernels_compile_without_numba_runtime(name):
    """alloc=False (core.jit): the kernels and everything they call cannot allocate."""
    k = _kernels(name)
    for fn in (k.k_determinize, k.k_evaluate):
        assert fn.targetoptions.get("_nrt") is False


def test_troyes_scratch_is_large_enough():
    from troyes_env.engine.evaluate import TMP_NEED
    from troyes_env.engine.hidden import WORK_NEED

    assert WORK_NEED <= _kernels("troyes").WORK_SIZE
    assert TMP_NEED <= get_game("troyes").STATE_SIZE + 16
