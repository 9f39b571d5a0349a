"""How decisive games are, what each item and scoring source is worth, how diverse the play is.

The three measures Tomasev, Paquet, Hassabis & Kramnik (2020, "Assessing game balance with
AlphaZero: exploring alternative rule sets in chess") compared across rule sets, read for games
without draws and with more than two players:

- decisiveness: the share of games with a shared win (a tie on every tie-break), the winner's
  margin, and the share of games already decided (the final winner leading alone to the end) by a
  quarter, half, three quarters and nine tenths of their rounds;
- values as fitted quantities: a linear probability model of a player's win share on what the
  player took (each item: customer tile, Activity card, character...) and, separately, on the
  points they scored from each source, both with seat effects; each coefficient with a
  cluster-robust 95% interval (games are the clusters: the players of one game are not
  independent) and Benjamini-Hochberg adjusted p over its table. An item's value reads "taking it
  goes with this much more win share, other items and the seat held fixed"; a source's, "one more
  point from it goes with this much more win share". Associations, not causes: a strong player
  takes what wins and what it takes is credited;
- diversity: the entropy in bits of each seat's first decision (the opening) and of the mix of
  decisions by action kind, with the number of distinct openings; plug-in estimates (biased low
  for few games) with percentile bootstrap 95% intervals over games.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy import stats as sps

from training.arena.ratings import wilson_interval
from training.balance import stats as bs
from training.balance.game_stats import GameStats
from training.balance.markdown import interval, num, pval, table
from training.balance.results import (
    ActionKindEntropy,
    DecidedBy,
    Decisiveness,
    Diversity,
    FittedValue,
    LinearFit,
    MeasureRow,
    Measures,
    OpeningEntropy,
    Proportion,
)

DECIDED_BY = (0.25, 0.5, 0.75, 0.9)  # shares of a game's rounds
MIN_TAKEN = 10  # an item taken (or not) fewer times than this is not fitted
N_BOOT = 1000


def proportion(hits: np.ndarray) -> Proportion:
    """Share of True among the non-nan values with its Wilson 95% interval and n."""
    x = np.asarray(hits, dtype=np.float64)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        return Proportion(None, None, None, 0)
    k = float(x.sum())
    lo, hi = wilson_interval(k, n)
    return Proportion(k / n, lo, hi, n)


def decisiveness(st: GameStats) -> Decisiveness:
    """Shared wins, the winner's margin and the share of games decided by each DECIDED_BY share
    of their rounds (games with a shared win left out of the last)."""
    shared = st.win_shares.max(axis=1) < 1.0
    dec = st.decided_at
    decided_by = []
    for q in DECIDED_BY:
        r = proportion(np.where(np.isnan(dec), np.nan, dec <= q))
        decided_by.append(DecidedBy(q, r.share, r.lo, r.hi, r.n))
    return Decisiveness(proportion(shared), bs.mean_ci(st.margin), decided_by)


def linear_fit(y: np.ndarray, x: np.ndarray, groups: np.ndarray) -> LinearFit:
    """Least squares of y on x (x holds its own intercept column) with the CR1 cluster-robust
    covariance over `groups`: coefficients, standard errors, two-sided p from Student's t with
    (clusters - 1) degrees of freedom, and 95% intervals. Columns must be linearly independent."""
    n, k = x.shape
    bread = np.linalg.inv(x.T @ x)
    beta = bread @ (x.T @ y)
    resid = y - x @ beta
    scores = x * resid[:, None]
    _, inv = np.unique(groups, return_inverse=True)
    g = int(inv.max()) + 1
    per = np.zeros((g, k))
    np.add.at(per, inv, scores)
    meat = per.T @ per
    c = (g / (g - 1)) * ((n - 1) / (n - k)) if g > 1 and n > k else float("nan")
    cov = c * bread @ meat @ bread
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    df = max(g - 1, 1)
    tq = float(sps.t.ppf(0.975, df))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, beta / se, np.nan)
    p = np.where(np.isnan(t), np.nan, 2.0 * sps.t.sf(np.abs(t), df))
    return LinearFit(beta, se, beta - tq * se, beta + tq * se, p, df)


def _player_rows(st: GameStats) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(win share per player row, the seat columns but seat 0, the game of each row): rows are
    games x seats in game-major order."""
    g, p = st.win_shares.shape
    y = st.win_shares.reshape(-1).astype(np.float64)
    seat = np.tile(np.arange(p), g)
    seats = (seat[:, None] == np.arange(1, p)[None, :]).astype(np.float64)
    return y, seats, np.repeat(np.arange(g), p)


