"""What every balance command shares on its command line: the store, report folder and where
games are played (`add_run_arguments`), one Ray session for a whole command
(`backend_session`), and how failures end a command (`guarded`)."""

from __future__ import annotations

import argparse
import contextlib
import sys

from core.registry import GameNotAvailableError
from training.agents.checkpoint import CheckpointError
from training.arena import ray_backend
from training.arena.ray_backend import WorkerLostError, check_backend
from training.arena.store import StoreError
from training.arena.tournament import add_backend_arguments
from training.balance.game_stats import StatsError


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """The options every balance command shares: the store, the report folder, where games are
    played (--workers, --backend, --address), the seed and --no-progress."""
    p.add_argument("--db", required=True, help="the SQLite game store (created if missing)")
    p.add_argument("--out", required=True, help="report folder")
    add_backend_arguments(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true")


def backend_session(backend: str, address: str | None, workers: int | None):
    """A Ray session for the whole study with --backend ray (base and variant share it)."""
    check_backend(backend, address)
    if backend != "ray":
        return contextlib.nullcontext()
    return ray_backend.session(address, workers)


STUDY_ERRORS = (ValueError, CheckpointError, GameNotAvailableError, StoreError, StatsError)
INTERRUPTED = "interrupted; finished games are stored; rerun to continue"


def guarded(parser: argparse.ArgumentParser, body):
    """Run `body()` the way every balance command handles failures: a refusal (STUDY_ERRORS:
    bad arguments, files, agents, stores, statistics) ends in `parser.error` (one line, status
    2); a lost worker prints its message (status 3); Ctrl-C says the finished games are stored
    (status 130). Returns (body's result, None) or (None, the exit status)."""
    try:
        return body(), None
    except STUDY_ERRORS as e:
        parser.error(str(e))
    except WorkerLostError as e:
        print(e, file=sys.stderr)
        return None, 3
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        return None, 130
