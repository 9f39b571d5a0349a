"""Restricted-play study (Jaffe et al. 2012): how much a game leans on one strategy.

    python -m training.balance.restricted --game chipin --players 2 --agent heuristic \\
        --forbid take pay bury pay+bury --games 200 --db runs/restricted/chipin.sqlite \\
        --out runs/restricted/chipin_2p

For each forbidden class (--forbid: an action segment, an item, several joined by +, or
`all-segments` / `all-items` for one class per action segment / forbiddable item) a tournament
(training.arena.tournament) seats the agent forbidden that class (`restrict:forbid=CLASS,
agent=AGENT`, training.agents.restricted_agent) against --players - 1 copies of the same agent
unrestricted: every deal once per seat rotation, the same deals for every class (common random
numbers). Per class: the restricted agent's win share (a win shared by k players counts 1/k)
with its Wilson 95% interval and N, and the two-sided score test of "its share is the
unrestricted agent's", 1/P in this symmetric field (the test the Wilson interval inverts; each
game counted as an independent trial, which the seat rotation over common deals, sharing each
deal's luck among the seats, tends to make conservative). The family of classes gets Holm
(default) or Benjamini-Hochberg adjusted p-values and the matching adjusted intervals: Holm's at
each class's step-down level, BH's false-coverage-rate intervals (Benjamini & Yekutieli 2005), so
an interval drawn as significant is exactly one that excludes 1/P.

A share far below 1/P says the game leans on the forbidden class (a dominant strategy, a
keystone card); near 1/P, that the agent does as well without it. The figures hold for that
agent: a weak agent may not use a class well enough for its loss to show. Each class also
reports how often the restriction bound (the restricted agent's decisions where a forbidden
action was legal) and how often every legal action was forbidden (it then plays one anyway);
a class that never binds measures nothing.

Writes under --out: report.md, restricted.csv, restricted.png (win share per class, the adjusted
intervals, red where significant; the title names N and RULES_DATA_HASH) and result.json.
Refusals of bad arguments are one line (training.arena.cli).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType

import numpy as np
from scipy import stats as sps

from core.registry import check_players, game_names, get_game
from training.agents.checkpoint import library_version
from training.agents.registry import make_agent
from training.agents.restricted_agent import (
    FORCED,
    RULES,
    Restriction,
    allowed_names,
    item_hook,
    item_key,
    parse_forbid,
    restricted_spec,
)
from training.arena.cli import OneLineParser
from training.arena.evaluate import clocked_agents, machine_notice, rules_note
from training.arena.ratings import wilson_interval
from training.arena.tournament import add_backend_arguments, json_default, run_tournament
from training.balance.cli import backend_session, guarded
from training.balance.markdown import interval, num, pval
from training.balance.results import ClassRow, RestrictedResult, RestrictionCounts
from training.balance.stats import bh

ALL_SEGMENTS = "all-segments"
ALL_ITEMS = "all-items"
CORRECTIONS = ("holm", "bh")
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg"}


# --- the classes ------------------------------------------------------------------------------
def forbid_classes(game_name: str, forbid: list[str]) -> list[tuple[str, Restriction]]:
    """(canonical label, restriction) per forbidden class, in order, duplicates dropped;
    `all-segments` / `all-items` expand to one class per action segment / forbiddable item. A
    ValueError naming what is allowed for a bad name."""
    if not forbid:
        raise ValueError(f"--forbid needs at least one class; {allowed_names(game_name)}")
    out: dict[str, Restriction] = {}
    for text in forbid:
        if text == ALL_SEGMENTS:
            names = list(get_game(game_name).ACTIONS.segments)
        elif text == ALL_ITEMS:
            hook = item_hook(game_name)
            if hook.actions is None or not hook.forbiddable:
                raise ValueError(
                    f"--forbid {ALL_ITEMS}: no item to forbid; {allowed_names(game_name)}"
                )
            names = [item_key(hook, i) for i in hook.forbiddable]
        else:
            names = [text]
        for name in names:
            r = parse_forbid(game_name, name)
            out.setdefault(r.label, r)
    return list(out.items())


def class_kind(r: Restriction) -> str:
    """`segment`, `item` or `mixed`: what a class forbids."""
    if r.segments and r.items:
        return "mixed"
    return "segment" if r.segments else "item"


# --- the statistics ---------------------------------------------------------------------------
def score_test(wins: float, n: int, p0: float) -> tuple[float | None, float | None]:
    """(z, two-sided p) of the score test of "the share is p0" for wins/n: the test the Wilson
    interval inverts (its interval at level a excludes p0 exactly when p <= a)."""
    if n <= 0:
        return None, None
    z = (wins / n - p0) / math.sqrt(p0 * (1.0 - p0) / n)
    return z, float(2.0 * sps.norm.sf(abs(z)))


def adjust(p: list[float | None], alpha: float, correction: str) -> tuple[list, list]:
    """(adjusted p-values, the level of each row's adjusted interval) for the family `p` (None:
    no test, left out). Holm: the step-down adjusted p, and the level of the step that decided
    the row (alpha / (m - k + 1) at rank k while the steps reject, the first accepting step's
    level after it). BH: scipy's adjusted p, and the false-coverage-rate level R alpha / m (R
    rejections, at least 1) for every row. Either way an adjusted interval excludes the null
    exactly when its row is significant."""
    idx = [i for i, v in enumerate(p) if v is not None]
    m = len(idx)
    p_adj: list[float | None] = [None] * len(p)
    level: list[float | None] = [None] * len(p)
    if m == 0:
        return p_adj, level
    if correction == "bh":
        adj = bh(p)
        rejected = sum(1 for i in idx if adj[i] <= alpha)
        for i in idx:
            p_adj[i], level[i] = adj[i], max(rejected, 1) * alpha / m
        return p_adj, level
    if correction != "holm":
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}")
    order = sorted(idx, key=lambda i: p[i])
    running = 0.0
    stop = m + 1  # the rank of the first step that does not reject
    for k, i in enumerate(order, start=1):
        running = max(running, min(1.0, (m - k + 1) * p[i]))
        p_adj[i] = running
        if stop > m and p[i] > alpha / (m - k + 1):
            stop = k
        level[i] = alpha / (m - min(k, stop) + 1)
    return p_adj, level


def adjust_rows(rows: list[ClassRow], alpha: float, correction: str) -> list[ClassRow]:
    """The rows (their wins, games and score-test p) with the adjusted p (`p_adj`),
    `significant` (p_adj <= alpha), the adjusted interval's level (`adj_level`) and the Wilson
    interval at that level (`adj_lo`, `adj_hi`): it excludes the null share exactly when the row
    is significant (adjust)."""
    p_adj, level = adjust([row.p for row in rows], alpha, correction)
    out = []
    for row, pa, lv in zip(rows, p_adj, level, strict=True):
        lo = hi = None
        if lv is not None:
            z_adj = float(sps.norm.isf(lv / 2.0))
            lo, hi = wilson_interval(row.wins, row.games, z=z_adj)
        significant = pa is not None and pa <= alpha
        out.append(replace(row, p_adj=pa, significant=significant, adj_level=lv, adj_lo=lo,
                           adj_hi=hi))  # fmt: skip
    return out


def restriction_counts(game, records: list, seat_id: int, r: Restriction) -> RestrictionCounts:
    """Replays `records` and counts, over the decisions of the seat entrant `seat_id` held:
    decisions, binding (a forbidden action was legal), forced (every legal action forbidden) and
    violations (a forbidden action taken while an allowed one was legal: 0 unless the wrapper is
    broken)."""
    decisions = binding = forced = violations = 0
    for rec in records:
        seat = list(rec.seats).index(seat_id)
        s = game.new_game(int(rec.players), int(rec.seed))
        for a in rec.actions:
            if game.current_player(s) == seat:
                legal = np.asarray(game.legal_mask(s), dtype=np.bool_)
                forbidden = r.forbidden(s)
                decisions += 1
                if (legal & forbidden).any():
                    binding += 1
                    if not (legal & ~forbidden).any():
                        forced += 1
                    elif forbidden[a]:
                        violations += 1
            s = game.step(s, int(a))
    return RestrictionCounts(decisions, binding, forced, violations)


# --- running ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RestrictedStudy:
    """What a restricted-play study plays (run_study's arguments, in its order, with its
    defaults): `agent` forbidden each class of `forbid` in turn against unrestricted copies of
    itself, `games` per class into the store `db`; `alpha` and `correction` (holm or bh) of the
    adjusted tests; `workers`, `seed`, `progress`, `backend`, `address` as run_tournament's."""

    game_name: str
    players: int
    agent: str
    forbid: list[str]
    games: int
    db: str | Path
    workers: int | None = 1
    seed: int = 0
    alpha: float = 0.05
    correction: str = "holm"
    progress: bool = True
    backend: str = "process"
    address: str | None = None


