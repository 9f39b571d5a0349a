"""Planning balance studies (training.balance.sizing, training.balance.plan): the sample-size
formulas against seeded simulations of synthetic studies with a planted edge, the sequential
seat test's error rate under repeated looks against naive repeated Wilson looks, replicates over
tournament seeds (a fake study and one real tiny one) and the command line."""

from __future__ import annotations

import math

import balance_helpers as bh
import numpy as np
import pytest
from scipy import stats as sps

from training.arena.ratings import wilson_interval
from training.balance import plan, play, sizing
from training.balance.game_stats import GameStats
from training.balance.results import StudyRun


def binomial_band(target: float, studies: int, z: float = 3.29) -> float:
    """Half-width of the range a rejection rate over `studies` independent studies stays in
    around its true value `target` with probability 0.999 (normal approximation)."""
    return z * math.sqrt(target * (1 - target) / studies)


# --- sample sizes -------------------------------------------------------------------------------
def test_the_seat_test_is_the_studys_wilson_interval_excluding_the_fair_share():
    for players in (2, 3, 4):
        p0 = 1 / players
        for n in (12, 50, 51, 300):
            w = np.arange(n + 1)
            lo_hi = [wilson_interval(float(k), n) for k in w]
            outside = np.array([p0 < lo or p0 > hi for lo, hi in lo_hi])
            assert (sizing.seat_test_rejects(w, n, players) == outside).all(), (players, n)


def test_games_for_a_seat_edge_match_the_closed_form_and_the_power_crosses_the_target():
    za, zb = sps.norm.isf(0.025), sps.norm.ppf(0.8)
    raw = (za * 0.5 + zb * math.sqrt(0.55 * 0.45)) ** 2 / 0.05**2  # 782.5
    assert sizing.games_for_seat_edge(0.05, 2) == 784  # rounded up to a multiple of 2
    assert 782 < raw < 784
    for players, edge in ((2, 0.05), (3, 0.05), (4, -0.08), (3, 0.2)):
        n = sizing.games_for_seat_edge(edge, players)
        assert n % players == 0
        assert sizing.power_seat_edge(n, edge, players) >= 0.8
        assert sizing.power_seat_edge(n - players, edge, players) < 0.8
    # a design effect of 2 (the games of a deal worth one and a half games) doubles the games
    assert sizing.games_for_seat_edge(0.05, 2, design_effect=2.0) == 1566
    # at 2 players the chi-square test of equal shares is the same test (chi2 = z^2)
    assert abs(sizing.games_for_equal_shares(0.05, 2) - 784) <= 4


@pytest.mark.parametrize(("players", "edge", "seed"), [(2, 0.05, 1), (3, 0.05, 2), (4, -0.08, 3)])
def test_a_planned_study_finds_the_planted_seat_edge_with_the_planned_power(players, edge, seed):
    """4,000 synthetic studies of the planned size (seat 0 wins 1/P + edge, games independent):
    the study's test rejects in a share within the 99.9% binomial range of the computed power."""
    n = sizing.games_for_seat_edge(edge, players)
    target = sizing.power_seat_edge(n, edge, players)
    sim = bh.simulate_power(n, edge, players, studies=4000, seed=seed)
    assert abs(sim["rate"] - target) <= binomial_band(target, 4000), (sim, target)
    # the check can fail: a planner that left out the power term (z_power = 0) plans a study
    # with about 50% power, far outside the range around 0.8
    p0 = 1 / players
    n_half = math.ceil((sps.norm.isf(0.025) * math.sqrt(p0 * (1 - p0)) / edge) ** 2)
    half = bh.simulate_power(n_half, edge, players, studies=4000, seed=seed)
    assert abs(half["rate"] - 0.8) > 5 * binomial_band(0.8, 4000), half


def test_the_equal_shares_test_at_three_players_has_its_planned_power():
    n = sizing.games_for_equal_shares(0.05, 3)
    target = sizing.power_equal_shares(n, 0.05, 3)
    assert n > sizing.games_for_seat_edge(0.05, 3)  # an omnibus test needs more games
    sim = bh.simulate_power(n, 0.05, 3, studies=4000, seed=4, test="chi2")
    assert abs(sim["rate"] - target) <= binomial_band(target, 4000), (sim, target)


