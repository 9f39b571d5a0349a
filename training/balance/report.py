"""A balance study's report (training.balance.study is its command): every table of a study
(`analyse`), its plots, CSV tables and Markdown (`write_report`), and the helpers the other
balance reports share (`stamp`, the line every figure carries; `write_csv`)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from core.registry import get_game
from training.arena.leaderboard import figure
from training.arena.tournament import json_default
from training.balance import stats as bs
from training.balance.game_stats import GameStats
from training.balance.markdown import interval, num, pval, table
from training.balance.measures import measures
from training.balance.measures import section as measures_section
from training.balance.response import section as response_section
from training.balance.results import (
    ActionFrequency,
    Analysis,
    PairedComparison,
    Record,
    ScoreQuantiles,
    SeatAdvantage,
    SourceShare,
    StrategicResponse,
    plain,
)

PROVISIONAL = (
    "Rules data {h} is PROVISIONAL in places (docs/rules_data.md lists every provisional "
    "value): these figures describe the game under these numbers, not necessarily the "
    "published game."
)
RULES_NOTE = "Every figure holds for rules data {h}."


def analyse(st: GameStats, tournament: dict | None = None) -> Analysis:
    """Every table of the report; `skill` when the tournament had several agents."""
    skill = None
    if tournament is not None and len({e["spec"] for e in tournament["entrants"]}) > 1:
        skill = tournament.get("board", {}).get("pairwise")
    note = PROVISIONAL if get_game(st.game).GAME.spec.provisional_rules else RULES_NOTE
    return Analysis(
        game=st.game,
        players=st.players,
        games=len(st),
        rules_data_hash=st.rules_data_hash,
        note=note.format(h=st.rules_data_hash),
        seats=bs.seat_advantage(st.win_shares, st.scores),
        scores=_score_quantiles(st),
        sources=bs.source_shares(st),
        items=bs.item_lifts(st),
        shape=bs.game_shape(st),
        actions=bs.action_frequencies(st),
        resources=bs.resource_flows(st),
        deaths=bs.mean_ci(st.deaths.ravel()) if st.deaths.any() else None,
        measures=measures(st),
        skill=skill,
    )


def _score_quantiles(st: GameStats) -> list[ScoreQuantiles]:
    rows = []
    for p in range(st.players):
        x = st.scores[:, p]
        q = np.quantile(x, [0.05, 0.25, 0.5, 0.75, 0.95]).tolist()
        m = bs.mean_ci(x)
        rows.append(ScoreQuantiles(p, m.mean, m.lo, m.hi, m.n, *q))
    return rows


# --- report -----------------------------------------------------------------------------------
def write_csv(path: Path, rows: list[dict] | list[Record]) -> Path:
    """Rows (dicts or results, as their JSON) as a CSV table; the columns are every key in
    first-seen order, None is empty."""
    if not rows:
        path.write_text("")
        return path
    rows = [plain(r) for r in rows]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else v) for k, v in r.items()})
    return path


def plot_seats(a: Analysis, path: Path, title: str) -> Path:
    fig = figure(5.5, 3.2)
    ax = fig.add_subplot()
    seats = a.seats.seats
    x = np.arange(len(seats))
    y = np.array([s.win_share for s in seats])
    lo = y - np.array([s.win_share_lo for s in seats])
    hi = np.array([s.win_share_hi for s in seats]) - y
    ax.bar(x, y, yerr=[lo, hi], capsize=4, color="#4c72b0")
    ax.axhline(1 / len(seats), color="grey", ls="--", lw=1, label="equal share")
    ax.set_xticks(x, [f"seat {s.seat}" for s in seats])
    ax.set_ylabel("win share (95% Wilson)")
    ax.set_title(
        f"{title}: p(equal) = {pval(a.seats.p)}\n{stamp(a.games, a.rules_data_hash)}",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)
    return path


def plot_scores(st: GameStats, path: Path, title: str) -> Path:
    fig = figure(5.5, 3.2)
    ax = fig.add_subplot()
    lo, hi = int(st.scores.min()), int(st.scores.max())
    bins = np.arange(lo, hi + 2) - 0.5 if hi - lo <= 60 else 40
    for p in range(st.players):
        ax.hist(st.scores[:, p], bins=bins, histtype="step", label=f"seat {p}")
    ax.set_xlabel("final score")
    ax.set_ylabel("games")
    ax.set_title(f"{title}: final scores\n{stamp(len(st), st.rules_data_hash)}", fontsize=9)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)
    return path


def plot_sources(a: Analysis, path: Path, title: str) -> Path:
    rows = [r.to_json() for r in a.sources if (r.winners_mean or 0) or (r.rest_mean or 0)]
    fig = figure(6.5, 0.8 + 0.28 * max(len(rows), 1))
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    for off, side, colour in ((-0.2, "winners", "#55a868"), (0.2, "rest", "#c44e52")):
        m = np.array([r[f"{side}_mean"] or 0.0 for r in rows])
        lo = m - np.array(
            [
                r[f"{side}_lo"] if r[f"{side}_lo"] is not None else v
                for r, v in zip(rows, m, strict=True)
            ]
        )
        hi = (
            np.array(
                [
                    r[f"{side}_hi"] if r[f"{side}_hi"] is not None else v
                    for r, v in zip(rows, m, strict=True)
                ]
            )
            - m
        )
        ax.barh(y + off, m, height=0.4, xerr=[lo, hi], color=colour, label=side, capsize=2)
    ax.set_yticks(y, [r["source"] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.5)
    ax.set_xlabel("mean points per player (95%)")
    ax.set_title(
        f"{title}: points by source, winners vs the rest\n{stamp(a.games, a.rules_data_hash)}",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)
    return path


def stamp(n: int, rules_hash: str, what: str = "games") -> str:
    """The line every figure carries: its sample size and the rules data it rests on."""
    return f"N = {n} {what}; rules data {rules_hash}"


def _difference_axis(ax, rows, key, label, xlabel: str) -> None:
    """Horizontal bars of each row's field `key` with their false-coverage-rate adjusted 95%
    intervals (adj_lo, adj_hi: the intervals that go with the Benjamini-Hochberg adjusted p),
    labelled by its field `label`; red where that interval excludes 0."""
    y = np.arange(len(rows))
    m = np.array([getattr(r, key) for r in rows], dtype=np.float64)
    lo = np.array([m[i] if r.adj_lo is None else r.adj_lo for i, r in enumerate(rows)])
    hi = np.array([m[i] if r.adj_hi is None else r.adj_hi for i, r in enumerate(rows)])
    colours = np.where((lo > 0) | (hi < 0), "#c44e52", "#8c8c8c").tolist()
    ax.barh(y, m, xerr=[m - lo, hi - m], color=colours, capsize=2)
    ax.set_yticks(y, [getattr(r, label) for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.5)
    ax.set_xlabel(xlabel, fontsize=8)


def plot_items(a: Analysis, path: Path, title: str, top: int = 15) -> Path:
    rows = [r for r in a.items if r.comparison == "taken" and r.lift is not None]
    rows.sort(key=lambda r: (r.p_bh if r.p_bh is not None else 2.0, -abs(r.lift)))
    rows = rows[:top]
    fig = figure(6.5, 1.1 + 0.28 * max(len(rows), 1))
    ax = fig.add_subplot()
    _difference_axis(
        ax, rows, "lift", "item",
        "win-share lift of the takers; BH-adjusted (FCR) 95%; red: excludes 0",
    )  # fmt: skip
    ax.set_title(
        f"{title}: items taken, most significant first\n{stamp(a.games, a.rules_data_hash)}",
        fontsize=9,
    )
    fig.savefig(path, dpi=110)
    return path


def plot_shape(st: GameStats, path: Path, title: str) -> Path:
    fig = figure(8, 2.8)
    for i, (name, x) in enumerate(
        (
            ("winner's margin", st.margin),
            ("lead changes", st.lead_changes),
            ("decided at (share of rounds)", st.decided_at[~np.isnan(st.decided_at)]),
        )
    ):
        ax = fig.add_subplot(1, 3, i + 1)
        ax.hist(x, bins=20, color="#4c72b0")
        ax.set_xlabel(name, fontsize=8)
    fig.suptitle(
        f"{title}: how games are decided\n{stamp(len(st), st.rules_data_hash)}", fontsize=9
    )
    fig.savefig(path, dpi=110)
    return path


def plot_variant(
    comparison: PairedComparison, base_hash: str, var_hash: str, path: Path, title: str
) -> Path:
    """One panel per unit (win share, points, rounds, ...): each figure's paired difference,
    variant minus current rules, with its BH-adjusted (FCR) 95% interval; red: excludes 0."""
    rows = [r for r in comparison.rows if r.diff is not None]
    units = list(dict.fromkeys(r.unit for r in rows))
    heights = [0.5 + 0.28 * sum(1 for r in rows if r.unit == u) for u in units]
    fig = figure(6.5, 0.9 + sum(heights) + 0.45 * len(units))
    axes = fig.subplots(len(units), 1, gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, unit in zip(axes[:, 0], units, strict=True):
        sel = [r for r in rows if r.unit == unit]
        _difference_axis(ax, sel, "diff", "figure", f"difference in {unit}")
    fig.suptitle(
        f"{title}: variant minus current rules, paired by deal; BH-adjusted (FCR) 95%; red: "
        f"excludes 0\n{stamp(comparison.pairs, f'{base_hash} -> {var_hash}', 'deal pairs')}",
        fontsize=8,
    )
    fig.savefig(path, dpi=110)
    return path


def variant_section(st: GameStats, vst: GameStats, comp: PairedComparison, rules_file) -> list[str]:
    """The report's "Rules variant" section: the paired comparison (training.balance.paired)."""
    ch = comp.changed
    lines = [
        "",
        "## Rules variant",
        "",
        f"Variant `{rules_file}` (rules data `{vst.rules_data_hash}`) against the current rules "
        f"(`{st.rules_data_hash}`): {comp.pairs} deal pairs, each the same deal seed and "
        "agents in the same seats under both rules data (games without a twin left out: "
        f"{comp.unpaired_base} current, {comp.unpaired_variant} variant). The play "
        f"changed in {ch.pairs} of them ({num(ch.share)} "
        f"{interval(ch.lo, ch.hi)}, Wilson 95%); in the others both rules data gave the "
        "same game, a difference of exactly 0.",
        "",
        "Differences are variant minus current, per deal pair: the mean difference with its "
        "Student-t 95% interval and paired bootstrap 95% interval; p_bh: the paired t-test, "
        "Benjamini-Hochberg adjusted over this table; the plot draws the matching "
        "false-coverage-rate adjusted intervals. The unpaired (Welch) interval of the same games, "
        "which ignores the pairing, is shown for reference.",
        "",
        "![variant](variant.png)",
        "",
    ]
    lines += table(
        [
            "figure",
            "current",
            "variant",
            "difference",
            "95%",
            "bootstrap 95%",
            "p_bh",
            "unpaired 95%",
        ],
        [
            [
                r.figure,
                num(r.base),
                num(r.variant),
                num(r.diff),
                interval(r.lo, r.hi),
                interval(r.boot_lo, r.boot_hi),
                pval(r.p_bh),
                interval(r.welch_lo, r.welch_hi),
            ]
            for r in comp.rows
        ],
    )
    lines += [
        "",
        "Win flips per seat (McNemar's exact test; a shared win is not a win here): deal pairs "
        "the seat won only under the current rules, only under the variant, and p "
        "(BH-adjusted over the seats).",
        "",
    ]
    lines += table(
        ["seat", "won only under current", "won only under the variant", "p", "p_bh"],
        [
            [str(f.seat), str(f.base_only), str(f.variant_only), pval(f.p), pval(f.p_bh)]
            for f in comp.mcnemar
        ],
    )
    return lines


