"""Ratings and tests of strength from tournament results (numpy, scipy, openskill).

A game result is ``(names by seat, finishing rank by seat)``: ranks are 1-based and tied players
share the average position (two tied firsts in a 3-player game: ``(1.5, 1.5, 3.0)``), 2 to 4
players. Results come as a list in a fixed order (the order the game store returns them); every
function here is deterministic for a given list (and seed), and the leaderboard's order, strengths,
intervals and rank ranges are the same for every order of the list.

Methods, and why each is here:

- ``plackett_luce``: the leaderboard's order. The Plackett-Luce model (R. L. Plackett, "The
  analysis of permutations", Applied Statistics 1975; R. D. Luce 1959) of a full finishing order
  of 2-4 players, which for 2 players is the Bradley-Terry model (Bradley and Terry 1952; Zermelo
  1929), fitted to all games at once: a tie enters as every strict order of the tied players
  with equal weight (for 2 players half a win each), a weak Gaussian prior on every strength
  (sd 400 Elo) keeps an entrant that won or lost everything finite, the estimate is the
  posterior mode on the Elo scale centred on the field's mean, and its 95% interval is the
  profile-likelihood interval of the penalised likelihood (D. J. Venzon and S. H. Moolgavkar,
  Applied Statistics 1988), which, unlike a bootstrap over games, keeps a positive width when an
  entrant won every game, and is asymmetric where the likelihood is. The games are put in a
  canonical order first, so every order of the same games gives the same bits. Every pair gets a
  likelihood-ratio test of equal strength, Holm-adjusted over all pairs, and ``rank_ranges``
  turns the tests into ranks with ties: the range of i runs from 1 + (entrants significantly
  stronger than i) to k - (entrants significantly weaker).
- ``pairwise``: for every ordered pair of entrants, the games they played together and the score of
  one against the other (1 better rank, 0.5 tie, 0 worse; in a multi-player game each pair at the
  table counts once), with a 95% Wilson score interval (E. B. Wilson, "Probable inference, the law
  of succession, and statistical inference", JASA 1927), which, unlike the normal "Wald" interval,
  stays inside [0, 1] and behaves near 0 and 1. The pairs of one multi-player game are not
  independent, so for multi-player games these intervals are somewhat too narrow.
- ``openskill_ratings``: the Weng-Lin Bayesian online rating (R. C. Weng and C.-J. Lin, "A Bayesian
  approximation method for online ranking", JMLR 2011) as implemented by the ``openskill`` package,
  Plackett-Luce model by default, with a mean ``mu`` and an uncertainty ``sigma`` per entrant and
  ``ordinal = mu - 3 sigma`` as the conservative figure. It is sequential: the same games in
  another order give other ratings, so it never orders the leaderboard;
  ``openskill_order_range`` measures how much it moves with the order.
  Ties: we never hand openskill a tie. openskill 6.2 with tied ranks is order-independent up to
  floating-point summation order (results differ in the last bits with the seat order), but its
  tie treatment is poor in 4-player games: fresh players ranked (1, 1, 3, 4) leave the third
  player with exactly the gain of the two tied winners, and the code meant to give tied teams
  the same mu change never acts (it compares objects it has already mutated; openskill.py issue
  201). So a tie is treated as every strict order of the tied players being equally likely: the
  update is the average of the updates over all permutations of each tied group (at most 4! = 24
  orders), summed with ``math.fsum`` in a canonical order so the result does not depend, to the
  bit, on the order the seats are listed in, and two entrants with the same history end with the
  same rating. Breaking ties by name instead would favour one name over another.
- ``bradley_terry``: the Bradley-Terry fit of the pairwise scores (ties half a win each), with
  ``prior`` virtual draws of every entrant against a fictitious player of rating 0 (the device of
  R. Coulom's Whole-History Rating, 2008), on the Elo scale with mean 0. It takes multi-player
  games as their pairs, a composite likelihood (the pairs of one game are dependent); the
  leaderboard uses ``plackett_luce`` instead. ``elo_sequential`` is classic Elo (A. Elo, "The
  Rating of Chessplayers, Past and Present", 1978) for comparison; it depends on the order of
  games.
- ``bootstrap``: percentile 95% interval of any rating function by resampling games (or groups of
  games, e.g. the seat rotations of one deal) with replacement (B. Efron and R. Tibshirani, "An
  Introduction to the Bootstrap", 1993). It collapses to a point when every resample is alike
  (an entrant that won every game), so the leaderboard does not use it.
- ``leaderboard``: all of it in one JSON-serialisable dict (``training.arena.leaderboard`` renders
  it).
- ``sprt``: the generalized sequential probability ratio test (A. Wald, "Sequential tests of
  statistical hypotheses", 1945) with the normal approximation of the log-likelihood ratio, as the
  chess engine testing framework fishtest (Stockfish) runs it: stop a head-to-head as soon as the
  data favour elo1 over elo0 (or the reverse) at error rates alpha and beta.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

GameResult = tuple[tuple[str, ...], tuple[float, ...]]

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of natural log-odds
Z95 = 1.959964
SPRT_VAR_FLOOR = 1e-4  # variance floor of the SPRT when all samples are equal (see sprt)


# ---------------------------------------------------------------------------- input and intervals


def _index(results: Sequence[GameResult], entrants: Sequence[str]) -> dict[str, int]:
    """Validate results against entrants; returns name -> index."""
    idx = {name: i for i, name in enumerate(entrants)}
    if len(idx) != len(entrants):
        raise ValueError(f"entrants must be unique, got {list(entrants)}")
    for g, (names, ranks) in enumerate(results):
        if not 2 <= len(names) <= 4 or len(ranks) != len(names):
            raise ValueError(f"result {g}: 2-4 names with one rank each, got {names} {ranks}")
        if len(set(names)) != len(names):
            raise ValueError(f"result {g}: an entrant sits twice at one table: {names}")
        for name in names:
            if name not in idx:
                raise ValueError(f"result {g}: {name!r} is not an entrant")
    return idx


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of the proportion wins/n (wins may be fractional).

    (0, 1) for n = 0. The interval always holds p = wins/n (at p = 0 or 1 rounding could otherwise
    leave it a hair outside).
    """
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    return min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


