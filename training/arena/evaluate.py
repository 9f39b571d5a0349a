"""Evaluate agents (bots, the search agent, checkpoints) against each other, seats rotated, seeded.

    python -m training.arena.evaluate --game village --players 2 --agents runs/village-2p random \
        --games 200 --json results.json
    python -m training.arena.evaluate --game troyes --players 2 --agents mcts:iters=1000 heuristic \
        --games 200 --workers 2

Agents are named as training.agents.registry says (one registry for evaluate and the self-play
pool). Without --game the game is the one the checkpoint agents were trained on (else village); a
checkpoint of another game than --game is refused. A checkpoint trained at another player count
plays (observation and action sizes do not depend on it): a note on stderr says so, and its
result records `trained_players`. Exactly --players agents play every game. Games come in
blocks of --players: a block replays one seeded deal once per rotation of the seats, so every
agent plays every seat equally often on the same deals. Per agent: win rate (a win shared by k
players counts 1/k) with a 95% Wilson interval, mean score, mean rank (1 = first, tied players
share the average), truncated games, and the win rate in each seat; the JSON also lists every
game (deal seed, seats, scores, ranks, win shares).
For ratings, stored games and replays use training.arena.tournament.
Every result carries RULES_DATA_HASH: the rules data is provisional, and a result holds for that
hash only. --workers plays the same games, unless an agent plays on a clock (`mcts:time=S`):
then the first line and the table say that the results depend on the machine and on --workers.
Worker processes end with the command, however it ends (core.workers); a refusal of
bad arguments is one line (training.arena.cli).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from core.bots import Agent
from core.registry import (
    GameNotAvailableError,
    check_players,
    default_game,
    game_names,
    get_game,
)
from core.returns import compute_returns
from core.rules_file import read_rules_file, rules_file_loaded, worker_under_rules
from training.agents.checkpoint import CheckpointError, library_version
from training.agents.names import entrant_labels
from training.agents.registry import checkpoint_sidecar, machine_dependent, make_agent
from training.arena.cli import OneLineParser
from training.arena.ratings import wilson_interval

PROVISIONAL_NOTE = (
    "Rules data is PROVISIONAL (many values are reconstructed, see the rules "
    "spec); these figures hold for rules_data_hash {h} only."
)
RULES_NOTE = "These figures hold for rules_data_hash {h}."


def rules_note(game: ModuleType, rules_hash: str | None = None) -> str:
    """The note every saved result carries: its rules data hash, and whether that rules data
    holds provisional values (GameSpec.provisional_rules)."""
    h = game.RULES_DATA_HASH if rules_hash is None else rules_hash
    spec = getattr(getattr(game, "GAME", None), "spec", None)  # None: not a game package
    provisional = getattr(spec, "provisional_rules", True)  # unknown: say provisional
    return (PROVISIONAL_NOTE if provisional else RULES_NOTE).format(h=h)


MACHINE_NOTICE = (
    "NOT REPRODUCIBLE: {agents} {verb} on a clock (a time budget), so these games depend on the "
    "machine's speed and load and on --workers, not only on the seeds; an iteration budget "
    "(mcts:iters=N) plays the same games everywhere."
)


def clocked_agents(game_name: str, specs: list[str], players: int | None = None) -> list[str]:
    """The distinct specs among `specs` whose play depends on the machine
    (training.agents.registry.machine_dependent), in order."""
    return [s for s in dict.fromkeys(specs) if machine_dependent(s, game_name, players)]


def machine_notice(clocked: list[str]) -> str | None:
    """The one-line notice of a result whose games depend on the machine (`clocked`: those
    agents, as clocked_agents gives them), or None when they do not."""
    if not clocked:
        return None
    verb = "plays" if len(clocked) == 1 else "play"
    return MACHINE_NOTICE.format(agents=", ".join(clocked), verb=verb)


def seat_rotation(n_agents: int, rotation: int) -> list[int]:
    """seat_of[i] for agent i in rotation r: agent i sits in seat (i + r) % n."""
    return [(i + rotation) % n_agents for i in range(n_agents)]


def standing(scores: Sequence[int], tiebreaks: Sequence[Sequence[int]]) -> tuple[list, list]:
    """(ranks, win shares) per seat of a finished game from its final scores and tie-breakers, by
    the engine's rule (core.returns.compute_returns: the score, then each tie-breaker in order;
    equal keys tie). Rank: the 1-based finishing position, tied players sharing the average
    position (1.5, 1.5, 3); win share: 1 for the sole winner, 1/k for each of k co-winners, else
    0. The one place this rule lives: tournaments, the --play server and the store's readers use
    it (evaluate.ranks and evaluate.win_shares apply it to a state)."""
    sc = np.asarray(scores, dtype=np.int64).reshape(-1)
    n = len(sc)
    tb = np.asarray(tiebreaks, dtype=np.int64)
    if n == 0 or tb.shape[:1] != (n,) or tb.ndim != 2:
        raise ValueError(
            f"standing needs one score and one row of tie-breakers per seat, got {n} scores "
            f"and tie-breakers of shape {tb.shape}"
        )
    wl = compute_returns(sc, tb, "win_loss", 1.0)
    if (wl == 1).any():
        shares = (wl == 1).astype(np.float64)
    else:  # a complete tie after the tie-breakers: the co-winners get 0, the rest -1
        co = wl == 0
        shares = co / int(co.sum())
    r = compute_returns(sc, tb, "rank", 1.0).astype(np.float64)  # +1 first .. -1 last
    # the returns are float32 averages of evenly spaced values; a rank is a whole or half number
    rk = np.round((1.0 + (1.0 - r) * (n - 1) / 2.0) * 2.0) / 2.0 if n > 1 else np.ones(1)
    return [float(x) for x in rk], [float(x) for x in shares]


def _keys_of(game, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores and tie-breakers of a finished game; before the end every seat ties (the engine's
    returns are zero there)."""
    sc = np.asarray(game.scores(state))
    tb = np.asarray(game.tiebreaks(state)).reshape(len(sc), -1)
    if not game.is_terminal(state):
        return np.zeros_like(sc), np.zeros_like(tb)
    return sc, tb


