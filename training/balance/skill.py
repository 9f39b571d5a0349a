"""Skill trace: how a balance figure moves as the agents get stronger.

    python -m training.balance.skill --game troyes --players 2 --games 200 \\
        --agents random heuristic mcts:iters=100 mcts:iters=200 mcts:iters=400 mcts:iters=800 \\
        --db runs/balance/troyes.sqlite --out runs/balance/skill_troyes

Each agent, weakest first, plays a self-play balance study (every seat the same agent, the same
tournament seed, so every level is played on the same deals) and the trace reads from each:

- `seats`: every seat's win share (Wilson 95%);
- `sources`: the share of all points scored from each score source (percentile bootstrap 95% over
  games);
- `margin`: the winner's margin (95%);
- `item:NAME`: the win-share lift of the players who took item NAME (Welch 95%).

With `--check-strength` each level also plays the one before it (a 2-agent tournament of
`--games` games, seats rotated): its win share (Wilson 95%) says whether the ladder really rises.
Where three or more levels are one search at doubling budgets (`iters=` or `sims=`), each figure is
regressed on log2(budget) (weighted least squares) and extrapolated one doubling beyond the
largest, after Ludii's SkillTrace: the slope with its 95% interval says whether the figure still
moves with skill. Outputs under --out: report.md, skill.png (a panel per figure, N and the rules
hash in the title), skill.csv, result.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np
from scipy import stats as sps

from core.registry import game_names, get_game
from training.arena.cli import OneLineParser
from training.arena.leaderboard import figure
from training.arena.ratings import wilson_interval
from training.arena.tournament import json_default, run_tournament
from training.balance import stats as bs
from training.balance.cli import add_run_arguments, backend_session, guarded
from training.balance.game_stats import GameStats, stats_modules
from training.balance.markdown import interval, num, table
from training.balance.play import run_study
from training.balance.report import stamp, write_csv
from training.balance.results import (
    Extrapolation,
    FigureRow,
    LevelScore,
    SkillLevel,
    SkillTrace,
    Trend,
)

FIGURES = ("seats", "sources", "margin", "item:NAME")
# what each figure's unit can take: a prediction and its interval are clipped to it
BOUNDS = {
    "win share": (0.0, 1.0),
    "share of points": (0.0, 1.0),
    "win-share lift": (-1.0, 1.0),
    "points": (0.0, float("inf")),  # the winner's margin
}
N_BOOT = 1000
_BUDGET = re.compile(r"(?:^|[:,])(?:iters|sims)=(\d+)(?:,|$)")


def budget_of(spec: str) -> int | None:
    """The search budget a spec names (`iters=N` or `sims=N`), else None."""
    m = _BUDGET.search(spec)
    return int(m.group(1)) if m else None


def search_family(spec: str) -> str:
    """The spec without its budget: levels of one family differ only in their budget."""
    out = _BUDGET.sub(lambda m: m.group(0)[0] if m.group(0)[0] in ":," else "", spec)
    return out.rstrip(":,").replace(":,", ":").replace(",,", ",")


def figure_rows(st: GameStats, figure: str, seed: int = 0) -> list[FigureRow]:
    """The rows (a series each) one study gives for one figure."""
    if figure == "seats":
        rows = []
        for p in range(st.players):
            wins = float(st.win_shares[:, p].sum())
            lo, hi = wilson_interval(wins, len(st))
            rows.append(FigureRow(f"seat {p}", wins / len(st), lo, hi, "win share", len(st)))
        return rows
    if figure == "sources":
        per = st.points.sum(axis=1).astype(np.float64)  # (G, S) points of all players
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, len(st), size=(N_BOOT, len(st)))
        tot = per.sum()
        boot = per[idx].sum(axis=1)
        boot_share = boot / np.maximum(boot.sum(axis=1, keepdims=True), 1e-12)
        rows = []
        for k, name in enumerate(st.sources):
            if not per[:, k].any():
                continue
            lo, hi = np.quantile(boot_share[:, k], [0.025, 0.975])
            share = float(per[:, k].sum() / tot) if tot else 0.0
            rows.append(FigureRow(name, share, float(lo), float(hi), "share of points", len(st)))
        return rows
    if figure == "margin":
        m = bs.mean_ci(st.margin)
        return [FigureRow("winner's margin", m.mean, m.lo, m.hi, "points", m.n)]
    name = figure.split(":", 1)[1]
    row = next(r for r in bs.item_lifts(st) if r.item == name and r.comparison == "taken")
    n = row.n_with + row.n_without
    return [FigureRow(f"lift of {name}", row.lift, row.lo, row.hi, "win-share lift", n)]


def check_figures(figures: list[str], items: tuple[str, ...]) -> None:
    for f in figures:
        if f in ("seats", "sources", "margin"):
            continue
        if f.startswith("item:") and f[5:] in items:
            continue
        if f.startswith("item:"):
            raise ValueError(f"--figures {f}: no item {f[5:]!r} (items: {', '.join(items)})")
        raise ValueError(f"--figures {f}: use {', '.join(FIGURES)}")


def extrapolate(budgets: list[int], rows: list[FigureRow]) -> Extrapolation | None:
    """Weighted least squares of the figure on log2(budget) (weights 1 / half-width**2) over
    the levels of one search family: slope per doubling with its 95% interval, and the
    prediction one doubling beyond the largest budget with its 95% interval, clipped to what the
    figure's unit can take (BOUNDS); None under three levels or without intervals."""
    pts = [
        (b, r.mean, (r.hi - r.lo) / (2 * 1.959963984540054))
        for b, r in zip(budgets, rows, strict=True)
        if r.mean is not None and r.lo is not None and r.hi is not None
    ]
    if len(pts) < 3:
        return None
    x = np.log2([p[0] for p in pts])
    y = np.array([p[1] for p in pts])
    se = np.array([max(p[2], 1e-9) for p in pts])
    w = 1.0 / se**2
    X = np.stack([np.ones_like(x), x], axis=1)
    cov = np.linalg.inv(X.T @ (X * w[:, None]))
    beta = cov @ (X.T @ (w * y))
    x_next = x.max() + 1.0
    v = np.array([1.0, x_next])
    pred, pred_se = float(v @ beta), float(np.sqrt(v @ cov @ v))
    slope_se = float(np.sqrt(cov[1, 1]))
    z = sps.norm.isf(0.025)
    lo, hi = BOUNDS.get(rows[0].unit, (-np.inf, np.inf))

    def clip(value: float) -> float:
        return float(min(max(value, lo), hi))

    return Extrapolation(
        slope_per_doubling=float(beta[1]),
        slope_lo=float(beta[1] - z * slope_se),
        slope_hi=float(beta[1] + z * slope_se),
        next_budget=2 * max(p[0] for p in pts),  # one doubling, exactly
        predicted=clip(pred),
        predicted_lo=clip(pred - z * pred_se),
        predicted_hi=clip(pred + z * pred_se),
        levels=len(pts),
    )


