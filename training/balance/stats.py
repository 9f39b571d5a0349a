"""The statistics of a balance study (training.balance), on GameStats arrays; no plotting, no I/O.

Conventions (docs/balance.md): every rate or mean comes with a 95% interval and its sample size;
a family of comparisons (items x seats, variant differences) gets Benjamini-Hochberg adjusted
p-values (`p_bh`); a win shared by k tied winners counts 1/k (store win shares).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy import stats as sps

from training.arena.ratings import wilson_interval
from training.balance.game_stats import GameStats
from training.balance.results import (
    ActionFrequency,
    Difference,
    Estimate,
    GameShape,
    ItemLift,
    ResourceFlow,
    SeatAdvantage,
    SeatRow,
    SourceShare,
)

Z95 = 1.959963984540054


def mean_ci(x: np.ndarray) -> Estimate:
    """Mean with its 95% interval and n (None interval when n < 2); nan values are left out.

    A sample of one sign (every value >= 0: counts, points of a source that only adds, shares;
    or every value <= 0, mirrored) gets the gamma interval of M. P. Fay and E. J. Feuer
    (Statistics in Medicine 1997) with the sample's variance of the mean: the bounds are
    quantiles of gamma distributions with the mean and variance of the estimate, the upper one
    as if one more observation of the smallest nonzero size u had been seen (u = 1 when every
    value is 0). It never crosses 0, has positive width when every value is 0 (then [0, 3.69 u /
    n], the exact Poisson bound of no events), is the exact Poisson interval for one rare event,
    and tends to the normal interval when the mean is many standard errors from 0. A sample with
    both signs gets the normal interval mean +- 1.96 s / sqrt(n).
    """
    x = np.asarray(x, dtype=np.float64)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        return Estimate(None, None, None, 0)
    m = float(x.mean())
    if n < 2:
        return Estimate(m, None, None, n)
    if x.min() >= 0.0 or x.max() <= 0.0:
        sign = 1.0 if x.min() >= 0.0 else -1.0
        lo, hi = _gamma_interval(sign * x)
        lo, hi = (lo, hi) if sign > 0 else (-hi, -lo)
        return Estimate(m, min(lo, m), max(hi, m), n)
    h = Z95 * float(x.std(ddof=1)) / math.sqrt(n)
    return Estimate(m, m - h, m + h, n)


def share_ci(x: np.ndarray) -> Estimate:
    """mean_ci of a share (every value in [0, 1]; nan values are left out), bounded on both sides:
    a mean above 1/2 gets the interval of 1 - x mirrored, so a sample of all 1s has positive
    width below 1 as a sample of all 0s has above 0, and the bounds are clipped to [0, 1]."""
    x = np.asarray(x, dtype=np.float64)
    x = x[~np.isnan(x)]
    if x.size == 0 or float(x.mean()) <= 0.5:
        r = mean_ci(x)
    else:
        m = mean_ci(1.0 - x)
        lo, hi = (None, None) if m.lo is None else (1.0 - m.hi, 1.0 - m.lo)
        r = Estimate(float(x.mean()), lo, hi, m.n)
    if r.lo is None:
        return r
    return Estimate(r.mean, max(r.lo, 0.0), min(r.hi, 1.0), r.n)


def _gamma_interval(x: np.ndarray) -> tuple[float, float]:
    """Fay-Feuer gamma 95% interval of the mean of x >= 0 (n >= 2), the sample variance in place
    of the Poisson variance (see mean_ci)."""
    n = x.size
    m = float(x.mean())
    v = float(x.var(ddof=1)) / n  # variance of the mean
    positive = x[x > 0.0]
    u = float(positive.min()) if positive.size else 1.0
    if m == 0.0:
        lo = 0.0
    elif v == 0.0:
        lo = m  # every value equal: no spread seen
    else:
        lo = float(sps.gamma.ppf(0.025, m * m / v, scale=v / m))
    m1, v1 = m + u / n, v + (u / n) ** 2
    hi = float(sps.gamma.ppf(0.975, m1 * m1 / v1, scale=v1 / m1))
    return lo, hi


def diff_ci(a: np.ndarray, b: np.ndarray) -> Difference:
    """mean(a) - mean(b) with a Welch normal 95% interval and a two-sided p-value (independent
    samples); None figures when a side has fewer than 2 values or no spread."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]  # undefined values (a shared win's "decided at")
    n_a, n_b = int(a.size), int(b.size)
    if a.size < 2 or b.size < 2:
        return Difference(None, None, None, None, None, n_a, n_b)
    d = float(a.mean() - b.mean())
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    if se == 0.0:
        return Difference(d, d, d, 1.0 if d == 0.0 else 0.0, se, n_a, n_b)
    p = float(2.0 * sps.norm.sf(abs(d) / se))
    return Difference(d, d - Z95 * se, d + Z95 * se, p, se, n_a, n_b)


