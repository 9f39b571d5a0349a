"""Monte Carlo checks of the planning formulas of training.balance.sizing, used only by the
tests: the rejection rate of the seat and paired tests over synthetic studies with a planted edge,
and synthetic sequential studies under SequentialSeatTest's rule beside naive repeated Wilson
looks. Each rate comes with its Wilson 95% interval over the studies; everything is seeded."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps

from training.arena.ratings import wilson_interval
from training.balance import sizing as sz
from training.balance.paired import mcnemar


def simulate_power(
    n: int,
    edge: float,
    players: int,
    alpha: float = 0.05,
    studies: int = 4000,
    seed: int = 0,
    test: str = "seat",
) -> dict:
    """The rejection rate over `studies` synthetic studies of n independent games in which seat 0
    wins with probability 1/P + edge and the other seats share the rest equally: "seat" counts
    the score test (the Wilson interval excluding 1/P), "chi2" the chi-square test of equal
    shares. The rate comes with its Wilson 95% interval over the studies; seeded."""
    p0, p1 = sz._seat_shares(edge, players)
    sz._check_level(alpha)
    rng = np.random.default_rng(seed)
    shares = np.full(players, (1 - p1) / (players - 1))
    shares[0] = p1
    counts = rng.multinomial(n, shares, size=studies)  # (studies, P) wins per seat
    if test == "seat":
        hits = sz.seat_test_rejects(counts[:, 0], n, players, alpha)
    elif test == "chi2":
        chi2 = ((counts - n * p0) ** 2 / (n * p0)).sum(axis=1)
        hits = sps.chi2.sf(chi2, players - 1) < alpha
    else:
        raise ValueError(f"test must be 'seat' or 'chi2', got {test!r}")
    return _rate(int(hits.sum()), studies, games=n)


def _rate(k: int, n: int, **extra) -> dict:
    lo, hi = wilson_interval(float(k), n)
    return {"count": k, "studies": n, "rate": k / n, "lo": lo, "hi": hi, **extra}


def simulate_paired_power(
    pairs: int,
    edge: float,
    flips: float,
    alpha: float = 0.05,
    studies: int = 4000,
    seed: int = 0,
    exact: bool = False,
) -> dict:
    """Rejection rate of McNemar's test over synthetic paired studies of `pairs` deal pairs: each
    pair flips with probability `flips`, a flip goes to the variant with probability
    (1 + edge / flips) / 2. exact=False: |c - b| > z sqrt(b + c); exact=True: the study's exact
    test (training.balance.paired.mcnemar). With its Wilson 95% interval; seeded."""
    pi = sz._paired_check(edge, flips, alpha)
    rng = np.random.default_rng(seed)
    # per study: (pairs alike, flips to the base only, flips to the variant only)
    k = rng.multinomial(pairs, [1 - flips, flips * (1 - pi), flips * pi], size=studies)
    b, c = k[:, 1], k[:, 2]
    if exact:
        p = {}  # the study's own test, once per distinct (b, c)
        for bc in set(zip(b.tolist(), c.tolist(), strict=True)):
            base = np.r_[np.ones(bc[0], bool), np.zeros(bc[1], bool)]
            p[bc] = mcnemar(base, ~base).p
        hits = np.array([p[bc] <= alpha for bc in zip(b.tolist(), c.tolist(), strict=True)])
    else:
        z = sps.norm.isf(alpha / 2)
        hits = np.abs(c - b) > z * np.sqrt(b + c)
    return _rate(int(hits.sum()), studies, pairs=pairs)


def synthetic_deals(shares, deals: int, studies: int, seed: int = 0) -> np.ndarray:
    """Win shares of synthetic studies, (studies, deals, P, P): deal d's P games (one per seat
    rotation), each won independently by seat s with probability shares[s]; seeded. The games
    of a study in schedule order are `.reshape(studies, deals * P, P)`."""
    sh = np.asarray(shares, dtype=np.float64)
    if sh.ndim != 1 or sh.size < 2 or np.any(sh < 0) or not math.isclose(sh.sum(), 1.0):
        raise ValueError("shares must be one probability per seat, adding up to 1")
    p = sh.size
    rng = np.random.default_rng(seed)
    winner = rng.choice(p, size=(studies, deals, p), p=sh)
    return (winner[..., None] == np.arange(p)).astype(np.float64)


def simulate_sequential(
    shares,
    batch: int,
    max_games: int,
    tolerance: float,
    alpha: float = 0.05,
    studies: int = 1000,
    seed: int = 0,
    seat: int | None = None,
) -> dict:
    """Run `studies` synthetic sequential studies (synthetic_deals with `shares`) with looks after
    every `batch` games up to `max_games`, with the rule of SequentialSeatTest, and the naive rule
    for comparison: stop at the first look where a tested seat's fixed-n Wilson interval of
    the games so far excludes 1/P. Returns the rates of each decision (with Wilson 95% intervals
    over the studies), the mean games at the stop (with a 95% interval), the naive rule's
    rate of "edge", and per study the decision codes (sizing.DECISIONS) and games at the stop."""
    sh = np.asarray(shares, dtype=np.float64)
    p = sh.size
    if batch <= 0 or batch % p or max_games < batch or max_games % p:
        raise ValueError(
            f"batch must be a positive multiple of P = {p} and max_games a multiple of P no "
            f"smaller than batch; got batch {batch}, max_games {max_games}"
        )
    test = sz.SequentialSeatTest(p, tolerance, alpha, seat)  # the same checks and seats
    tested = test.tested
    looks = np.unique(np.r_[np.arange(batch, max_games, batch), max_games])  # games per look
    ws = synthetic_deals(sh, max_games // p, studies, seed)  # (S, D, P, P)
    x = ws.mean(axis=2)[..., tested].transpose(0, 2, 1)  # (S, seats, D): per-deal means
    a = sz._seat_alpha(alpha, len(tested))
    p0 = 1.0 / p
    bets = sz.plugin_bets(x, a)
    thr = sz._threshold(a)
    up, down = sz.log_capitals(x, bets, p0)
    at = looks // p - 1  # the last deal of each look
    excl0 = ((up >= thr) | (down >= thr))[..., at]  # (S, seats, L)
    band = sz._band_rejected(x, bets, p0, tolerance, thr)[..., at]
    code = sz._decide(np.moveaxis(excl0, 1, -1), np.moveaxis(band, 1, -1))  # (S, L)
    stopped = code > 0
    first = np.where(stopped.any(axis=1), stopped.argmax(axis=1), looks.size - 1)
    decision = np.where(stopped.any(axis=1), code[np.arange(studies), first], 3)
    stop_games = looks[first]
    # the naive rule: Wilson 95% (the study's figure) of the pooled games at every look
    wins = np.cumsum(ws.reshape(studies, -1, p), axis=1)[:, looks - 1][..., tested]
    naive = sz.seat_test_rejects(wins, looks[None, :, None], p, alpha).any(axis=(1, 2))
    out = {"studies": studies, "looks": looks.tolist(), "max_games": max_games}
    for k, name in enumerate(sz.DECISIONS[1:], start=1):
        out[name] = _rate(int((decision == k).sum()), studies)
    out["naive_edge"] = _rate(int(naive.sum()), studies)
    m = float(stop_games.mean())
    h = 1.959963984540054 * float(stop_games.std(ddof=1)) / math.sqrt(studies)
    out["mean_games"] = {"mean": m, "lo": m - h, "hi": m + h, "n": studies}
    out["decision"] = decision
    out["stop_games"] = stop_games
    return out