@pytest.mark.parametrize(("edge", "flips", "seed"), [(0.05, 0.15, 5), (-0.1, 0.3, 6)])
def test_planned_deal_pairs_find_the_planted_variant_edge_with_the_planned_power(edge, flips, seed):
    """McNemar's test over synthetic paired studies of the planned size: the normal approximation
    (Connor) and the study's exact test (training.balance.paired.mcnemar) each reject in a share
    within the binomial range of the power computed for them."""
    n = sizing.pairs_for_paired_edge(edge, flips)
    za, zb = sps.norm.isf(0.025), sps.norm.ppf(0.8)
    raw = (za * math.sqrt(flips) + zb * math.sqrt(flips - edge**2)) ** 2 / edge**2
    assert n == math.ceil(raw)
    target = sizing.power_paired_edge(n, edge, flips)
    sim = bh.simulate_paired_power(n, edge, flips, studies=4000, seed=seed)
    assert abs(sim["rate"] - target) <= binomial_band(target, 4000), (sim, target)
    ne = sizing.pairs_for_paired_edge(edge, flips, exact=True)
    assert ne > n  # the exact test is conservative: it needs more pairs
    exact = sizing.power_paired_edge(ne, edge, flips, exact=True)
    assert exact >= 0.8 > sizing.power_paired_edge(n, edge, flips, exact=True)
    sim = bh.simulate_paired_power(ne, edge, flips, studies=2000, seed=seed, exact=True)
    assert abs(sim["rate"] - exact) <= binomial_band(exact, 2000), (sim, exact)


def test_the_flip_share_follows_from_the_changed_share():
    assert sizing.flip_share(0.3, 2) == pytest.approx(0.15)  # half the changed pairs flip
    assert sizing.flip_share(0.3, 3) == pytest.approx(0.3 * 4 / 9)
    assert sizing.flip_share(0.3, 2, flips_per_change=0.2) == pytest.approx(0.06)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: sizing.games_for_seat_edge(0.5, 2), "(-0.5, 0.5)"),
        (lambda: sizing.games_for_seat_edge(0.0, 3), "nonzero"),
        (lambda: sizing.games_for_seat_edge(0.7, 3), "(-0.3333, 0.6667)"),
        (lambda: sizing.games_for_seat_edge(0.05, 1), "players"),
        (lambda: sizing.games_for_seat_edge(0.05, 2, power=0.01), "power must be in"),
        (lambda: sizing.pairs_for_paired_edge(0.2, 0.15), "smaller in size"),
        (lambda: sizing.flip_share(0.0, 2), "changed share"),
    ],
)
def test_bad_planning_inputs_are_refused_naming_what_is_allowed(call, words):
    with pytest.raises(ValueError, match=None) as e:
        call()
    assert words in str(e.value)


def test_the_design_effect_of_identical_rotations_is_the_number_of_rotations():
    rng = np.random.default_rng(11)
    deals = np.repeat(np.arange(1000), 3)
    same = np.repeat(rng.random(1000) < 0.4, 3).astype(float)  # every rotation alike
    d = sizing.design_effect(same, deals)
    assert d.rho == pytest.approx(1.0) and d.design_effect == pytest.approx(3.0)
    indep = (rng.random(3000) < 0.4).astype(float)  # rotations independent
    d = sizing.design_effect(indep, deals)
    assert abs(d.rho) < 0.06 and 0.88 < d.design_effect < 1.12


# --- sequential stopping ------------------------------------------------------------------------
def test_repeated_looks_keep_the_false_edge_rate_where_naive_wilson_looks_do_not():
    """2,000 fair 2-player studies looked at every 50 games up to 2,000 (40 looks): the
    sequential test calls an edge in at most alpha of them (99.9% binomial range), repeated 95%
    Wilson looks at the same games in far more."""
    sim = bh.simulate_sequential([0.5, 0.5], 50, 2000, 0.05, studies=2000, seed=5)
    limit = 0.05 + binomial_band(0.05, 2000)
    assert sim["edge"]["rate"] <= limit, sim["edge"]
    assert sim["naive_edge"]["lo"] > 0.05 and sim["naive_edge"]["rate"] > 3 * limit
    assert sim["fair"]["count"] > 0  # it also stops on "fair within 0.05" under no edge


def test_repeated_looks_at_three_players_keep_the_false_edge_rate():
    sim = bh.simulate_sequential([1 / 3] * 3, 60, 1800, 0.08, studies=1000, seed=7)
    assert sim["edge"]["rate"] <= 0.05 + binomial_band(0.05, 1000), sim["edge"]
    assert sim["naive_edge"]["lo"] > 0.05
    assert sim["fair"]["rate"] > 0.9  # the fair game is called fair within 0.08