def win_shares(game, state: np.ndarray) -> np.ndarray:
    """Per seat: 1 for the sole winner, 1/k for each of k co-winners, 0 otherwise (standing)."""
    return np.asarray(standing(*_keys_of(game, state))[1])


def ranks(game, state: np.ndarray) -> np.ndarray:
    """Per seat: 1-based finishing position, tied players sharing the average position
    (standing)."""
    return np.asarray(standing(*_keys_of(game, state))[0])


def _seed(*words: int) -> int:
    return int(np.random.SeedSequence([int(w) & 0xFFFFFFFF for w in words]).generate_state(1)[0])


def play_game(
    game, agents: list[Agent], seed: int, max_decisions: int = 1_000_000, on_step=None
) -> np.ndarray:
    """Play one game, agents[seat] choosing for each seat; returns the final state. Agents with
    a `notify(action)` method (the search agent) are told every action played; `on_step(action,
    state)`, if given, sees every action and the state after it (the tournament records both)."""
    s = game.new_game(len(agents), seed)
    listeners = [a for a in agents if hasattr(a, "notify")]
    k = 0
    while not game.is_terminal(s):
        a = agents[game.current_player(s)].act(s)
        s = game.step(s, a)
        if on_step is not None:
            on_step(a, s)
        for agent in listeners:
            agent.notify(a)
        k += 1
        if k > max_decisions:
            raise RuntimeError(f"game with seed {seed} exceeded {max_decisions} decisions")
    return s