def run_study(
    game_name: str,
    players: int,
    agent: str,
    forbid: list[str],
    games: int,
    db: str | Path,
    *args,
    **kwargs,
) -> RestrictedResult:
    """Play what the store lacks of every class's tournament and test each class (module
    docstring); the result has one row per class. The arguments
    after `db`, positional in this order or by keyword, are RestrictedStudy's: workers (1), seed
    (0), alpha (0.05), correction ("holm"), progress (True), backend ("process"), address
    (None); `play_study` takes the study itself."""
    return play_study(
        RestrictedStudy(game_name, players, agent, forbid, games, db, *args, **kwargs)
    )


def play_study(study: RestrictedStudy) -> RestrictedResult:
    """run_study of a RestrictedStudy."""
    game_name, agent = study.game_name, study.agent
    alpha, correction = study.alpha, study.correction
    game = get_game(game_name)
    n = check_players(game, study.players)
    if correction not in CORRECTIONS:
        raise ValueError(
            f"--correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}"
        )
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"--alpha must be in (0, 1); got {alpha}")
    classes = forbid_classes(game_name, study.forbid)
    make_agent(agent, game_name, n, 0)  # a bad agent spec: refused before anything is played
    p0 = 1.0 / n
    rows = [_class_row(study, game, n, label, r) for label, r in classes]
    rows = adjust_rows(rows, alpha, correction)
    rules_hash = str(game.RULES_DATA_HASH)
    clocked = clocked_agents(game_name, [agent], n)
    return RestrictedResult(
        game=game_name,
        players=n,
        agent=agent,
        games_per_class=study.games,
        seed=study.seed,
        alpha=alpha,
        correction=correction,
        null_share=p0,
        rules_data_hash=rules_hash,
        note=rules_note(game, rules_hash),
        notice=machine_notice(clocked),
        library_version=library_version(),
        rows=rows,
    )


