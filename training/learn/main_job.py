"""The main job: train the default run on a game, evaluate it against the baseline bots, report.

    python -m training.learn.main_job                      # the default run (about ten minutes)
    python -m training.learn.main_job --out runs/main --games 200 --seed 0
    python -m training.learn.main_job --game troyes        # the same on 2-player Troyes

Trains `python -m training.learn.train` with its defaults (2-player Village unless --game), then
plays the final checkpoint against `random` and against `heuristic` (seats rotated, seeded) and
prints one table.
Writes OUT/main_job.json with the training summary, both evaluations and RULES_DATA_HASH: the
rules data is provisional, so every figure holds for that hash only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from core.registry import default_game, game_names
from training.agents.checkpoint import CheckpointError
from training.arena.cli import OneLineParser
from training.arena.evaluate import evaluate
from training.learn.train import TrainConfig, train


def run_main_job(
    out: str = "runs/main",
    games: int = 200,
    seed: int = 0,
    timesteps: int | None = None,
    progress: bool = True,
    game: str | None = None,
) -> dict[str, Any]:
    """Train the default configuration into `out`, evaluate it, return and save the report."""
    if games <= 0 or games % 2:
        raise ValueError(f"--games must be a positive even number (2 seats), got {games}")
    cfg = TrainConfig(game=game or default_game(), out=out, seed=seed, progress_bar=progress)
    if timesteps is not None:
        cfg.timesteps = timesteps
    summary = train(cfg)
    final = summary["final_checkpoint"]
    evals = {
        opp: evaluate(cfg.game, cfg.players, [final, opp], games, seed=seed + 1, progress=progress)
        for opp in ("random", "heuristic")
    }
    report = {
        "command": "python -m training.learn.main_job " + " ".join(sys.argv[1:]),
        "train": summary,
        "evaluations": {
            k: {kk: vv for kk, vv in v.items() if kk != "games_played"} for k, v in evals.items()
        },
        "rules_data_hash": summary["rules_data_hash"],
        "note": evals["random"]["note"],
    }
    Path(out, "main_job.json").write_text(json.dumps(report, indent=2))
    return report


def format_report(report: dict[str, Any]) -> str:
    """The main job's results as one plain-text table."""
    t = report["train"]
    lines = [
        f"PPO agent: {t['game']}, {t['players']} players, {t['timesteps']} steps in "
        f"{t['wall_s']} s ({t['env_steps_per_s']} env steps/s, {t['device']})",
        f"{'opponent':<10}  games  PPO win rate  95% CI          PPO mean score  "
        "opp mean score  truncated",
    ]
    for opp, ev in report["evaluations"].items():
        me, other = ev["agents"]
        lo, hi = me["win_rate_ci95"]
        lines.append(
            f"{opp:<10}  {ev['games']:5d}  {me['win_rate']:12.3f}  [{lo:.3f}, {hi:.3f}]"
            f"  {me['mean_score']:14.2f}  {other['mean_score']:14.2f}  "
            f"{me['truncated_games']:9d}"
        )
    lines.append(f"rules_data_hash {report['rules_data_hash']}: {report['note']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = OneLineParser(
        prog="python -m training.learn.main_job",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--game",
        choices=game_names(),
        default=default_game(),
        help=f"game to train and evaluate on (2 players), default {default_game()}",
    )
    p.add_argument(
        "--out",
        default=None,
        help="run folder (default: a new runs/main-YYYYmmdd-HHMMSS, so reruns work)",
    )
    p.add_argument("--games", type=int, default=200, help="games against each bot (even)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timesteps", type=int, help="override the default run's length")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.timesteps is not None and args.timesteps <= 0:
        p.error("--timesteps must be positive")
    if args.out is None:
        args.out = time.strftime("runs/main-%Y%m%d-%H%M%S")
        if args.game != default_game():
            args.out = time.strftime(f"runs/main-{args.game}-%Y%m%d-%H%M%S")
    try:
        report = run_main_job(
            args.out,
            args.games,
            args.seed,
            args.timesteps,
            progress=not args.no_progress,
            game=args.game,
        )
    except (ValueError, CheckpointError) as e:
        p.error(str(e))
    print(format_report(report))
    print(f"saved {Path(args.out, 'main_job.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
