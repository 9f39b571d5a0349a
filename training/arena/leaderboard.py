"""Reports of a ``training.arena.ratings.leaderboard`` dict: rich table, Markdown, PNG plots.

The plots use matplotlib's object-oriented API (``Figure`` with an Agg canvas), so they never touch
pyplot or change the global backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


def _f(x: float | None, fmt: str = ".3f") -> str:
    return "-" if x is None else format(x, fmt)


def _ci(pair: Sequence[float | None], fmt: str = ".3f") -> str:
    return f"[{_f(pair[0], fmt)}, {_f(pair[1], fmt)}]"


def rank_text(rank_range: Sequence[int]) -> str:
    """A rank range as the "#" column shows it: "2" when certain, "1-3" when shared."""
    best, worst = rank_range
    return str(best) if best == worst else f"{best}-{worst}"


def _rows(board: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the main table, shared by the rich and the Markdown renderings."""
    header = [
        "#",
        "entrant",
        "games",
        "strength, Elo [95%]",
        "win share [95%]",
        "mean rank [95%]",
        "openskill mu ± sigma (sequential)",
        f"mu across {board['n_orders']} game orders (2.5-97.5%)",
    ]
    cells = []
    for row in board["entrants"]:
        cells.append(
            [
                rank_text(row["rank_range"]),
                row["name"],
                str(row["games"]),
                f"{row['strength']:+.0f} {_ci(row['strength_ci95'], '+.0f')}",
                f"{_f(row['win_share'])} {_ci(row['win_share_ci95'])}",
                f"{_f(row['mean_rank'], '.2f')} {_ci(row['mean_rank_ci95'], '.2f')}",
                f"{row['mu']:.2f} ± {row['sigma']:.2f}",
                _ci(row["mu_order_range"], ".2f"),
            ]
        )
    return header, cells


def _caption(board: dict[str, Any]) -> str:
    players = ", ".join(f"{n}p: {c}" for n, c in board["players"].items()) or "none"
    level = board["strength_tests"]["level"]
    return (
        f"{board['games']} games ({players}). Order and strength: Plackett-Luce (2 players: "
        f"Bradley-Terry) fitted to all games at once, ties half a win, prior sd "
        f"{board['prior_sd']:g} Elo, 95% profile-likelihood intervals relative to the field's "
        f"mean. # is the rank range: entrants that a likelihood-ratio test of equal strength does "
        f"not tell apart (Holm over every pair, family-wise {level:g}) share ranks. openskill mu "
        f"is sequential: it depends on the order of the games (its range over "
        f"{board['n_orders']} random orders, seed {board['seed']})"
    )


TERMINAL_COLUMNS = 6  # the terminal table keeps the fitted figures; openskill's are in the report


def rich_table(board: dict[str, Any], title: str) -> Table:
    """The leaderboard as a rich Table (entrants by Plackett-Luce strength): the first
    TERMINAL_COLUMNS columns of the report's table, so that it fits a 100-column terminal
    (the sequential openskill figures are in leaderboard.md and result.json)."""
    header, cells = _rows(board)
    header = header[:TERMINAL_COLUMNS]
    cells = [line[:TERMINAL_COLUMNS] for line in cells]
    table = Table(title=title, caption=_caption(board).split(". openskill mu")[0] + ".")
    for i, col in enumerate(header):
        table.add_column(col, justify="left" if i == 1 else "right")
    for line in cells:
        table.add_row(*line)
    return table


def print_board(board: dict[str, Any], title: str, console: Console | None = None) -> None:
    """Print the leaderboard table to ``console`` (a new rich Console by default)."""
    (console or Console()).print(rich_table(board, title))


def _md_table(header: list[str], cells: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(line) + " |" for line in cells]