def bh(p: list[float | None]) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values (None or nan entries are no test and stay None)."""
    idx = [i for i, v in enumerate(p) if v is not None and not math.isnan(v)]
    out: list[float | None] = [None] * len(p)
    if idx:
        adj = sps.false_discovery_control(np.array([p[i] for i in idx], dtype=np.float64))
        for i, v in zip(idx, adj, strict=True):
            out[i] = float(v)
    return out


def fcr_bounds(
    est: list, se: list, df: list, p: list, p_bh: list, q: float = 0.05
) -> list[tuple[float | None, float | None]]:
    """The false-coverage-rate adjusted interval (lo, hi) that goes with each row's
    Benjamini-Hochberg adjusted p (`p_bh`): after BH at level q selects R of the m tested rows,
    every interval is built at level 1 - max(R, 1) q / m (Y. Benjamini and D. Yekutieli, JASA
    2005), so an adjusted interval excludes 0 exactly when its row's p_bh <= q. A row is its
    estimate, standard error, degrees of freedom (None: a normal interval), p and p_bh, one list
    each; an untested row (p or se None) gets (None, None)."""
    tested = [i for i in range(len(est)) if p[i] is not None and se[i] is not None]
    selected = sum(1 for i in tested if p_bh[i] is not None and p_bh[i] <= q)
    alpha = max(selected, 1) * q / max(len(tested), 1)
    out: list[tuple[float | None, float | None]] = [(None, None)] * len(est)
    for i in tested:
        crit = sps.norm.isf(alpha / 2) if df[i] is None else sps.t.isf(alpha / 2, df[i])
        out[i] = (est[i] - crit * se[i], est[i] + crit * se[i])
    return out


def fcr_intervals(rows: list[dict], key: str, q: float = 0.05) -> list[dict]:
    """fcr_bounds for rows that are dicts (a sweep's rows: a column per swept key): adds
    `adj_lo`, `adj_hi` to each row from rows[key], "se", "df" (absent: a normal interval), "p"
    and "p_bh"."""
    bounds = fcr_bounds(
        [r.get(key) for r in rows],
        [r.get("se") for r in rows],
        [r.get("df") for r in rows],
        [r.get("p") for r in rows],
        [r.get("p_bh") for r in rows],
        q,
    )
    for r, (lo, hi) in zip(rows, bounds, strict=True):
        r["adj_lo"], r["adj_hi"] = lo, hi
    return rows


def seat_advantage(win_shares: np.ndarray, scores: np.ndarray | None = None) -> SeatAdvantage:
    """Win share (Wilson 95%) and mean score (95%) per seat, and the chi-square test of "every
    seat wins equally often" (the winning seat of each game as one multinomial draw; a shared
    win counts 1/k to each tied seat). `win_shares` (G, P)."""
    ws = np.asarray(win_shares, dtype=np.float64)
    g, n = ws.shape
    wins = ws.sum(axis=0)
    seats = []
    for p in range(n):
        lo, hi = wilson_interval(float(wins[p]), g)
        row = SeatRow(p, g, float(wins[p]), wins[p] / g, lo, hi)
        if scores is not None:
            m = mean_ci(np.asarray(scores)[:, p])
            row = SeatRow(p, g, float(wins[p]), wins[p] / g, lo, hi, m.mean, m.lo, m.hi)
        seats.append(row)
    total = wins.sum()
    if g == 0 or total == 0:
        chi2, pv = None, None
    else:
        res = sps.chisquare(wins, np.full(n, total / n))
        chi2, pv = float(res.statistic), float(res.pvalue)
    return SeatAdvantage(g, seats, chi2, n - 1, pv)


def source_shares(st: GameStats) -> list[SourceShare]:
    """Per score source: mean points per player for winners and for the rest (95%), and each
    side's share of its total points. Winners: seats with the full win (ties excluded)."""
    win = st.win_shares == 1.0
    rest = st.win_shares == 0.0
    pw, pr = st.points[win], st.points[rest]  # (k, S)
    tw, tr = pw.sum(), pr.sum()
    rows = []
    for k, name in enumerate(st.sources):
        a, b = mean_ci(pw[:, k]), mean_ci(pr[:, k])
        rows.append(
            SourceShare(
                source=name,
                winners_mean=a.mean,
                winners_lo=a.lo,
                winners_hi=a.hi,
                winners_share=float(pw[:, k].sum() / tw) if tw else None,
                rest_mean=b.mean,
                rest_lo=b.lo,
                rest_hi=b.hi,
                rest_share=float(pr[:, k].sum() / tr) if tr else None,
                n_winners=a.n,
                n_rest=b.n,
            )
        )
    return rows