def _play_block(
    game_name: str, n: int, agent_specs: list[str], seed: int, b: int, deterministic: bool
) -> list[dict[str, Any]]:
    """Block b: one seeded deal played once per rotation of the seats; one record per game
    (seats, scores, win shares and ranks per seat, truncation)."""
    game = get_game(game_name)
    deal = _seed(seed, b)
    out = []
    for r in range(n):
        seat_of = seat_rotation(n, r)
        by_seat: list[Agent] = [None] * n  # type: ignore[list-item]
        for i, spec in enumerate(agent_specs):
            agent_seed = _seed(seed, b, r, i)
            by_seat[seat_of[i]] = make_agent(spec, game_name, n, agent_seed, deterministic)
        s = play_game(game, by_seat, deal)
        out.append(
            {
                "deal_seed": deal,
                "seats": seat_of,
                "scores": [int(x) for x in game.scores(s)],
                "win_shares": [float(x) for x in win_shares(game, s)],
                "ranks": [float(x) for x in ranks(game, s)],
                "truncated": bool(game.is_truncated(s)),
            }
        )
    return out


def _play_block_args(args: tuple) -> list[dict[str, Any]]:
    return _play_block(*args)


def resolve_game(game_name: str | None, agent_specs: list[str]) -> str:
    """The game to play: `game_name` if given, else the game the checkpoint agents were trained
    on, else the first registered game. A checkpoint of another game than `game_name`, or
    checkpoints of two games, are refused in one line naming both."""
    trained: dict[str, str] = {}
    for spec in agent_specs:
        meta = checkpoint_sidecar(spec)
        if meta is not None:
            trained[spec] = str(meta.get("game"))
    if game_name is None:
        games = sorted(set(trained.values()))
        if len(games) > 1:
            named = ", ".join(f"{s} ({g})" for s, g in trained.items())
            raise ValueError(f"the checkpoints are policies of different games: {named}")
        return games[0] if games else default_game()
    for spec, g in trained.items():
        if g != game_name:
            raise ValueError(
                f"--game {game_name}, but checkpoint {spec} is a {g} policy; "
                f"pass --game {g} or leave --game out"
            )
    return game_name


def evaluate(
    game_name: str | None,
    players: int,
    agent_specs: list[str],
    games: int,
    seed: int = 0,
    deterministic: bool = True,
    progress: bool = False,
    workers: int = 1,
    rules_file: str | None = None,
) -> dict[str, Any]:
    """Play `games` seeded games with rotated seats; per-agent statistics as a dict. With
    `workers` > 1 the blocks are played in that many processes (same games, same results; unless
    an agent plays on a clock: "machine_dependent" lists those, "notice" says what it means).
    `game_name` None: the game of the checkpoint agents (resolve_game). `rules_file`: every game
    under that rules variant (loaded for the evaluation, in every worker too, and unloaded
    after it)."""
    game_name = resolve_game(game_name, agent_specs)
    args = (game_name, players, agent_specs, games, seed, deterministic, progress, workers)
    with rules_file_loaded(rules_file, game_name):
        out = _evaluate(*args, str(rules_file) if rules_file else None)
    if not rules_file:
        return out
    out["rules_file"] = {
        "path": str(rules_file),
        "values": read_rules_file(rules_file, game_name).get("values", {}),
    }
    return out