def markdown(board: dict[str, Any], title: str, notes: Sequence[str] = ()) -> str:
    """The leaderboard as Markdown: main table, pairwise win-rate matrix, then the notes."""
    header, cells = _rows(board)
    out = [f"## {title}", "", _caption(board) + ".", ""]
    out += _md_table(header, cells)
    pw = board["pairwise"]
    names = pw["entrants"]
    matrix = []
    for i, a in enumerate(names):
        line = [a]
        for j in range(len(names)):
            n = pw["n"][i][j]
            if i == j or not n:
                line.append("-")
            else:
                p_holm = (pw.get("p_holm") or [[None] * len(names)] * len(names))[i][j]
                mark = "*" if p_holm is not None and p_holm < 0.05 else ""
                line.append(
                    f"{pw['rate'][i][j]:.2f}{mark} [{pw['lo'][i][j]:.2f}, {pw['hi'][i][j]:.2f}] "
                    f"({n:.0f})"
                )
        matrix.append(line)
    out += [
        "",
        "Pairwise score of the row against the column: rate [95% Wilson] (games); * the pair "
        "differs from even at family-wise level 0.05 (Holm correction over every pair).",
        "",
    ]
    out += _md_table(["row vs column", *names], matrix)
    if notes:
        out += [""] + list(notes)
    return "\n".join(out) + "\n"


def _short(name: str, width: int = 34) -> str:
    """A plot label: a long name (a checkpoint path, an mcts spec) keeps its start and its end."""
    if len(name) <= width:
        return name
    head = (width - 1) // 2
    return name[:head] + "…" + name[-(width - 1 - head) :]


def figure(width: float, height: float):
    """A matplotlib Figure of that size (inches), constrained layout, drawn off-screen (Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def plot_ratings(board: dict[str, Any], path: str | Path) -> None:
    """PNG: Plackett-Luce strength per entrant (best on top) with its 95% interval; each label
    carries the entrant's rank range."""
    rows = board["entrants"]
    labels = [f"{rank_text(r['rank_range'])}. {_short(r['name'])}" for r in rows]
    fig = figure(
        4.5 + 0.07 * max((len(x) for x in labels), default=0),
        1.2 + 0.45 * max(len(rows), 1),
    )
    ax = fig.add_subplot()
    for y, row in enumerate(rows):
        lo, hi = row["strength_ci95"]
        ax.hlines(y, lo, hi, color="tab:blue", linewidth=2)
        ax.vlines([lo, hi], y - 0.15, y + 0.15, color="tab:blue")
        ax.plot(row["strength"], y, "o", color="black")
    ax.set_yticks(range(len(rows)), labels)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("Plackett-Luce strength, Elo (95% profile interval); label: rank range")
    ax.grid(axis="x", alpha=0.3)
    fig.savefig(path, dpi=120)


def plot_heatmap(board: dict[str, Any], path: str | Path) -> None:
    """PNG: pairwise score rate of row against column, annotated with the rate and games."""
    import numpy as np

    pw = board["pairwise"]
    names = pw["entrants"]
    k = len(names)
    rate = np.array([[np.nan if v is None else v for v in line] for line in pw["rate"]], float)
    rate = rate.reshape(k, k)
    labels = [_short(name) for name in names]
    room = 0.07 * max((len(x) for x in labels), default=0)  # inches for the tick labels
    fig = figure(1.6 + room + 0.9 * max(k, 1), 1.2 + room + 0.8 * max(k, 1))
    ax = fig.add_subplot()
    im = ax.imshow(np.ma.masked_invalid(rate), cmap="RdBu", vmin=0.0, vmax=1.0)
    for i in range(k):
        for j in range(k):
            n = pw["n"][i][j]
            if i != j and n:
                color = "white" if abs(rate[i, j] - 0.5) > 0.3 else "black"  # legible on dark cells
                label = f"{rate[i, j]:.2f}\n({n:.0f})"
                ax.text(j, i, label, ha="center", va="center", fontsize=8, color=color)
    ax.set_xticks(range(k), labels, rotation=45, ha="right")
    ax.set_yticks(range(k), labels)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("entrant (row)")
    fig.colorbar(im, ax=ax, label="score rate of row vs column")
    fig.savefig(path, dpi=120)
