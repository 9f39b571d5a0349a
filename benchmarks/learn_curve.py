"""Win rate against `heuristic` over training wall-clock: the default run with the settings it
replaced ("before", benchmarks/learn.py) and with today's ("new"), several training seeds each.

    python -m benchmarks.learn_curve --game village --settings new --seeds 0,1,2
    python -m benchmarks.learn_curve --game village --settings before --timesteps-before 300000

Each run trains the game's default run (its default length; `--timesteps-before` gives the
"before" runs the length the default run had then) and is then evaluated like the main
job: 200 games against `random` and 200 against `heuristic`, seats rotated, seeded. Writes
OUT/<game>.json (every run's learning curve, evaluations, settings, RULES_DATA_HASH, machine) and
OUT/<game>.png: the rolling win rate of the last 200 training games against `heuristic` (the
learner sampling its policy) against seconds of training, one line per run, and each run's final
evaluation (its greedy policy, 200 games, 95% Wilson interval) at the end of its line. Runs one
after another on this machine (about 5 minutes of training each, plus evaluation).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import sys
import time
from pathlib import Path

from benchmarks.learn import config, switches
from benchmarks.run import machine_info
from core.registry import game_names, get_game
from training.arena.evaluate import evaluate
from training.learn.train import train

OUT = Path(__file__).parent / "results" / "learn"


def one_run(
    game: str, settings: str, seed: int, out: Path, games: int, timesteps: int | None = None
) -> dict:
    """Train the default run of `game` with `settings` and `seed` (and `timesteps`, default the
    default run's) into out, evaluate it."""
    cfg = config(game, 2, settings, timesteps, str(out), seed=seed, tensorboard=True)
    with switches(settings):
        summary = train(cfg)
    final = summary["final_checkpoint"]
    evals = {}
    for opp in ("random", "heuristic"):
        ev = evaluate(game, 2, [final, opp], games, seed=seed + 1, progress=False)
        me = ev["agents"][0]
        evals[opp] = {
            "games": ev["games"],
            "win_rate": me["win_rate"],
            "win_rate_ci95": me["win_rate_ci95"],
            "mean_score": me["mean_score"],
        }
    with open(out / "progress.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    curve = [
        [float(r["elapsed_s"]), float(r["win_rate_vs_heuristic"])]
        for r in rows
        if r.get("win_rate_vs_heuristic")
    ]
    return {
        "settings": settings,
        "seed": seed,
        "config": {
            k: getattr(cfg, k)
            for k in ("n_envs", "n_steps", "batch_size", "n_epochs", "net_arch", "engine_threads")
        }
        | {"torch_threads": cfg.torch_threads, "timesteps": cfg.timesteps},
        "train_wall_s": summary["wall_s"],
        "learner_steps_per_s": summary["env_steps_per_s"],
        "evaluations": evals,
        "curve": curve,
    }


def plot(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8))
    colours = {"before": "tab:grey", "new": "tab:blue"}
    for run in res["runs"]:
        c = colours[run["settings"]]
        xs = [x for x, _ in run["curve"]]
        ys = [y for _, y in run["curve"]]
        label = f"{run['settings']} (seed {run['seed']})"
        ax.plot(xs, ys, color=c, alpha=0.8, lw=1.2, label=label)
        ev = run["evaluations"]["heuristic"]
        lo, hi = ev["win_rate_ci95"]
        end = run["train_wall_s"]
        ax.errorbar(
            [end], [ev["win_rate"]], yerr=[[ev["win_rate"] - lo], [hi - ev["win_rate"]]],
            fmt="o", color=c, capsize=3,
        )  # fmt: skip
    n = res["runs"][0]["evaluations"]["heuristic"]["games"]
    seeds = ", ".join(
        f"{k}: {sum(r['settings'] == k for r in res['runs'])} training seeds"
        for k in ("before", "new")
        if any(r["settings"] == k for r in res["runs"])
    )
    ax.set_xlabel("seconds of training (2 CPU cores)")
    ax.set_ylabel("win rate against heuristic")
    ax.set_ylim(0, 1.02)
    ax.set_title(
        f"{res['game']}, 2 players: default run, settings before vs new ({seeds})\n"
        f"lines: rolling win rate of the last 200 training games; dots: final evaluation, "
        f"N={n} games, 95% Wilson; rules {res['rules_data_hash']}",
        fontsize=8,
    )
    handles, labels = ax.get_legend_handles_labels()
    seen = {}
    for h, lab in zip(handles, labels, strict=True):
        seen.setdefault(lab.split(" (")[0], h)
    ax.legend(seen.values(), seen.keys(), loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.learn_curve", description=__doc__)
    p.add_argument("--game", choices=game_names(), required=True)
    p.add_argument("--seeds", default="0,1,2", help="training seeds, comma list")
    p.add_argument("--settings", default="before,new", help="comma list of before, new")
    p.add_argument("--games", type=int, default=200, help="evaluation games per opponent")
    p.add_argument(
        "--timesteps-before",
        type=int,
        help="length of the 'before' runs (the default run's length before the new settings; "
        "default: today's default run length)",
    )
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--work", default="runs/learn_curve", help="where the training runs go")
    args = p.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    settings = [s.strip() for s in args.settings.split(",")]
    if not set(settings) <= {"before", "new"}:
        p.error("--settings: a comma list of before, new")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    runs = []
    for s in settings:
        for seed in seeds:
            work = Path(args.work) / f"{args.game}-{s}-{seed}-{stamp}"
            print(f"{args.game} {s} seed {seed} -> {work}", file=sys.stderr, flush=True)
            steps = args.timesteps_before if s == "before" else None
            runs.append(one_run(args.game, s, seed, work, args.games, steps))
    path = out / f"{args.game}.json"
    if path.exists():  # runs of other settings or seeds stay; these replace their namesakes
        mine = {(r["settings"], r["seed"]) for r in runs}
        old = json.loads(path.read_text())
        if old.get("rules_data_hash") == get_game(args.game).RULES_DATA_HASH:
            runs = [r for r in old["runs"] if (r["settings"], r["seed"]) not in mine] + runs
        settings = sorted({r["settings"] for r in runs})
    res = {
        "command": "python -m benchmarks.learn_curve " + " ".join(sys.argv[1:]),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "game": args.game,
        "players": 2,
        "rules_data_hash": get_game(args.game).RULES_DATA_HASH,
        "machine": machine_info(),
        "runs": runs,
    }
    for s in settings:
        mine = [r for r in runs if r["settings"] == s]
        res[f"mean_{s}"] = {
            opp: sum(r["evaluations"][opp]["win_rate"] for r in mine) / len(mine)
            for opp in ("random", "heuristic")
        }
    path.write_text(json.dumps(res, indent=2) + "\n")
    plot(res, out / f"{args.game}.png")
    print(json.dumps({k: v for k, v in res.items() if k.startswith("mean_")}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
