"""Sweeps: one balance study per value of one or two rules-data keys, each compared deal by deal
with the current rules, and a dose-response plot.

    python -m training.balance.sweep --game village --players 2 --agents heuristic --games 200 \\
        --db runs/balance/village.sqlite --out runs/balance/sweep_mass \\
        --key MASS_MAJORITY_PRESTIGE --values 0:4:1

Every point of the grid (the values of one key, or every pair of values of two keys) is written as
a rules override file under OUT/variants/ and studied like `python -m training.balance --rules
FILE`: the same tournament seed, line-ups and seat rotations as the current rules, so each game has
its twin on the same deal, and the point's effect on every headline figure is the paired
difference (training.balance.paired). A point equal to the current rules (the same
RULES_DATA_HASH) is the reference: its effect is exactly 0 and nothing is played for it. The
p-values of every point and figure are adjusted together (Benjamini-Hochberg) and the plot draws
the matching false-coverage-rate adjusted intervals.

`--values` takes JSON values (`1 2 3`, `"orange"`, `[3,3,2]`) or one range `LO:HI:STEP` (both ends
included). Outputs under --out: report.md, sweep.csv (a row per point and figure), sweep.png (a
panel per figure: the effect and its interval against the value; with two keys a line per value
of the second), result.json and variants/*.json.

`--adapt MINUTES` also fine-tunes every `az` agent under each point (training.balance.adapt:
cached by the point's rules data and the parent network, so a rerun adapts nothing again) and
gives each point a strategic-response section (training.balance.response): the effect with the
agents unadapted (the sweep's table) beside the effect with the adapted ones, the play that
changed, the action mix and whether each adaptation converged. A conditioned `az` agent (its
network reads the rules) needs no fine-tuning: it plays each point reading its rules, and each
point gets the strategic-response section without `--adapt` ("conditioned" for "adapted"); the
sweep's table has the agents blind to the rules (`rules=any`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from core.registry import game_names, get_game
from core.rules_file import rules_file_data
from training.arena.cli import OneLineParser
from training.arena.leaderboard import figure
from training.arena.tournament import json_default
from training.balance import paired
from training.balance import stats as bs
from training.balance.adapt import add_adapt_arguments, default_cache, fixed_field, reads_rules
from training.balance.cli import add_run_arguments, backend_session, guarded
from training.balance.markdown import interval, num, pval, table
from training.balance.measures import compare, compare_lines
from training.balance.play import check_agents_under, run_study
from training.balance.report import stamp, write_csv
from training.balance.response import adapted_variant
from training.balance.response import section as response_section
from training.balance.results import (
    FigureDifference,
    MeasureComparison,
    PointResponse,
    SweepPoint,
    SweepResult,
)

MAX_POINTS = 64  # a larger grid is refused: say so rather than run for days
REFERENCE_RESPONSE = (
    "The current rules: the learned agents were trained under them, so their adapted and fixed "
    "versions are the same agents and every effect and response here is 0."
)
DEFAULT_FIGURES = ("win share, seat {p}", "winner's margin", "rounds")


def parse_values(items: list[str]) -> list[Any]:
    """JSON values, or one `LO:HI:STEP` range with both ends included (ints stay ints).
    ValueError, in one line, for anything else."""
    if len(items) == 1 and items[0].count(":") == 2:
        try:
            lo, hi, step = (json.loads(x) for x in items[0].split(":"))
        except json.JSONDecodeError:
            raise ValueError(f"--values {items[0]}: a range is LO:HI:STEP of numbers") from None
        if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in (lo, hi, step)):
            raise ValueError(f"--values {items[0]}: a range is LO:HI:STEP of numbers")
        if step <= 0 or hi < lo:
            raise ValueError(f"--values {items[0]}: needs STEP > 0 and HI >= LO")
        n = int(np.floor((hi - lo) / step + 1e-9)) + 1
        if n > MAX_POINTS:
            raise ValueError(f"--values {items[0]}: {n} values, at most {MAX_POINTS}")
        vals = [lo + k * step for k in range(n)]
        return [int(v) if isinstance(lo + step, int) else round(v, 12) for v in vals]
    out = []
    for x in items:
        try:
            out.append(json.loads(x))
        except json.JSONDecodeError:
            raise ValueError(
                f"--values {x}: not a JSON value (quote strings: '\"orange\"')"
            ) from None
    if len({json.dumps(v) for v in out}) != len(out):
        raise ValueError("--values: a value is given twice")
    return out


def grid(keys: list[str], values: list[list[Any]]) -> list[dict[str, Any]]:
    """Every point {key: value} of the grid (the first key varies slowest)."""
    if not 1 <= len(keys) <= 2 or len(keys) != len(values):
        raise ValueError("a sweep takes one or two --key, each followed by its --values")
    if len(set(keys)) != len(keys):
        raise ValueError(f"--key {keys[0]} is given twice")
    points = [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values)]
    if len(points) > MAX_POINTS:
        raise ValueError(f"the grid has {len(points)} points, at most {MAX_POINTS}")
    return points


def point_name(point: dict[str, Any]) -> str:
    return ",".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in point.items())


def write_point_files(game: str, points: list[dict], folder: Path) -> list[tuple[Path, str]]:
    """A rules override file per point and its RULES_DATA_HASH; RulesFileError (nothing played)
    for a key or value the game refuses."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i, point in enumerate(points):
        path = folder / f"point_{i:02d}.json"
        doc = {"game": game, "description": f"sweep point {point_name(point)}", "values": point}
        path.write_text(json.dumps(doc, indent=1) + "\n")
        out.append((path, rules_file_data(path, game)[1]))
    return out