def _fitted(st: GameStats, names: list[str], cols: np.ndarray, unit: str) -> list[FittedValue]:
    """Rows of one fit: win share on an intercept, the seats and `cols` (one per name)."""
    if not names:
        return []
    y, seats, groups = _player_rows(st)
    x = np.column_stack([np.ones(y.size), seats, cols])
    if np.linalg.matrix_rank(x) < x.shape[1] or len(st) < 3:
        return [FittedValue(n, unit, None, None, None, None) for n in names]
    fit = linear_fit(y, x, groups)
    off = 1 + seats.shape[1]
    cols = range(off, off + len(names))
    p = [None if np.isnan(fit.p[c]) else float(fit.p[c]) for c in cols]
    return [
        FittedValue(
            name=name,
            unit=unit,
            value=float(fit.beta[c]),
            lo=float(fit.lo[c]),
            hi=float(fit.hi[c]),
            p=pc,
            se=float(fit.se[c]),
            players=int(y.size),
            games=len(st),
            p_bh=v,
        )
        for name, c, pc, v in zip(names, cols, p, bs.bh(p), strict=True)
    ]


def item_values(st: GameStats, min_taken: int = MIN_TAKEN) -> list[FittedValue]:
    """The fitted win-share value of taking each item (items taken, and not taken, by at least
    `min_taken` players; the rest are not fitted: too few to tell), seats held fixed."""
    if not st.items:
        return []
    taken = st.taken.reshape(-1, len(st.items)).astype(np.float64)
    n_taken = taken.sum(axis=0)
    keep = [
        i for i in range(len(st.items)) if min_taken <= n_taken[i] <= taken.shape[0] - min_taken
    ]
    rows = _fitted(st, [st.items[i] for i in keep], taken[:, keep], "win share per item taken")
    return [replace(r, taken_by=int(n_taken[i])) for r, i in zip(rows, keep, strict=True)]


def source_values(st: GameStats) -> list[FittedValue]:
    """The fitted win-share value of one point from each source that scored in these games (one
    source, a game without sources, is its score), seats held fixed."""
    pts = st.points.reshape(-1, len(st.sources)).astype(np.float64)
    keep = [k for k in range(len(st.sources)) if pts[:, k].std() > 0]
    return _fitted(st, [st.sources[k] for k in keep], pts[:, keep], "win share per point")


def entropy_bits(counts: np.ndarray) -> float:
    """Shannon entropy in bits of the distribution the counts give (0 for no counts)."""
    c = np.asarray(counts, dtype=np.float64)
    total = c.sum()
    if total <= 0:
        return 0.0
    q = c[c > 0] / total
    return max(0.0, float(-(q * np.log2(q)).sum()))  # one outcome: 0, not -0


def _boot(values: np.ndarray, stat, n_boot: int, seed: int) -> tuple[float | None, float | None]:
    """Percentile bootstrap 95% interval of stat(rows) over games resampled with replacement."""
    g = values.shape[0]
    if g < 2:
        return None, None
    rng = np.random.default_rng(seed)
    draws = np.array([stat(values[rng.integers(0, g, g)]) for _ in range(n_boot)])
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return float(lo), float(hi)


def _opening_entropy(first: np.ndarray) -> float:
    ok = first[first >= 0]
    return entropy_bits(np.unique(ok, return_counts=True)[1]) if ok.size else 0.0


def diversity(st: GameStats, n_boot: int = N_BOOT, seed: int = 0) -> Diversity:
    """Entropy (bits) of each seat's opening and of the decisions by action kind, with bootstrap
    intervals over games; distinct openings per seat."""
    openings = []
    for p in range(st.players):
        first = st.first_actions[:, p]
        lo, hi = _boot(first, _opening_entropy, n_boot, seed + p)
        distinct = int(np.unique(first[first >= 0]).size)
        games = int((first >= 0).sum())
        openings.append(OpeningEntropy(p, _opening_entropy(first), lo, hi, distinct, games))
    per_game = st.actions.sum(axis=1)  # (G, K) decisions by kind

    def kinds(rows: np.ndarray) -> float:
        return entropy_bits(rows.sum(axis=0))

    lo, hi = _boot(per_game, kinds, n_boot, seed + st.players)
    max_bits = math.log2(len(st.action_kinds)) if st.action_kinds else 0.0
    ak = ActionKindEntropy(kinds(per_game), lo, hi, len(st.action_kinds), max_bits, len(st))
    return Diversity(openings, ak)


def measures(st: GameStats, seed: int = 0) -> Measures:
    """Every measure of this module for one set of games."""
    return Measures(decisiveness(st), item_values(st), source_values(st), diversity(st, seed=seed))


