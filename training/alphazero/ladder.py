"""The evaluation ladder of an expert-iteration run, and its learning curve.

Every evaluation plays a checkpoint, with the search (`az:CKPT,sims=S`) and alone (`sims=0`),
against each agent of the ladder as a tournament (training.arena.tournament: seats rotated on
common deals, every game stored in the run's `ladder.sqlite`, which `python -m training.view`
replays); at P players the checkpoint sits with P-1 copies of the ladder agent. Per pairing it
keeps the checkpoint's win share with its 95% Wilson interval and N, and its rating against that
agent: the Elo difference 400 log10(s / (1 - s)) of its pairwise score share s against the
agent's seats, with the interval mapped from the score's Wilson interval (at most +-800, where
the share is 0 or 1). The rating is against a fixed opponent, so it compares across
checkpoints; it does not depend on the order the games were played.

`plot_curve` draws win share and rating against wall-clock hours and against games played, one
line per pairing with its intervals, N and RULES_DATA_HASH in the title.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

LADDER_DB = "ladder.sqlite"
ELO_CAP = 800.0


def elo(share: float) -> float:
    """The Elo difference of a score share (capped at +-ELO_CAP)."""
    if share <= 0.0:
        return -ELO_CAP
    if share >= 1.0:
        return ELO_CAP
    return max(-ELO_CAP, min(ELO_CAP, 400.0 * math.log10(share / (1.0 - share))))


def evaluate_ladder(
    game: str, players: int, checkpoint: str | Path, sims: tuple[int, ...], ladder: tuple[str, ...],
    games: int, db: str | Path, seed: int = 0, workers: int = 1, rules_file: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """{"sims=S vs OPP": {win_rate, win_rate_ci95, games, elo, elo_ci95}} for each S and OPP
    (module docstring); `rules_file`: played under that rules variant."""
    from training.arena.ratings import wilson_interval
    from training.arena.tournament import run_tournament

    out: dict[str, Any] = {}
    for s in sims:
        hero = f"az:{checkpoint},sims={s}"
        for opp in ladder:
            res = run_tournament(
                game, players, [hero] + [opp] * (players - 1), games, db, workers=workers,
                seed=seed, progress=False, n_boot=1, rules_file=rules_file,
            )  # fmt: skip
            board = res["board"]
            name = next(e["label"] for e in res["entrants"] if e["spec"] == hero)  # as shown
            me = next(e for e in board["entrants"] if e["name"] == name)
            pw = board["pairwise"]
            i = pw["entrants"].index(name)
            n = sum(x for x in pw["n"][i] if x)
            score = sum(x for x in pw["score"][i] if x)
            lo, hi = wilson_interval(score, int(n))
            out[f"sims={s} vs {opp}"] = {
                "win_rate": me["win_share"],
                "win_rate_ci95": me["win_share_ci95"],
                "games": me["games"],
                "elo": round(elo(score / n), 1),
                "elo_ci95": [round(elo(lo), 1), round(elo(hi), 1)],
            }
    return out


def plot_curve(history: list[dict[str, Any]], path: str | Path, title: str) -> Path | None:
    """Win share and Elo of every pairing of the evaluated rows of `history` (progress.json)
    against hours and games played, into `path` (PNG); None when no row has an evaluation."""
    rows = [r for r in history if r.get("eval")]
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(rows[-1]["eval"])
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharey="row")
    for col, (xkey, xlabel, scale) in enumerate(
        (("seconds", "wall-clock hours", 3600.0), ("games", "games played", 1.0))
    ):
        for key in keys:
            for row, (y, ci) in enumerate((("win_rate", "win_rate_ci95"), ("elo", "elo_ci95"))):
                pts = [r for r in rows if y in r["eval"].get(key, {})]
                x = [r[xkey] / scale for r in pts]
                ys = [r["eval"][key][y] for r in pts]
                lo = [r["eval"][key][ci][0] for r in pts]
                hi = [r["eval"][key][ci][1] for r in pts]
                ax = axes[row][col]
                ax.plot(x, ys, marker="o", label=key)
                ax.fill_between(x, lo, hi, alpha=0.15)
        axes[0][col].set_ylim(0, 1)
        axes[0][col].axhline(0.5, color="grey", lw=0.5)
        axes[1][col].axhline(0.0, color="grey", lw=0.5)
        axes[1][col].set_xlabel(xlabel)
    axes[0][0].set_ylabel("win share (95% Wilson)")
    axes[1][0].set_ylabel("Elo vs the opponent (95%)")
    axes[0][1].legend(fontsize=7)
    n = rows[-1]["eval"][keys[0]]["games"]
    fig.suptitle(f"{title}; N = {n} games per point", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)