def sweep_rows(base, points, results, seed: int = 0) -> list[dict]:
    """A row per (point, figure): the paired effect of the point against the base statistics,
    with p-values adjusted (BH) and false-coverage-rate adjusted intervals over the whole sweep.
    `results[i]` is the point's GameStats, or None for a point equal to the current rules. A row
    is a dict: besides its fixed columns it has a `value:KEY` column per swept key."""
    rows = []
    for point, st in zip(points, results, strict=True):
        if st is None:
            comp_rows, changed = _reference_rows(base), 0.0
        else:
            comp = paired.paired_differences(base, st, seed=seed)
            comp_rows, changed = comp.rows, comp.changed.share
        for r in comp_rows:
            rows.append(
                {
                    "point": point_name(point),
                    **{f"value:{k}": v for k, v in point.items()},
                    "rules_data_hash": base.rules_data_hash if st is None else st.rules_data_hash,
                    "changed_share": changed,
                    **{k: getattr(r, k) for k in ("figure", "unit", "base", "variant", "diff")},
                    **{k: getattr(r, k) for k in ("lo", "hi", "p", "se", "df", "n_pairs")},
                }
            )
    for r, v in zip(rows, bs.bh([r["p"] for r in rows]), strict=True):
        r["p_bh"] = v
    return bs.fcr_intervals(rows, "diff")


def _reference_rows(base) -> list[FigureDifference]:
    """The figures of the current rules against themselves: every difference exactly 0."""
    comp = paired.paired_differences(base, base)
    return [replace(r, variant=r.base) for r in comp.rows]


def run_sweep(
    game_name: str,
    players: int,
    agents: list[str],
    games: int,
    db: str | Path,
    keys: list[str],
    values: list[list[Any]],
    out: str | Path,
    seed: int = 0,
    adapt: float | None = None,
    adapt_cache: str | Path | None = None,
    **kw,
) -> SweepResult:
    """Play the base study and every point's (what the store lacks), and compare each point with
    the base deal by deal. With `adapt` (minutes) every az agent is also fine-tuned under each
    point (training.balance.adapt; cached in `adapt_cache`, default beside `db`) and each point
    gets its strategic response (training.balance.response); the sweep's rows then compare the
    agents unadapted. A conditioned az agent reads each point's rules with no fine-tuning, and
    the points get their strategic response with or without `adapt`. kw: run_study's workers,
    progress, backend, address."""
    points = grid(keys, values)
    files = write_point_files(game_name, points, Path(out) / "variants")
    base_hash = str(get_game(game_name).RULES_DATA_HASH)
    field = list(agents)
    if adapt is not None:  # the learned agents play every point unadapted too
        field = fixed_field(agents, adapt)
    check_agents_under(game_name, players, field, [p for p, h in files if h != base_hash])
    base = run_study(game_name, players, agents, games, db, seed=seed, **kw).stats
    results, responses = [], []
    respond = adapt is not None or any(
        reads_rules(agents, game_name, players, path) for path, h in files if h != base_hash
    )
    for point, (path, h) in zip(points, files, strict=True):
        if h == base_hash:
            results.append(None)
            if respond:
                responses.append(PointResponse(point_name(point), None))
        elif not respond:
            results.append(
                run_study(game_name, players, agents, games, db, path, seed=seed, **kw).stats
            )
        else:
            cache = adapt_cache or default_cache(db)
            both = adapted_variant(
                game_name, players, agents, games, db, path, base, adapt, cache, seed=seed, **kw,
            )  # fmt: skip
            results.append(both.fixed.stats)
            responses.append(PointResponse(point_name(point), both.response))
    named = [("current", base)] + [
        (point_name(p), st) for p, st in zip(points, results, strict=True) if st is not None
    ]
    return SweepResult(
        game=game_name,
        players=players,
        agents=list(agents),
        games=games,
        seed=seed,
        keys=keys,
        points=[
            SweepPoint(point_name(p), p, str(f), h) for p, (f, h) in zip(points, files, strict=True)
        ],
        base_rules_data_hash=base_hash,
        base_games=len(base),
        rows=sweep_rows(base, points, results, seed=seed),
        adapt_minutes=adapt,
        responses=responses,
        measures=MeasureComparison([n for n, _ in named], compare(named, seed)),
    )


