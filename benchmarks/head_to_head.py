"""Pairwise comparisons inside the games of one multi-player evaluation: for every two agents
that sat at the same tables, the share of games in which the first finished ahead of the second
(rank better; equal ranks count one half), with its 95% Wilson interval, and a two-sided sign
test over the games they did not tie, Holm-corrected over the pairs.

    python -m benchmarks.head_to_head runs/exp/v4-opp.json [--out FILE.json]

Reads the JSON that `vtrl evaluate --json FILE` writes. Every game of such a run seats every
agent, so each pair is compared on the same deals (paired by construction): a variant that
finishes ahead of another at the same tables on most deals is the better one at that table
size, whatever the other seats were.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scipy.stats import binomtest

from training.arena.ratings import wilson_interval


def labels(result: dict) -> list[str]:
    """The agents' labels in the order of the run's `--agents` (duplicates numbered #k)."""
    return [a.get("label") or a.get("agent") or a["spec"] for a in result["agents"]]


def pairwise(result: dict) -> list[dict]:
    """One row per ordered pair (i < j) of the run's agents: games, i ahead, j ahead, ties,
    i's share (ties one half) with its Wilson interval, the sign test's p and Holm's p."""
    names = labels(result)
    n = len(names)
    rows = []
    for i in range(n):
        for j in range(i + 1, n):
            ahead = behind = ties = 0
            for rec in result["games_played"]:
                ri = rec["ranks"][rec["seats"][i]]
                rj = rec["ranks"][rec["seats"][j]]
                ahead += ri < rj
                behind += ri > rj
                ties += ri == rj
            games = ahead + behind + ties
            share = (ahead + 0.5 * ties) / games if games else 0.0
            lo, hi = wilson_interval(ahead + 0.5 * ties, games)
            decided = ahead + behind
            p = binomtest(ahead, decided, 0.5).pvalue if decided else 1.0
            rows.append(
                {
                    "first": names[i],
                    "second": names[j],
                    "games": games,
                    "first_ahead": ahead,
                    "second_ahead": behind,
                    "ties": ties,
                    "share": share,
                    "share_ci95": [lo, hi],
                    "p_sign": p,
                }
            )
    order = sorted(range(len(rows)), key=lambda k: rows[k]["p_sign"])
    running = 0.0
    for rank, k in enumerate(order):  # Holm's step-down adjustment, kept monotone
        running = max(running, min(1.0, (len(rows) - rank) * rows[k]["p_sign"]))
        rows[k]["p_holm"] = running
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.head_to_head", description=__doc__)
    p.add_argument("result", help="an evaluation JSON (vtrl evaluate --json)")
    p.add_argument("--out", help="write the rows here as JSON")
    a = p.parse_args(argv)
    result = json.loads(Path(a.result).read_text())
    rows = pairwise(result)
    print(
        f"{result['game']}, {result['players']} players, {result['games']} games (seed "
        f"{result['seed']}), rules_data_hash {result['rules_data_hash']}"
    )
    for r in rows:
        lo, hi = r["share_ci95"]
        print(
            f"{r['first']} ahead of {r['second']}: {r['share']:.3f} [{lo:.3f}, {hi:.3f}] "
            f"({r['first_ahead']}-{r['second_ahead']}, {r['ties']} ties; sign test "
            f"p={r['p_sign']:.2g}, Holm {r['p_holm']:.2g})"
        )
    if a.out:
        Path(a.out).write_text(json.dumps({"source": a.result, "pairs": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