def _class_row(
    study: RestrictedStudy, game: ModuleType, n: int, label: str, r: Restriction
) -> ClassRow:
    """Play (what the store lacks of) the tournament of class `label` (restriction `r`) at `n`
    players and its row of the result, before the adjusted tests."""
    agent, game_name = study.agent, study.game_name
    p0 = 1.0 / n
    spec = restricted_spec(agent, label)
    restricted = make_agent(spec, game_name, n, 0)
    t = run_tournament(
        game_name,
        n,
        [spec] + [agent] * (n - 1),
        study.games,
        study.db,
        workers=study.workers,
        seed=study.seed,
        progress=study.progress,
        keep_records=True,
        rate=False,
        backend=study.backend,
        address=study.address,
    )
    records = t.pop("records")
    rid = t["entrant_ids"][spec]
    shares, own, others = [], [], []
    for rec in records:
        seat = list(rec.seats).index(rid)
        shares.append(float(rec.win_shares[seat]))
        own.append(float(rec.scores[seat]))
        others.extend(float(x) for q, x in enumerate(rec.scores) if q != seat)
    g = len(shares)
    wins = float(np.sum(shares))
    lo, hi = wilson_interval(wins, g)
    z, p = score_test(wins, g, p0)
    c = restriction_counts(game, records, rid, r)
    return ClassRow(
        forbid=label,
        kind=class_kind(r),
        spec=spec,
        games=g,
        wins=wins,
        win_share=wins / g if g else None,
        lo=lo if g else None,
        hi=hi if g else None,
        null_share=p0,
        z=z,
        p=p,
        mean_score_restricted=float(np.mean(own)) if own else None,
        mean_score_unrestricted=float(np.mean(others)) if others else None,
        decisions=c.decisions,
        binding=c.binding,
        forced=c.forced,
        violations=c.violations,
        binding_share=c.binding / c.decisions if c.decisions else None,
        rule=restricted.rule,
        description=restricted.description,
        tournament_games=t["stored_games"],
        played_now=t["played_now"],
    )