def _evaluate(
    game_name: str,
    players: int,
    agent_specs: list[str],
    games: int,
    seed: int,
    deterministic: bool,
    progress: bool,
    workers: int,
    rules_file: str | None,
) -> dict[str, Any]:
    """evaluate() with the game resolved and its rules data loaded (`rules_file` for workers)."""
    game = get_game(game_name)
    n = _checked_players(game, players, agent_specs, games, workers)
    trained_players, trained_rules = _trained_on(game_name, n, agent_specs, deterministic)
    clocked = clocked_agents(game_name, agent_specs, n)
    for spec, tp in trained_players.items():  # once per checkpoint
        if tp is not None and n not in (tp if isinstance(tp, list) else [tp]):
            print(
                f"note: {spec} was trained at {tp} players and plays at {n} here (observation "
                "and action sizes do not depend on the player count)",
                file=sys.stderr,
            )
    labels = entrant_labels(list(agent_specs))
    tally = _SeatTally.empty(n)
    jobs = [(game_name, n, list(agent_specs), seed, b, deterministic) for b in range(games // n)]
    t_start = time.perf_counter()
    _play_blocks(tally, jobs, workers, progress, (os.getpid(), game_name, rules_file))
    results = []
    for i in range(n):
        spec = agent_specs[i]
        results.append(
            {
                "agent": labels[i],
                "spec": spec,
                "trained_players": trained_players[spec],
                "trained_rules_data_hash": trained_rules[spec],
                **tally.agent_figures(i, games),
            }
        )
    return {
        "game": game_name,
        "players": n,
        "games": games,
        "seed": seed,
        "deterministic_policies": deterministic,
        "rules_data_hash": game.RULES_DATA_HASH,
        "library_version": library_version(),
        "date_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "note": rules_note(game),
        "machine_dependent": clocked,
        "notice": machine_notice(clocked),
        "agents": results,
        "workers": workers,
        "wall_seconds": round(time.perf_counter() - t_start, 1),
        "games_played": tally.records,
    }


def _checked_players(
    game: ModuleType, players: int, agent_specs: list[str], games: int, workers: int
) -> int:
    """The player count, after checking that there is one agent per seat, that the games are a
    positive multiple of it and that there is at least one worker."""
    n = check_players(game, players)
    if len(agent_specs) != n:
        raise ValueError(
            f"--agents needs exactly --players = {n} agents, got "
            f"{len(agent_specs)}: {' '.join(agent_specs)}"
        )
    if games <= 0 or games % n:
        raise ValueError(
            f"--games must be a positive multiple of --players ({n}) so every agent "
            f"plays every seat equally often; got {games}"
        )
    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    return n


def _trained_on(
    game_name: str, n: int, agent_specs: list[str], deterministic: bool
) -> tuple[dict[str, int | None], dict[str, str | None]]:
    """Per agent spec, the player count(s) and the rules data hash its checkpoint was trained at
    (None for an agent without a checkpoint); every agent is made once first, so that a bad name
    or checkpoint fails fast with a clear message."""
    trained_players: dict[str, int | None] = {}
    trained_rules: dict[str, str | None] = {}  # beside the rules data played under
    for spec in agent_specs:
        make_agent(spec, game_name, n, 0, deterministic)
        meta = checkpoint_sidecar(spec)
        trained_players[spec] = None if meta is None else meta.get("players")
        trained_rules[spec] = None if meta is None else meta.get("rules_data_hash")
    return trained_players, trained_rules


@dataclass(eq=False)
class _SeatTally:
    """An evaluation's running sums, by agent i (and seat p): win shares, scores, ranks, games
    and win shares at each seat; the truncated games and every game's record, in order."""

    win: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    seat_count: np.ndarray
    seat_win: np.ndarray
    truncated: int = 0
    records: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def empty(cls, n: int) -> _SeatTally:
        return cls(
            np.zeros(n),
            np.zeros(n),
            np.zeros(n),
            np.zeros((n, n), dtype=np.int64),
            np.zeros((n, n)),
        )

    def add(self, rec: dict[str, Any]) -> None:
        """Count one game's record (`seats`: the seat of each agent)."""
        seat_of = rec["seats"]
        self.truncated += rec["truncated"]
        for i in range(len(self.win)):
            p = seat_of[i]
            self.win[i] += rec["win_shares"][p]
            self.score[i] += rec["scores"][p]
            self.rank[i] += rec["ranks"][p]
            self.seat_count[i, p] += 1
            self.seat_win[i, p] += rec["win_shares"][p]
        self.records.append(rec)

    def agent_figures(self, i: int, games: int) -> dict[str, Any]:
        """Agent i's figures over `games` games: win rate (Wilson 95%), wins, mean score and rank,
        the truncated games, and its games and win rate at each seat."""
        lo, hi = wilson_interval(self.win[i], games)
        seat_count, seat_win = self.seat_count, self.seat_win
        return {
            "games": games,
            "win_rate": self.win[i] / games,
            "win_rate_ci95": [lo, hi],
            "wins": self.win[i],
            "mean_score": self.score[i] / games,
            "mean_rank": self.rank[i] / games,
            "truncated_games": self.truncated,
            "games_per_seat": seat_count[i].tolist(),
            "win_rate_by_seat": [
                {
                    "seat": p,
                    "games": int(seat_count[i, p]),
                    "win_rate": seat_win[i, p] / max(int(seat_count[i, p]), 1),
                    "win_rate_ci95": list(wilson_interval(seat_win[i, p], int(seat_count[i, p]))),
                }
                for p in range(len(self.win))
            ],
        }


def _play_blocks(
    tally: _SeatTally, jobs: list[tuple], workers: int, progress: bool, initargs: tuple
) -> None:
    """Play every block of games of `jobs` and count their records in `tally`, in block order:
    here, or in `workers` spawned processes (each started by worker_under_rules(*initargs))."""
    pool = None
    if workers > 1:
        import multiprocessing as mp

        pool = mp.get_context("spawn").Pool(workers, worker_under_rules, initargs)
        blocks = pool.imap(_play_block_args, jobs)
    else:
        blocks = map(_play_block_args, jobs)
    if progress:
        from training.arena.progress import progress as show_progress

        blocks = show_progress(blocks, len(jobs), "evaluate", "block")
    try:
        for block in blocks:
            for rec in block:
                tally.add(rec)
    finally:
        if pool is not None:
            pool.close()
            pool.join()


def format_table(result: dict[str, Any]) -> str:
    """A plain-text table of an evaluation result."""
    w = max(8, *(len(a["agent"]) for a in result["agents"]))
    lines = [
        f"{result['game']}, {result['players']} players, {result['games']} games "
        f"(seed {result['seed']}), rules_data_hash {result['rules_data_hash']}",
        f"{'agent':<{w}}  win rate  95% CI          mean score  mean rank  truncated",
    ]
    for a in result["agents"]:
        lo, hi = a["win_rate_ci95"]
        lines.append(
            f"{a['agent']:<{w}}  {a['win_rate']:8.3f}  [{lo:.3f}, {hi:.3f}]  "
            f"{a['mean_score']:10.2f}  {a['mean_rank']:9.2f}  {a['truncated_games']:9d}"
        )
    lines.append(result["note"])
    if result.get("notice"):
        lines.append(result["notice"])
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of `python -m training.arena.evaluate`."""
    p = OneLineParser(
        prog="python -m training.arena.evaluate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--game",
        choices=game_names(),
        help=f"default: the game the checkpoint agents were trained on, else {default_game()}",
    )
    p.add_argument("--players", type=int, default=2)
    p.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="exactly --players agents: bot names, agent kinds with parameters (e.g. "
        "mcts:iters=1000,rollout=greedy) or checkpoint paths/run folders",
    )
    p.add_argument("--games", type=int, default=100, help="a multiple of --players")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--stochastic",
        action="store_true",
        help="sample trained policies' actions instead of taking the most likely",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes playing blocks in parallel (the games and results do not change, "
        "unless an agent plays on a clock: mcts:time=S)",
    )
    p.add_argument(
        "--rules",
        metavar="FILE",
        help="play under a rules variant / corrected provisional values (docs/rules_data.md)",
    )
    p.add_argument("--json", metavar="FILE", help="also save the results as JSON")
    p.add_argument("--no-progress", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        game = resolve_game(args.game, args.agents)
        notice = machine_notice(clocked_agents(game, args.agents, args.players))
        if notice:  # the first line: said before anything is played
            print(notice, flush=True)
        result = evaluate(
            args.game,
            args.players,
            args.agents,
            args.games,
            args.seed,
            deterministic=not args.stochastic,
            progress=not args.no_progress,
            workers=args.workers,
            rules_file=args.rules,
        )
    except (ValueError, CheckpointError, GameNotAvailableError) as e:
        parser.error(str(e))
    print(format_table(result))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=2))
        print(f"saved {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