def pairwise(results: Sequence[GameResult], entrants: Sequence[str]) -> dict[str, Any]:
    """Head-to-head table: for row a, column b, a's record against b.

    Returns ``{"entrants", "n", "score", "rate", "lo", "hi"}``: ``n[a, b]`` games a and b played at
    one table, ``score[a, b]`` a's points against b (1 better rank, 0.5 tie, 0 worse; every pair at
    a multi-player table counts once), ``rate = score / n`` and its 95% Wilson interval
    ``[lo, hi]``; rate, lo and hi are nan where n = 0 (the diagonal included).
    """
    idx = _index(results, entrants)
    k = len(entrants)
    n = np.zeros((k, k))
    score = np.zeros((k, k))
    for names, ranks in results:
        for (a, ra), (b, rb) in itertools.combinations(zip(names, ranks, strict=True), 2):
            i, j = idx[a], idx[b]
            s = 1.0 if ra < rb else 0.5 if ra == rb else 0.0
            n[i, j] += 1
            n[j, i] += 1
            score[i, j] += s
            score[j, i] += 1.0 - s
    rate = np.full((k, k), np.nan)
    lo = np.full((k, k), np.nan)
    hi = np.full((k, k), np.nan)
    for i, j in zip(*np.nonzero(n), strict=True):
        rate[i, j] = score[i, j] / n[i, j]
        lo[i, j], hi[i, j] = wilson_interval(score[i, j], int(n[i, j]))
    return {
        "entrants": list(entrants),
        "n": n,
        "score": score,
        "rate": rate,
        "lo": lo,
        "hi": hi,
        "p_holm": holm(_even_p_values(n, score)),
    }


def _even_p_values(n: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Two-sided p-value of "a and b are even" (rate 0.5) per pair: the normal approximation with
    the null variance 1/4 per game (conservative when there are ties); nan where n = 0."""
    p = np.full(n.shape, np.nan)
    for i, j in zip(*np.nonzero(n), strict=True):
        z = (score[i, j] / n[i, j] - 0.5) / (0.5 / math.sqrt(n[i, j]))
        p[i, j] = math.erfc(abs(z) / math.sqrt(2.0))
    return p


def holm(p: np.ndarray) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values of a symmetric matrix of pairwise p-values: one test
    per unordered pair (the upper triangle), the family being every pair that played; the result
    is symmetric, nan where p is nan. A pair differs at family-wise level 0.05 when its adjusted
    p-value is below 0.05 (S. Holm, Scand. J. Statist. 1979)."""
    k = p.shape[0]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k) if not np.isnan(p[i, j])]
    out = np.full(p.shape, np.nan)
    m = len(pairs)
    running = 0.0
    for rank, (i, j) in enumerate(sorted(pairs, key=lambda ij: p[ij])):
        running = max(running, min(1.0, (m - rank) * p[i, j]))
        out[i, j] = out[j, i] = running
    return out


# ---------------------------------------------------------------------------- openskill


