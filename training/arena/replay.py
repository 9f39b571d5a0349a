"""Replay stored games: re-simulate from seed + actions, verify, print, export.

    python -m training.arena.replay --db runs/village.sqlite --game-id 3
    python -m training.arena.replay --db runs/village.sqlite --game-id 3 --json
    python -m training.arena.replay --db runs/village.sqlite --export games.jsonl

A replay starts a new game from the stored seed and player count and plays the stored actions.
After every decision the state's CRC-32 must equal the one recorded when the game was played,
and at the end the scores and ranks must equal the stored ones; the first decision that differs
is named (a changed engine, rules data or a tampered store). --export writes one JSON object per
game (setup, seats, actions with their descriptions, scores) for outside analysis.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from core.registry import get_game
from training.arena.evaluate import ranks
from training.arena.store import GameRecord, GameStore, StoreError, state_check


class ReplayMismatch(Exception):
    """A stored game does not replay to what was stored."""


def replay(
    game, rec: GameRecord, describe: bool = False, visit: Callable[[np.ndarray], None] | None = None
) -> tuple[np.ndarray, list[dict]]:
    """Re-simulate `rec`; (final state, per decision: seat, action, description if asked).
    ReplayMismatch names the first decision that differs from the record. `visit(state)` (if
    given) sees the first state and the state after every decision (decisions + 1 calls)."""
    if rec.rules_data_hash != game.RULES_DATA_HASH:
        raise ReplayMismatch(
            f"game {rec.id} was played under rules_data_hash {rec.rules_data_hash}, this library "
            f"has {game.RULES_DATA_HASH}: load that rules data to replay it"
        )
    s = game.new_game(rec.players, rec.seed)
    if visit is not None:
        visit(s)
    steps = []
    for k, a in enumerate(rec.actions):
        if game.is_terminal(s):
            raise ReplayMismatch(f"game {rec.id}: the game ended before decision {k}")
        mask = game.legal_mask(s)
        seat = int(game.current_player(s))
        if not (0 <= a < len(mask) and mask[a]):
            raise ReplayMismatch(
                f"game {rec.id}: decision {k} (seat {seat}): stored action {a} is not legal here"
            )
        entry: dict[str, Any] = {"decision": k, "seat": seat, "action": int(a)}
        if describe:
            entry["description"] = game.describe(int(a), s)
        s = game.step(s, int(a))
        if k < len(rec.checks) and state_check(s) != rec.checks[k]:
            raise ReplayMismatch(
                f"game {rec.id}: decision {k} (seat {seat}, action {a}): the state after it "
                "differs from the one recorded"
            )
        steps.append(entry)
        if visit is not None:
            visit(s)
    if not game.is_terminal(s):
        raise ReplayMismatch(f"game {rec.id}: the stored actions end before the game does")
    scores = [int(x) for x in game.scores(s)]
    if scores != list(rec.scores):
        raise ReplayMismatch(f"game {rec.id}: replayed scores {scores} != stored {rec.scores}")
    rk = [float(x) for x in ranks(game, s)]
    if rk != list(rec.ranks):
        raise ReplayMismatch(f"game {rec.id}: replayed ranks {rk} != stored {rec.ranks}")
    return s, steps


def game_json(game, rec: GameRecord, entrants: dict[int, tuple[str, str]]) -> dict[str, Any]:
    """One game as a JSON-serialisable object (verified by replay first)."""
    _s, steps = replay(game, rec, describe=True)
    return {
        "id": rec.id,
        "game": game.NAME,
        "setup": {"players": rec.players, "seed": rec.seed},
        "seats": [
            {"seat": p, "entrant": entrants[e][0], "fingerprint": entrants[e][1]}
            for p, e in enumerate(rec.seats)
        ],
        "actions": steps,
        "scores": rec.scores,
        "ranks": rec.ranks,
        "tiebreaks": rec.tiebreaks,
        "truncated": rec.truncated,
        "rules_data_hash": rec.rules_data_hash,
        "library_version": rec.library_version,
    }


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m training.arena.replay",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--db", required=True, help="a game store written by training.arena.tournament")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--game-id", type=int, help="replay and print this stored game")
    g.add_argument("--export", metavar="FILE", help="write every stored game as JSON lines")
    p.add_argument("--json", action="store_true", help="print the game as one JSON object")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        game_name = GameStore.game_of(args.db)
        game = get_game(game_name)
        with GameStore(args.db, game_name, create=False) as store:
            entrants = store.entrants()
            if args.export:
                out = Path(args.export)
                out.parent.mkdir(parents=True, exist_ok=True)
                n = 0
                with open(out, "w") as f:
                    for rec in store.games():
                        f.write(json.dumps(game_json(game, rec, entrants)) + "\n")
                        n += 1
                print(f"exported {n} games (each verified by replay) to {out}")
                return 0
            rec = store.game(args.game_id)
        if args.json:
            print(json.dumps(game_json(game, rec, entrants), indent=2))
            return 0
        s, steps = replay(game, rec, describe=True)
    except (StoreError, ReplayMismatch) as e:
        print(f"python -m training.arena.replay: error: {e}", file=sys.stderr)
        return 2
    seats = ", ".join(f"seat {p}: {entrants[e][0]}" for p, e in enumerate(rec.seats))
    print(f"game {rec.id}: {game_name}, {rec.players} players, seed {rec.seed}; {seats}")
    for st in steps:
        print(f"{st['decision']:5d}  seat {st['seat']}  {st['description']}")
    print(game.render(s))
    print(f"scores {rec.scores}, ranks {rec.ranks} (verified by replay)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
