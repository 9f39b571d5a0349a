"""Tournaments and balance studies on Ray: chunks of games as Ray tasks.

`run_tournament(..., backend="ray", address=None)` (and `--backend ray [--address auto|HOST:PORT]`
on `python -m training.arena.tournament` / `python -m training.balance`) plays the same chunks of
games as the process pool, as Ray tasks on a local Ray instance (default) or on a running cluster.
What runs where:

- the driver (the command) schedules the games, keeps at most `workers` chunks running at once,
  and alone writes to the game store, one transaction per finished chunk: the store's guarantees
  (no lost or duplicated game, resumable, results independent of the worker count unless an
  agent plays on a clock, `mcts:time=S`) hold as with processes;
- a worker (a Ray task) plays one chunk and returns its GameRecords;
- entrants that play from the user's files (checkpoints, `az:PATH` networks, `rllib:PATH`, a
  `restrict:` agent wrapping one of them; training.agents.registry.spec_files) and a rules
  variant file are shipped by content: the driver reads their files into bytes once
  (`ray.put`), a worker writes them into a local cache folder keyed by their SHA-256
  (`<tempdir>/gamesrl-ray/<sha256>/`) and plays with the specs rewritten to those paths
  (registry.relocated). The store keys entrants on the driver's specs and fingerprints
  (computed on the driver, by content), so the records are the same whatever path a worker read
  the files from;
- `py:module:factory` agents are not shipped: the module must be importable on every worker
  (install it on the nodes, or start them with it on PYTHONPATH; Ray's runtime_env can do either).

A task whose worker process dies is retried by Ray (MAX_RETRIES), on another node if its node
died; a task that still fails stops the run after every chunk finished before it is stored
(WorkerLostError), and the same command rerun plays the rest. A killed driver leaves nothing
running on a local instance: Ray ends its GCS, raylet and workers with the driver (its fate
sharing), and the raylet's two agent processes about a minute later (they first try to report to
the dead GCS); on a running cluster Ray ends the dead driver's workers and the nodes stay
(docs/scale-out.md). `import ray` happens only here and only when the Ray backend is used.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from core.registry import get_game
from core.rules_file import load_rules_file
from training.agents.registry import relocated, spec_files
from training.arena.jobs import play_job

BACKENDS = ("process", "ray")
MISSING = '--backend ray needs the optional extra: pip install -e ".[ray]"'
MAX_RETRIES = 3  # Ray re-runs a task whose worker process or node died this many times
CACHE_NAME = "gamesrl-ray"
_ADDRESS = re.compile(r"^(ray://)?[^\s:/]+:\d{1,5}$")


class RayUnavailableError(ValueError):
    """--backend ray without the optional extra installed."""


class RulesMismatchError(ValueError):
    """A worker's library gives other rules data than the driver's (another version installed
    on that node); a ValueError, so the CLIs print it as one line."""


class WorkerLostError(RuntimeError):
    """A Ray task failed for good (its worker or node died MAX_RETRIES + 1 times)."""


def check_backend(backend: str, address: str | None) -> None:
    """Refuse a backend or address that is not one of the accepted values (ValueError)."""
    if backend not in BACKENDS:
        raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    if address is None:
        return
    if backend != "ray":
        raise ValueError("--address needs --backend ray")
    if address != "auto" and not _ADDRESS.match(address):
        raise ValueError(
            f"--address must be auto, HOST:PORT or ray://HOST:PORT (a running Ray cluster); "
            f"got {address!r}"
        )


def import_ray():
    """The ray module, or RayUnavailableError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayUnavailableError(MISSING) from None
    return ray


