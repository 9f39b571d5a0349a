"""Where expert iteration's self-play games are played: local processes or Ray tasks.

Each iteration hands the backend its jobs (a chunk of game seeds each, with the network's weights)
and gets back, per job, the examples of its complete games and where they were played. Both
backends play the same games from the same seeds, so a run's examples, checkpoints and progress
do not depend on the backend (only the recorded worker names and the wall-clock do).

- `ProcessBackend`: a pool of `workers` spawned processes on this machine, each under the run's
  rules data (core.rules_file.worker_under_rules).
- `RayBackend` (`--backend ray [--address auto|HOST:PORT]`): each job is a Ray task (one CPU) on a
  local Ray instance or a running cluster; the rules variant file and an opponent's checkpoint
  files are shipped by content as for tournaments (training.arena.ray_backend). A task whose
  worker process or node dies returns nothing (a task returns the examples of all its games at
  once, so a lost task's games are never half-counted); the driver submits the same job again,
  whose games replay identically from their seeds, up to MAX_ATTEMPTS times, and counts each loss
  (`lost` in the iteration's progress row, every attempt in `games.jsonl`). An error raised by
  the game or the search inside a task is not retried: it stops the run as it would locally.

`games.jsonl` in the run folder has a line per iteration: for each job its seeds (and whether the
game was against the opponent), the worker that played it (host and process), its attempts and
its examples, so the data of a run can be audited.
"""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import os
import socket
from typing import Any

from core.rules_file import worker_under_rules
from training.alphazero.selfplay import Examples, SelfPlayer

MAX_ATTEMPTS = 4  # a job whose worker or node dies is played again, this many times in all

_PLAYER: dict[str, Any] = {}


def play_games(args: tuple) -> Examples:
    """The games `seeds`, (seed, against the opponent?) each, with the network `arrays` (one
    SelfPlayer per process, rebuilt when the network changes): the self-play games by
    SelfPlayer.play_many (the games `play` would give, faster), a game against the opponent one
    at a time with the search at seat seed mod players. Examples in the order of `seeds`."""
    game, players, arrays, cfg, explore, noise, qmix, opponent, version, seeds = args
    p = _PLAYER.get("p")
    if p is None or _PLAYER.get("v") != version:
        p = SelfPlayer(game, players, arrays, cfg, explore, noise, seed=seeds[0][0], qmix=qmix)
        _PLAYER.update(p=p, v=version)
    own = [s for s, against in seeds if not against]
    played = dict(zip(own, (ex for ex, _ in p.play_many(own)), strict=True))
    parts = []
    for s, against in seeds:
        if against:
            p.agent.reset(s)
            parts.append(p.play_against(s, opponent, s % players)[0])
        else:
            parts.append(played[s])
    return Examples.concat(parts)


def expert_games(args: tuple) -> Examples:
    """The warm-start games `seeds` of plain mcts (training.alphazero.expert)."""
    from training.alphazero.expert import expert_game

    game, players, params, explore, returns, agent, seeds = args
    parts = [expert_game(game, players, params, s, explore, returns, agent)[0] for s in seeds]
    return Examples.concat(parts)


def job_games(job) -> Examples:
    """A job object that plays itself (`job.run()`: training.alphazero.conditioned's jobs)."""
    return job.run()


KINDS = {"play": play_games, "expert": expert_games, "job": job_games}
OPPONENT_AT = {"play": 7, "expert": 5}  # where a job names an agent spec (opponent, warm agent)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def run_job(kind: str, job: tuple) -> tuple[Examples, str]:
    """One job in a worker: its examples and the worker's name."""
    return KINDS[kind](job), worker_name()


def _run_job_args(args: tuple) -> tuple[Examples, str]:
    return run_job(*args)


class ProcessBackend:
    """Jobs in a pool of local processes under the run's rules data."""

    name = "process"

    def __init__(self, workers: int, game_name: str, rules: str | None):
        self.pool = mp.get_context("spawn").Pool(
            workers, worker_under_rules, (os.getpid(), game_name, rules)
        )

    def map(self, kind: str, jobs: list[tuple]) -> tuple[list[Examples], list[dict]]:
        out = self.pool.map(_run_job_args, [(kind, j) for j in jobs])
        return [ex for ex, _w in out], [{"worker": w, "attempts": 1} for _ex, w in out]

    def close(self) -> None:
        self.pool.terminate()
        self.pool.join()