def items_lines(st: GameStats, a: Analysis) -> list[str]:
    """The report's section on cards, tiles and characters: the most significant win-share lifts,
    or a line saying the game names no items."""
    head = ["", "## Cards, tiles, characters", ""]
    if not a.items:
        return head + [
            f"{st.game} names no items (a statistics module's ITEMS, docs/adding_a_game.md): "
            "nothing to compare."
        ]
    items = [r for r in a.items if r.p is not None]
    items.sort(key=lambda r: (r.p_bh, -abs(r.lift)))
    n_sig = sum(1 for r in items if r.p_bh < 0.05)
    lines = head + [
        f"{len(items)} comparisons tested (items.csv has every row, including those with too "
        f"few games to test); {n_sig} with BH-adjusted p < 0.05. The 15 most significant:",
        "",
        "![items](items.png)",
        "",
    ]
    return lines + table(
        ["item", "comparison", "with", "without", "lift", "95%", "n with", "n without", "p_bh"],
        [
            [
                r.item,
                r.comparison,
                num(r.rate_with),
                num(r.rate_without),
                num(r.lift),
                interval(r.lo, r.hi),
                str(r.n_with),
                str(r.n_without),
                pval(r.p_bh),
            ]
            for r in items[:15]
        ],
    )


def resources_lines(st: GameStats, a: Analysis) -> list[str]:
    """The table of resources gained and spent per player and game, or a line saying the game
    counts none."""
    if not a.resources:
        return [
            f"{st.game} counts no resources (a statistics module's RESOURCES, "
            "docs/adding_a_game.md)."
        ]
    return table(
        ["resource", "gained", "95%", "spent", "95%"],
        [
            [
                r.resource,
                num(r.gained, ".2f"),
                interval(r.gained_lo, r.gained_hi, ".2f"),
                num(r.spent, ".2f"),
                interval(r.spent_lo, r.spent_hi, ".2f"),
            ]
            for r in a.resources
        ],
    )