# --- report -----------------------------------------------------------------------------------
def stamp(result: RestrictedResult) -> str:
    """The line the figure and report carry: the sample size and the rules data."""
    ns = sorted({row.games for row in result.rows})
    n = ns[0] if len(ns) == 1 else f"{ns[0]}..{ns[-1]}"
    return f"N = {n} games per forbidden class; rules data {result.rules_data_hash}"


def interval_name(result: RestrictedResult) -> str:
    """What the adjusted intervals are, in words."""
    if result.correction == "bh":
        return "Wilson, Benjamini-Hochberg false-coverage-rate adjusted"
    return f"Wilson, Holm-adjusted (familywise {1 - result.alpha:.0%})"


def plot(result: RestrictedResult, path: Path) -> Path:
    """restricted.png: the restricted agent's win share per class with the adjusted intervals
    (red: significant, so the interval excludes the unrestricted share), the unrestricted share
    1/P dashed; one unit (win share) on the one value axis."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = [r for r in result.rows if r.win_share is not None]
    fig = Figure(figsize=(6.5, 1.6 + 0.3 * max(len(rows), 1)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    m = np.array([r.win_share for r in rows], dtype=np.float64)
    lo = np.array([r.adj_lo if r.adj_lo is not None else r.win_share for r in rows])
    hi = np.array([r.adj_hi if r.adj_hi is not None else r.win_share for r in rows])
    sig = np.array([bool(r.significant) for r in rows], dtype=bool)
    name = CORRECTION_NAMES[result.correction]
    for mask, colour, text in (
        (sig, "#c44e52", f"significant ({name}, alpha = {result.alpha:g})"),
        (~sig, "#8c8c8c", "not significant"),
    ):
        if mask.any():
            ax.errorbar(
                m[mask], y[mask], xerr=[m[mask] - lo[mask], hi[mask] - m[mask]], fmt="o",
                color=colour, capsize=3, label=text,
            )  # fmt: skip
    ax.axvline(result.null_share, color="black", ls="--", lw=1, label="unrestricted share 1/P")
    ax.set_yticks(y, [r.forbid for r in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(
        f"win share of the agent forbidden the class (a shared win counts 1/k)\n"
        f"intervals: {interval_name(result)}",
        fontsize=8,
    )
    ax.set_title(
        f"Restricted play: {result.game}, {result.players} players, agent "
        f"{result.agent}\n{stamp(result)}",
        fontsize=9,
    )
    fig.legend(fontsize=7, loc="outside lower center", ncols=3)  # never over the data
    fig.savefig(path, dpi=110)
    return path


CSV_COLUMNS = (
    "forbid", "kind", "games", "wins", "win_share", "lo", "hi", "null_share", "z", "p", "p_adj",
    "significant", "adj_level", "adj_lo", "adj_hi", "mean_score_restricted",
    "mean_score_unrestricted", "decisions", "binding", "binding_share", "forced", "violations",
    "rule", "spec",
)  # fmt: skip


def write_csv(path: Path, rows: list[ClassRow]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(CSV_COLUMNS), extrasaction="ignore")
        w.writeheader()
        for r in rows:
            values = {k: getattr(r, k) for k in CSV_COLUMNS}
            w.writerow({k: ("" if v is None else v) for k, v in values.items()})
    return path


def markdown(result: RestrictedResult, command: str | None = None) -> str:
    """report.md's text."""
    name = CORRECTION_NAMES[result.correction]
    lines = [
        f"# Restricted play: {result.game}, {result.players} players, agent `{result.agent}`",
        "",
        stamp(result) + f"; seed {result.seed}; library {result.library_version}.",
        "",
    ]
    if result.notice:
        lines += [f"**{result.notice}**", ""]
    if command:
        lines += ["```", command, "```", ""]
    lines += [
        f"Each class: the agent forbidden it against {result.players - 1} unrestricted "
        "cop" + ("y" if result.players == 2 else "ies") + " of itself, every deal once per "
        "seat rotation, the same deals for every class. Win share: a win shared by k players "
        f"counts 1/k; unrestricted share 1/P = {result.null_share:.3f}. p: two-sided score "
        f"test of share = 1/P (the test the Wilson interval inverts); p adj: {name} over the "
        f"{len(result.rows)} classes; adjusted interval: {interval_name(result)}, excluding "
        f"1/P exactly when p adj <= {result.alpha:g}. Binding: share of the restricted "
        "agent's decisions where a forbidden action was legal; forced: decisions where every "
        "legal action was forbidden (it then plays one anyway).",
        "",
    ]
    header = [
        "forbidden", "kind", "N", "win share", "Wilson 95%", "adjusted interval", "p", "p adj",
        "significant", "mean score (restricted / others)", "binding", "forced",
    ]  # fmt: skip
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in result.rows:
        cells = [
            f"`{r.forbid}`",
            r.kind,
            str(r.games),
            num(r.win_share),
            interval(r.lo, r.hi),
            interval(r.adj_lo, r.adj_hi),
            pval(r.p),
            pval(r.p_adj),
            "yes" if r.significant else "no",
            f"{num(r.mean_score_restricted, '.1f')} / {num(r.mean_score_unrestricted, '.1f')}",
            num(r.binding_share),
            str(r.forced),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "![win share per forbidden class](restricted.png)", ""]
    never = [r.forbid for r in result.rows if r.decisions and not r.binding]
    if never:
        lines += [
            "Never binding (the agent was never offered a forbidden action, so these rows "
            f"measure nothing): {', '.join(f'`{x}`' for x in never)}.",
            "",
        ]
    broken = [r.forbid for r in result.rows if r.violations]
    if broken:
        lines += [
            f"**Forbidden actions taken while another was allowed: {', '.join(broken)}.**",
            "",
        ]
    rules = dict.fromkeys(r.rule for r in result.rows)
    lines += ["How the agent was restricted (training.agents.restricted_agent):", ""]
    lines += [f"- rule `{rule}`: {RULES[rule]};" for rule in rules]
    lines += [f"- {FORCED}."]
    lines += ["", result.note, ""]
    return "\n".join(lines)