def summary(st: GameStats, seed: int = 0) -> list[MeasureRow]:
    """The measures of one set of games as rows (measure, value, lo, hi): shared wins, the
    winner's margin, games decided by half their rounds, the entropy of the action kinds and of
    each seat's opening, and the fitted value of a point from each scoring source."""
    d = decisiveness(st)
    half = next(r for r in d.decided_by if r.by == 0.5)
    dv = diversity(st, n_boot=200, seed=seed)
    ak = dv.action_kinds
    sw, mg = d.shared_wins, d.margin
    rows = [
        MeasureRow("shared wins (share of games)", sw.share, sw.lo, sw.hi),
        MeasureRow("winner's margin (points)", mg.mean, mg.lo, mg.hi),
        MeasureRow("decided by half its rounds (share)", half.share, half.lo, half.hi),
        MeasureRow("action-kind entropy (bits)", ak.entropy_bits, ak.lo, ak.hi),
    ]
    for o in dv.openings:
        name = f"opening entropy, seat {o.seat} (bits)"
        rows.append(MeasureRow(name, o.entropy_bits, o.lo, o.hi))
    for r in source_values(st):
        rows.append(MeasureRow(f"value of a point from {r.name} (win share)", r.value, r.lo, r.hi))
    return rows


def compare(named: list[tuple[str, GameStats]], seed: int = 0) -> list[dict]:
    """One row per measure of `summary`, a value and interval per named set of games (a measure
    missing from a set, a source that scored nothing there, is None); a row is a dict with a
    value, `_lo` and `_hi` column per name."""
    per = {name: {r.measure: r for r in summary(st, seed)} for name, st in named}
    order = list(dict.fromkeys(m for rows in per.values() for m in rows))
    out = []
    for m in order:
        row: dict = {"measure": m}
        for name in per:
            r = per[name].get(m)
            row[name] = None if r is None else r.value
            row[f"{name}_lo"] = None if r is None else r.lo
            row[f"{name}_hi"] = None if r is None else r.hi
        out.append(row)
    return out


def _cell(row: dict, name: str) -> str:
    if row[name] is None:
        return "n/a"
    return f"{num(row[name])} {interval(row[f'{name}_lo'], row[f'{name}_hi'])}"


def compare_lines(rows: list[dict], names: list[str]) -> list[str]:
    """A Markdown table of `compare`'s rows: each set's value with its 95% interval."""
    return table(
        ["measure", *names],
        [[r["measure"]] + [_cell(r, n) for n in names] for r in rows],
    )


def section(m: Measures) -> list[str]:
    """The report's lines for `measures(...)`."""
    d = m.decisiveness
    sw = d.shared_wins
    lines = [
        "",
        "## Decisiveness, fitted values, diversity",
        "",
        "After Tomasev et al. (2020); definitions in `training.balance.measures`. Shared wins: "
        f"{num(sw.share)} {interval(sw.lo, sw.hi)} of {sw.n} games (Wilson 95%); "
        f"winner's margin {num(d.margin.mean, '.2f')} "
        f"{interval(d.margin.lo, d.margin.hi, '.2f')} points.",
        "",
    ]
    lines += table(
        ["decided by (share of its rounds)", "share of games", "Wilson 95%", "n"],
        [[num(r.by, ".2f"), num(r.share), interval(r.lo, r.hi), str(r.n)] for r in d.decided_by],
    )
    for key, title in (("source_values", "scoring source"), ("item_values", "item")):
        rows = getattr(m, key)
        lines += [
            "",
            f"Fitted value of each {title} (linear probability model, seats held fixed; "
            "cluster-robust 95% by game; p_bh over this table):",
            "",
        ]
        if not rows:
            lines += ["(nothing to fit)"]
            continue
        rows = sorted(rows, key=lambda r: -(r.value or 0.0))
        lines += table(
            [title, "value (win share)", "95%", "p_bh"],
            [
                [
                    r.name,
                    num(r.value, ".4f"),
                    interval(r.lo, r.hi, ".4f"),
                    pval(r.p_bh),
                ]
                for r in rows
            ],
        )
    dv = m.diversity
    ak = dv.action_kinds
    lines += [
        "",
        "Diversity (plug-in entropy in bits; bootstrap 95% over games): decisions by action kind "
        f"{num(ak.entropy_bits)} {interval(ak.lo, ak.hi)} of at most "
        f"{num(ak.max_bits)}; each seat's opening (its first decision):",
        "",
    ]
    lines += table(
        ["seat", "opening entropy (bits)", "95%", "distinct openings", "games"],
        [
            [
                str(o.seat),
                num(o.entropy_bits),
                interval(o.lo, o.hi),
                str(o.distinct),
                str(o.games),
            ]
            for o in dv.openings
        ],
    )
    return lines