def write_report(
    out_dir: str | Path,
    st: GameStats,
    a: Analysis,
    tournament: dict | None = None,
    variant: tuple[GameStats, Analysis, PairedComparison, dict | None] | None = None,
    command: str | None = None,
    response: StrategicResponse | None = None,
) -> list[Path]:
    """report.md, PNG plots, CSV tables, result.json and the stats .npz under out_dir."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    title = f"{st.game}, {st.players} players"
    paths = _write_plots_and_tables(out, st, a, title)
    lines = _intro_lines(st, a, title, tournament, command)
    lines += _seats_lines(a.seats)
    lines += _scores_lines(a.scores)
    lines += _sources_lines(a.sources)
    lines += items_lines(st, a)
    lines += _shape_lines(a)
    lines += _actions_lines(a.actions)
    lines += resources_lines(st, a)
    m = a.measures
    lines += measures_section(m)
    paths.append(write_csv(out / "values.csv", m.source_values + m.item_values))
    if a.skill:
        lines += _skill_lines(a.skill, out)
        paths.append(out / "skill.csv")
    if variant is not None:
        variant_lines, variant_paths = _write_variant(out, st, variant, title)
        lines += variant_lines
        paths += variant_paths
    if response is not None:
        lines += response_section(response)
        paths += [
            write_csv(out / "response.csv", response.rows),
            write_csv(out / "response_actions.csv", response.actions),
        ]
    lines += [""]
    (out / "report.md").write_text("\n".join(lines))
    _write_result_json(out, a, tournament, variant, response)
    return paths + [out / "report.md", out / "result.json"]


def _write_plots_and_tables(out: Path, st: GameStats, a: Analysis, title: str) -> list[Path]:
    """The report's plots, its CSV tables of every section and the stats .npz, under `out`."""
    return [
        plot_seats(a, out / "seats.png", title),
        plot_scores(st, out / "scores.png", title),
        plot_sources(a, out / "sources.png", title),
        plot_items(a, out / "items.png", title),
        plot_shape(st, out / "shape.png", title),
        write_csv(out / "seats.csv", a.seats.seats),
        write_csv(out / "scores.csv", a.scores),
        write_csv(out / "sources.csv", a.sources),
        write_csv(out / "items.csv", a.items),
        write_csv(out / "actions.csv", a.actions),
        write_csv(out / "resources.csv", a.resources),
        write_csv(out / "shape.csv", [{"figure": k, **v.to_json()} for k, v in a.shape.figures()]),
        st.save(out / "stats.npz"),
    ]