def write_report(result: RestrictedResult, out_dir: str | Path, command: str | None = None):
    """report.md, restricted.csv, restricted.png and result.json under out_dir; their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [
        write_csv(out / "restricted.csv", result.rows),
        plot(result, out / "restricted.png"),
    ]
    (out / "report.md").write_text(markdown(result, command))
    (out / "result.json").write_text(
        json.dumps(result.to_json(), indent=1, default=json_default) + "\n"
    )
    return paths + [out / "report.md", out / "result.json"]


# --- command line -----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m training.balance.restricted",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", required=True, choices=game_names())
    p.add_argument("--players", type=int, required=True)
    p.add_argument(
        "--agent",
        "--agents",
        default="heuristic",
        help="the agent, restricted and unrestricted (bot names, mcts:..., checkpoints, "
        "py:module:factory; default heuristic)",
    )
    p.add_argument(
        "--forbid",
        nargs="+",
        required=True,
        help="forbidden classes, one tournament each: an action segment, an item (its short "
        f"key, e.g. customer:T8), several joined by +, {ALL_SEGMENTS} or {ALL_ITEMS}",
    )
    p.add_argument(
        "--games", type=int, required=True, help="games per class (a multiple of --players)"
    )
    p.add_argument("--db", required=True, help="the SQLite game store (created if missing)")
    p.add_argument("--out", required=True, help="report folder")
    add_backend_arguments(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiple-comparison correction across the classes: holm (familywise, default) or "
        "bh (false discovery rate)",
    )
    p.add_argument("--no-progress", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = "python -m training.balance.restricted " + " ".join(
        sys.argv[1:] if argv is None else argv
    )

    def play():
        notice = machine_notice(clocked_agents(args.game, [args.agent], args.players))
        if notice:  # the first line: said before anything is played
            print(notice, flush=True)
        with backend_session(args.backend, args.address, args.workers):
            study = RestrictedStudy(
                args.game,
                args.players,
                args.agent,
                args.forbid,
                args.games,
                args.db,
                workers=args.workers,
                seed=args.seed,
                alpha=args.alpha,
                correction=args.correction,
                progress=not args.no_progress,
                backend=args.backend,
                address=args.address,
            )
            result = play_study(study)
        return result

    out, code = guarded(parser, play)
    if code is not None:
        return code
    result = out
    paths = write_report(result, args.out, command)
    for r in result.rows:
        print(
            f"forbid {r.forbid}: win share {num(r.win_share)} {interval(r.lo, r.hi)} "
            f"(N = {r.games}, 1/P = {result.null_share:.3f}), p adj {pval(r.p_adj)}"
            + (" significant" if r.significant else "")
        )
    print(result.note)
    print(f"report: {os.path.join(args.out, 'report.md')} ({len(paths)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