def test_with_a_seat_edge_the_sequential_test_stops_early():
    """Seat 0 wins 60%: every one of 1,000 sequential studies (cap 2,000 games) finds the edge,
    on average after fewer games than a fixed-size study with 99% power would play."""
    sim = bh.simulate_sequential([0.6, 0.4], 50, 2000, 0.05, studies=1000, seed=8)
    assert sim["edge"]["lo"] > 0.99
    fixed = sizing.games_for_seat_edge(0.1, 2, power=0.99)
    assert sim["mean_games"]["hi"] < fixed < 2000 / 2, (sim["mean_games"], fixed)


def test_the_sequential_test_decides_as_the_simulation_and_its_interval_agrees():
    """SequentialSeatTest fed the simulation's games batch by batch (rows grouped by deal) stops
    where simulate_sequential says, and each look's interval matches its decision."""
    shares, batch, cap, tol = [0.56, 0.44], 50, 1000, 0.1
    sim = bh.simulate_sequential(shares, batch, cap, tol, studies=12, seed=9)
    ws = bh.synthetic_deals(shares, cap // 2, 12, 9).reshape(12, cap, 2)
    decisions = set()
    for i in range(12):
        test = sizing.SequentialSeatTest(2, tol)
        g = 0
        while test.decision == "continue":
            lo, g = g, g + batch
            look = test.update(ws[i, lo:g], np.arange(lo, g) // 2, last=g >= cap)
            (row,) = look.seats
            excludes = row.lo > 0.5 or row.hi < 0.5
            inside = 0.5 - tol < row.lo and row.hi < 0.5 + tol
            assert (look.decision == "edge") == excludes
            assert (look.decision == "fair") == (inside and not excludes)
            assert row.wilson_lo <= row.share <= row.wilson_hi
        assert look.decision == sizing.DECISIONS[sim["decision"][i]]
        assert look.games == sim["stop_games"][i] and look.units == look.games // 2
        decisions.add(look.decision)
        with pytest.raises(ValueError, match="already stopped"):
            test.update(ws[i, :2], [-1, -1])
    assert decisions == {"edge", "fair", "undecided"}  # every way of stopping was exercised


def test_the_sequential_test_refuses_a_deal_split_over_batches_and_bad_settings():
    test = sizing.SequentialSeatTest(2, 0.05)
    test.update(np.array([[1.0, 0.0], [0.0, 1.0]]), [7, 7])
    with pytest.raises(ValueError, match="already seen"):
        test.update(np.array([[1.0, 0.0]]), [7])
    with pytest.raises(ValueError, match=r"\(0, 1/P\) = \(0, 0.3333\)"):
        sizing.SequentialSeatTest(3, 0.4)
    with pytest.raises(ValueError, match="multiple of P"):
        bh.simulate_sequential([0.5, 0.5], 51, 1000, 0.05)


def test_the_confidence_sequence_holds_its_level_at_every_time():
    """Over 400 fair streams of 2,000 games, the betting confidence sequence of the mean misses
    it at some time in at most alpha of them; its interval holds the running mean and is wider
    than the fixed-n Wilson interval (the price of looking at every time)."""
    rng = np.random.default_rng(12)
    x = (rng.random((400, 2000)) < 0.3).astype(float)
    bets = sizing.plugin_bets(x, 0.05)
    thr = sizing._threshold(0.05)
    up, down = sizing.log_capitals(x, bets, 0.3)
    missed = ((up >= thr) | (down >= thr)).any(axis=1).mean()
    assert missed <= 0.05 + binomial_band(0.05, 400)
    for t in (100, 500, 2000):
        lo, hi = sizing.confidence_sequence(x[0, :t])
        w_lo, w_hi = wilson_interval(float(x[0, :t].sum()), t)
        assert lo <= x[0, :t].mean() <= hi and hi - lo > w_hi - w_lo  # wider than fixed-n


# --- replicates ---------------------------------------------------------------------------------
def constructed(win0: np.ndarray, seed: int = 0) -> GameStats:
    """Two-player games in which seat 0 won game g when win0[g] (1.0), lost (0.0) or shared
    (0.5); deals of two games each."""
    w = np.asarray(win0, dtype=np.float64)
    g = w.size
    ws = np.stack([w, 1 - w], axis=1)
    scores = (ws * 10).astype(np.int64)
    z = np.zeros((g, 2, 0), np.int64)
    return GameStats(
        game="village",
        players=2,
        rules_data_hash="a" * 16,
        sources=("score",),
        resources=(),
        action_kinds=("all",),
        items=(),
        game_ids=np.arange(g, dtype=np.int64),
        seats=np.tile(np.array([1, 2], np.int64), (g, 1)),
        scores=scores,
        win_shares=ws,
        points=scores[:, :, None].copy(),
        gained=z,
        spent=z.copy(),
        actions=np.ones((g, 2, 1), np.int64),
        deaths=np.zeros((g, 2), np.int64),
        in_play=np.zeros((g, 0), bool),
        taken=np.zeros((g, 2, 0), bool),
        decisions=np.full(g, 20, np.int64),
        rounds=np.full(g, 10, np.int64),
        truncated=np.zeros(g, bool),
        margin=np.full(g, 5, np.int64),
        lead_changes=np.zeros(g, np.int64),
        decided_at=np.full(g, 0.5),
        deal_seeds=1000 * seed + np.arange(g, dtype=np.int64) // 2,
        play_digests=np.arange(g, dtype=np.int64),
        labels={1: "heuristic", 2: "heuristic"},
    )


def test_replicates_give_the_between_seed_and_the_pooled_interval(monkeypatch):
    per_seed = {3: 0.6, 4: 0.5, 5: 0.55}  # seat 0's share under each seed, 20 games each
    calls = []

    def fake_run_study(game, players, agents, games, db, **kw):
        calls.append((game, players, tuple(agents), games, str(db), kw))
        k = round(per_seed[kw["seed"]] * games)
        return StudyRun({"seed": kw["seed"]}, constructed([1] * k + [0] * (games - k)))

    monkeypatch.setattr(play, "run_study", fake_run_study)
    res = plan.replicate_study("village", 2, ["heuristic"], 20, "x.sqlite", [3, 4, 5], workers=2)
    assert [c[5] for c in calls] == [{"seed": s, "workers": 2} for s in (3, 4, 5)]
    assert res.summary.seeds == [3, 4, 5] and res.games_per_seed == [20, 20, 20]
    s0 = res.summary.seats[0]
    assert [r.share for r in s0.per_seed] == [0.6, 0.5, 0.55]
    assert s0.per_seed[0].lo == wilson_interval(12.0, 20)[0]
    half = sps.t.ppf(0.975, 2) * 0.05 / math.sqrt(3)  # seed shares' sd is 0.05
    b = s0.between
    assert b.mean == pytest.approx(0.55) and b.sd == pytest.approx(0.05)
    assert (b.lo, b.hi) == pytest.approx((0.55 - half, 0.55 + half))
    assert s0.pooled.games == 60 and s0.pooled.share == pytest.approx(0.55)
    assert (s0.pooled.lo, s0.pooled.hi) == pytest.approx(wilson_interval(33.0, 60))
    chi2 = 20 * (0.05**2 + 0.05**2) / (0.55 * 0.45)
    assert s0.dispersion.chi2 == pytest.approx(chi2)
    assert s0.dispersion.p == pytest.approx(sps.chi2.sf(chi2, 2))
    assert res.summary.seats[1].between.mean == pytest.approx(0.45)
    text = "\n".join(plan.replicate_text(res))
    assert "Student-t 95%, K = 3 seeds" in text and "N = 60 games" in text
    with pytest.raises(ValueError, match="2 distinct seeds"):
        plan.replicate_study("village", 2, ["heuristic"], 20, "x.sqlite", [3, 3])
    with pytest.raises(TypeError, match="seeds"):
        plan.replicate_study("village", 2, ["heuristic"], 20, "x.sqlite", [3, 4], seed=1)


def test_seeds_that_differ_beyond_chance_are_flagged():
    ws = [constructed([1] * k + [0] * (400 - k)).win_shares for k in (160, 240, 200, 280)]
    s0 = sizing.replicate_summary(ws).seats[0]
    assert s0.dispersion.p < 1e-6 and s0.dispersion.ratio > 10
    assert s0.between.hi - s0.between.lo > 3 * (s0.pooled.hi - s0.pooled.lo)


def test_replicates_of_a_real_tiny_study(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    args = ["--replicates", "2", "--game", "village", "--players", "2", "--agents", "random"]
    assert plan.main([*args, "--games", "4", "--db", str(db), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "2 seeds (0, 1) of village at 2 players, 8 games in all" in out
    assert "K = 2 seeds" in out and "N = 8 games" in out
    res = plan.replicate_study("village", 2, ["random"], 4, db, [0, 1], progress=False)
    assert res.games_per_seed == [4, 4]  # replayed from the store, nothing new played
    seeds = [t["seed"] for t in res.tournaments]
    assert seeds == [0, 1] and all(t["played_now"] == 0 for t in res.tournaments)
    for r in res.summary.seats:
        assert r.between.lo <= r.between.mean <= r.between.hi
        assert r.pooled.games == 8
    assert sum(r.pooled.share for r in res.summary.seats) == pytest.approx(1.0)


# --- the command line ---------------------------------------------------------------------------
def test_the_planner_prints_the_games_and_the_deal_pairs(capsys):
    assert plan.main(["--edge", "0.05", "--players", "2"]) == 0
    out = capsys.readouterr().out
    assert "games needed: 784 (power 0.801" in out and "Wilson 95% interval excludes 0.5" in out
    assert plan.main(["--edge", "0.05", "--players", "3"]) == 0
    out = capsys.readouterr().out
    n3, nc = sizing.games_for_seat_edge(0.05, 3), sizing.games_for_equal_shares(0.05, 3)
    assert f"games needed: {n3} " in out and f"needs {nc} games" in out
    assert (
        plan.main(["--edge", "0.05", "--players", "2", "--paired", "--changed-share", "0.3"]) == 0
    )
    out = capsys.readouterr().out
    ne = sizing.pairs_for_paired_edge(0.05, 0.15, exact=True)
    assert "deal pairs needed: 469 (power 0.800" in out and f"from {ne} pairs" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--edge", "0.7", "--players", "3"], "edge must be nonzero and in (-1/P, 1 - 1/P)"),
        (["--players", "2"], "planning needs --edge"),
        (["--edge", "0.1", "--players", "2", "--paired"], "--paired needs --changed-share"),
        (["--edge", "0.1", "--players", "2", "--power", "1.2"], "power must be in"),
        (["--sequential", "--players", "2", "--game", "village"], "--sequential needs --agents"),
        (["--sequential", "--replicates", "3", "--players", "2"], "choose one"),
        (["--replicates", "1", "--players", "2", "--game", "village", "--agents", "random",
          "--db", "x", "--games", "4"], "at least 2 seeds"),
    ],
)  # fmt: skip
def test_bad_command_lines_are_refused_in_one_line(args, words, capsys):
    with pytest.raises(SystemExit) as e:
        plan.main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and err.startswith("python -m training.balance")


def test_a_sequential_study_grows_the_store_and_stops_on_an_edge(monkeypatch, capsys):
    """With a fake study whose seat 0 wins 9 games in 10, the loop asks for 8, 16, ... games,
    feeds only the new deals, and stops on the edge, printing every look."""
    calls = []

    def fake_run_study(game, players, agents, games, db, **kw):
        calls.append(games)
        return StudyRun({}, constructed((np.arange(games) % 10 != 9) * 1.0))

    monkeypatch.setattr(play, "run_study", fake_run_study)
    args = ["--sequential", "--game", "village", "--players", "2", "--agents", "heuristic"]
    args += ["--db", "x.sqlite", "--batch", "8", "--max-games", "400", "--tolerance", "0.05"]
    assert plan.main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert calls == [8 * k for k in range(1, len(calls) + 1)] and 1 < len(calls) < 50
    assert [ln.split(":")[0] for ln in lines[:-1]] == [
        f"look {k}" for k in range(1, len(calls) + 1)
    ]
    assert lines[-1].startswith(f"EDGE FOUND after {calls[-1]} games, {calls[-1] // 2} deals")
    assert "seat 0 wins more than 1/2" in lines[-1]


def test_a_real_tiny_sequential_study_runs_to_its_cap(tmp_path, capsys):
    args = ["--sequential", "--game", "village", "--players", "2", "--agents", "random"]
    args += ["--db", str(tmp_path / "s.sqlite"), "--batch", "4", "--max-games", "8"]
    assert plan.main([*args, "--tolerance", "0.2", "--no-progress"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("look 1: 4 games (2 deals)") and lines[0].endswith("continue")
    assert lines[1].startswith("look 2: 8 games (4 deals)") and lines[1].endswith("undecided")
    assert lines[2].startswith("UNDECIDED at the cap of 8 games, 4 deals")
    bad = [*args, "--tolerance", "0.6"]
    with pytest.raises(SystemExit):
        plan.main(bad)
    assert "tolerance must be in (0, 1/P) = (0, 0.5)" in capsys.readouterr().err