def _intro_lines(
    st: GameStats, a: Analysis, title: str, tournament: dict | None, command: str | None
) -> list[str]:
    """The report's title, the tournament's notice, the command, the games and the agents."""
    lines = [f"# Balance study: {title}", ""]
    if tournament is not None and tournament.get("notice"):
        lines += [tournament["notice"], ""]
    if command:
        lines += ["```", command, "```", ""]
    lines += [
        f"{len(st)} games; rules data `{st.rules_data_hash}`. {a.note}",
        "Intervals are 95%; a win shared by k tied winners counts 1/k; p_bh: "
        "Benjamini-Hochberg adjusted over the comparisons of its table.",
        "",
    ]
    if tournament is not None:
        ents = ", ".join(f"`{e['label']}`" for e in tournament["entrants"])
        lines += [
            f"Agents: {ents}; {tournament['stored_games']} games ({tournament['played_now']} "
            f"played now in {tournament['wall_seconds']} s, analysis "
            f"{tournament.get('analysis_seconds', 'n/a')} s); seed {tournament['seed']}.",
            "",
        ]
    return lines


def _seats_lines(seats: SeatAdvantage) -> list[str]:
    """The section on the seat (turn order) advantage: win shares and scores by seat."""
    lines = ["## Seat (turn order) advantage", "", "![seats](seats.png)", ""]
    lines += table(
        ["seat", "games", "win share", "95%", "mean score", "95%"],
        [
            [
                str(s.seat),
                str(s.games),
                num(s.win_share),
                interval(s.win_share_lo, s.win_share_hi),
                num(s.mean_score, ".2f"),
                interval(s.score_lo, s.score_hi, ".2f"),
            ]
            for s in seats.seats
        ],
    )
    lines += [
        "",
        f"Chi-square test of equal win shares: chi2 = {num(seats.chi2, '.2f')}, "
        f"df = {seats.df}, p = {pval(seats.p)}.",
        "",
    ]
    return lines


