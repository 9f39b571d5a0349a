"""Paired comparison of a rules variant with the base rules on the same deals.

A variant study plays the same tournament (seed, line-ups, seat rotations) under two rules data, so
each variant game has a twin: the base game dealt from the same seed with the same agents in the
same seats (common random numbers). Most of the noise between two games is the deal and the
agents' dice, which the twins share, so the comparison is made per deal pair:

- every figure's per-pair difference (variant minus base): its mean, a Student-t 95% interval
  and the paired t-test, and a paired bootstrap percentile interval (pairs resampled, seeded);
  the family of figures gets Benjamini-Hochberg adjusted p-values and the matching
  false-coverage-rate adjusted intervals (stats.fcr_intervals), so an interval drawn as
  "significant" is the one that excludes 0;
- per seat, McNemar's exact test of the win flips (pairs the seat won under one rules data and
  not the other);
- the share of deal pairs whose play changed at all (different action sequences);
- for reference, the unpaired (Welch) interval of the same games, which ignores the pairing.

Games are paired by (deal seed, the agents by seat); games without a twin are counted and left
out. A variant whose rules data hash equals the base's is the same game and is never compared
(`check_variant`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy import stats as sps

from training.arena.ratings import wilson_interval
from training.balance import stats as bs
from training.balance.game_stats import GameStats, StatsError, score_sources, stats_modules
from training.balance.results import (
    ChangedPlay,
    FigureDifference,
    McNemar,
    PairedComparison,
    PairedDifference,
    SeatFlips,
)

N_BOOT = 2000


def check_variant(base_hash: str, variant_hash: str) -> None:
    """ValueError when the variant's rules data is the base's (nothing would be compared)."""
    if base_hash == variant_hash:
        raise ValueError(
            f"the variant's rules data hash {variant_hash} is the current rules' own: the file "
            "changes nothing, so there is no variant to compare"
        )


def match_pairs(base: GameStats, var: GameStats) -> tuple[np.ndarray, np.ndarray]:
    """(base rows, variant rows) of the games played on the same deal seed with the same agents in
    the same seats, in base order. StatsError for statistics that do not record deal seeds or for
    another game or player count."""
    if (base.game, base.players) != (var.game, var.players):
        raise StatsError(
            f"cannot pair {var.game} at {var.players} players with {base.game} at "
            f"{base.players} players"
        )
    if base.sources != var.sources:
        raise StatsError("the two sets of statistics credit points to different sources")
    if (base.deal_seeds < 0).any() or (var.deal_seeds < 0).any():
        raise StatsError("these statistics do not record deal seeds: rerun the study to pair them")

    def keys(st: GameStats) -> list[tuple]:
        return [
            (int(s), tuple(st.labels.get(int(e), str(int(e))) for e in seats))
            for s, seats in zip(st.deal_seeds, st.seats, strict=True)
        ]

    where = {}
    for j, k in enumerate(keys(var)):
        where.setdefault(k, j)
    ib, iv = [], []
    for i, k in enumerate(keys(base)):
        j = where.pop(k, None)
        if j is not None:
            ib.append(i)
            iv.append(j)
    return np.asarray(ib, dtype=np.int64), np.asarray(iv, dtype=np.int64)


def paired_ci(d: np.ndarray, n_boot: int = N_BOOT, seed: int = 0) -> PairedDifference:
    """Mean of the paired differences `d` with a Student-t 95% interval, the paired t-test's
    two-sided p, a percentile bootstrap 95% interval (pairs resampled `n_boot` times from a
    generator seeded with `seed`), its standard error and degrees of freedom; nan pairs are
    left out. Every difference equal: the interval is that value and p is 1 (all zero) or 0."""
    d = np.asarray(d, dtype=np.float64)
    d = d[~np.isnan(d)]
    n = int(d.size)
    if n < 2:
        return PairedDifference(None, None, None, None, None, None, None, None, n)
    m = float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(n)
    if se == 0.0:
        return PairedDifference(m, m, m, 1.0 if m == 0.0 else 0.0, se, n - 1, m, m, n)
    t = float(sps.t.ppf(0.975, n - 1))
    p = float(2.0 * sps.t.sf(abs(m) / se, n - 1))
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    chunk = max(1, 2_000_000 // n)  # resampled rows held at once
    for k in range(0, n_boot, chunk):
        b = min(chunk, n_boot - k)
        means[k : k + b] = d[rng.integers(0, n, size=(b, n))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return PairedDifference(m, m - t * se, m + t * se, p, se, n - 1, float(lo), float(hi), n)


def mcnemar(base_won: np.ndarray, var_won: np.ndarray) -> McNemar:
    """McNemar's exact test on paired wins: b pairs won only under the base rules, c only under
    the variant; p is the two-sided binomial test of b against b + c at 1/2 (1 when no pair
    flipped)."""
    bw = np.asarray(base_won, dtype=bool)
    vw = np.asarray(var_won, dtype=bool)
    b = int((bw & ~vw).sum())
    c = int((vw & ~bw).sum())
    p = 1.0 if b + c == 0 else float(sps.binomtest(b, b + c, 0.5).pvalue)
    return McNemar(b, c, p, int(bw.size))


def _figures(st: GameStats, rows: np.ndarray) -> list[tuple[str, str, np.ndarray]]:
    """(figure, unit, values per game of `rows`) for the headline figures; points by source are
    per player (games x seats, in game-major order)."""
    out = []
    for p in range(st.players):
        out.append((f"win share, seat {p}", "win share", st.win_shares[rows, p]))
    for p in range(st.players):
        out.append((f"score, seat {p}", "points", st.scores[rows, p]))
    out.append(("winner's margin", "points", st.margin[rows]))
    out.append(("rounds", "rounds", st.rounds[rows]))
    out.append(("lead changes", "lead changes", st.lead_changes[rows]))
    out.append(("decided at (share of rounds)", "share of rounds", st.decided_at[rows]))
    for k, name in enumerate(st.sources):
        out.append((f"points from {name} (per player)", "points", st.points[rows, :, k].ravel()))
    return out


def figure_names(game_name: str, players: int) -> list[str]:
    """The names of the figures a paired comparison reports for this game and player count."""
    sources, _ = score_sources(stats_modules(game_name)[0])
    names = [f"win share, seat {p}" for p in range(players)]
    names += [f"score, seat {p}" for p in range(players)]
    names += ["winner's margin", "rounds", "lead changes", "decided at (share of rounds)"]
    return names + [f"points from {s} (per player)" for s in sources]


def paired_differences(base: GameStats, var: GameStats, seed: int = 0) -> PairedComparison:
    """The paired comparison (module docstring): the deal pairs, the games without a twin, the
    pairs whose play changed (Wilson 95%), McNemar's test per seat and a row per figure."""
    ib, iv = match_pairs(base, var)
    n = int(ib.size)
    if n < 2:
        raise StatsError(
            f"only {n} game(s) of the variant have a twin among the base games (same deal seed "
            "and seating): play both under the same tournament seed and line-ups"
        )
    changed = int((base.play_digests[ib] != var.play_digests[iv]).sum())
    lo, hi = wilson_interval(float(changed), n)
    rows = [
        _figure_row(name, unit, a, b, seed)
        for (name, unit, a), (_, _, b) in zip(_figures(base, ib), _figures(var, iv), strict=True)
    ]
    p_bh = bs.bh([r.p for r in rows])
    est, se, df = [r.diff for r in rows], [r.se for r in rows], [r.df for r in rows]
    bounds = bs.fcr_bounds(est, se, df, [r.p for r in rows], p_bh)
    rows = [
        replace(r, p_bh=v, adj_lo=a_lo, adj_hi=a_hi)
        for r, v, (a_lo, a_hi) in zip(rows, p_bh, bounds, strict=True)
    ]
    tests = [
        mcnemar(base.win_shares[ib, p] == 1.0, var.win_shares[iv, p] == 1.0)
        for p in range(base.players)
    ]
    flips = [
        SeatFlips(p, m.base_only, m.variant_only, m.p, m.n_pairs, v)
        for p, (m, v) in enumerate(zip(tests, bs.bh([m.p for m in tests]), strict=True))
    ]
    return PairedComparison(
        pairs=n,
        unpaired_base=len(base) - n,
        unpaired_variant=len(var) - n,
        changed=ChangedPlay(changed, changed / n, lo, hi),
        mcnemar=flips,
        rows=rows,
    )


def _figure_row(name: str, unit: str, a: np.ndarray, b: np.ndarray, seed: int) -> FigureDifference:
    """One figure's row: base values `a` and variant values `b` of the paired games, before the
    adjustment over the figures."""
    d = paired_ci(b.astype(np.float64) - a.astype(np.float64), seed=seed)
    w = bs.diff_ci(b, a)
    return FigureDifference(
        figure=name,
        unit=unit,
        base=_mean(a),
        variant=_mean(b),
        diff=d.diff,
        lo=d.lo,
        hi=d.hi,
        p=d.p,
        se=d.se,
        df=d.df,
        boot_lo=d.boot_lo,
        boot_hi=d.boot_hi,
        n_pairs=d.n_pairs,
        welch_lo=w.lo,
        welch_hi=w.hi,
        welch_p=w.p,
    )


def _mean(x: np.ndarray) -> float | None:
    x = np.asarray(x, dtype=np.float64)
    x = x[~np.isnan(x)]
    return float(x.mean()) if x.size else None