def gather(ray, submit, n: int, max_attempts: int = MAX_ATTEMPTS) -> tuple[list, list[dict]]:
    """Run jobs 0..n-1 (`submit(i)` returns a Ray object ref of (examples, worker)) until each has
    returned once: a job whose worker or node was lost (a Ray error other than the task's own) is
    submitted again, at most `max_attempts` times in all; the task's own error is raised as it
    was raised there. Returns (results in job order, per job {"worker", "attempts", "lost"})."""
    from training.arena.ray_backend import WorkerLostError

    results: list = [None] * n
    info = [{"worker": None, "attempts": 1, "lost": []} for _ in range(n)]
    pending = {submit(i): i for i in range(n)}
    try:
        while pending:
            done, _rest = ray.wait(list(pending), num_returns=1)
            i = pending.pop(done[0])
            try:
                ex, worker = ray.get(done[0])
            except ray.exceptions.RayTaskError as e:  # the game's or the search's own error
                cause = getattr(e, "cause", None)
                raise (cause if isinstance(cause, Exception) else e) from e
            except ray.exceptions.RayError as e:  # its worker process or node died
                info[i]["lost"].append(type(e).__name__)
                if info[i]["attempts"] >= max_attempts:
                    raise WorkerLostError(
                        f"a self-play task was lost {max_attempts} times ({type(e).__name__}); "
                        "the run stops at its last checkpoint: rerun with --resume"
                    ) from e
                info[i]["attempts"] += 1
                pending[submit(i)] = i
                continue
            results[i] = ex
            info[i]["worker"] = worker
    finally:
        for ref in pending:
            try:
                ray.cancel(ref)
            except Exception:  # noqa: BLE001 - cancelling what is left is best effort
                pass
    return results, info


def _ray_job(kind: str, job: tuple, rules_hash: str, shipped: dict) -> tuple[Examples, str]:
    """A Ray task: the run's rules data and shipped files set up, then the job."""
    from training.arena.ray_backend import prepare_worker

    if kind == "job":  # a job object: its game and opponent by name
        specs = prepare_worker(job.game, rules_hash, shipped)
        if getattr(job, "opponent", ""):
            job = dataclasses.replace(job, opponent=specs.get(job.opponent, job.opponent))
        return run_job(kind, job)
    specs = prepare_worker(job[0], rules_hash, shipped)
    at = OPPONENT_AT[kind]
    if job[at]:
        job = job[:at] + (specs.get(job[at], job[at]),) + job[at + 1 :]
    return run_job(kind, job)


class RayBackend:
    """Jobs as Ray tasks (module docstring)."""

    name = "ray"

    def __init__(
        self,
        workers: int | None,
        game_name: str,
        rules: str | None,
        address: str | None,
        agents: tuple[str, ...] = (),
    ):
        from core.registry import get_game
        from training.arena import ray_backend as rb

        self._session = rb.session(address, workers)
        self.ray = self._session.__enter__()
        try:
            game = get_game(game_name)
            self.rules_hash = str(game.RULES_DATA_HASH)
            variant = (rules, self.rules_hash) if rules else None
            shipped = rb.bundle([a for a in agents if a], variant)
            self.shipped = self.ray.put(shipped)
            self.task = self.ray.remote(num_cpus=1, max_retries=0)(_ray_job)
        except BaseException:
            self.close()
            raise

    def map(self, kind: str, jobs: list[tuple]) -> tuple[list[Examples], list[dict]]:
        def submit(i: int):
            return self.task.remote(kind, jobs[i], self.rules_hash, self.shipped)

        return gather(self.ray, submit, len(jobs))

    def close(self) -> None:
        self._session.__exit__(None, None, None)


def make_backend(name: str, workers: int, game_name: str, rules: str | None, address, agents):
    """The backend `name` names (training.arena.ray_backend.BACKENDS); ValueError for another
    or a bad address."""
    from training.arena.ray_backend import check_backend

    check_backend(name, address)
    if name == "ray":
        return RayBackend(workers, game_name, rules, address, agents)
    return ProcessBackend(workers, game_name, rules)