def _scores_lines(scores: list[ScoreQuantiles]) -> list[str]:
    """The section on the scores: mean and quantiles by seat."""
    lines = ["## Scores", "", "![scores](scores.png)", ""]
    lines += table(
        ["seat", "mean", "95%", "5%", "25%", "median", "75%", "95%"],
        [
            [str(r.seat), num(r.mean, ".2f"), interval(r.lo, r.hi, ".2f")]
            + [num(q, ".0f") for q in (r.q05, r.q25, r.q50, r.q75, r.q95)]
            for r in scores
        ],
    )
    return lines


def _sources_lines(sources: list[SourceShare]) -> list[str]:
    """The section on the points by source of the winners and of the rest (sources that scored
    nothing left out)."""
    lines = ["", "## Points by source: winners and the rest", "", "![sources](sources.png)", ""]
    used = [r for r in sources if r.winners_mean or r.rest_mean]
    lines += table(
        ["source", "winners: mean", "95%", "share", "rest: mean", "95%", "share"],
        [
            [
                r.source,
                num(r.winners_mean, ".2f"),
                interval(r.winners_lo, r.winners_hi, ".2f"),
                num(r.winners_share),
                num(r.rest_mean, ".2f"),
                interval(r.rest_lo, r.rest_hi, ".2f"),
                num(r.rest_share),
            ]
            for r in used
        ],
    )
    lines += [
        "",
        f"Sources that scored nothing in these games are left out ({len(sources) - len(used)}"
        "; sources.csv has every row). Shares: of all points the side scored.",
    ]
    return lines