class Rating(NamedTuple):
    """An openskill rating, unpacking as ``(mu, sigma)``; ``ordinal`` is mu - 3 sigma."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma


_MODELS = {
    "plackett_luce": "PlackettLuce",
    "bradley_terry_full": "BradleyTerryFull",
    "bradley_terry_part": "BradleyTerryPart",
    "thurstone_mosteller_full": "ThurstoneMostellerFull",
    "thurstone_mosteller_part": "ThurstoneMostellerPart",
}


def _strict_orders(names: Sequence[str], ranks: Sequence[float]) -> list[list[str]]:
    """Every strict finishing order consistent with the ranks, in a canonical order.

    The table is sorted by (rank, name); each group of tied players is then permuted.
    """
    table = sorted(zip(ranks, names, strict=True))
    groups = [[name for _, name in grp] for _, grp in itertools.groupby(table, key=lambda t: t[0])]
    return [
        [name for grp in combo for name in grp]
        for combo in itertools.product(*(itertools.permutations(g) for g in groups))
    ]


def openskill_ratings(
    results: Sequence[GameResult], entrants: Sequence[str], model: str = "plackett_luce"
) -> dict[str, Rating]:
    """Weng-Lin ratings (openskill, default model parameters) after the results, in order.

    Each player is a team of one. A tie is rated as the average update over every strict order of
    the tied players (see the module docstring), so the outcome does not depend on the seat order
    and tied players with the same prior get the same new rating. Entrants without games keep the
    prior (mu 25, sigma 25/3). ``model`` is one of plackett_luce, bradley_terry_full,
    bradley_terry_part, thurstone_mosteller_full, thurstone_mosteller_part.
    """
    _index(results, entrants)
    if model not in _MODELS:
        raise ValueError(f"model must be one of {sorted(_MODELS)}, got {model!r}")
    import openskill.models

    m = getattr(openskill.models, _MODELS[model])()
    state = {name: (float(m.mu), float(m.sigma)) for name in entrants}
    for names, ranks in results:
        orders = _strict_orders(names, ranks)
        new: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        for order in orders:
            teams = [[m.rating(mu=state[p][0], sigma=state[p][1], name=p)] for p in order]
            rated = m.rate(teams, ranks=[float(r) for r in range(1, len(order) + 1)])
            for p, team in zip(order, rated, strict=True):
                new[p].append((team[0].mu, team[0].sigma))
        for p, updates in new.items():
            if len(updates) == 1:
                state[p] = updates[0]
            else:  # math.fsum is exactly rounded: the mean does not depend on the summation order
                state[p] = (
                    math.fsum(u[0] for u in updates) / len(updates),
                    math.fsum(u[1] for u in updates) / len(updates),
                )
    return {name: Rating(*state[name]) for name in entrants}


# ---------------------------------------------------------------------------- Bradley-Terry, Elo


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.exp(_log_sigmoid(x))


def _strongly_connected(beats: np.ndarray) -> bool:
    """Whether every entrant reaches every other along 'scored against' edges (Ford's condition)."""
    k = len(beats)
    reach = np.eye(k, dtype=bool) | beats
    for _ in range(max(1, int(math.ceil(math.log2(max(k, 2))))) + 1):
        reach = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
    return bool(reach.all())


def bradley_terry(
    results: Sequence[GameResult], entrants: Sequence[str], prior: float = 1.0
) -> dict[str, float]:
    """Bradley-Terry maximum-likelihood (with prior: maximum a posteriori) ratings on the Elo scale.

    Fitted by Newton's method on the concave log-likelihood of the pairwise scores (ties count half
    a win each; multi-player games enter as their pairs). ``prior`` virtual draws of every entrant
    against a fictitious player of rating 0 keep unbeaten or winless entrants finite; with
    ``prior=0`` the plain MLE, which exists only if the 'scored against' graph is strongly
    connected (Ford 1957) - otherwise ValueError. Ratings are centred: their mean is 0.
    """
    if prior < 0:
        raise ValueError(f"prior must be >= 0, got {prior}")
    pw = pairwise(results, entrants)
    n, w = pw["n"], pw["score"]
    k = len(entrants)
    if k == 0:
        return {}
    if prior == 0 and not _strongly_connected(w > 0):
        raise ValueError(
            "no finite Bradley-Terry MLE: some entrants never scored against others "
            "(or never played); use prior > 0"
        )

    def objective(theta: np.ndarray) -> float:
        d = theta[:, None] - theta[None, :]
        return float((w * _log_sigmoid(d)).sum()) + 0.5 * prior * float(
            (_log_sigmoid(theta) + _log_sigmoid(-theta)).sum()
        )

    theta = np.zeros(k)
    value = objective(theta)
    for _ in range(200):
        p = _sigmoid(theta[:, None] - theta[None, :])
        grad = (w - n * p).sum(axis=1) + prior * (0.5 - _sigmoid(theta))
        h = n * p * (1.0 - p)  # minus the Hessian: a weighted graph Laplacian plus the prior
        neg_hess = np.diag(h.sum(axis=1)) - h
        s = _sigmoid(theta)
        neg_hess[np.diag_indices(k)] += prior * s * (1.0 - s)
        step = np.linalg.lstsq(neg_hess, grad, rcond=None)[0]  # min-norm step when prior = 0
        t = 1.0
        while True:  # backtracking: never accept a step that lowers the likelihood
            candidate = theta + t * step
            cand_value = objective(candidate)
            if cand_value >= value - 1e-12 * abs(value) or t < 1e-8:
                break
            t *= 0.5
        theta, value = candidate, cand_value
        if np.abs(t * step).max() < 1e-12:
            break
    elo = theta * ELO_PER_NAT
    elo -= elo.mean()
    return {name: float(r) for name, r in zip(entrants, elo, strict=True)}


def elo_sequential(
    results: Sequence[GameResult], entrants: Sequence[str], k: float = 16.0
) -> dict[str, float]:
    """Classic sequential Elo from 0, the games in the given order.

    A multi-player game is scored as its pairs (1 / 0.5 / 0 by rank), all from the ratings before
    the game, each pair with weight k / (players - 1), so that a game moves a rating by at most k
    whatever the player count. Updates are zero-sum, so the mean rating stays 0.
    """
    _index(results, entrants)
    rating = {name: 0.0 for name in entrants}
    for names, ranks in results:
        kk = k / (len(names) - 1)
        delta = {name: 0.0 for name in names}
        for (a, ra), (b, rb) in itertools.combinations(zip(names, ranks, strict=True), 2):
            expected = 1.0 / (1.0 + 10.0 ** ((rating[b] - rating[a]) / 400.0))
            s = 1.0 if ra < rb else 0.5 if ra == rb else 0.0
            delta[a] += kk * (s - expected)
            delta[b] -= kk * (s - expected)
        for name, d in delta.items():
            rating[name] += d
    return rating


# ---------------------------------------------------------------------------- bootstrap


def bootstrap(
    results: Sequence[GameResult],
    entrants: Sequence[str],
    rate_fn: Callable[[list[GameResult], Sequence[str]], Mapping[str, float]],
    n_boot: int = 200,
    seed: int = 0,
    groups: Sequence[Hashable] | None = None,
) -> dict[str, tuple[float, float]]:
    """Percentile 95% interval of ``rate_fn(results, entrants)[name]`` for every entrant.

    Each of ``n_boot`` replicates draws len(results) games with replacement (numpy Generator
    seeded with ``seed``; deterministic) and rates them in their original order (a sequential
    rating such as openskill depends on the order, so a replicate keeps the order the point
    estimate used, or the point estimate could fall outside its own interval). With ``groups`` (one
    key per result, e.g. the deal seed shared by the seat rotations of one deal) whole groups are
    drawn instead, as many as there are groups, which respects the dependence inside a group.
    (nan, nan) for every entrant when there are no results.
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    _index(results, entrants)
    if not results:
        return {name: (math.nan, math.nan) for name in entrants}
    if groups is None:
        blocks = [[i] for i in range(len(results))]
    else:
        if len(groups) != len(results):
            raise ValueError("groups needs one key per result")
        members: dict[Hashable, list[int]] = {}
        for i, key in enumerate(groups):
            members.setdefault(key, []).append(i)
        blocks = list(members.values())
    rng = np.random.default_rng(seed)
    values = np.empty((n_boot, len(entrants)))
    for b in range(n_boot):
        drawn = np.sort(rng.integers(0, len(blocks), size=len(blocks)))
        sample = [results[i] for block in drawn for i in blocks[block]]
        rated = rate_fn(sample, entrants)
        values[b] = [rated[name] for name in entrants]
    lo, hi = np.percentile(values, [2.5, 97.5], axis=0)
    return {name: (float(a), float(b)) for name, a, b in zip(entrants, lo, hi, strict=True)}


# ---------------------------------------------------------------------------- Plackett-Luce


class Strength(NamedTuple):
    """An entrant's Plackett-Luce strength on the Elo scale (relative to the field's mean, which
    is 0) with its 95% profile-likelihood interval ``[lo, hi]``."""

    elo: float
    lo: float
    hi: float


def canonical_results(results: Sequence[GameResult]) -> list[GameResult]:
    """The results as a sorted multiset: each table as (name, rank) pairs sorted by (rank, name),
    the tables sorted. Every permutation of the games, and of the seats within a game, gives the
    same list, so a computation on it gives the same bits whatever order the games came in."""
    tables = sorted(tuple(sorted(zip(ranks, names, strict=True))) for names, ranks in results)
    return [(tuple(n for _, n in t), tuple(float(r) for r, _ in t)) for t in tables]


class _PlackettLuce:
    """The log-posterior of Plackett-Luce strengths (natural log-odds scale) under independent
    N(0, 1 / precision) priors, built from the results in canonical order.

    One row per (strict finishing order, position): who took the position, who was still in the
    running, and the row's weight: the number of identical games. A game whose ranks tie is
    entered as every strict order of each tied group, each with 1 / (number of orders) of it."""

    def __init__(self, results: Sequence[GameResult], idx: Mapping[str, int], precision: float):
        chosen: list[int] = []
        members: list[list[int]] = []
        weight: list[float] = []
        tables = canonical_results(results)
        for (names, ranks), grp in itertools.groupby(tables):
            count = sum(1 for _ in grp)  # identical tables: one row set, weighted
            orders = _strict_orders(names, ranks)
            for order in orders:
                ids = [idx[name] for name in order]
                for pos in range(len(ids) - 1):
                    chosen.append(ids[pos])
                    members.append(ids[pos:] + [-1] * (4 - len(ids) + pos))
                    weight.append(count / len(orders))
        self.k = len(idx)
        self.chosen = np.array(chosen, dtype=np.int64)
        self.members = np.array(members, dtype=np.int64).reshape(-1, 4)
        self.weight = np.array(weight, dtype=np.float64)
        self.valid = self.members >= 0
        self.row = np.nonzero(self.valid)[0]
        self.precision = precision
        # orthonormal basis of the moves that keep the sum of the strengths (Helmert contrasts)
        from scipy.linalg import helmert  # scipy ([train]) only where a fit needs it

        self.basis = helmert(self.k).T if self.k > 1 else np.zeros((self.k, 0))

    def __call__(self, theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """(log-posterior, its gradient, minus its Hessian) at theta."""
        valid, members, w = self.valid, self.members, self.weight
        t = np.where(valid, theta[np.maximum(members, 0)], -np.inf)
        top = t.max(axis=1, keepdims=True)
        e = np.where(valid, np.exp(t - top), 0.0)
        z = e.sum(axis=1, keepdims=True)
        prob = np.zeros((members.shape[0], self.k))  # each entrant's chance to take the position
        prob[self.row, members[valid]] = (e / z)[valid]
        log_z = top[:, 0] + np.log(z[:, 0])
        prior = 0.5 * self.precision * float(theta @ theta)
        value = float(w @ (theta[self.chosen] - log_z)) - prior
        grad = np.bincount(self.chosen, weights=w, minlength=self.k) - w @ prob
        grad -= self.precision * theta
        wprob = w[:, None] * prob
        neg_hess = np.diag(wprob.sum(axis=0) + self.precision) - wprob.T @ prob
        return value, grad, neg_hess

    def maximise(self, theta: np.ndarray, a: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        """Newton's method from theta to the maximum over the strengths with the same sum (and
        the same a . theta when a is given, a orthogonal to (1, ..., 1)); returns (log-posterior,
        argmax). The log-posterior is strictly concave, so the maximum is unique. Steps stay in
        the subspace of sum-zero moves: the likelihood does not change when every strength moves
        by the same amount, so that direction, which only the prior fixes, is left out (with a
        wide prior it would make the steps ill-conditioned)."""
        basis = self.basis
        if a is not None:  # moves orthogonal to 1 and to a
            from scipy.linalg import null_space

            basis = basis @ null_space((basis.T @ a)[None, :])
        value, grad, neg_hess = self(theta)
        if basis.shape[1] == 0:  # nothing left to move
            return value, theta
        for _ in range(200):
            g = basis.T @ grad
            h = basis.T @ neg_hess @ basis
            step = basis @ np.linalg.solve(h, g)
            decrement = float(g @ (basis.T @ step))
            t = 1.0
            while True:  # backtracking: never accept a step that lowers the posterior
                candidate = theta + t * step
                cand_value = self(candidate)[0]
                if cand_value >= value or t < 1e-10:
                    break
                t *= 0.5
            theta = candidate
            value, grad, neg_hess = self(theta)
            if decrement < 1e-24 or np.abs(t * step).max() < 1e-12:
                return value, theta
        raise RuntimeError("the Plackett-Luce fit did not converge in 200 Newton steps")


PRIOR_SD_ELO = 400.0  # sd of the Gaussian prior on every strength: worth under one game
CHI2_95 = 3.841458820694124  # 95% quantile of chi-square with 1 degree of freedom
RANK_LEVEL = 0.05  # family-wise error rate of the tests behind the rank ranges


@dataclass(frozen=True, eq=False)
class PlackettLuceFit:
    """What ``plackett_luce`` returns: ``strengths`` (name -> Strength), ``p_equal`` (k x k, in
    the order of the entrants: Holm-adjusted p-value of the likelihood-ratio test of "i and j are
    equally strong", nan on the diagonal) and ``rank_ranges`` (name -> (best, worst) rank, from
    ``rank_ranges`` at level ``RANK_LEVEL``)."""

    strengths: dict[str, Strength]
    p_equal: np.ndarray
    rank_ranges: dict[str, tuple[int, int]]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlackettLuceFit):
            return NotImplemented
        return (
            self.strengths == other.strengths
            and self.rank_ranges == other.rank_ranges
            and np.array_equal(self.p_equal, other.p_equal, equal_nan=True)
        )


def plackett_luce(
    results: Sequence[GameResult], entrants: Sequence[str], prior_sd: float = PRIOR_SD_ELO
) -> PlackettLuceFit:
    """Plackett-Luce strengths fitted to all the results at once, on the Elo scale, with 95%
    intervals, tests of every pair and rank ranges; the same, to the bit, for every order of the
    results.

    Model: a table's finishing order is drawn first to last, each position taken by one of the
    players still in the running with probability proportional to exp(strength). For 2 players
    this is Bradley-Terry: P(a beats b) = 1 / (1 + 10^((R_b - R_a) / 400)) in Elo. A tie enters
    as every strict order of the tied players with equal weight (the mean of their
    log-likelihoods): for 2 players, half a win each. Every strength has an independent Gaussian
    prior N(0, prior_sd^2) (Elo), which keeps an entrant that won or lost every game finite. The
    estimate is the posterior mode (Newton's method; the log-posterior is strictly concave); its
    mean over the field is 0. Games count as independent.

    Interval: the 95% profile interval of the entrant's strength relative to the field's mean,
    {v : 2 (max log-posterior - max log-posterior given that relative strength is v) <= 3.84};
    it holds the estimate, has positive width even for an entrant that won every game, and is
    asymmetric where the likelihood is (an unbeaten entrant's upper end is set by the prior). It
    also carries the uncertainty of the field's mean, so two intervals may overlap while the two
    entrants differ clearly: compare entrants with ``p_equal``. An entrant without games gets 0
    with the prior's width.

    Tests: for every pair, the likelihood-ratio test of equal strength, 2 (max log-posterior -
    max log-posterior with the two strengths equal) against chi-square with 1 degree of freedom,
    Holm-adjusted over all pairs; ``rank_ranges`` turns them into ranks.

    The games are first put in a canonical order (``canonical_results``), so any permutation of
    the results, or of the seats of a game, gives identical bits.
    """
    if not (math.isfinite(prior_sd) and prior_sd > 0):
        raise ValueError(f"prior_sd must be a positive number of Elo points, got {prior_sd}")
    idx = _index(results, entrants)
    k = len(entrants)
    if k < 2:  # no field to be relative to
        strengths = {name: Strength(0.0, 0.0, 0.0) for name in entrants}
        return PlackettLuceFit(strengths, np.full((k, k), np.nan), {n: (1, 1) for n in entrants})
    from scipy.optimize import brentq
    from scipy.stats import chi2

    model = _PlackettLuce(results, idx, (ELO_PER_NAT / prior_sd) ** 2)
    best, theta = model.maximise(np.zeros(k))
    theta = theta - theta.mean()  # already 0 up to rounding: the prior centres the field
    _, _, neg_hess = model(theta)

    def constrained(a: np.ndarray, v: float, start: np.ndarray) -> tuple[float, np.ndarray]:
        """Maximum log-posterior with a . theta = v (a orthogonal to 1), from start."""
        return model.maximise(start + a * (v - a @ start) / (a @ a), a)

    strengths = {}
    for i, name in enumerate(entrants):
        a = -np.full(k, 1.0 / k)
        a[i] += 1.0  # a . theta: strength i relative to the field's mean
        start = {"theta": theta}

        def drop(v: float, a: np.ndarray = a, start: dict = start) -> float:
            value, start["theta"] = constrained(a, v, start["theta"])
            return 2.0 * (best - value) - CHI2_95

        centre = float(a @ theta)
        sd = math.sqrt(float(a @ np.linalg.solve(neg_hess, a)))  # Laplace: the first bracket
        bounds = []
        for sign in (-1.0, 1.0):
            start["theta"] = theta
            width = 2.0 * sd
            for _ in range(100):  # the prior makes the drop grow without bound
                if drop(centre + sign * width) >= 0.0:
                    break
                width *= 2.0
            else:
                raise RuntimeError(f"no end of the profile interval of {name!r} was found")
            start["theta"] = theta
            lo_v, hi_v = sorted((centre, centre + sign * width))
            bounds.append(brentq(drop, lo_v, hi_v, xtol=1e-12, rtol=1e-12))
        lo, hi = (float(b * ELO_PER_NAT) for b in bounds)
        strengths[name] = Strength(float(centre * ELO_PER_NAT), lo, hi)
    p = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(i + 1, k):
            a = np.zeros(k)
            a[i], a[j] = 1.0, -1.0
            value, _ = constrained(a, 0.0, theta)
            p[i, j] = p[j, i] = float(chi2.sf(max(2.0 * (best - value), 0.0), 1))
    p_equal = holm(p)
    ranges = rank_ranges(entrants, [strengths[n].elo for n in entrants], p_equal)
    return PlackettLuceFit(strengths, p_equal, ranges)


def rank_ranges(
    entrants: Sequence[str],
    estimates: Sequence[float],
    p_equal: np.ndarray,
    level: float = RANK_LEVEL,
) -> dict[str, tuple[int, int]]:
    """Rank range of every entrant from its estimate and the adjusted p-values of the tests of
    "i and j are equally strong" (``p_equal[i, j]``, k x k in the order of ``entrants``).

    j is certainly above i when p_equal[i, j] < level and estimate j > estimate i; certainly
    below when p_equal[i, j] < level and estimate j < estimate i. The range of i runs from
    1 + (number certainly above) to k - (number certainly below): the best and the worst rank i
    could hold. Entrants that no test tells apart share ranks: two even leaders are both "1-2".
    With p-values adjusted for every pair (Holm), the chance that any "certainly" is wrong is at
    most ``level``, so every true rank lies in its range at once with probability at least
    1 - level (as far as the model and its large-sample tests hold).
    """
    k = len(entrants)
    if len(estimates) != k or np.shape(p_equal) != (k, k):
        raise ValueError(f"need {k} estimates and a {k} x {k} matrix of p-values")
    out = {}
    for i, name in enumerate(entrants):
        apart = [j for j in range(k) if j != i and p_equal[i][j] < level]
        above = sum(1 for j in apart if estimates[j] > estimates[i])
        below = sum(1 for j in apart if estimates[j] < estimates[i])
        out[name] = (1 + above, k - below)
    return out


# ---------------------------------------------------------------------------- leaderboard


def _finite(x: float) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def openskill_order_range(
    results: Sequence[GameResult],
    entrants: Sequence[str],
    n_orders: int = 200,
    seed: int = 0,
    groups: Sequence[Hashable] | None = None,
) -> dict[str, tuple[float, float]]:
    """How much openskill mu depends on the order of the games: the 2.5 and 97.5 percentiles of
    each entrant's mu over ``n_orders`` random orders of the same games (numpy Generator seeded
    with ``seed``). With ``groups`` (one key per result, e.g. a deal's seat rotations) the games
    of a group stay together, in canonical order. The games are put in a canonical order before
    shuffling, so the range does not depend on the order they came in. (nan, nan) for every
    entrant when there are no results. Not an interval of uncertainty: a measure of how much a
    sequential rating owes to the order of play."""
    if n_orders < 1:
        raise ValueError(f"n_orders must be >= 1, got {n_orders}")
    _index(results, entrants)
    if not results:
        return {name: (math.nan, math.nan) for name in entrants}
    if groups is not None and len(groups) != len(results):
        raise ValueError("groups needs one key per result")
    keys = list(range(len(results))) if groups is None else list(groups)
    members: dict[Hashable, list[GameResult]] = {}
    for key, result in zip(keys, results, strict=True):
        members.setdefault(key, []).append(result)
    blocks = sorted(canonical_results(b) for b in members.values())
    rng = np.random.default_rng(seed)
    values = np.empty((n_orders, len(entrants)))
    for b in range(n_orders):
        games = [g for i in rng.permutation(len(blocks)) for g in blocks[i]]
        rated = openskill_ratings(games, entrants)
        values[b] = [rated[name].mu for name in entrants]
    lo, hi = np.percentile(values, [2.5, 97.5], axis=0)
    return {name: (float(a), float(b)) for name, a, b in zip(entrants, lo, hi, strict=True)}


STRENGTH_DIGITS = 6  # Elo decimals that order the leaderboard (below: the fit's rounding)


def leaderboard(
    results: Sequence[GameResult],
    entrants: Sequence[str],
    n_boot: int = 200,
    seed: int = 0,
    groups: Sequence[Hashable] | None = None,
    prior_sd: float = PRIOR_SD_ELO,
) -> dict[str, Any]:
    """Everything above in one JSON-serialisable dict, entrants by Plackett-Luce strength.

    The order, the strengths, their intervals and the rank ranges come from ``plackett_luce``
    (fitted to all games at once; for 2 players Bradley-Terry), so they do not depend on the
    order of the results; entrants with equal strengths (identical records) are listed by name.
    Per entrant ("entrants", a list of dicts): name, games (N), rank_range [best, worst] (see
    ``rank_ranges``), strength and strength_ci95 (Elo, profile likelihood), wins (a win shared
    by k tied firsts counts 1/k), win_share with win_share_ci95 (Wilson), mean_rank (over all
    player counts together) with mean_rank_ci95 (the Wilson interval of (rank - 1) / (P - 1),
    a share in [0, 1] whose variance is at most p(1 - p), P the largest table the entrant sat
    at), and the sequential openskill figures mu, sigma, ordinal (in the given order of the
    results) with mu_order_range (``openskill_order_range`` over ``n_boot`` random orders, seeded
    with ``seed``, ``groups`` kept together). Also "games", "players" (player count as a string
    -> number of games), "pairwise" (as ``pairwise``, in leaderboard order, lists with None for
    nan), "strength_tests" (the Holm-adjusted p-values of equal strength behind the rank ranges,
    in leaderboard order, and their level), "prior_sd", "n_orders", "seed" and "model"
    (openskill's). Undefined figures (no games)
    are None; an entrant without games gets strength 0 with the prior's width.
    """
    idx = _index(results, entrants)
    tally = _Tally.of(results, idx, len(entrants))
    fit = plackett_luce(results, entrants, prior_sd=prior_sd)
    os_rating = openskill_ratings(results, entrants)
    spread = openskill_order_range(results, entrants, n_orders=n_boot, seed=seed, groups=groups)
    rows = [
        _leaderboard_row(name, idx[name], tally, fit, os_rating[name], spread[name])
        for name in entrants
    ]
    # strengths equal up to the fit's rounding (identical records fitted in another entrant
    # order differ in the last bits) are ties: listed by name
    rows.sort(key=lambda row: (-round(row["strength"], STRENGTH_DIGITS), row["name"]))
    order = [row["name"] for row in rows]
    pw = pairwise(results, order)
    at = [idx[name] for name in order]
    p_equal = fit.p_equal[np.ix_(at, at)]
    return {
        "entrants": rows,
        "games": len(results),
        "players": dict(sorted(tally.players.items())),
        "pairwise": {
            "entrants": order,
            **{
                key: [[_finite(v) for v in line] for line in pw[key]]
                for key in ("n", "score", "rate", "lo", "hi", "p_holm")
            },
        },
        "strength_tests": {
            "entrants": order,
            "p_equal": [[_finite(v) for v in line] for line in p_equal],
            "level": RANK_LEVEL,
        },
        "prior_sd": prior_sd,
        "n_orders": n_boot,
        "seed": seed,
        "model": "plackett_luce",
    }


@dataclass(frozen=True, eq=False)
class _Tally:
    """The leaderboard's per-entrant records (by entrant index): games played, the rank of each
    game, its (rank - 1) / (P - 1) share, its win share (1/k for k tied firsts), the largest table
    P sat at; and the number of games per player count (a string)."""

    games: np.ndarray
    rank_terms: list[list[float]]
    share_terms: list[list[float]]
    win_terms: list[list[float]]
    widest: np.ndarray
    players: dict[str, int]

    @classmethod
    def of(cls, results: Sequence[GameResult], idx: Mapping[str, int], k: int) -> _Tally:
        games = np.zeros(k, dtype=int)
        rank_terms: list[list[float]] = [[] for _ in range(k)]
        share_terms: list[list[float]] = [[] for _ in range(k)]
        win_terms: list[list[float]] = [[] for _ in range(k)]
        widest = np.zeros(k, dtype=int)
        players: dict[str, int] = {}
        for names, ranks in results:
            players[str(len(names))] = players.get(str(len(names)), 0) + 1
            best = min(ranks)
            n_best = sum(1 for r in ranks if r == best)
            for name, r in zip(names, ranks, strict=True):
                i = idx[name]
                games[i] += 1
                rank_terms[i].append(float(r))
                widest[i] = max(widest[i], len(names))
                win_terms[i].append(1.0 / n_best if r == best else 0.0)
        for i in range(k):
            # (rank - 1) / (P - 1) lies in [0, 1] at every table of at most P players
            share_terms[i] = [(r - 1.0) / (widest[i] - 1.0) for r in rank_terms[i]]
        return cls(games, rank_terms, share_terms, win_terms, widest, players)


def _leaderboard_row(
    name: str, i: int, tally: _Tally, fit: PlackettLuceFit, r: Rating, spread: Sequence[float]
) -> dict[str, Any]:
    """Entrant `name`'s (index `i`) row of the leaderboard: its records, its strength and rank
    range from `fit`, its openskill rating `r` and mu order range `spread`."""
    n = int(tally.games[i])
    wins = math.fsum(tally.win_terms[i])  # exactly rounded: the same whatever the order
    lo, hi = wilson_interval(wins, n)
    widest = tally.widest[i]
    if n:
        mean_rank = math.fsum(tally.rank_terms[i]) / n
        s_lo, s_hi = wilson_interval(math.fsum(tally.share_terms[i]), n)
        rank_ci = [1.0 + (widest - 1.0) * s_lo, 1.0 + (widest - 1.0) * s_hi]
        rank_ci = [min(rank_ci[0], mean_rank), max(rank_ci[1], mean_rank)]
    else:
        mean_rank, rank_ci = None, [None, None]
    s = fit.strengths[name]
    return {
        "name": name,
        "games": n,
        "rank_range": list(fit.rank_ranges[name]),
        "strength": s.elo,
        "strength_ci95": [s.lo, s.hi],
        "wins": wins,
        "win_share": wins / n if n else None,
        "win_share_ci95": [lo, hi],
        "mean_rank": mean_rank,
        "mean_rank_ci95": rank_ci,
        "mu": r.mu,
        "sigma": r.sigma,
        "ordinal": r.ordinal,
        "mu_order_range": [_finite(v) for v in spread],
    }


# ---------------------------------------------------------------------------- SPRT


def expected_score(elo: float) -> float:
    """Logistic Elo: expected score of a player ``elo`` points stronger, 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """Inverse of ``expected_score``; +-inf at a score of 1 or 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no "-0.0" at a score of 0.5


@dataclass(frozen=True)
class SprtResult:
    """Outcome of ``sprt``: decision is "H1" (elo >= elo1), "H0" (elo <= elo0) or None (go on)."""

    llr: float
    lower: float
    upper: float
    decision: str | None
    n: int
    mean: float
    elo: float
    elo_lo: float
    elo_hi: float
    elo0: float
    elo1: float
    alpha: float
    beta: float


def sprt(
    samples: Sequence[float],
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    min_samples: int = 8,
) -> SprtResult:
    """Generalized SPRT of H0: A is elo0 Elo stronger than B, against H1: elo1 (elo1 > elo0).

    ``samples`` are A's scores in [0, 1] in the order played: per game (1 win, 0.5 draw, 0 loss) or,
    preferably, per pair of games - the mean of the two seat rotations of one deal, fishtest's
    "pentanomial" scheme - since the pair cancels most of the luck of the seat and of the deal
    and so lowers the variance (a multi-player table gives A's pairwise score against B).
    Normal approximation as in fishtest: LLR = N (s1 - s0) (2 mean - s0 - s1) / (2 var), with
    s = expected_score(elo) and var the variance of the samples (1/N normalisation). If all
    samples are equal var is 0 and the LLR would be infinite; var is floored at 1e-4 (a standard
    deviation of 0.01 per sample), so such a run still ends fast - the approximation needs tens of
    samples to mean anything, so no decision is taken before `min_samples` samples (default 8:
    8 pairs, 16 games). With fewer than 2 samples the LLR is 0. Stop with "H1" when
    LLR >= ln((1 - beta) / alpha), "H0" when LLR <= ln(beta / (1 - alpha)). The Elo estimate and
    its 95% interval come from the mean and its standard error (+-inf at a mean of 0 or 1).
    """
    if not elo1 > elo0:
        raise ValueError(f"need elo1 > elo0, got {elo0}, {elo1}")
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must lie in (0, 1)")
    x = np.asarray(samples, dtype=float)
    if x.size and (x.min() < 0 or x.max() > 1):
        raise ValueError("samples must lie in [0, 1]")
    n = int(x.size)
    lower = math.log(beta / (1 - alpha))
    upper = math.log((1 - beta) / alpha)
    mean = float(x.mean()) if n else math.nan
    if n < 2:
        return SprtResult(
            0.0, lower, upper, None, n, mean, math.nan, math.nan, math.nan, elo0, elo1, alpha, beta
        )
    var = max(float(x.var()), SPRT_VAR_FLOOR)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    if n < min_samples:
        decision = None
    se = math.sqrt(var / n)
    return SprtResult(
        llr,
        lower,
        upper,
        decision,
        n,
        mean,
        score_to_elo(mean),
        score_to_elo(mean - Z95 * se),
        score_to_elo(mean + Z95 * se),
        elo0,
        elo1,
        alpha,
        beta,
    )


def sprt_text(result: SprtResult, name_a: str, name_b: str) -> str:
    """One sentence: which hypothesis the SPRT accepted (or that it goes on), with the evidence."""
    r = result
    where = (
        f"LLR {r.llr:.2f}, bounds {r.lower:.2f} and {r.upper:.2f}, after {r.n} samples; "
        f"Elo {r.elo:+.1f} [{r.elo_lo:+.1f}, {r.elo_hi:+.1f}]"
    )
    if r.decision == "H1":
        return (
            f"SPRT accepted H1: {name_a} is at least {r.elo1:g} Elo stronger than {name_b} "
            f"rather than {r.elo0:g} ({where})."
        )
    if r.decision == "H0":
        return (
            f"SPRT accepted H0: {name_a} is not {r.elo1:g} Elo stronger than {name_b}; "
            f"the data favour {r.elo0:g} ({where})."
        )
    return (
        f"SPRT undecided between {r.elo0:g} and {r.elo1:g} Elo for {name_a} vs {name_b} ({where})."
    )
