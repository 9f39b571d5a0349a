"""Plan a balance study: games needed, a sequential study that stops when it has seen enough,
replicates over tournament seeds (training.balance.sizing has the statistics).

    python -m training.balance.plan --edge 0.05 --players 2
    python -m training.balance.plan --edge 0.05 --players 2 --paired --changed-share 0.3
    python -m training.balance.plan --sequential --game village --players 2 --agents heuristic \\
        --db runs/balance/village.sqlite --batch 200 --max-games 4000 --tolerance 0.05
    python -m training.balance.plan --replicates 5 --game village --players 3 \\
        --agents heuristic --games 600 --db runs/balance/village.sqlite

--edge D --players P: the games a study needs to find a seat whose win share is 1/P + D, with
--power at two-sided --alpha, by the test the study reports (the seat's Wilson 95% interval
excluding 1/P: the one-sample score test), and, at more than 2 players, by the chi-square test of
equal shares. --paired --changed-share S: the deal pairs a rules-variant comparison needs for
McNemar's test of one seat's win flips, when the play changes in a share S of the deal pairs.

--sequential: plays the study in batches of --batch games into --db (each look asks
training.balance for --batch more games per line-up; the tournament plays only what the store
lacks), and after each batch looks at every seat's anytime-valid confidence sequence (one
observation per deal); it stops with "edge" when one excludes 1/P, "fair" when every one lies
within 1/P +- --tolerance, "undecided" at --max-games.

--replicates K: the study under K tournament seeds (--seed, --seed + 1, ...: different deals),
the seat win shares per seed, between the seeds (Student-t 95%) and pooled (Wilson 95%).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from core.registry import game_names
from training.arena.cli import OneLineParser
from training.arena.evaluate import clocked_agents, machine_notice
from training.arena.tournament import add_backend_arguments
from training.balance import cli, play, sizing
from training.balance.game_stats import StatsError
from training.balance.results import ReplicateStudy


def replicate_study(
    game: str,
    players: int,
    agents: list[str],
    games: int,
    db: str | Path,
    seeds: list[int],
    **kw: Any,
) -> ReplicateStudy:
    """The study (training.balance.play.run_study, `kw` passed on) once per tournament seed in
    `seeds` (different deals, the same store), and the seat win shares per seed, between seeds
    and pooled (sizing.replicate_summary), with what was played and the tournaments'
    results."""
    if "seed" in kw:
        raise TypeError("replicate_study takes its seeds in `seeds`, not `seed`")
    seeds = [int(s) for s in seeds]
    if len(seeds) < 2 or len(set(seeds)) != len(seeds):
        raise ValueError(f"replicates need at least 2 distinct seeds, got {seeds}")
    runs = [play.run_study(game, players, agents, games, db, seed=s, **kw) for s in seeds]
    hashes = {r.stats.rules_data_hash for r in runs}
    if len(hashes) != 1:
        raise StatsError(f"the replicates rest on different rules data: {sorted(hashes)}")
    return ReplicateStudy(
        summary=sizing.replicate_summary([r.stats.win_shares for r in runs], seeds),
        game=game,
        agents=list(agents),
        games_per_seed=[len(r.stats) for r in runs],
        rules_data_hash=hashes.pop(),
        tournaments=[r.tournament for r in runs],
    )


def sequential_study(
    game: str,
    players: int,
    agents: list[str],
    db: str | Path,
    batch: int,
    max_games: int,
    tolerance: float,
    alpha: float = 0.05,
    seat: int | None = None,
    seed: int = 0,
    echo=print,
    **kw: Any,
) -> sizing.SequentialSeatTest:
    """Play the study `batch` games (per line-up) at a time up to `max_games`, feeding every new
    deal's games to a sizing.SequentialSeatTest, and stop at its decision; `echo` gets a line
    per look. `kw` goes to run_study (workers, progress, backend, address, rules_file)."""
    if batch <= 0 or batch % players:
        raise ValueError(
            f"--batch must be a positive multiple of --players ({players}), got {batch}"
        )
    if max_games < batch or max_games % players:
        raise ValueError(
            f"--max-games must be a multiple of --players ({players}) no smaller than --batch "
            f"({batch}), got {max_games}"
        )
    test = sizing.SequentialSeatTest(players, tolerance, alpha, seat)
    games = 0
    while test.decision == "continue":
        games = min(games + batch, max_games)
        st = play.run_study(game, players, agents, games, db, seed=seed, **kw).stats
        new = ~np.isin(st.deal_seeds, np.array(sorted(test.seen), dtype=st.deal_seeds.dtype))
        if not new.any():
            raise StatsError(f"the study returned no new deal at {games} games per line-up")
        look = test.update(st.win_shares[new], st.deal_seeds[new], last=games >= max_games)
        echo(look.line())
    return test


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m training.balance.plan",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--players", type=int, required=True)
    g = p.add_argument_group("planning")
    g.add_argument("--edge", type=float, help="a seat's win share minus 1/P to detect")
    g.add_argument("--power", type=float, default=0.8)
    g.add_argument("--alpha", type=float, default=0.05, help="two-sided level (also sequential)")
    g.add_argument(
        "--design-effect",
        type=float,
        default=1.0,
        help="games of one deal count as fewer: multiply the games by this "
        "(sizing.design_effect estimates it from a study)",
    )
    g.add_argument("--paired", action="store_true", help="a rules variant, deal by deal")
    g.add_argument("--changed-share", type=float, help="share of deal pairs whose play changes")
    g.add_argument(
        "--flips-per-change",
        type=float,
        help="share of changed pairs whose result for the seat flips (default 2 (1/P)(1 - 1/P))",
    )
    s = p.add_argument_group("studies")
    s.add_argument("--sequential", action="store_true", help="a sequential seat-advantage study")
    s.add_argument("--replicates", type=int, metavar="K", help="the study under K seeds")
    s.add_argument("--game", choices=game_names())
    s.add_argument("--agents", nargs="+", help="one agent: self-play; several: a round robin")
    s.add_argument("--db", help="the SQLite game store (created if missing)")
    s.add_argument("--games", type=int, help="--replicates: games per line-up and seed")
    s.add_argument("--batch", type=int, help="--sequential: games per line-up per look")
    s.add_argument("--max-games", type=int, help="--sequential: the cap, games per line-up")
    s.add_argument("--tolerance", type=float, help="--sequential: fair within 1/P +- this")
    s.add_argument("--seat", type=int, help="--sequential: test this seat only (default all)")
    s.add_argument("--seed", type=int, default=0, help="tournament seed (the first replicate's)")
    s.add_argument("--no-progress", action="store_true")
    add_backend_arguments(s)
    return p


def _need(parser, args, mode: str, names: list[str]) -> None:
    missing = [f"--{n.replace('_', '-')}" for n in names if getattr(args, n) is None]
    if missing:
        parser.error(f"{mode} needs {', '.join(missing)}")


def plan_text(args) -> list[str]:
    """The planner's lines for --edge (and --paired)."""
    p, d = args.players, args.edge
    p0 = 1.0 / p
    lines = []
    if args.paired:
        flips = sizing.flip_share(args.changed_share, p, args.flips_per_change)
        n = sizing.pairs_for_paired_edge(d, flips, args.power, args.alpha)
        ne = sizing.pairs_for_paired_edge(d, flips, args.power, args.alpha, exact=True)
        pw = sizing.power_paired_edge(n, d, flips, args.alpha)
        pe = sizing.power_paired_edge(n, d, flips, args.alpha, exact=True)
        lines += [
            f"paired rules-variant comparison at {p} players: one seat's win share changes by "
            f"{d:+g}; its result flips in {flips:.4g} of the deal pairs ({args.changed_share:g} "
            f"change x {flips / args.changed_share:.4g} flip per change), "
            f"{(1 + d / flips) / 2:.3f} of the flips toward the variant",
            f"deal pairs needed: {n} (power {pw:.3f} at two-sided alpha {args.alpha:g}; McNemar's "
            "test, normal approximation, Connor 1987)",
            f"the study reports McNemar's exact test: power {pe:.3f} at {n} pairs, "
            f"{args.power:g} from {ne} pairs; a study of --games {-(-ne // p) * p} per line-up "
            "plays that many deal pairs (one game under each rules data per pair)",
        ]
        return lines
    n = sizing.games_for_seat_edge(d, p, args.power, args.alpha, args.design_effect)
    pw = sizing.power_seat_edge(n, d, p, args.alpha, args.design_effect)
    lines += [
        f"seat advantage at {p} players: a seat winning {p0 + d:.4g} instead of {p0:.4g} "
        f"(edge {d:+g})",
        f"games needed: {n} (power {pw:.3f} at two-sided alpha {args.alpha:g}; the test: the "
        f"seat's Wilson 95% interval excludes {p0:.4g}, the one-sample score test of its win "
        "share; games independent"
        + (f", design effect {args.design_effect:g}" if args.design_effect != 1.0 else "")
        + ")",
    ]
    if p == 2:
        lines.append("at 2 players this is also the study's chi-square test of equal shares")
    else:
        nc = sizing.games_for_equal_shares(d, p, args.power, args.alpha)
        lines.append(
            f"the study's chi-square test of equal shares (every seat at once, the other seats "
            f"sharing the rest equally) needs {nc} games for the same power"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.sequential and args.replicates is not None:
        parser.error("--sequential and --replicates are separate modes: choose one")
    study_mode = args.sequential or args.replicates is not None
    if study_mode and args.edge is not None:
        parser.error("--edge plans a study; it is not an option of --sequential or --replicates")
    if not study_mode:
        _need(parser, args, "planning", ["edge"])
        if args.paired:
            _need(parser, args, "--paired", ["changed_share"])
        try:
            lines = plan_text(args)
        except ValueError as e:
            parser.error(str(e))
        print("\n".join(lines))
        return 0
    if args.sequential:
        _need(parser, args, "--sequential", ["game", "agents", "db", "batch", "max_games"])
        _need(parser, args, "--sequential", ["tolerance"])
    else:
        _need(parser, args, "--replicates", ["game", "agents", "db", "games"])
        if args.replicates < 2:
            parser.error(f"--replicates must be at least 2 seeds, got {args.replicates}")
    kw = dict(
        workers=args.workers,
        progress=not args.no_progress,
        backend=args.backend,
        address=args.address,
    )

    def play():
        notice = machine_notice(clocked_agents(args.game, args.agents, args.players))
        if notice:  # the first line: said before anything is played
            print(notice, flush=True)
        with cli.backend_session(args.backend, args.address, args.workers):
            if args.sequential:
                return sequential_study(
                    args.game, args.players, args.agents, args.db, args.batch,
                    args.max_games, args.tolerance, args.alpha, args.seat, args.seed, **kw,
                )  # fmt: skip
            seeds = list(range(args.seed, args.seed + args.replicates))
            return replicate_study(
                args.game, args.players, args.agents, args.games, args.db, seeds, **kw
            )

    out, code = cli.guarded(parser, play)
    if code is not None:
        return code
    if args.sequential:
        print(out.looks[-1].verdict())
    else:
        print("\n".join(replicate_text(out)))
    return 0


def replicate_text(res: ReplicateStudy) -> list[str]:
    sm = res.summary
    lines = [
        f"{len(sm.seeds)} seeds ({', '.join(map(str, sm.seeds))}) of {res.game} at {sm.players} "
        f"players, {sm.games} games in all (rules data {res.rules_data_hash}); seat win shares:"
    ]
    for r in sm.seats:
        b, pl, dsp = r.between, r.pooled, r.dispersion
        per = ", ".join(
            f"{x.share:.3f} [{x.lo:.3f}, {x.hi:.3f}] (N = {x.games})" for x in r.per_seed
        )
        lines.append(f"seat {r.seat}: per seed {per}")
        disp = (
            "n/a" if dsp.chi2 is None else f"chi2 = {dsp.chi2:.2f} on {dsp.df} df, p = {dsp.p:.3f}"
        )
        lines.append(
            f"  between seeds {b.mean:.3f} [{b.lo:.3f}, {b.hi:.3f}] (Student-t 95%, "
            f"K = {b.seeds} seeds); pooled {pl.share:.3f} [{pl.lo:.3f}, {pl.hi:.3f}] "
            f"(Wilson 95%, N = {pl.games} games); seeds differ beyond chance: {disp}"
        )
    return lines


if __name__ == "__main__":
    sys.exit(main())
