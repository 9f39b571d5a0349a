"""Strategy-balance studies: seat advantage, scoring paths, cards, skill, rules variants.

    python -m training.balance --game village --players 3 --agents heuristic --games 300 \\
        --db runs/balance/village.sqlite --out runs/balance/village_3p

plays what the store lacks (the tournament machinery, training.arena.tournament: one agent is
self-play, several a round robin, every deal once per seat rotation), re-simulates every game
(training.balance.game_stats) and writes a Markdown report with PNG plots and CSV tables under
--out:

- seat (turn order) advantage: win share (Wilson 95%) and mean score (95%) per seat, and the
  chi-square test of equal shares;
- score distributions; points by source for winners and for the rest;
- per item (Village customer tile; Troyes Activity card, event, character): the win-share lift
  for the players who took it and, per seat, when it is in play, with 95% intervals and
  Benjamini-Hochberg adjusted p-values over all those comparisons;
- game length, winner's margins, lead changes, decisiveness; actions by kind; resources;
- decisiveness, the fitted win-share value of each item and scoring source, and the diversity of
  play (openings, action kinds), after Tomasev et al. 2020 (training.balance.measures);
- skill sensitivity (several agents): the pairwise win-rate matrix (Wilson, Holm);
- `--rules FILE`: the same study under a rules-data override file (docs/rules_data.md), compared
  with the current rules deal by deal (training.balance.paired: paired intervals, McNemar's test
  of win flips, the share of deals whose play changed); a file that changes nothing is refused;
- `--rules FILE --adapt MINUTES`: every `az` agent also fine-tuned under the variant (cached,
  training.balance.adapt), and a strategic-response section: the variant's effect with the agents
  fixed and adapted side by side, the play that changed, the mix of actions, and whether the
  adaptation converged (training.balance.response). An `az` agent whose network reads the rules
  (a conditioned network, the default `az` where one is shipped) plays the variant conditioned,
  with no fine-tuning, and the section compares it with itself blind to the rules ("conditioned"
  in place of "adapted"); it comes with `--rules` alone.

Every figure names the RULES_DATA_HASH it rests on; many rule numbers are PROVISIONAL.
docs/balance.md has worked studies. --workers W plays in W processes; --backend ray [--address
auto|HOST:PORT] on Ray, on this machine or a cluster (docs/scale-out.md). An agent that plays on a
clock (`mcts:time=S`) makes the games depend on the machine and on --workers: the first line and
the report say so.
"""

from __future__ import annotations

import argparse
import os
import sys

from core.registry import game_names, get_game
from core.rules_file import rules_file_data
from training.arena.cli import OneLineParser
from training.arena.evaluate import clocked_agents, machine_notice
from training.balance import paired, report
from training.balance.adapt import add_adapt_arguments, default_cache, fixed_field, reads_rules
from training.balance.cli import add_run_arguments, backend_session, guarded
from training.balance.game_stats import StatsError
from training.balance.markdown import pval
from training.balance.play import check_agents_under, run_study
from training.balance.response import adapted_variant


# --- command line -----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m training.balance",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", required=True, choices=game_names())
    p.add_argument("--players", type=int, required=True)
    p.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="one agent: self-play; several: a round robin (bot names, mcts:..., checkpoints, "
        "py:module:factory)",
    )
    p.add_argument(
        "--games", type=int, required=True, help="games per line-up (a multiple of --players)"
    )
    p.add_argument("--rules", metavar="FILE", help="also study this rules-data override file")
    add_adapt_arguments(p)
    add_run_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = "python -m training.balance " + " ".join(sys.argv[1:] if argv is None else argv)
    kw = dict(
        workers=args.workers,
        seed=args.seed,
        progress=not args.no_progress,
        backend=args.backend,
        address=args.address,
    )

    def play():
        if args.adapt is not None and not args.rules:
            raise ValueError("--adapt needs --rules FILE: the variant to adapt the agents to")
        if args.rules:  # refuse a bad file, or one that changes nothing, before playing
            _, variant_hash = rules_file_data(args.rules, args.game)
            paired.check_variant(get_game(args.game).RULES_DATA_HASH, variant_hash)
            under = args.agents
            if args.adapt is not None:  # the learned agents play the variant unadapted too
                under = fixed_field(args.agents, args.adapt)
            check_agents_under(args.game, args.players, under, [args.rules])
        respond = args.rules and (
            args.adapt is not None or reads_rules(args.agents, args.game, args.players, args.rules)
        )
        notice = machine_notice(clocked_agents(args.game, args.agents, args.players))
        if notice:  # the first line: said before anything is played
            print(notice, flush=True)
        with backend_session(args.backend, args.address, args.workers):  # one Ray for both
            base = run_study(args.game, args.players, args.agents, args.games, args.db, **kw)
            variant = strategic = None
            if respond:
                cache = args.adapt_cache or default_cache(args.db)
                strategic = adapted_variant(
                    args.game, args.players, args.agents, args.games, args.db, args.rules,
                    base.stats, args.adapt, cache, **kw,
                )  # fmt: skip
                variant = strategic.fixed
            elif args.rules:
                variant = run_study(
                    args.game, args.players, args.agents, args.games, args.db, args.rules, **kw
                )
            return base, variant, strategic

    out, code = guarded(parser, play)
    if code is not None:
        return code
    base, variant, strategic = out
    st, t = base.stats, base.tournament
    a = report.analyse(st, t)
    var = None
    if variant is not None:
        vst, vt = variant.stats, variant.tournament
        try:
            comp = paired.paired_differences(st, vst, seed=args.seed)
        except StatsError as e:
            parser.error(str(e))
        var = (vst, report.analyse(vst, vt), comp, vt)
    response = None if strategic is None else strategic.response
    paths = report.write_report(args.out, st, a, t, var, command, response)
    s = a.seats
    print(
        f"{len(st)} games of {args.game} at {args.players} players (rules data "
        f"{st.rules_data_hash}); seat win shares "
        + ", ".join(f"{r.win_share:.3f}" for r in s.seats)
        + f"; equal-shares p = {pval(s.p)}"
    )
    print(a.note)
    print(f"report: {os.path.join(args.out, 'report.md')} ({len(paths)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
