"""training.arena.ratings and training.arena.leaderboard: exact outcomes on hand-made and
synthetic fields."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from training.arena import leaderboard as report
from training.arena import ratings
from training.arena.ratings import (
    bootstrap,
    bradley_terry,
    elo_sequential,
    expected_score,
    leaderboard,
    openskill_order_range,
    openskill_ratings,
    pairwise,
    plackett_luce,
    rank_ranges,
    sprt,
    sprt_text,
    wilson_interval,
)

NAMES = ["e0", "e1", "e2", "e3", "e4"]
THETA = np.array([0.0, 0.6, 1.2, 1.8, 2.4])  # latent log-strengths: e4 strongest


def synthetic(seed: int = 0, n2: int = 150, n4: int = 150, tie_p: float = 0.1) -> list:
    """Plackett-Luce field: finishing order = sort of strength + Gumbel noise; some tied firsts."""
    rng = np.random.default_rng(seed)
    results = []
    for players in [2] * n2 + [4] * n4:
        seats = rng.choice(len(NAMES), size=players, replace=False)
        order = np.argsort(-(THETA[seats] + rng.gumbel(size=players)))
        ranks = np.empty(players)
        ranks[order] = np.arange(1, players + 1)
        if rng.random() < tie_p:
            ranks[order[:2]] = 1.5
        results.append((tuple(NAMES[s] for s in seats), tuple(float(r) for r in ranks)))
    return results


TRUE_ORDER = NAMES[::-1]


@pytest.fixture(scope="module")
def field() -> list:
    return synthetic()


def _mu(results, entrants):
    return {name: r.mu for name, r in openskill_ratings(results, entrants).items()}


# ---------------------------------------------------------------------------- Wilson, pairwise


def test_wilson_known_values():
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.236593, abs=1e-6) and hi == pytest.approx(0.763407, abs=1e-6)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    lo, hi = wilson_interval(2.5, 4)  # fractional wins; the interval always holds p
    assert lo <= 2.5 / 4 <= hi


def test_pairwise_counts_hand_made_3p():
    results = [
        (("A", "B", "C"), (1.0, 2.0, 3.0)),
        (("C", "A", "B"), (1.5, 3.0, 1.5)),
        (("B", "C", "A"), (1.0, 2.0, 3.0)),
    ]
    pw = pairwise(results, ["A", "B", "C"])
    assert pw["entrants"] == ["A", "B", "C"]
    assert pw["n"].tolist() == [[0, 3, 3], [3, 0, 3], [3, 3, 0]]
    # A: beat B, beat C | lost to C, lost to B | lost to B, lost to C
    # B: beat C | tied C, beat A | beat C, beat A
    assert pw["score"].tolist() == [[0, 1, 1], [2, 0, 2.5], [2, 0.5, 0]]
    assert pw["rate"][1, 2] == pytest.approx(2.5 / 3)
    assert np.isnan(pw["rate"]).tolist() == np.eye(3, dtype=bool).tolist()
    assert (pw["lo"][1, 2], pw["hi"][1, 2]) == wilson_interval(2.5, 3)
    assert (pw["score"] + pw["score"].T == pw["n"]).all()


# ---------------------------------------------------------------------------- openskill ties


def _one_game(names, ranks, prior_games=()):
    ratings = openskill_ratings([*prior_games, (tuple(names), tuple(ranks))], sorted(set(names)))
    return {name: tuple(r) for name, r in ratings.items()}


@pytest.mark.parametrize(
    "ranks", [(1.5, 1.5, 3.0), (1.0, 2.5, 2.5), (1.5, 1.5, 3.5, 3.5), (2.0, 2.0, 2.0, 4.0)]
)
def test_openskill_ties_independent_of_seat_order(ranks):
    names = "ABCD"[: len(ranks)]
    # some history first, so the players do not start from the same prior
    history = [(("A", "B"), (1.0, 2.0)), (("C", "B"), (1.0, 2.0)), (("A", "C"), (2.0, 1.0))]
    if len(ranks) == 4:
        history.append((("D", "A", "B", "C"), (1.0, 2.0, 3.0, 4.0)))
    fresh, seasoned = set(), set()
    for perm in itertools.permutations(range(len(ranks))):
        seated = [names[i] for i in perm]
        seat_ranks = [ranks[i] for i in perm]
        fresh.add(tuple(sorted(_one_game(seated, seat_ranks).items())))
        seasoned.add(tuple(sorted(_one_game(seated, seat_ranks, history).items())))
    assert len(fresh) == 1 and len(seasoned) == 1  # bit-identical whatever the seat order
    out = dict(fresh.pop())
    for rank in set(ranks):  # same prior and tied: the same new rating
        assert len({out[name] for name, r in zip(names, ranks, strict=True) if r == rank}) == 1


def test_openskill_tie_is_between_the_strict_orders():
    # openskill's own tie rule gives the third of (1, 1, 3, 4) the tied winners' gain
    out = _one_game("ABCD", (1.5, 1.5, 3.0, 4.0))
    assert out["A"] == out["B"]
    assert out["A"][0] > 25.0 > out["C"][0] > out["D"][0]
    first, second = _one_game("ABCD", (1, 2, 3, 4))["A"], _one_game("ABCD", (2, 1, 3, 4))["A"]
    assert out["A"][0] == pytest.approx((first[0] + second[0]) / 2, abs=1e-12)


def test_openskill_identical_histories_identical_ratings():
    # A and B share every game and every result (tied), in varying seats and company
    results = [
        (("A", "B", "X"), (1.5, 1.5, 3.0)),
        (("X", "Y", "B", "A"), (4.0, 3.0, 1.5, 1.5)),
        (("B", "A"), (1.5, 1.5)),
        (("A", "Y", "B"), (2.5, 1.0, 2.5)),
        (("Y", "B", "A"), (2.0, 2.0, 2.0)),
        (("B", "X", "Y", "A"), (2.5, 1.0, 4.0, 2.5)),
    ]
    ratings = openskill_ratings(results, ["A", "B", "X", "Y"])
    assert ratings["A"] == ratings["B"]
    assert ratings["A"].ordinal == ratings["A"].mu - 3 * ratings["A"].sigma
    mu, sigma = ratings["X"]  # unpacks as (mu, sigma)
    assert sigma < 25 / 3 and mu != 25.0


# ---------------------------------------------------------------------------- synthetic field


def test_synthetic_field_true_order(field):
    os_ = openskill_ratings(field, NAMES)
    assert sorted(NAMES, key=lambda n: -os_[n].mu) == TRUE_ORDER
    bt = bradley_terry(field, NAMES)  # from the pairwise scores of 2p and 4p games
    assert sorted(NAMES, key=lambda n: -bt[n]) == TRUE_ORDER
    assert sum(bt.values()) == pytest.approx(0.0, abs=1e-9)
    elo = elo_sequential(field, NAMES)
    assert sum(elo.values()) == pytest.approx(0.0, abs=1e-9)
    assert max(elo, key=elo.get) == "e4" and min(elo, key=elo.get) == "e0"


@pytest.mark.slow  # worker processes or many games: CI runs it, the fast loop skips it
def test_bootstrap_deterministic_and_holds_estimate(field):
    a = bootstrap(field, NAMES, _mu, n_boot=40, seed=3)
    assert a == bootstrap(field, NAMES, _mu, n_boot=40, seed=3)
    assert a != bootstrap(field, NAMES, _mu, n_boot=40, seed=4)
    point = _mu(field, NAMES)
    for name in NAMES:
        assert a[name][0] < point[name] < a[name][1]
    bt = bradley_terry(field, NAMES)
    ci = bootstrap(field, NAMES, bradley_terry, n_boot=40, seed=3)
    assert all(ci[n][0] < bt[n] < ci[n][1] for n in NAMES)
    # grouped resampling (e.g. the seat rotations of one deal) is deterministic too
    groups = [i // 2 for i in range(len(field))]
    g = bootstrap(field, NAMES, bradley_terry, n_boot=20, seed=3, groups=groups)
    assert g == bootstrap(field, NAMES, bradley_terry, n_boot=20, seed=3, groups=groups)
    assert all(math.isnan(v) for v in bootstrap([], NAMES, bradley_terry, n_boot=5)["e0"])


# ---------------------------------------------------------------------------- Bradley-Terry, Elo


def test_bradley_terry_known_case():
    results = [(("A", "B"), (1.0, 2.0))] * 3 + [(("B", "A"), (1.0, 2.0))]
    bt = bradley_terry(results, ["A", "B"], prior=0.0)
    assert bt["A"] - bt["B"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert bt["A"] + bt["B"] == pytest.approx(0.0, abs=1e-9)
    # a draw is half a win each: 2 wins + 2 draws of 4 = 3 of 4
    draws = [(("A", "B"), (1.0, 2.0))] * 2 + [(("A", "B"), (1.5, 1.5))] * 2
    assert bradley_terry(draws, ["A", "B"], prior=0.0)["A"] == pytest.approx(bt["A"], abs=1e-6)
    # the prior pulls towards 0 but keeps the order
    shrunk = bradley_terry(results, ["A", "B"], prior=1.0)
    assert 0 < shrunk["A"] < bt["A"]


def test_bradley_terry_unbeaten_finite_with_prior():
    results = [(("A", "B"), (1.0, 2.0))] * 5 + [(("B", "C"), (1.0, 2.0))] * 2
    bt = bradley_terry(results, ["A", "B", "C"])
    assert all(math.isfinite(v) for v in bt.values())
    assert bt["A"] > bt["B"] > bt["C"]
    assert sum(bt.values()) == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ValueError, match="no finite"):
        bradley_terry(results, ["A", "B", "C"], prior=0.0)


def test_elo_sequential_one_game():
    elo = elo_sequential([(("A", "B"), (1.0, 2.0))], ["A", "B", "C"], k=16)
    assert elo == {"A": 8.0, "B": -8.0, "C": 0.0}
    # 3 players: each pair with k / 2; the winner beats two equals
    elo = elo_sequential([(("A", "B", "C"), (1.0, 2.0, 3.0))], ["A", "B", "C"], k=16)
    assert elo == {"A": 8.0, "B": 0.0, "C": -8.0}


# ---------------------------------------------------------------------------- SPRT


def _first_decision(samples, elo0, elo1):
    for n in range(2, len(samples) + 1):
        result = sprt(samples[:n], elo0, elo1)
        if result.decision is not None:
            return result
    return sprt(samples, elo0, elo1)


def test_sprt_bounds_exact():
    r = sprt([0.5, 1.0], 0, 10, alpha=0.05, beta=0.05)
    assert r.lower == math.log(0.05 / 0.95) and r.upper == math.log(0.95 / 0.05)
    r = sprt([0.5, 1.0], 0, 10, alpha=0.05, beta=0.1)
    assert r.lower == math.log(0.1 / 0.95) and r.upper == math.log(0.9 / 0.05)
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)


def test_sprt_decisions():
    rng = np.random.default_rng(0)
    strong = rng.permutation([1.0] * 300 + [0.0] * 100).tolist()  # mean 0.75
    r = _first_decision(strong, 0, 10)
    assert r.decision == "H1" and r.n < len(strong) and r.llr >= r.upper
    assert "accepted H1" in sprt_text(r, "mcts", "random")
    equal = rng.permutation([1.0] * 1000 + [0.0] * 1000).tolist()  # mean 0.5
    r = _first_decision(equal, 0, 30)
    assert r.decision == "H0" and r.llr <= r.lower
    assert "accepted H0" in sprt_text(r, "a", "b")
    few = sprt(strong[:10], 0, 10)
    assert few.decision is None and "undecided" in sprt_text(few, "a", "b")
    assert sprt([1.0], 0, 10).decision is None and sprt([1.0], 0, 10).llr == 0.0
    # LLR formula, per-pair samples (pentanomial): mean 0.625, population variance
    pairs = [1.0, 0.5, 0.75, 0.25, 0.5, 1.0, 0.5, 0.5]
    m, v = np.mean(pairs), np.var(pairs)
    s0, s1 = expected_score(0), expected_score(10)
    assert sprt(pairs, 0, 10).llr == pytest.approx(8 * (s1 - s0) * (2 * m - s0 - s1) / (2 * v))
    allwin = sprt([1.0] * 5, 0, 10)  # zero variance: floored, finite
    assert math.isfinite(allwin.llr) and allwin.elo == math.inf


# ---------------------------------------------------------------------------- leaderboard, reports


def test_leaderboard_json_and_reports(field, tmp_path):
    board = leaderboard(field, NAMES, n_boot=20, seed=1)
    text = json.dumps(board, allow_nan=False)
    assert json.loads(text) == board
    assert [row["name"] for row in board["entrants"]] == TRUE_ORDER
    assert board["players"] == {"2": 150, "4": 150} and board["games"] == 300
    assert board["pairwise"]["entrants"] == TRUE_ORDER
    assert board["pairwise"]["rate"][0][0] is None
    assert sum(row["wins"] for row in board["entrants"]) == pytest.approx(300)
    # 300 games separate every pair of this field (true neighbours are 104 Elo apart)
    ranges = [row["rank_range"] for row in board["entrants"]]
    assert ranges == [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]]
    tests = board["strength_tests"]
    assert tests["entrants"] == TRUE_ORDER and tests["level"] == 0.05
    assert tests["p_equal"][0][0] is None and tests["p_equal"][2][3] < 0.05
    md = report.markdown(board, "Synthetic", notes=["Note one.", "Note two."])
    assert all(f"| {name} |" in md for name in NAMES) and md.rstrip().endswith("Note two.")
    assert "| 3 | e2 |" in md and "| 4 | e1 |" in md and "| 1 | e4 |" in md
    assert "sequential" in md and "Plackett-Luce" in md
    for plot in (report.plot_ratings, report.plot_heatmap):
        path = tmp_path / f"{plot.__name__}.png"
        plot(board, path)
        assert path.stat().st_size > 1000
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_leaderboard_every_figure_has_an_interval_and_n():
    results = [r for r in synthetic(seed=5, n2=60, n4=0)] + [(("e0", "e1"), (1.5, 1.5))]
    entrants = [*NAMES, "idle"]
    board = leaderboard(results, entrants, n_boot=10, seed=0)
    json.dumps(board, allow_nan=False)
    rows = {row["name"]: row for row in board["entrants"]}
    for row in rows.values():
        assert isinstance(row["games"], int)
        for key in ("strength", "win_share", "mean_rank"):
            lo, hi = row[f"{key}_ci95"]
            if row["games"]:
                assert lo <= row[key] <= hi and lo < hi
        assert row["sigma"] > 0
    idle = rows["idle"]
    assert idle["games"] == 0 and idle["mean_rank"] is None and idle["win_share"] is None
    assert idle["win_share_ci95"] == [0.0, 1.0] and idle["mean_rank_ci95"] == [None, None]
    # no games: strength 0 with the prior's width, so it shares a wide range of ranks
    assert idle["strength"] == pytest.approx(0.0, abs=1e-9)
    assert idle["strength_ci95"][1] - idle["strength_ci95"][0] > 1000
    assert idle["rank_range"][1] - idle["rank_range"][0] >= 3
    md = report.markdown(board, "2p", notes=[])
    assert "| idle |" in md
    table = report.rich_table(board, "2p")
    assert table.row_count == len(entrants)
    from rich.console import Console

    console = Console(record=True, width=100)
    report.print_board(board, "2p", console=console)
    text = console.export_text()
    assert "idle" in text and max(len(line) for line in text.splitlines()) <= 100
    assert "openskill" not in text and "openskill mu" in md  # the sequential figures: report only


# ---------------------------------------------------------------------------- order-free ranking


def _beats(a: str, b: str):
    return ((a, b), (1.0, 2.0))


def _order_free(board: dict) -> dict:
    """The board without the sequential openskill figures (which depend on the order)."""
    out = dict(board)
    out["entrants"] = [
        {k: v for k, v in row.items() if k not in ("mu", "sigma", "ordinal")}
        for row in board["entrants"]
    ]
    return out


def test_leaderboard_order_does_not_depend_on_the_order_of_the_games():
    """Finding: the leaderboard was ordered by openskill mu, a sequential rating, so the same games
    rated in another order gave another order. Here H and M both beat W 5 of 5 and H beats M 6
    of 10 (M's 4 wins last): openskill puts M first forward and H first in reverse; the
    leaderboard puts H first both ways, sharing ranks 1-2 with M (6 of 10 cannot separate them)."""
    games = [_beats("H", "W")] * 5 + [_beats("M", "W")] * 5
    games += [_beats("H", "M")] * 6 + [_beats("M", "H")] * 4
    names = ["H", "M", "W"]
    fwd, rev = openskill_ratings(games, names), openskill_ratings(games[::-1], names)
    assert fwd["M"].mu > fwd["H"].mu and rev["H"].mu > rev["M"].mu  # the sequential rating flips
    a = leaderboard(games, names, n_boot=5)
    b = leaderboard(games[::-1], names, n_boot=5)
    assert [row["name"] for row in a["entrants"]] == ["H", "M", "W"]
    assert _order_free(a) == _order_free(b)
    assert [row["rank_range"] for row in a["entrants"]] == [[1, 2], [1, 2], [3, 3]]
    assert a["entrants"][0]["strength"] > a["entrants"][1]["strength"]


def test_every_permutation_of_games_and_seats_gives_the_same_fit():
    """Finding: the leaderboard's order depended on the order games were rated. Every permutation
    of a small mixed field (2-4 players, ties), with the seats of each game shuffled too, puts
    the games in the same canonical order, and the fit (which sees only that order) gives
    bit-identical strengths, intervals and rank ranges; checked by refitting every 24th
    permutation."""
    games = [
        (("A", "B"), (1.0, 2.0)),
        (("B", "C", "A"), (1.0, 2.0, 3.0)),
        (("C", "A"), (1.5, 1.5)),
        (("A", "B", "C", "D"), (1.5, 1.5, 3.0, 4.0)),
        (("D", "C"), (1.0, 2.0)),
        (("B", "D"), (2.0, 1.0)),
    ]
    names = ["A", "B", "C", "D"]
    ref = plackett_luce(games, names)
    canonical = ratings.canonical_results(games)
    rng = np.random.default_rng(0)
    refits = 0
    for i, perm in enumerate(itertools.permutations(range(len(games)))):
        shuffled = []
        for g in perm:
            seats = rng.permutation(len(games[g][0]))
            names_g, ranks_g = games[g]
            shuffled.append((tuple(names_g[s] for s in seats), tuple(ranks_g[s] for s in seats)))
        assert ratings.canonical_results(shuffled) == canonical
        if i % 24 == 0:
            fit = plackett_luce(shuffled, names)
            assert fit.strengths == ref.strengths and fit.rank_ranges == ref.rank_ranges
            assert np.array_equal(fit.p_equal, ref.p_equal, equal_nan=True) and fit == ref
            refits += 1
    assert i + 1 == 720 and refits == 30


def test_leaderboard_same_under_random_permutations(field):
    """Finding: the leaderboard's order depended on the order games were rated. Shuffles of a
    300-game field give the same board but for openskill's sequential mu, sigma and ordinal."""
    ref = leaderboard(field, NAMES, n_boot=3, seed=2)
    rng = np.random.default_rng(1)
    for _ in range(4):
        perm = rng.permutation(len(field))
        board = leaderboard([field[i] for i in perm], NAMES, n_boot=3, seed=2)
        assert _order_free(board) == _order_free(ref)


def test_an_entrant_that_won_every_game_gets_an_interval_of_positive_width():
    """Finding: bootstrap intervals collapsed to zero width when an entrant won every game (6 games:
    openskill mu [34.37, 34.37], Bradley-Terry [+253, +253]) while Wilson gave [0.61, 1.00]."""
    board = leaderboard([_beats("A", "B")] * 6, ["A", "B"], n_boot=20)
    rows = {row["name"]: row for row in board["entrants"]}
    for row in rows.values():
        for key in ("strength", "win_share", "mean_rank"):
            lo, hi = row[f"{key}_ci95"]
            assert lo <= row[key] <= hi and hi - lo > 0.1 * (1 if key != "strength" else 1000)
    a = rows["A"]
    lo, hi = a["strength_ci95"]
    assert lo < a["strength"] < hi
    assert hi - a["strength"] > a["strength"] - lo  # the prior, not the data, bounds it above
    # 6 of 6 is enough to tell them apart, as the Wilson interval [0.61, 1] says
    assert lo > 0 and a["rank_range"] == [1, 1] and rows["B"]["rank_range"] == [2, 2]
    assert a["win_share_ci95"][0] == pytest.approx(0.6097, abs=1e-4)
    # a 3-player entrant that won every game too
    fit = plackett_luce([(("A", "B", "C"), (1.0, 2.0, 3.0))] * 4, ["A", "B", "C"])
    assert all(s.lo < s.elo < s.hi for s in fit.strengths.values())


def test_profile_interval_matches_the_one_dimensional_profile():
    # two entrants: the strength of A relative to the mean is v = (theta_A - theta_B) / 2, and
    # the prior's maximum over the mean is at mean 0: profile(v) = 3 log s(2v) + log s(-2v)
    # - precision v^2 (3 wins of 4), in natural units
    from scipy.optimize import brentq

    results = [_beats("A", "B")] * 3 + [_beats("B", "A")]
    fit = plackett_luce(results, ["A", "B"], prior_sd=400.0).strengths
    prec = (ratings.ELO_PER_NAT / 400.0) ** 2

    def prof(v):
        ls = lambda x: -np.logaddexp(0.0, -x)  # noqa: E731
        return 3 * ls(2 * v) + ls(-2 * v) - prec * v * v

    from scipy.optimize import minimize_scalar

    top = minimize_scalar(
        lambda v: -prof(v), bounds=(-5, 5), method="bounded", options={"xatol": 1e-12}
    )
    v_hat = top.x
    f = lambda v: 2 * (prof(v_hat) - prof(v)) - ratings.CHI2_95  # noqa: E731
    lo, hi = brentq(f, v_hat - 10, v_hat), brentq(f, v_hat, v_hat + 10)
    k = ratings.ELO_PER_NAT
    assert fit["A"].elo == pytest.approx(v_hat * k, abs=1e-4)
    assert fit["A"].lo == pytest.approx(lo * k, abs=1e-4)
    assert fit["A"].hi == pytest.approx(hi * k, abs=1e-4)
    assert fit["B"].elo == pytest.approx(-fit["A"].elo, abs=1e-9)


def test_plackett_luce_two_players_is_bradley_terry_with_ties_as_half_wins():
    results = [_beats("A", "B")] * 3 + [_beats("B", "A")]
    weak = 1e7  # a prior this wide changes nothing that shows
    fit = plackett_luce(results, ["A", "B"], prior_sd=weak).strengths
    assert fit["A"].elo - fit["B"].elo == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert fit["A"].elo + fit["B"].elo == pytest.approx(0.0, abs=1e-9)
    draws = [_beats("A", "B")] * 2 + [(("A", "B"), (1.5, 1.5))] * 2
    assert plackett_luce(draws, ["A", "B"], prior_sd=weak).strengths["A"].elo == pytest.approx(
        fit["A"].elo, abs=1e-6
    )
    with pytest.raises(ValueError, match="prior_sd"):
        plackett_luce(results, ["A", "B"], prior_sd=0.0)
    with pytest.raises(ValueError, match="not an entrant"):
        plackett_luce(results, ["A"])


def test_plackett_luce_recovers_the_true_field(field):
    fit = plackett_luce(field, NAMES).strengths  # the field is drawn from Plackett-Luce
    assert sorted(NAMES, key=lambda n: -fit[n].elo) == TRUE_ORDER
    assert sum(s.elo for s in fit.values()) == pytest.approx(0.0, abs=1e-9)
    truth = (THETA - THETA.mean()) * ratings.ELO_PER_NAT
    for name, t in zip(NAMES, truth, strict=True):
        assert fit[name].lo < t < fit[name].hi


def test_separated_field_gets_distinct_ranks_and_an_even_pair_shares_them():
    strong = [_beats("S", "M")] * 36 + [_beats("M", "S")] * 4
    strong += [_beats("M", "W")] * 36 + [_beats("W", "M")] * 4
    strong += [_beats("S", "W")] * 40
    board = leaderboard(strong, ["W", "M", "S"], n_boot=5)
    assert [(r["name"], r["rank_range"]) for r in board["entrants"]] == [
        ("S", [1, 1]),
        ("M", [2, 2]),
        ("W", [3, 3]),
    ]
    assert "| 1 | S |" in report.markdown(board, "x")
    even = [_beats("A", "B"), _beats("B", "A")] * 10
    even += [_beats("A", "C")] * 18 + [_beats("C", "A")] * 2
    even += [_beats("B", "C")] * 18 + [_beats("C", "B")] * 2
    board = leaderboard(even, ["C", "B", "A"], n_boot=5)
    rows = {r["name"]: r for r in board["entrants"]}
    assert rows["A"]["rank_range"] == rows["B"]["rank_range"] == [1, 2]
    assert rows["C"]["rank_range"] == [3, 3]
    assert rows["A"]["strength"] == pytest.approx(rows["B"]["strength"], abs=1e-6)
    md = report.markdown(board, "x")
    assert "| 1-2 | A |" in md and "| 1-2 | B |" in md and "| 3 | C |" in md


def test_rank_ranges_from_hand_made_tests():
    nan = float("nan")
    p = np.array(
        [
            [nan, 0.01, 0.20, 0.01],
            [0.01, nan, 0.03, 0.50],
            [0.20, 0.03, nan, 0.04],
            [0.01, 0.50, 0.04, nan],
        ]
    )
    got = rank_ranges(["a", "b", "c", "d"], [30.0, 10.0, 20.0, 0.0], p)
    # a: b and d significantly below; b: a and c above; c: b and d below; d: a and c above
    assert got == {"a": (1, 2), "b": (3, 4), "c": (1, 2), "d": (3, 4)}
    assert rank_ranges(["a", "b", "c", "d"], [30.0, 10.0, 20.0, 0.0], p, level=0.02) == {
        "a": (1, 2),
        "b": (2, 4),
        "c": (1, 4),
        "d": (2, 4),
    }
    assert rank_ranges([], [], np.zeros((0, 0))) == {}
    with pytest.raises(ValueError, match="estimates"):
        rank_ranges(["a", "b"], [1.0], p[:2, :2])
    assert report.rank_text((2, 2)) == "2" and report.rank_text((1, 3)) == "1-3"


@pytest.mark.slow  # worker processes or many games: CI runs it, the fast loop skips it
def test_rank_ranges_cover_the_true_ranks_of_a_null_field_at_the_stated_rate():
    # 6 equal entrants, 40 random round-robin fields of 300 two-player games: every field's
    # ranges must span all six ranks (any separation is a family-wise false claim, at most 5%)
    names = ["a", "b", "c", "d", "e", "f"]
    rng = np.random.default_rng(11)
    false_claims = 0
    for _ in range(40):
        games = []
        for _ in range(300):
            i, j = rng.choice(6, size=2, replace=False)
            games.append(_beats(names[i], names[j]))
        ranges = plackett_luce(games, names).rank_ranges
        false_claims += any(r != (1, 6) for r in ranges.values())
    assert false_claims <= 4  # binomial(40, 0.05): P(> 4) is under 5%


def test_openskill_order_range_is_a_property_of_the_games_not_their_order(field):
    a = openskill_order_range(field, NAMES, n_orders=6, seed=4)
    rng = np.random.default_rng(2)
    perm = rng.permutation(len(field))
    assert openskill_order_range([field[i] for i in perm], NAMES, n_orders=6, seed=4) == a
    assert all(lo < hi for lo, hi in a.values())
    groups = [i // 2 for i in range(len(field))]
    g = openskill_order_range(field, NAMES, n_orders=6, seed=4, groups=groups)
    assert g == openskill_order_range(field, NAMES, n_orders=6, seed=4, groups=groups)
    assert all(math.isnan(v) for v in openskill_order_range([], NAMES, n_orders=2)["e0"])
    with pytest.raises(ValueError, match="n_orders"):
        openskill_order_range(field, NAMES, n_orders=0)


def test_holm_adjusts_over_every_pair():
    p = np.full((3, 3), np.nan)
    p[0, 1] = p[1, 0] = 0.01
    p[0, 2] = p[2, 0] = 0.04
    p[1, 2] = p[2, 1] = 0.03
    adj = ratings.holm(p)
    # sorted 0.01, 0.03, 0.04 -> x3, x2, x1 with the running maximum: 0.03, 0.06, 0.06
    assert adj[0, 1] == pytest.approx(0.03) and adj[1, 0] == adj[0, 1]
    assert adj[1, 2] == pytest.approx(0.06)
    assert adj[0, 2] == pytest.approx(0.06)
    assert np.isnan(adj[0, 0])


def test_pairwise_p_values():
    res = [(("a", "b"), (1.0, 2.0))] * 20 + [(("a", "c"), (1.0, 2.0)), (("c", "a"), (1.0, 2.0))]
    pw = ratings.pairwise(res, ["a", "b", "c"])
    assert pw["p_holm"][0, 1] < 0.05  # 20 of 20
    assert pw["p_holm"][0, 2] == pytest.approx(1.0)  # 1 of 2: even
    assert np.isnan(pw["p_holm"][1, 2])  # never met


def test_identical_records_are_listed_by_name_whatever_the_entrant_order():
    """Two entrants with the same record against a third fit to strengths that differ only in
    the last bits, depending on the order the entrants are given: they are a tie, listed by
    name."""
    res = []
    for _ in range(6):
        res += [(("zz", "mid"), (1, 2)), (("aa", "mid"), (1, 2)), (("mid", "zz"), (1, 2))]
        res += [(("mid", "aa"), (1, 2)), (("zz", "mid"), (1, 2)), (("aa", "mid"), (1, 2))]
    for order in (["zz", "aa", "mid"], ["aa", "zz", "mid"], ["mid", "zz", "aa"]):
        board = leaderboard(res, order, n_boot=2)
        assert [e["name"] for e in board["entrants"]] == ["aa", "zz", "mid"], order