@contextlib.contextmanager
def session(address: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """Ray, initialised for a `with` block: an already initialised Ray is used as it is (and left
    running); else a new local instance with `workers` CPUs (default: all; never a cluster named
    by the RAY_ADDRESS environment variable) or, with `address`, the running cluster there; shut
    down afterwards."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    kw: dict[str, Any] = dict(include_dashboard=False, logging_level=logging.WARNING)
    if address is None:  # "local": a new instance even where RAY_ADDRESS names a cluster
        kw["address"] = "local"
        kw["num_cpus"] = workers or os.cpu_count() or 1
    else:
        kw["address"] = address
    ray.init(**kw)
    try:
        yield ray
    finally:
        ray.shutdown()


# -- shipping files by content ------------------------------------------------------------------
def _digest(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(f"{name}\0{len(files[name])}\0".encode())
        h.update(files[name])
    return h.hexdigest()


def bundle(specs: list[str], rules: tuple[str, str] | None) -> dict[str, Any]:
    """What the workers need beyond the library: {"agents": {spec: (sha256, files)}, "rules":
    (sha256, file bytes, RULES_DATA_HASH) or None}."""
    agents = {}
    for spec in dict.fromkeys(specs):
        files = spec_files(spec)
        if files is not None:
            agents[spec] = (_digest(files), files)
    shipped_rules = None
    if rules is not None:
        data = Path(rules[0]).read_bytes()
        shipped_rules = (_digest({".json": data}), data, rules[1])
    return {"agents": agents, "rules": shipped_rules}


def cache_root() -> Path:
    """The workers' local cache of shipped files: <tempdir>/gamesrl-ray."""
    return Path(tempfile.gettempdir()) / CACHE_NAME


def _intact(folder: Path, name: str, files: dict[str, bytes]) -> bool:
    for suffix, data in files.items():
        f = folder / f"{name}{suffix}"
        if not f.is_file() or f.read_bytes() != data:
            return False
    return True


def materialise(sha: str, files: dict[str, bytes], name: str) -> Path:
    """Write `files` ({suffix: bytes}) as <cache>/<sha>/<name><suffix> unless an intact copy is
    there; returns <cache>/<sha>/<name>. Written in a private folder, then renamed into place (a
    worker never reads a half-written copy; concurrent workers on a node agree)."""
    root = cache_root()
    folder = root / sha
    if _intact(folder, name, files):
        return folder / name
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{sha[:16]}-", dir=root))
    for suffix, data in files.items():
        f = tmp / f"{name}{suffix}"
        f.parent.mkdir(parents=True, exist_ok=True)  # a folder checkpoint: name/FILE
        f.write_bytes(data)
    try:
        os.rename(tmp, folder)
    except OSError:  # another worker was first, or a damaged copy is in the way
        if _intact(folder, name, files):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            shutil.rmtree(folder, ignore_errors=True)
            os.rename(tmp, folder)
    return folder / name


_LOCAL: dict[str, str] = {}  # sha256 -> local path, per worker process


def _local(sha: str, files: dict[str, bytes], name: str) -> str:
    if sha not in _LOCAL or not _intact(Path(_LOCAL[sha]).parent, name, files):
        _LOCAL[sha] = str(materialise(sha, files, name))
    return _LOCAL[sha]


def localise(shipped: dict[str, Any]) -> tuple[dict[str, str], tuple[str, str] | None]:
    """On a worker: ({original spec: local checkpoint path}, (local rules file, hash) or None)."""
    agents = shipped["agents"]
    specs = {
        spec: relocated(spec, _local(sha, files, "checkpoint"))
        for spec, (sha, files) in agents.items()
    }
    rules = None
    if shipped["rules"] is not None:
        sha, data, rules_hash = shipped["rules"]
        rules = (_local(sha, {".json": data}, "rules") + ".json", rules_hash)
    return specs, rules


IMPORT_TRIES = 5
POISONED_EXIT = 70  # a worker whose numba registries broke exits with this (_load_numba)


def _import_game(game_name: str):
    """get_game in a Ray worker, and numba's registries loaded (_load_numba). Ray's import thread
    can import the same modules as a task at the same moment (a known Ray race); Python then
    hands one thread a partially initialised module (AttributeError or ImportError). Once the
    other thread's import has finished, importing again works: a few tries, a short pause
    between them."""
    for attempt in range(IMPORT_TRIES):
        try:
            game = get_game(game_name)
            _load_numba()
            return game
        except (AttributeError, ImportError, ValueError):  # ValueError: GameNotAvailableError
            if attempt == IMPORT_TRIES - 1:
                raise  # the last try raises what it raises
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable: the last try returns or raises")


def _load_numba() -> None:
    """Load numba's CPU-target registries now, as the worker's first compiled call would. The
    same race can break the first import of one of their modules; that module then cannot be
    imported again in this process (numba refuses its registrations as duplicates, KeyError), so
    no compiled call can run here: the worker process exits, and Ray plays its task again on a
    new worker (a lost worker, counted as such)."""
    from numba.core.registry import cpu_target

    try:
        cpu_target.target_context.refresh()
    except KeyError as e:
        if "duplicate registration" not in str(e):
            raise
        logging.getLogger(__name__).warning("numba's registries broke in this worker: exiting")
        os._exit(POISONED_EXIT)


def prepare_worker(game_name: str, rules_hash: str, shipped: dict[str, Any]) -> dict[str, str]:
    """In a Ray task: the shipped files written locally and the game's rules data set to the
    driver's (the shipped variant, else the game's own); {original spec: local spec}.
    RulesMismatchError when this node's library gives other rules data."""
    specs, rules = localise(shipped)
    game = _import_game(game_name)
    if rules is not None:
        if game.RULES_DATA_HASH != rules[1]:
            game.load_rules_data(load_rules_file(rules[0], game_name))
    elif game.RULES_DATA_HASH != rules_hash:  # this worker played a rules variant before
        game.load_rules_data(None)
    if game.RULES_DATA_HASH != rules_hash:
        raise RulesMismatchError(
            f"worker {os.uname().nodename}: {game_name} rules data {game.RULES_DATA_HASH}, the "
            f"driver's is {rules_hash}: install the same library version on every node"
        )
    return specs


def play_chunk(
    game_name: str, players: int, chunk: list, rules_hash: str, shipped: dict[str, Any]
) -> list:
    """A Ray task: play one chunk of (Job, seat ids) with the shipped files; the GameRecords."""
    specs = prepare_worker(game_name, rules_hash, shipped)
    out = []
    for job, ids in chunk:
        local = dataclasses.replace(job, specs=tuple(specs.get(s, s) for s in job.specs))
        out.append(play_job(game_name, players, local, ids))
    return out


# -- the driver --------------------------------------------------------------------------------
def play_chunks(
    game_name: str,
    players: int,
    todo: list,
    rules: tuple[str, str] | None,
    rules_hash: str,
    workers: int | None,
    address: str | None,
    store: Callable[[list], bool],
    chunk_size: Callable[[int, int], int],
) -> None:
    """Play `todo` ((Job, seat ids) pairs) as Ray tasks and hand each finished chunk's records to
    `store` (which says whether to stop). At most `workers` chunks run at once (default: the
    cluster's CPUs): where Ray has no more CPUs than that (it caps them then; a local instance
    started here has `workers` CPUs) 2 x workers are queued so no worker waits for the driver,
    else `workers` are submitted at a time. A task that fails for good:
    the chunks already finished are stored, the rest cancelled, then WorkerLostError (a dead
    worker or node) or the task's own error is raised."""
    with session(address, workers) as ray:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        workers = workers or cpus
        size = chunk_size(len(todo), workers)
        chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
        task = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(play_chunk)
        shipped = ray.put(bundle([s for j, _ids in todo for s in j.specs], rules))
        it = iter(chunks)

        def submit(cs) -> list:
            return [task.remote(game_name, players, c, rules_hash, shipped) for c in cs]

        pending = submit(itertools.islice(it, 2 * workers if cpus <= workers else workers))
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                try:
                    records = ray.get(done[0])
                except Exception as e:
                    _store_ready(ray, pending, store)
                    if isinstance(e, ray.exceptions.RayError) and not isinstance(
                        e, ray.exceptions.RayTaskError
                    ):
                        raise WorkerLostError(
                            f"a Ray task failed after {MAX_RETRIES} retries ({type(e).__name__}: "
                            f"{str(e).splitlines()[0] if str(e) else ''}); every game finished "
                            "before it is stored; rerun the same command to play the rest"
                        ) from e
                    cause = getattr(e, "cause", None)  # the task's own error, as raised there
                    if isinstance(e, ray.exceptions.RayTaskError) and isinstance(cause, Exception):
                        raise cause from e
                    raise
                if store(records):
                    break
                pending += submit(itertools.islice(it, 1))
        finally:
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref)


def _store_ready(ray, pending: list, store: Callable[[list], bool]) -> None:
    """Store the chunks among `pending` that have already finished well (after a failure)."""
    if not pending:
        return
    ready, _ = ray.wait(pending, num_returns=len(pending), timeout=0)
    for ref in ready:
        pending.remove(ref)
        try:
            records = ray.get(ref)
        except Exception:  # noqa: BLE001 - the first failure is the one reported
            continue
        store(records)