def _shape_lines(a: Analysis) -> list[str]:
    """The section on how games are decided (and the deaths per player, where there are any)."""
    sh = a.shape
    lines = ["", "## How games are decided", "", "![shape](shape.png)", ""]
    lines += table(
        ["figure", "mean", "95%", "n"],
        [[k, num(v.mean, ".2f"), interval(v.lo, v.hi, ".2f"), str(v.n)] for k, v in sh.figures()],
    )
    lines += [
        "",
        f"Truncated by the round cap: {sh.truncated} of {sh.games}. Decided at: the share "
        "of score snapshots (one per round, one after final scoring) before the one from which "
        "the final winner led alone to the end (0 = from the first round; 1 = never alone, a "
        "tie-break win; shared wins excluded).",
    ]
    if a.deaths:
        d = a.deaths
        spread = interval(d.lo, d.hi, ".2f")
        lines += ["", f"Deaths per player: {num(d.mean, '.2f')} {spread}."]
    return lines


def _actions_lines(actions: list[ActionFrequency]) -> list[str]:
    """The head of the section on actions and resources: the table of action kinds."""
    lines = ["", "## Actions and resources", ""]
    lines += table(
        ["action kind", "per player and game", "95%", "share"],
        [
            [
                r.kind,
                num(r.per_player_game, ".2f"),
                interval(r.lo, r.hi, ".2f"),
                num(r.share),
            ]
            for r in actions
        ],
    )
    lines += [""]
    return lines


def _skill_lines(pw: dict, out: Path) -> list[str]:
    """The section on skill sensitivity: every agent's score against every other (the
    tournament's pairwise table `pw`); writes the same table to skill.csv under `out`."""
    names = pw["entrants"]
    lines = [
        "",
        "## Skill sensitivity",
        "",
        "Row agent's score against the column agent (win 1, tie 0.5) with its Wilson 95% "
        "interval; `*`: Holm-adjusted p < 0.05 against an even pair.",
        "",
    ]
    cells = []
    for i, a_name in enumerate(names):
        row = [a_name]
        for j in range(len(names)):
            r, lo, hi = pw["rate"][i][j], pw["lo"][i][j], pw["hi"][i][j]
            ph = pw["p_holm"][i][j]
            mark = "*" if ph is not None and ph < 0.05 else ""
            cell = f"{r:.2f}{mark} {interval(lo, hi, '.2f')}" if r is not None else "-"
            row.append("-" if i == j else cell)
        cells.append(row)
    lines += table(["vs"] + names, cells)
    write_csv(
        out / "skill.csv",
        [{"agent": c[0], **dict(zip(names, c[1:], strict=True))} for c in cells],
    )
    return lines


def _write_variant(
    out: Path,
    st: GameStats,
    variant: tuple[GameStats, Analysis, PairedComparison, dict | None],
    title: str,
) -> tuple[list[str], list[Path]]:
    """The section comparing the rules variant with the base game, and the files behind it: the
    variant's full report under `out`/variant, its comparison plot and CSV tables."""
    vst, va, comp, vt = variant
    lines = variant_section(st, vst, comp, (vt or {}).get("rules_file"))
    vdir = out / "variant"
    paths = write_report(vdir, vst, va, vt)
    paths += [
        plot_variant(comp, st.rules_data_hash, vst.rules_data_hash, out / "variant.png", title),
        write_csv(out / "variant.csv", comp.rows),
        write_csv(out / "variant_wins.csv", comp.mcnemar),
    ]
    lines += ["", "The variant's full report: [variant/report.md](variant/report.md)."]
    return lines, paths


def _write_result_json(
    out: Path,
    a: Analysis,
    tournament: dict | None,
    variant: tuple[GameStats, Analysis, PairedComparison, dict | None] | None,
    response: StrategicResponse | None,
) -> None:
    """result.json under `out`: the analysis, the tournament, the variant's analysis and
    comparison and the strategic response, where there are any."""
    result = {"analysis": a.to_json(), "tournament": tournament}
    if variant is not None:
        result["variant"] = {"analysis": variant[1].to_json(), "comparison": variant[2].to_json()}
    if response is not None:
        result["strategic_response"] = response.to_json()
    (out / "result.json").write_text(json.dumps(result, indent=1, default=json_default) + "\n")