def skill_trace(
    game_name: str,
    players: int,
    agents: list[str],
    games: int,
    db,
    figures: list[str],
    seed: int = 0,
    check_strength: bool = False,
    **kw,
) -> SkillTrace:
    """Play (what the store lacks of) a self-play study per level and read the figures."""
    levels = []
    for i, spec in enumerate(agents):
        st = run_study(game_name, players, [spec], games, db, seed=seed, **kw).stats
        rows = {f: figure_rows(st, f, seed=seed) for f in figures}
        vs_previous = None
        if check_strength and i > 0:
            t = run_tournament(
                game_name, players, [agents[i - 1], spec], games, db, seed=seed,
                progress=kw.get("progress", False), workers=kw.get("workers"),
                backend=kw.get("backend", "process"), address=kw.get("address"), n_boot=100,
            )  # fmt: skip
            vs_previous = _vs_previous(t, spec)
        levels.append(SkillLevel(spec, len(st), rows, vs_previous))
    fams = {}
    for i, spec in enumerate(agents):
        if budget_of(spec) is not None:
            fams.setdefault(search_family(spec), []).append(i)
    trends = []
    for fam, idx in fams.items():
        budgets = [budget_of(agents[i]) for i in idx]
        if len(idx) < 3 or len(set(budgets)) < len(budgets):
            continue
        for f in figures:
            series = [r.series for r in levels[idx[0]].figures[f]]
            for s in series:
                rows = [next((r for r in levels[i].figures[f] if r.series == s), None) for i in idx]
                if any(r is None for r in rows):
                    continue
                fit = extrapolate(budgets, rows)
                if fit:
                    trends.append(Trend(fam, f, s, fit))
    rules_hash = str(get_game(game_name).RULES_DATA_HASH)
    return SkillTrace(game_name, players, agents, games, seed, rules_hash, levels, trends)


def _vs_previous(t: dict, spec: str) -> LevelScore:
    """The stronger level's score against the one before it (win 1, tie 1/2; Wilson 95%)."""
    pw = t["board"]["pairwise"]
    label = next(e["label"] for e in t["entrants"] if e["spec"] == spec)
    me = pw["entrants"].index(label)
    other = 1 - me
    return LevelScore(
        score=pw["rate"][me][other],
        lo=pw["lo"][me][other],
        hi=pw["hi"][me][other],
        games=int(pw["n"][me][other]),
    )


