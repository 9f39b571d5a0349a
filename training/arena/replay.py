"""Replay stored games: re-simulate from seed + actions, verify, print, export.

    python -m training.arena.replay --db runs/village.sqlite --game-id 3
    python -m training.arena.replay --db runs/village.sqlite --game-id 3 --json
    python -m training.arena.replay --db runs/village.sqlite --verify-all
    python -m training.arena.replay --db runs/village.sqlite --export games.jsonl
    python -m training.arena.replay --db runs/study.sqlite --verify-all --rules variant.json

A replay starts a new game from the stored seed and player count and plays the stored actions.
After every decision the state's CRC-32 must equal the one recorded when the game was played, and
at the end the scores, tie-breakers, truncation, ranks and win shares must equal the stored ones;
the first decision that differs is named (a changed engine, rules data or a tampered store).
--verify-all replays every game of the store and lists each one that fails. --export writes one
JSON object per game (setup, seats, actions with their descriptions, scores) for outside
analysis, each verified by replay; if any game fails, it lists them and writes nothing. Games
played under a rules variant replay with --rules FILE (that variant's rules file; repeatable);
games under rules data not loaded are not verified, and say so. The store is opened read-only.

Exit status: 0 done; 1 a game failed verification or was not verified (--verify-all, --export);
2 an error (the store cannot be read, no such game, the game does not replay as stored).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from core.registry import get_game
from core.rules_file import RulesFileError, rules_file_data
from training.arena.cli import OneLineParser
from training.arena.evaluate import standing
from training.arena.store import BadGameError, GameRecord, GameStore, StoreError, state_check

PROG = "python -m training.arena.replay"
LISTED_IDS = 10  # a failure summary names at most this many game ids (each has its own line)


class ReplayMismatch(Exception):
    """A stored game does not replay to what was stored: one line naming the game (id, seed)."""

    def __init__(self, rec: GameRecord, reason: str):
        self.game_id, self.seed, self.reason = rec.id, rec.seed, reason
        super().__init__(f"game {rec.id} (seed {rec.seed}): {reason}")


def replay(
    game, rec: GameRecord, describe: bool = False, visit: Callable[[np.ndarray], None] | None = None
) -> tuple[np.ndarray, list[dict]]:
    """Re-simulate `rec`; (final state, per decision: seat, action, and if asked its description
    and what chance decided in it: `chance`, GameSpec.chance).
    ReplayMismatch names the first decision that differs from the record. `visit(state)` (if
    given) sees the first state and the state after every decision (decisions + 1 calls)."""
    if rec.rules_data_hash != game.RULES_DATA_HASH:
        raise ReplayMismatch(
            rec,
            f"played under rules_data_hash {rec.rules_data_hash}, this library has "
            f"{game.RULES_DATA_HASH}: load that rules data to replay it (--rules FILE)",
        )
    if rec.players not in game.PLAYER_COUNTS:
        raise ReplayMismatch(
            rec, f"{rec.players} players; {game.NAME} is played by {tuple(game.PLAYER_COUNTS)}"
        )
    if not len(rec.actions) == len(rec.checks) == rec.decisions:
        raise ReplayMismatch(
            rec,
            f"{len(rec.actions)} actions and {len(rec.checks)} state checks for "
            f"{rec.decisions} decisions",
        )
    try:
        s = game.new_game(rec.players, rec.seed)
    except (ValueError, OverflowError, TypeError) as e:
        raise ReplayMismatch(rec, f"no game starts from this seed ({e})") from None
    if visit is not None:
        visit(s)
    steps = []
    for k, a in enumerate(rec.actions):
        if game.is_terminal(s):
            raise ReplayMismatch(rec, f"the game ended before decision {k}")
        mask = game.legal_mask(s)
        seat = int(game.current_player(s))
        if not (0 <= a < len(mask) and mask[a]):
            raise ReplayMismatch(
                rec, f"decision {k} (seat {seat}): stored action {a} is not legal here"
            )
        entry: dict[str, Any] = {"decision": k, "seat": seat, "action": int(a)}
        if describe:
            entry["description"] = game.describe(int(a), s)
        before, s = s, game.step(s, int(a))
        if describe:
            entry["chance"] = game.chance_words(before, int(a), s)
        if state_check(s) != rec.checks[k]:
            raise ReplayMismatch(
                rec,
                f"decision {k} (seat {seat}, action {a}): the state after it differs from the "
                "one recorded",
            )
        steps.append(entry)
        if visit is not None:
            visit(s)
    if not game.is_terminal(s):
        raise ReplayMismatch(rec, "the stored actions end before the game does")
    n = rec.players
    scores = [int(x) for x in game.scores(s)]
    tiebreaks = np.asarray(game.tiebreaks(s)).reshape(n, -1).tolist()
    truncated = bool(game.is_truncated(s))
    rk, shares = standing(scores, tiebreaks)
    for what, replayed, stored in (
        ("scores", scores, list(rec.scores)),
        ("tie-breakers", tiebreaks, [list(t) for t in rec.tiebreaks]),
        ("truncation", truncated, bool(rec.truncated)),
        ("ranks", rk, [float(x) for x in rec.ranks]),
        ("win shares", shares, [float(x) for x in rec.win_shares]),
    ):
        if replayed != stored:
            raise ReplayMismatch(rec, f"replayed {what} {replayed} != stored {stored}")
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
        "win_shares": rec.win_shares,
        "tiebreaks": rec.tiebreaks,
        "truncated": rec.truncated,
        "rules_data_hash": rec.rules_data_hash,
        "library_version": rec.library_version,
    }


def rules_by_hash(game_name: str, files: Iterable[str | Path] = ()) -> dict[str, Any]:
    """RULES_DATA_HASH -> rules data (None: the game's own) of the game's rules data and of each
    rules file (core.rules_file; RulesFileError names a bad one)."""
    out: dict[str, Any] = {str(get_game(game_name).RULES_DATA_HASH): None}
    for f in files:
        ns, h = rules_file_data(f, game_name)
        out.setdefault(h, ns)
    return out


def _rules_loaded(game, rd: Any):
    """A context with rules data `rd` loaded (None: the game's own, already in use)."""
    return contextlib.nullcontext() if rd is None else game.GAME.using_rules_data(rd)


class Verification:
    """What verify_games found: games verified, failures (id, seed, reason) in id order, and the
    games left unverified per rules data hash (their rules data was not loaded)."""

    def __init__(self) -> None:
        self.verified = 0
        self.failed: list[tuple[int, Any, str]] = []
        self.unverified: dict[str, int] = {}

    @property
    def total(self) -> int:
        return self.verified + len(self.failed) + sum(self.unverified.values())

    @property
    def ok(self) -> bool:
        return not self.failed and not self.unverified

    def failure_lines(self) -> list[str]:
        """One line per failed game, in id order."""
        return [f"game {i} (seed {seed}): {reason}" for i, seed, reason in self.failed]

    def summary(self) -> str:
        """One line: how many games failed (naming them) or were verified, and the games left
        unverified per rules data hash."""
        if self.failed:
            ids = [str(i) for i, _s, _r in self.failed]
            more = len(ids) - LISTED_IDS
            named = ", ".join(ids[:LISTED_IDS]) + (f" and {more} more" if more > 0 else "")
            head = f"{len(self.failed)} of {self.total} games failed verification (games {named})"
        else:
            head = f"{self.verified} of {self.total} games verified by replay"
        return "; ".join(
            [head]
            + [
                f"{k} games played under rules_data_hash {h} were not verified (pass --rules "
                "FILE with that rules data)"
                for h, k in self.unverified.items()
            ]
        )


def verify_games(
    store: GameStore,
    game,
    rules: dict[str, Any],
    check: Callable[[GameRecord], Any] | None = None,
) -> Verification:
    """Replay every stored game whose rules data is in `rules` (rules_by_hash) with that rules
    data loaded. A game the store refuses (BadGameError) or that does not replay
    (ReplayMismatch) is a failure; the others are passed to `check(rec)` (default: replay; the
    export writes them) while their rules data is loaded."""
    found = Verification()
    check = check or (lambda rec: replay(game, rec))
    for h, count in store.rules_data_hashes().items():
        if h not in rules:
            found.unverified[h] = count
            continue
        with _rules_loaded(game, rules[h]):
            for rec in store.read_games(rules_data_hash=h):
                try:
                    if isinstance(rec, BadGameError):
                        raise rec
                    check(rec)
                except (BadGameError, ReplayMismatch) as e:
                    found.failed.append((e.game_id, e.seed, e.reason))
                else:
                    found.verified += 1
    found.failed.sort(key=lambda f: f[0])
    return found


def export(store: GameStore, game, rules: dict[str, Any], out: Path) -> Verification:
    """Write every game as JSON lines to `out` when every game verifies: into a temporary file
    beside it, renamed to `out` at the end; on any failure (or an interruption) the temporary
    file is removed and `out` is left as it was."""
    entrants = store.entrants()
    missing = [p for p in [out.parent, *out.parent.parents] if not p.exists()]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.part")
    done = False
    try:
        with open(tmp, "x") as f:
            found = verify_games(
                store,
                game,
                rules,
                lambda rec: f.write(json.dumps(game_json(game, rec, entrants)) + "\n"),
            )
        if found.ok:
            os.replace(tmp, out)
            done = True
        return found
    finally:
        if not done:
            tmp.unlink(missing_ok=True)
            for p in missing:  # folders made for the file, innermost first
                with contextlib.suppress(OSError):
                    p.rmdir()


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--db", required=True, help="a game store written by training.arena.tournament")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--game-id", type=int, help="replay and print this stored game")
    g.add_argument(
        "--verify-all",
        action="store_true",
        help="replay every stored game and list each one that fails (exit status 1 if any)",
    )
    g.add_argument(
        "--export",
        metavar="FILE",
        help="write every stored game as JSON lines (nothing is written if any game fails)",
    )
    p.add_argument("--json", action="store_true", help="print the game as one JSON object")
    p.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="FILE",
        help="a rules file (docs/rules_data.md) some games were played under; repeatable",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)

    def error(msg: object) -> int:
        print(f"{parser.prog}: error: {msg}", file=sys.stderr)  # as called: vtrl or python -m
        return 2

    try:
        game_name = GameStore.game_of(args.db)
        game = get_game(game_name)
        rules = rules_by_hash(game_name, args.rules)
        with GameStore(args.db, game_name, read_only=True) as store:
            if args.verify_all:
                found = verify_games(store, game, rules)
                for line in found.failure_lines():
                    print(line)
                print(found.summary())
                return 0 if found.ok else 1
            if args.export:
                out = Path(args.export)
                found = export(store, game, rules, out)
                if not found.ok:
                    for line in found.failure_lines():
                        print(line, file=sys.stderr)
                    error(f"{found.summary()}; nothing exported")
                    return 1
                print(f"exported {found.verified} games (each verified by replay) to {out}")
                return 0
            entrants = store.entrants()
            rec = store.game(args.game_id)
            with _rules_loaded(game, rules.get(rec.rules_data_hash)):
                if args.json:
                    print(json.dumps(game_json(game, rec, entrants), indent=2))
                    return 0
                s, steps = replay(game, rec, describe=True)
                board = game.render(s)
    except (StoreError, ReplayMismatch, RulesFileError, OSError) as e:
        return error(e)
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted (an export in progress writes nothing)", file=sys.stderr)
        return 130
    seats = ", ".join(f"seat {p}: {entrants[e][0]}" for p, e in enumerate(rec.seats))
    print(f"game {rec.id}: {game_name}, {rec.players} players, seed {rec.seed}; {seats}")
    for st in steps:
        print(f"{st['decision']:5d}  seat {st['seat']}  {st['description']}")
        for words in st["chance"]:
            print(f"       chance: {words}")
    print(board)
    print(f"scores {rec.scores}, ranks {rec.ranks} (verified by replay)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