def _numeric(vals: list[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals)


def plot_sweep(res: SweepResult, figures: list[str], path: Path) -> Path:
    """A panel per figure: the paired effect of each point (FCR-adjusted 95% interval; red
    markers exclude 0) against the first key's value; with two keys a line per second-key
    value."""
    keys = res.keys
    rows = [r for r in res.rows if r["figure"] in figures and r["diff"] is not None]
    k1 = keys[0]
    xs = list(dict.fromkeys(json.dumps(r[f"value:{k1}"]) for r in rows))
    xv = [json.loads(x) for x in xs]
    numeric = _numeric(xv)
    groups = (
        list(dict.fromkeys(json.dumps(r[f"value:{keys[1]}"]) for r in rows))
        if len(keys) == 2
        else [None]
    )
    fig = figure(6.5, 0.6 + 2.2 * len(figures))
    axes = fig.subplots(len(figures), 1, squeeze=False)[:, 0]
    for ax, name in zip(axes, figures, strict=True):
        sel = [r for r in rows if r["figure"] == name]
        for g in groups:
            gr = [r for r in sel if g is None or json.dumps(r[f"value:{keys[1]}"]) == g]
            if not gr:
                continue
            pos = np.array(
                [
                    r[f"value:{k1}"] if numeric else xs.index(json.dumps(r[f"value:{k1}"]))
                    for r in gr
                ],
                dtype=np.float64,
            )
            m = np.array([r["diff"] for r in gr])
            lo = np.array([r["adj_lo"] if r["adj_lo"] is not None else r["diff"] for r in gr])
            hi = np.array([r["adj_hi"] if r["adj_hi"] is not None else r["diff"] for r in gr])
            label = None if g is None else f"{keys[1]} = {g}"
            line = ax.errorbar(pos, m, yerr=[m - lo, hi - m], marker="o", capsize=3, label=label)
            sig = (lo > 0) | (hi < 0)
            ax.plot(pos[sig], m[sig], "o", color="#c44e52", zorder=3)
            line[0].set_linewidth(1)
        ax.axhline(0, color="black", lw=0.5)
        unit = sel[0]["unit"] if sel else ""
        ax.set_ylabel(f"{name}\n(difference in {unit})", fontsize=7)
        if not numeric:
            ax.set_xticks(range(len(xs)), xs, fontsize=7)
        if len(groups) > 1:
            ax.legend(fontsize=7)
    axes[-1].set_xlabel(k1, fontsize=8)
    fig.suptitle(
        f"{res.game}, {res.players} players: sweep of {', '.join(keys)}\n"
        "paired effect against the current rules; BH-adjusted (FCR) 95%; red: excludes 0\n"
        + stamp(res.base_games, f"{res.base_rules_data_hash} (current)", "games per point"),
        fontsize=8,
    )
    fig.savefig(path, dpi=110)
    return path


def figures_for(players: int, wanted: list[str] | None) -> list[str]:
    names = []
    for f in wanted or DEFAULT_FIGURES:
        names += [f.format(p=p) for p in range(players)] if "{p}" in f else [f]
    return names


def write_sweep_report(res: SweepResult, out: Path, figures: list[str], command: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [plot_sweep(res, figures, out / "sweep.png"), write_csv(out / "sweep.csv", res.rows)]
    lines = [
        f"# Sweep: {res.game}, {res.players} players, {', '.join(res.keys)}",
        "",
        "```",
        command,
        "```",
        "",
        f"Agents {', '.join(f'`{a}`' for a in res.agents)}; {res.base_games} games per "
        f"point, tournament seed {res.seed}; current rules data `{res.base_rules_data_hash}`"
        ". Each point is compared with the current rules deal by deal (the same deals, agents and "
        "seats): the mean paired difference, its Student-t 95% interval, p_bh adjusted over every "
        "point and figure of the sweep; adj. 95%: the matching false-coverage-rate adjusted "
        "interval (the plot's). A point equal to the current rules is the reference (0).",
        "",
        "![sweep](sweep.png)",
        "",
    ]
    for name in figures:
        sel = [r for r in res.rows if r["figure"] == name]
        lines += [f"## {name}", ""]
        lines += table(
            ["point", "rules data", "value", "difference", "95%", "adj. 95%", "p_bh", "changed"],
            [
                [
                    r["point"],
                    f"`{r['rules_data_hash']}`",
                    num(r["variant"]),
                    num(r["diff"]),
                    interval(r["lo"], r["hi"]),
                    interval(r["adj_lo"], r["adj_hi"]),
                    pval(r["p_bh"]),
                    num(r["changed_share"], ".2f"),
                ]
                for r in sel
            ],
        )
        lines += [""]
    lines += ["changed: the share of deal pairs whose play differed from the current rules'.", ""]
    m = res.measures
    if m:
        lines += [
            "## Decisiveness, diversity and fitted values by point",
            "",
            "training.balance.measures, each point's games on their own (95% intervals; with "
            "--adapt or conditioned agents, the learned agents unadapted):",
            "",
        ]
        lines += compare_lines(m.rows, m.names) + [""]
    for resp in res.responses:
        title = f"## Strategic response at {resp.point}"
        if resp.response is None:
            lines += [title, "", REFERENCE_RESPONSE, ""]
            continue
        lines += response_section(resp.response, title)
        lines += [""]
    (out / "report.md").write_text("\n".join(lines))
    (out / "result.json").write_text(
        json.dumps(res.to_json(), indent=1, default=json_default) + "\n"
    )
    return paths + [out / "report.md", out / "result.json"]


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m training.balance.sweep",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", required=True, choices=game_names())
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--agents", nargs="+", required=True, help="as python -m training.balance")
    p.add_argument("--games", type=int, required=True, help="games per point")
    p.add_argument("--key", action="append", required=True, help="a rules-data key (once or twice)")
    p.add_argument(
        "--values",
        action="append",
        nargs="+",
        required=True,
        help="the key's values: JSON values, or LO:HI:STEP (after each --key)",
    )
    p.add_argument(
        "--figures",
        nargs="+",
        help="figures to plot (default: every seat's win share, the winner's margin, rounds)",
    )
    add_adapt_arguments(p)
    add_run_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = "python -m training.balance.sweep " + " ".join(sys.argv[1:] if argv is None else argv)
    kw = dict(
        workers=args.workers,
        progress=not args.no_progress,
        backend=args.backend,
        address=args.address,
    )

    def play():
        values = [parse_values(v) for v in args.values]
        points = grid(args.key, values)
        figures = figures_for(args.players, args.figures)
        known = paired.figure_names(args.game, args.players)
        unknown = [f for f in figures if f not in known]
        if unknown:
            raise ValueError(f"--figures {unknown[0]!r}: not a figure (figures: {known})")
        write_point_files(args.game, points, Path(args.out) / "variants")  # refuse before play
        with backend_session(args.backend, args.address, args.workers):
            res = run_sweep(
                args.game,
                args.players,
                args.agents,
                args.games,
                args.db,
                args.key,
                values,
                args.out,
                seed=args.seed,
                adapt=args.adapt,
                adapt_cache=args.adapt_cache,
                **kw,
            )
        paths = write_sweep_report(res, Path(args.out), figures, command)
        return res, paths

    out, code = guarded(parser, play)
    if code is not None:
        return code
    res, paths = out
    sig = [r for r in res.rows if r["p_bh"] is not None and r["p_bh"] < 0.05]
    print(
        f"{len(res.points)} points x {res.base_games} games of {args.game} at "
        f"{args.players} players (current rules data {res.base_rules_data_hash}); "
        f"{len(sig)} point-figure effects with BH-adjusted p < 0.05"
    )
    print(f"report: {Path(args.out) / 'report.md'} ({len(paths)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