def plot_trace(res: SkillTrace, figures: list[str], path: Path) -> Path:
    fig = figure(6.5, 0.8 + 2.4 * len(figures))
    axes = fig.subplots(len(figures), 1, squeeze=False)[:, 0]
    x = np.arange(len(res.agents))
    for ax, f in zip(axes, figures, strict=True):
        series = list(dict.fromkeys(r.series for lv in res.levels for r in lv.figures[f]))
        unit = ""
        for k, s in enumerate(series):
            pts = [
                (i, r)
                for i, lv in enumerate(res.levels)
                for r in lv.figures[f]
                if r.series == s and r.mean is not None
            ]
            if not pts:
                continue
            xi = np.array([i for i, _ in pts]) + (k - (len(series) - 1) / 2) * 0.04
            m = np.array([r.mean for _, r in pts])
            lo = np.array([r.lo if r.lo is not None else r.mean for _, r in pts])
            hi = np.array([r.hi if r.hi is not None else r.mean for _, r in pts])
            ax.errorbar(xi, m, yerr=[m - lo, hi - m], marker="o", capsize=3, lw=1, label=s)
            unit = pts[0][1].unit
        if f == "seats":
            ax.axhline(1 / res.players, color="grey", ls="--", lw=1)
        ax.set_ylabel(f"{f}\n({unit}, 95%)", fontsize=7)
        ax.set_xticks(x, res.agents, fontsize=6, rotation=20)
        if len(series) > 1:
            ax.legend(fontsize=6, ncol=2)
    fig.suptitle(
        f"{res.game}, {res.players} players: skill trace (self-play, weakest first)\n"
        + stamp(res.games, res.rules_data_hash, "games per level"),
        fontsize=8,
    )
    fig.savefig(path, dpi=110)
    return path


def write_skill_report(res: SkillTrace, figures: list[str], out: Path, command: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    rows = [
        {"agent": lv.agent, "figure": f, **r.to_json()}
        for lv in res.levels
        for f in figures
        for r in lv.figures[f]
    ]
    paths = [plot_trace(res, figures, out / "skill.png"), write_csv(out / "skill.csv", rows)]
    lines = [
        f"# Skill trace: {res.game}, {res.players} players",
        "",
        "```",
        command,
        "```",
        "",
        f"{res.games} self-play games per level on the same deals (tournament seed "
        f"{res.seed}); rules data `{res.rules_data_hash}`. Intervals are 95%.",
        "",
        "![skill](skill.png)",
        "",
    ]
    for f in figures:
        lines += [f"## {f}", ""]
        lines += table(
            ["agent", "series", "value", "95%", "n"],
            [
                [f"`{r['agent']}`", r["series"], num(r["mean"])]
                + [interval(r["lo"], r["hi"]), str(r["n"])]
                for r in rows
                if r["figure"] == f
            ],
        )
        lines += [""]
    if any(lv.vs_previous for lv in res.levels):
        lines += ["## Does the ladder rise?", ""]
        lines += table(
            ["agent", "score against the level before", "95%", "games"],
            [
                [f"`{lv.agent}`", num(v.score), interval(v.lo, v.hi), str(v.games)]
                for lv in res.levels
                if (v := lv.vs_previous)
            ],
        )
        lines += [""]
    if res.trends:
        lines += [
            "## Trend with the search budget",
            "",
            "Weighted least squares on log2(budget) over the levels of one search; the "
            "prediction is one doubling beyond the largest budget (an extrapolation).",
            "",
        ]
        lines += table(
            ["search", "figure", "series", "slope per doubling", "95%", "at budget", "predicted",
             "95%"],
            [
                [f"`{t.family}`", t.figure, t.series, num(t.fit.slope_per_doubling, ".4f"),
                 interval(t.fit.slope_lo, t.fit.slope_hi, ".4f"), str(t.fit.next_budget),
                 num(t.fit.predicted), interval(t.fit.predicted_lo, t.fit.predicted_hi)]
                for t in res.trends
            ],
        )  # fmt: skip
        lines += [""]
    (out / "report.md").write_text("\n".join(lines))
    (out / "result.json").write_text(
        json.dumps(res.to_json(), indent=1, default=json_default) + "\n"
    )
    return paths + [out / "report.md", out / "result.json"]


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m training.balance.skill",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", required=True, choices=game_names())
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--agents", nargs="+", required=True, help="the levels, weakest first")
    p.add_argument("--games", type=int, required=True, help="games per level")
    p.add_argument("--figures", nargs="+", default=["seats", "sources"], help=" | ".join(FIGURES))
    p.add_argument("--check-strength", action="store_true", help="each level plays the one before")
    add_run_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = "python -m training.balance.skill " + " ".join(sys.argv[1:] if argv is None else argv)

    def play():
        if len(args.agents) < 2 or len(set(args.agents)) != len(args.agents):
            raise ValueError("--agents: at least two different levels, weakest first")
        check_figures(args.figures, tuple(stats_modules(args.game)[1].ITEMS))
        with backend_session(args.backend, args.address, args.workers):
            res = skill_trace(
                args.game,
                args.players,
                args.agents,
                args.games,
                args.db,
                args.figures,
                seed=args.seed,
                check_strength=args.check_strength,
                workers=args.workers,
                progress=not args.no_progress,
                backend=args.backend,
                address=args.address,
            )
        paths = write_skill_report(res, args.figures, Path(args.out), command)
        return res, paths

    out, code = guarded(parser, play)
    if code is not None:
        return code
    res, paths = out
    print(
        f"skill trace of {args.game} at {args.players} players: {len(args.agents)} levels x "
        f"{args.games} games (rules data {res.rules_data_hash})"
    )
    print(f"report: {Path(args.out) / 'report.md'} ({len(paths)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