def item_lifts(st: GameStats, min_n: int = 10) -> list[ItemLift]:
    """Per item (customer tile, card, character): the lift of the win share
    - "taken": seats that took it minus seats of games where it was in play that did not;
    - "in play, seat p": seat p's win share in games with it in play minus games without;
    each with its Welch 95% interval, p-value and the Benjamini-Hochberg adjusted p over every
    comparison made here. A comparison with fewer than `min_n` observations on a side is not
    tested (its p is None)."""
    rows = []
    for i, name in enumerate(st.items):
        inp = st.in_play[:, i]
        tk = st.taken[:, :, i]
        in_rows = inp[:, None] & np.ones_like(tk)
        a = st.win_shares[tk]
        b = st.win_shares[in_rows & ~tk]
        rows.append(_lift_row(name, "taken", a, b, min_n, int(inp.sum())))
        for p in range(st.players):
            a = st.win_shares[inp, p]
            b = st.win_shares[~inp, p]
            rows.append(_lift_row(name, f"in play, seat {p}", a, b, min_n, int(inp.sum())))
    p_bh = bh([r.p for r in rows])
    bounds = fcr_bounds(
        [r.lift for r in rows], [r.se for r in rows], [None] * len(rows), [r.p for r in rows], p_bh
    )
    return [
        replace(r, p_bh=v, adj_lo=lo, adj_hi=hi)
        for r, v, (lo, hi) in zip(rows, p_bh, bounds, strict=True)
    ]


def _lift_row(name, what, a, b, min_n, games_in_play) -> ItemLift:
    """One comparison of item_lifts: takers (or seat p with it in play) `a` against `b`, tested
    when each side has at least `min_n` observations."""
    tested = min(a.size, b.size) >= min_n
    d = diff_ci(a, b) if tested else None
    return ItemLift(
        item=name,
        comparison=what,
        games_in_play=games_in_play,
        rate_with=float(a.mean()) if a.size else None,
        rate_without=float(b.mean()) if b.size else None,
        lift=d.diff if d else None,
        lo=d.lo if d else None,
        hi=d.hi if d else None,
        p=d.p if d else None,
        se=d.se if d else None,
        n_with=int(a.size),
        n_without=int(b.size),
    )


def game_shape(st: GameStats) -> GameShape:
    """Rounds, decisions, winner's margin, lead changes, decisiveness and the game-quality
    metrics after Ludii (branching factor, decision moves, lead changes per round transition,
    drama: mean and max): mean and 95% each (share_ci for the shares), over the games where a
    figure is defined."""
    return GameShape(
        rounds=mean_ci(st.rounds),
        decisions=mean_ci(st.decisions),
        margin=mean_ci(st.margin),
        lead_changes=mean_ci(st.lead_changes),
        lead_changes_per_round=share_ci(st.lead_change_rate),
        decided_at=share_ci(st.decided_at),
        branching_factor=mean_ci(st.branching),
        decision_moves=share_ci(st.decision_moves),
        drama=mean_ci(st.drama),
        drama_max=mean_ci(st.drama_max),
        truncated=int(st.truncated.sum()),
        games=len(st),
    )


def action_frequencies(st: GameStats) -> list[ActionFrequency]:
    """Mean decisions per player per game by action kind (95%), and the kind's share."""
    per = st.actions.reshape(-1, len(st.action_kinds))
    total = per.sum()
    rows = []
    for k, name in enumerate(st.action_kinds):
        m = mean_ci(per[:, k])
        share = float(per[:, k].sum() / total) if total else None
        rows.append(ActionFrequency(name, m.mean, m.lo, m.hi, share))
    return rows


def resource_flows(st: GameStats) -> list[ResourceFlow]:
    """Mean gained and spent per player per game by resource kind (95%)."""
    r = len(st.resources)
    g = st.gained.reshape(len(st) * st.players, r)  # (games x seats, resources), r may be 0
    s = st.spent.reshape(len(st) * st.players, r)
    rows = []
    for k, name in enumerate(st.resources):
        a, b = mean_ci(g[:, k]), mean_ci(s[:, k])
        rows.append(ResourceFlow(name, a.mean, a.lo, a.hi, b.mean, b.lo, b.hi))
    return rows
