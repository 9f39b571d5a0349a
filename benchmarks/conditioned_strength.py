"""The strength rows of a conditioned network (training.alphazero --conditioned) against the
networks shipped per player count, at the game's own rules and under rules variants.

    python -m benchmarks.conditioned_strength --game G --network RUN/final --out DIR \
        [--rows own,mcts,variants] [--seed S] [--workers W]
    python -m benchmarks.conditioned_strength --game G --out DIR --table

Rows (every one through `training.arena.evaluate`, seats rotated, one JSON per row in DIR,
named for the row; a row whose JSON exists is not played again, so a stopped run goes on):

- `own`: at the game's own rules, 2/3/4 players, the conditioned `az` (100 simulations) at a
  table with N-1 copies of the per-count `az:az-Np` (100 simulations). Its bar: the win share's
  interval reaches 1/N, the point >= 1/N - 0.03.
- `mcts`: the conditioned `az` (100 simulations) against N-1 default `mcts`, 2/3/4 players
  (today's rows: >= 0.55 / 0.50 / 0.40, with the best mean rank).
- `variants`: under each file of `--variants` (default: the game's drawn variants in
  benchmarks/results/conditioned/variants/ and its worked study's variant in
  docs/rules_variants/), the conditioned network alone (`sims=0`) against the unadapted
  per-count network alone (`az:az-Np,rules=any,sims=0`): at 2 players one each (bar 0.60), at
  4 players one conditioned seat and three unadapted (bar 0.40).

With the search, the conditioned network plays at each count with the search settings its
sidecar records for that count (`search_by_players`, a shipped network's), else those of the
per-count network of that count (the settings
the network it would replace was measured with); `--search N=PARAMS` sets them by hand.

Games: 200 per row, 201 at 3 players (a multiple of the count). `--table` prints the rows found
in DIR as a markdown table (win share, 95% Wilson interval, games, chance, bar, mean ranks).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from core.registry import get_game
from training.agents.az_agent import SIDECAR, network_folder, per_count_name, recorded_search
from training.arena import evaluate

COUNTS = (2, 3, 4)
MCTS_BAR = {2: 0.55, 3: 0.50, 4: 0.40}
VARIANT_BAR = {2: 0.60, 4: 0.40}
WORKED = {"village": "village_mass_bonus_12.json", "troyes": "troyes_cathedral_4.json"}
REPO = Path(__file__).resolve().parent.parent


def games_at(n: int) -> int:
    return 201 if n == 3 else 200


def variant_files(game: str) -> list[Path]:
    """The drawn variants of `game` and its worked study's variant, in that order."""
    drawn = sorted((REPO / "benchmarks/results/conditioned/variants").glob(f"{game}-drawn-*.json"))
    worked = [REPO / "docs/rules_variants" / WORKED[game]] if game in WORKED else []
    return drawn + [p for p in worked if p.exists()]


def search_at(game: str, network: str, n: int, given: dict[int, str]) -> str:
    """The conditioned network's search parameters at `n` players (module docstring)."""
    if n in given:
        return given[n]
    g = get_game(game)
    meta = json.loads((network_folder(network, g) / SIDECAR).read_text())
    if str(n) in (meta.get("search_by_players") or {}):  # a shipped network's own, per count
        return recorded_search(meta, n)
    folder = network_folder(per_count_name(n), g)
    return recorded_search(json.loads((folder / SIDECAR).read_text()), n)


def rows(
    game: str, network: str, which: set[str], variants: list[Path], given: dict[int, str]
) -> list[dict]:
    """Every row of `which` as {name, players, agents, rules, bar, chance}."""
    out = []
    for n in COUNTS:
        search = search_at(game, network, n, given)
        me = f"az:{network}" + (f",{search}" if search else "")
        if "own" in which:
            them = [f"az:az-{n}p"] * (n - 1)
            out.append(dict(name=f"own-{n}p", players=n, agents=[me, *them], rules=None,
                            bar=f">= {1 / n - 0.03:.3f}, reaching {1 / n:.3f}"))  # fmt: skip
        if "mcts" in which:
            out.append(dict(name=f"mcts-{n}p", players=n, agents=[me, *["mcts"] * (n - 1)],
                            rules=None, bar=f">= {MCTS_BAR[n]:.2f}, best mean rank"))  # fmt: skip
    if "variants" in which:
        for path in variants:
            for n in VARIANT_BAR:
                them = [f"az:az-{n}p,rules=any,sims=0"] * (n - 1)
                out.append(dict(name=f"variant-{path.stem}-{n}p", players=n,
                                agents=[f"az:{network},sims=0", *them], rules=str(path),
                                bar=f">= {VARIANT_BAR[n]:.2f}"))  # fmt: skip
    for r in out:
        r["chance"] = round(1 / r["players"], 3)
    return out


def play(game: str, row: dict, out: Path, seed: int, workers: int) -> Path:
    path = out / f"{row['name']}.json"
    if path.exists():
        return path
    argv = ["--game", game, "--players", str(row["players"]), "--agents", *row["agents"]]
    argv += ["--games", str(games_at(row["players"])), "--seed", str(seed)]
    argv += ["--workers", str(workers), "--json", str(path), "--no-progress"]
    if row["rules"]:
        argv += ["--rules", row["rules"]]
    print(f"{row['name']}: python -m training.arena.evaluate {' '.join(argv)}", flush=True)
    rc = evaluate.main(argv)
    if rc:
        raise SystemExit(f"{row['name']}: evaluate exited {rc}")
    return path


def table(out: Path) -> str:
    """The rows of DIR as markdown."""
    lines = [
        "| row | rules | games | conditioned win share [95%] | chance | mean rank: it / best |",
        "|---|---|---:|---|---:|---|",
    ]
    for path in sorted(out.glob("*.json")):
        d = json.loads(path.read_text())
        if "agents" not in d:
            continue
        me, others = d["agents"][0], d["agents"][1:]
        lo, hi = me["win_rate_ci95"]
        best = min(o["mean_rank"] for o in others)
        lines.append(
            f"| {path.stem} | `{d['rules_data_hash']}` | {d['games']} | "
            f"{me['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] | {1 / d['players']:.3f} | "
            f"{me['mean_rank']:.2f} / {best:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.conditioned_strength",
                                 description=__doc__.split("\n\n")[0])  # fmt: skip
    ap.add_argument("--game", required=True)
    ap.add_argument("--network", help="the conditioned network: a run's final/ or a checkpoint")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--rows", default="own,mcts,variants")
    ap.add_argument("--variants", nargs="*", type=Path, help="default: the drawn and worked ones")
    ap.add_argument("--seed", type=int, default=1207)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--search", nargs="*", default=[], help="N=PARAMS: search at N players")
    ap.add_argument("--table", action="store_true", help="print the rows found in --out")
    a = ap.parse_args(argv)
    get_game(a.game)
    if a.table:
        print(table(a.out))
        return 0
    which = {x.strip() for x in a.rows.split(",") if x.strip()}
    if not which <= {"own", "mcts", "variants"} or not a.network:
        ap.error("--rows takes own, mcts, variants; --network is needed to play")
    a.out.mkdir(parents=True, exist_ok=True)
    variants = a.variants if a.variants else variant_files(a.game)
    given = {}
    for item in a.search:
        n, sep, params = item.partition("=")
        if not sep or not n.strip().isdigit():
            ap.error(f"--search takes N=PARAMS, e.g. 4=root=gumbel,opp=prior; got {item!r}")
        given[int(n)] = params
    for row in rows(a.game, a.network, which, variants, given):
        play(a.game, row, a.out, a.seed, a.workers)
    print(table(a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
