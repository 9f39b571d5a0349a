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
    openskill_ratings,
    pairwise,
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
    assert "bt_elo" not in board["entrants"][0]  # mixed player counts: no Bradley-Terry column
    assert sum(row["wins"] for row in board["entrants"]) == pytest.approx(300)
    md = report.markdown(board, "Synthetic", notes=["Note one.", "Note two."])
    assert all(f"| {name} |" in md for name in NAMES) and md.rstrip().endswith("Note two.")
    assert "BT Elo" not in md
    for plot in (report.plot_ratings, report.plot_heatmap):
        path = tmp_path / f"{plot.__name__}.png"
        plot(board, path)
        assert path.stat().st_size > 1000
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_leaderboard_two_player_has_bt_elo():
    results = [r for r in synthetic(seed=5, n2=60, n4=0)] + [(("e0", "e1"), (1.5, 1.5))]
    entrants = [*NAMES, "idle"]
    board = leaderboard(results, entrants, n_boot=10, seed=0)
    json.dumps(board, allow_nan=False)
    rows = {row["name"]: row for row in board["entrants"]}
    assert all("bt_elo" in row for row in rows.values())
    assert rows["idle"]["games"] == 0 and rows["idle"]["mean_rank"] is None
    assert rows["idle"]["win_share_ci95"] == [0.0, 1.0]
    md = report.markdown(board, "2p", notes=[])
    assert "BT Elo" in md and "| idle |" in md
    table = report.rich_table(board, "2p")
    assert table.row_count == len(entrants)
    from rich.console import Console

    console = Console(record=True, width=200)
    report.print_board(board, "2p", console=console)
    assert "idle" in console.export_text()


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
