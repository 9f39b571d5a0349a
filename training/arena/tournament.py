"""Agent-vs-agent tournaments: duplicate-format line-ups, a game store, ratings, resumable.

    python -m training.arena.tournament --game village --players 2 \\
        --agents random heuristic mcts:iters=100 --games 20 --db runs/village.sqlite
    python -m training.arena.tournament --game troyes --players 2 \\
        --agents mcts:iters=400 heuristic --sprt 0,50 --games 2000 --db runs/troyes.sqlite

Line-ups: every combination of --players entrants (round robin) or one entrant with every
combination of the others (`--format gauntlet:SPEC`). Every line-up plays --games games per
line-up: --games / --players deals, each deal played once per seat rotation (a cyclic Latin
square: every entrant sits in every seat once per deal). Deals are seeded from (tournament seed,
deal index) only, so every line-up, rotation and later tournament with the same --seed plays the
same deals (common random numbers); each agent's own seed comes from (tournament seed, line-up,
rotation, deal, seat). Results do not depend on --workers or on the order games finish, unless
an agent plays on a clock (`mcts:time=S`): then its games depend on the machine's speed and load
and on --workers, and the tournament says so on its first line, under its leaderboard and in the
store (the tournament's "machine_dependent" entrants).

Every finished game goes to the store (training.arena.store) in one transaction; the same command
rerun plays only the games the store lacks. Ratings (training.arena.ratings) use the tournament's
games under the current RULES_DATA_HASH only, unless --pool-rules. docs/tournaments.md has a worked
example.
--backend ray [--address auto|HOST:PORT] plays the games as Ray tasks, on this machine or a
cluster (the optional extra [ray]; docs/scale-out.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import itertools
import json
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from core.registry import GameNotAvailableError, check_players, game_names, get_game
from core.rules_file import load_rules_file
from core.workers import die_with_driver
from training.agents.checkpoint import CheckpointError, library_version
from training.agents.names import entrant_labels
from training.agents.registry import (
    AgentSpecError,
    agent_fingerprint,
    checkpoint_sidecar,
    make_agent,
)
from training.arena import ray_backend
from training.arena.cli import OneLineParser
from training.arena.evaluate import clocked_agents, machine_notice, resolve_game, rules_note
from training.arena.jobs import Job, play_chunk, seed_of
from training.arena.ray_backend import WorkerLostError
from training.arena.store import GameRecord, GameStore, StoreError


def _h32(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


def rotation_seats(players: int, rotation: int) -> list[int]:
    """seat_of[i] for line-up member i in rotation r: seat (i + r) % players (a cyclic Latin
    square over the rotations: each member sits in each seat exactly once)."""
    return [(i + rotation) % players for i in range(players)]


@dataclass(frozen=True)
class Entrant:
    """A tournament entrant: its spec, the fingerprint of what the spec names, its label (the
    name reports show: training.agents.names)."""

    spec: str
    fingerprint: str
    label: str
    copy: int = 1  # the k-th entrant with this spec (a field may hold one agent twice)
    # the spec, `#k` for the k-th copy of one given twice: the result's `entrant_ids` are keyed
    # by it (the studies built on a tournament name their agents by spec)
    key: str = ""


def make_lineups(n_entrants: int, players: int, fmt: str, entrants: list[Entrant]) -> list:
    """Line-ups as tuples of entrant indices: round robin or a gauntlet of one entrant."""
    if fmt == "round-robin":
        return list(itertools.combinations(range(n_entrants), players))
    if fmt.startswith("gauntlet:"):
        hero = fmt.partition(":")[2]
        idx = [i for i, e in enumerate(entrants) if hero in (e.spec, e.label)]
        if len(idx) != 1:
            raise ValueError(
                f"--format gauntlet:SPEC needs SPEC to be one of --agents; got {hero!r}"
            )
        others = [i for i in range(n_entrants) if i != idx[0]]
        return [(idx[0], *rest) for rest in itertools.combinations(others, players - 1)]
    raise ValueError(f"--format must be round-robin or gauntlet:SPEC, got {fmt!r}")


def lineup_key(members: list[Entrant]) -> str:
    """A line-up's identity: its members' specs and fingerprints, in line-up order."""
    text = json.dumps([[e.spec, e.fingerprint] + ([e.copy] if e.copy > 1 else []) for e in members])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def schedule(
    players: int, entrants: list[Entrant], fmt: str, games: int, seed: int, rules_hash: str
) -> list[Job]:
    """Every game of a tournament, in schedule order: deal, then line-up, then rotation (round
    after round: an interrupted tournament has played every line-up about equally, and the
    sequential ratings see the line-ups interleaved, not one after the other)."""
    lineups = []
    for lu in make_lineups(len(entrants), players, fmt, entrants):
        members = [entrants[i] for i in lu]
        lineups.append((members, lineup_key(members)))
    jobs: list[Job] = []
    for deal in range(games // players):
        for members, lkey in lineups:
            for r in range(players):
                seat_of = rotation_seats(players, r)
                specs = [""] * players
                labels = [""] * players
                aseeds = [0] * players
                for i, e in enumerate(members):
                    p = seat_of[i]
                    specs[p] = e.spec
                    labels[p] = e.label
                    aseeds[p] = seed_of(seed, _h32(lkey), r, deal, p)
                mkey = f"{players}p/s{seed}/{lkey}/r{r}/d{deal}/{rules_hash}"
                jobs.append(
                    Job(
                        len(jobs),
                        mkey,
                        lkey,
                        r,
                        deal,
                        seed_of(seed, deal),
                        tuple(specs),
                        tuple(labels),
                        tuple(aseeds),
                    )
                )
    return jobs


CHUNK_GAMES = 8  # games per task and per transaction, at most (fewer when there is little to do)


def _chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def chunk_size(n_todo: int, workers: int) -> int:
    """Games per chunk: CHUNK_GAMES, fewer when there is little to do (4 chunks per worker)."""
    return max(1, min(CHUNK_GAMES, n_todo // (4 * max(workers, 1))))


def run_jobs(
    store: GameStore,
    game_name: str,
    players: int,
    todo: list[tuple[Job, list[int]]],
    tournament_id: int,
    workers: int | None = 1,
    progress: bool = True,
    stop=None,
    rules: tuple[str, str] | None = None,
    backend: str = "process",
    address: str | None = None,
    rules_hash: str | None = None,
) -> int:
    """Play the jobs the store lacks and write each finished chunk of games in one transaction.

    With `workers` > 1 a process pool plays chunks (its workers end with this process, however
    it ends: core.workers); a killed worker stops the run with BrokenProcessPool after
    every chunk finished before it is stored. `backend="ray"`: Ray tasks play the chunks
    (training.arena.ray_backend; `address`: a running cluster, default a local instance; `workers`:
    the most tasks at once, None: the cluster's CPUs); a task that fails for good stops the run with
    WorkerLostError the same way. `stop(store)` (optional) is asked after each stored chunk whether
    to stop early (SPRT). `rules`: (rules file, its RULES_DATA_HASH) of a rules variant the workers
    load; `rules_hash`: the rules data the games are to be played under (the Ray workers check it;
    default: the game's current). Returns games written."""
    if not todo:
        return 0
    written = 0
    bar = None
    if progress:
        from training.arena.progress import ProgressCounter

        bar = ProgressCounter(len(todo), "tournament", "game")

    def _store(records: list[GameRecord]) -> bool:
        nonlocal written
        for r in records:
            r.tournament_id = tournament_id
        written += store.add_games(records)
        if bar is not None:
            bar.update(len(records))
        return bool(stop and stop(store))

    if backend == "ray":
        if rules_hash is None:
            rules_hash = str(get_game(game_name).RULES_DATA_HASH)
        try:
            ray_backend.play_chunks(
                game_name, players, todo, rules, rules_hash, workers, address, _store, chunk_size
            )
        finally:
            if bar is not None:
                bar.close()
        return written
    workers = workers or 1
    chunks = _chunks(todo, chunk_size(len(todo), workers))
    if workers <= 1:
        try:
            for c in chunks:
                if _store(play_chunk((game_name, players, c, rules))):
                    break
        finally:
            if bar is not None:
                bar.close()
        return written
    import multiprocessing as mp

    ex = ProcessPoolExecutor(
        workers, mp.get_context("spawn"), initializer=die_with_driver, initargs=(os.getpid(),)
    )
    pending: set = set()
    it = iter(chunks)
    try:
        for c in itertools.islice(it, 2 * workers):
            pending.add(ex.submit(play_chunk, (game_name, players, c, rules)))
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            halt = False
            for f in done:
                halt |= _store(f.result())
            if halt:
                break
            for c in itertools.islice(it, len(done)):
                pending.add(ex.submit(play_chunk, (game_name, players, c, rules)))
    finally:
        for f in pending:
            f.cancel()
        ex.shutdown(wait=True, cancel_futures=True)
        if bar is not None:
            bar.close()
    return written


def resolve_entrants(game_name: str, players: int, specs: list[str]) -> list[Entrant]:
    """Entrants from specs: each checked (one-line error naming what is accepted) and
    fingerprinted; labelled by training.agents.names.entrant_labels (short names for paths,
    #k for a spec given twice)."""
    out = []
    labels = entrant_labels(list(specs))
    for i, spec in enumerate(specs):
        make_agent(spec, game_name, players, 0)
        copy = specs[: i + 1].count(spec)
        key = spec if specs.count(spec) == 1 else f"{spec}#{copy}"
        fingerprint = agent_fingerprint(spec, game_name, players)
        out.append(Entrant(spec, fingerprint, labels[i], copy, key))
    return out


def results_for_ratings(
    records: list[GameRecord], order: dict[str, int], labels: dict[int, str]
) -> tuple[list[tuple[tuple[str, ...], tuple[float, ...]]], list[str]]:
    """(labels by seat, ranks by seat) per game in schedule order (so workers do not matter),
    and each game's group: its line-up and deal (the rotations of one deal share their luck, so
    the random orders of the sequential openskill column keep them together)."""
    recs = sorted(records, key=lambda r: order[r.match_key])
    results = [(tuple(labels[i] for i in r.seats), tuple(r.ranks)) for r in recs]
    return results, [f"{r.lineup}/{r.seed}" for r in recs]


def sprt_samples(records: list[GameRecord], order: dict[str, int], a_id: int) -> list[float]:
    """Per complete deal in schedule order (both seat rotations stored, no gap before it): the
    mean score of entrant a_id over the pair (1 win, 0.5 tie, 0 loss), as fishtest pairs games."""
    by_deal: dict[int, list[GameRecord]] = {}
    for r in records:
        by_deal.setdefault(r.game_index, []).append(r)
    out = []
    for d in range(len(by_deal) + 1):
        pair = by_deal.get(d)
        if not pair or len(pair) < 2:
            break
        s = []
        for r in pair:
            me = r.seats.index(a_id)
            other = 1 - me
            mine, theirs = r.ranks[me], r.ranks[other]
            s.append(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
        out.append(sum(s) / len(s))
    return out


def sequential_sprt(samples: list[float], elo0: float, elo1: float):
    """The SPRT as played: the test on each prefix of the samples in schedule order, stopping at
    the first prefix that decides (so games stored after that, by other workers, change nothing)."""
    from training.arena.ratings import sprt as sprt_test

    res = sprt_test(samples[:0], elo0, elo1)
    for k in range(1, len(samples) + 1):
        res = sprt_test(samples[:k], elo0, elo1)
        if res.decision is not None:
            break
    return res


@dataclass(frozen=True)
class TournamentPlan:
    """What a tournament plays and how (run_tournament's arguments, in its order, with its
    defaults): `games` per line-up into the store `db`; `fmt` round-robin or gauntlet:SPEC;
    `sprt` (ELO0, ELO1) a head-to-head that stops once the test decides; `pool_rules` rates the
    games of other rules data too; `n_boot` random orders for the openskill spread; `rules_file`
    a rules variant; `keep_records`, `rate`, `backend`, `address`: see run_tournament."""

    game_name: str
    players: int
    specs: list[str]
    games: int
    db: str | Path
    fmt: str = "round-robin"
    workers: int | None = 1
    seed: int = 0
    sprt: tuple[float, float] | None = None
    pool_rules: bool = False
    progress: bool = True
    n_boot: int = 200
    rules_file: str | Path | None = None
    keep_records: bool = False
    rate: bool = True
    backend: str = "process"
    address: str | None = None


def run_tournament(
    game_name: str, players: int, specs: list[str], games: int, db: str | Path, *args, **kwargs
) -> dict[str, Any]:
    """Play what the store lacks of a tournament and rate it; the result as a dict (see main).

    The arguments after `db`, positional in this order or by keyword, are TournamentPlan's: fmt
    ("round-robin"), workers (1), seed (0), sprt (None), pool_rules (False), progress (True),
    n_boot (200), rules_file (None), keep_records (False), rate (True), backend ("process"),
    address (None); `play_tournament` takes the plan itself.

    `rules_file`: play and rate under a rules variant (docs/rules_data.md), loaded for the run
    only. `keep_records`: also return this tournament's GameRecords under "records" (schedule
    order; not JSON). `rate=False` skips the ratings (e.g. self-play studies). `backend`:
    "process" (a process pool of `workers`, default 1) or "ray" (Ray tasks,
    training.arena.ray_backend: `address` "auto" or HOST:PORT of a running cluster, default a local
    instance; `workers` the most tasks at once, None: every CPU of the cluster). An entrant that
    plays on a clock makes the games depend on the machine: the result's "machine_dependent"
    lists those entrants (also recorded in the store's tournament configuration) and its
    "notice" says what that means (None when no entrant does)."""
    return play_tournament(TournamentPlan(game_name, players, specs, games, db, *args, **kwargs))


def play_tournament(plan: TournamentPlan) -> dict[str, Any]:
    """run_tournament of a plan."""
    from training.arena.ray_backend import check_backend, import_ray

    check_backend(plan.backend, plan.address)
    if plan.backend == "ray":
        import_ray()  # the extra missing: say so before anything is opened or played
    if plan.backend == "process" and plan.workers is None:
        plan = dataclasses.replace(plan, workers=1)
    game = get_game(plan.game_name)
    if plan.rules_file is None:
        return _run_tournament(game, plan, None)
    with game.GAME.using_rules_data(load_rules_file(plan.rules_file, plan.game_name)) as h:
        return _run_tournament(game, plan, (str(plan.rules_file), h))


@dataclass(frozen=True, eq=False)
class _Schedule:
    """A tournament's games and what they rest on: the player count, the entrants, those of
    their specs that play on a clock, the rules data hash played under, every game in schedule
    order, the configuration and its key in the store, and the rules data hash each entrant's
    checkpoint was trained under (None: no checkpoint)."""

    n: int
    entrants: list[Entrant]
    clocked: list[str]
    rules_hash: str
    jobs: list[Job]
    config: dict[str, Any]
    key: str
    trained: dict[str, str | None]


def _run_tournament(
    game: ModuleType, plan: TournamentPlan, rules: tuple[str, str] | None
) -> dict[str, Any]:
    """play_tournament with the game resolved and its rules data in use (`rules`: the rules file
    and its hash, for the workers; None: the default rules)."""
    sched = _schedule_tournament(game, plan)
    t0 = time.perf_counter()
    with GameStore(plan.db, plan.game_name) as store:
        # recorded beside the configuration, not in the key: the flag follows from the entrants
        tid = store.tournament_id(
            sched.key,
            sched.n,
            dict(
                sched.config, machine_dependent=sched.clocked, trained_rules_data_hash=sched.trained
            ),
        )
        ids = {e.label: store.entrant_id(e.spec, e.fingerprint, e.copy) for e in sched.entrants}
        labels = {v: k for k, v in ids.items()}
        order = {j.match_key: j.order for j in sched.jobs}
        played = _play_missing(store, plan, sched, tid, ids, order, rules)
        wall = time.perf_counter() - t0
        records, other_rules = _tournament_records(store, plan, sched, order)
    results, groups = results_for_ratings(records, order, labels)
    out = _result(plan, sched, ids, rules, (len(records), played, wall, other_rules))
    if results and plan.rate:
        from training.arena.ratings import leaderboard

        names = [e.label for e in sched.entrants]
        out["board"] = leaderboard(
            results, names, n_boot=plan.n_boot, seed=plan.seed, groups=groups
        )
    if plan.keep_records:
        out["records"] = sorted(records, key=lambda r: order[r.match_key])
    if plan.sprt is not None:
        from training.arena.ratings import sprt_text

        first, second = sched.entrants[0], sched.entrants[1]
        samples = sprt_samples(records, order, ids[first.label])
        res = sequential_sprt(samples, plan.sprt[0], plan.sprt[1])
        out["sprt"] = dict(dataclasses.asdict(res), text=sprt_text(res, first.label, second.label))
    return out


def _schedule_tournament(game: ModuleType, plan: TournamentPlan) -> _Schedule:
    """The plan checked (one line naming what is wrong), its entrants resolved and its games
    scheduled."""
    n = check_players(game, plan.players)
    specs, games, workers, sprt = plan.specs, plan.games, plan.workers, plan.sprt
    if len(specs) < n:
        raise ValueError(f"--agents needs at least --players = {n} entrants, got {len(specs)}")
    if games <= 0 or games % n:
        raise ValueError(
            f"--games (per line-up) must be a positive multiple of --players ({n}) so every "
            f"entrant plays every seat equally often; got {games}"
        )
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    if sprt is not None and (n != 2 or len(specs) != 2):
        raise ValueError("--sprt is a head-to-head: it needs --players 2 and exactly two --agents")
    entrants = resolve_entrants(plan.game_name, n, specs)
    clocked = clocked_agents(plan.game_name, specs, n)  # distinct specs, in --agents order
    rules_hash = str(game.RULES_DATA_HASH)
    jobs = schedule(n, entrants, plan.fmt, games, plan.seed, rules_hash)
    config = {
        "game": plan.game_name,
        "players": n,
        "format": plan.fmt,
        "games_per_lineup": games,
        "seed": plan.seed,
        "entrants": [[e.spec, e.fingerprint] for e in entrants],
        "sprt": list(sprt) if sprt else None,
    }
    key = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:24]
    # the rules data each learned entrant was trained under, beside the rules data played
    trained = {e.spec: (checkpoint_sidecar(e.spec) or {}).get("rules_data_hash") for e in entrants}
    return _Schedule(n, entrants, clocked, rules_hash, jobs, config, key, trained)


def _play_missing(
    store: GameStore,
    plan: TournamentPlan,
    sched: _Schedule,
    tid: int,
    ids: dict[str, int],
    order: dict[str, int],
    rules: tuple[str, str] | None,
) -> int:
    """Play the scheduled games the store lacks (none once a head-to-head's SPRT has decided);
    the number played."""
    have = store.has_keys(order)
    todo = [(j, [ids[lab] for lab in j.labels]) for j in sched.jobs if j.match_key not in have]
    stop = None
    if plan.sprt is not None:
        a_id = ids[sched.entrants[0].label]
        elo0, elo1 = plan.sprt[0], plan.sprt[1]

        def stop(st: GameStore) -> bool:
            recs = list(st.games(match_keys=order))
            res = sequential_sprt(sprt_samples(recs, order, a_id), elo0, elo1)
            return res.decision is not None

        if stop(store):
            todo = []
    jobs = sched.jobs
    k_lineups = len({j.lineup for j in jobs})
    if plan.progress:  # the total up front: --games counts per line-up
        print(
            f"{len(jobs)} games: {k_lineups} line-up{'s' if k_lineups != 1 else ''} x "
            f"{plan.games} games each; {len(todo)} to play, {len(jobs) - len(todo)} already in "
            "the store",
            file=sys.stderr,
            flush=True,
        )
    return run_jobs(
        store, plan.game_name, sched.n, todo, tid, plan.workers, plan.progress, stop, rules,
        plan.backend, plan.address, sched.rules_hash,
    )  # fmt: skip


def _tournament_records(
    store: GameStore, plan: TournamentPlan, sched: _Schedule, order: dict[str, int]
) -> tuple[list[GameRecord], int]:
    """This tournament's stored games (under this rules data only, unless plan.pool_rules) and
    the number of them played under other rules data; `order` gets every game's place."""
    n, rules_hash = sched.n, sched.rules_hash
    lineups = {j.lineup for j in sched.jobs}
    n_games = max(plan.games // n, 1)
    prefix = f"{n}p/s{plan.seed}/"
    records = [  # this tournament's games under any rules data
        r
        for r in store.games(players=n)
        if r.lineup in lineups and r.game_index < n_games and r.match_key.startswith(prefix)
    ]
    other_rules = sum(r.rules_data_hash != rules_hash for r in records)
    if not plan.pool_rules:
        records = [r for r in records if r.rules_data_hash == rules_hash]
    for r in records:
        order.setdefault(r.match_key, len(order) + r.id)
    return records, other_rules


def _result(
    plan: TournamentPlan,
    sched: _Schedule,
    ids: dict[str, int],
    rules: tuple[str, str] | None,
    counts: tuple[int, int, float, int],
) -> dict[str, Any]:
    """The tournament's result before its ratings; `counts`: the games stored, played now, the
    wall seconds and the games stored under other rules data."""
    stored, played, wall, other_rules = counts
    return {
        "game": plan.game_name,
        "players": sched.n,
        "format": plan.fmt,
        "seed": plan.seed,
        "games_per_lineup": plan.games,
        "scheduled_games": len(sched.jobs),
        "stored_games": stored,
        "played_now": played,
        "wall_seconds": round(wall, 1),
        "workers": plan.workers,
        "backend": plan.backend,
        "rules_data_hash": sched.rules_hash,
        "rules_file": rules[0] if rules else None,
        "pooled_rules": plan.pool_rules,
        "games_under_other_rules_data": other_rules,
        "library_version": library_version(),
        "note": rules_note(get_game(plan.game_name), sched.rules_hash),
        "machine_dependent": sched.clocked,
        "notice": machine_notice(sched.clocked),
        "entrants": [
            {
                "label": e.label,
                "spec": e.spec,
                "fingerprint": e.fingerprint,
                "trained_rules_data_hash": sched.trained[e.spec],
            }
            for e in sched.entrants
        ],
        "entrant_ids": {e.key: ids[e.label] for e in sched.entrants},
    }


def write_report(result: dict[str, Any], out_dir: str | Path) -> list[Path]:
    """leaderboard.md, ratings.png, winrates.png and result.json under out_dir."""
    from training.arena.leaderboard import markdown, plot_heatmap, plot_ratings

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    title = (
        f"{result['game']}, {result['players']} players, {result['stored_games']} games "
        f"({result['format']}, seed {result['seed']})"
    )
    notes = [result["note"], f"library {result['library_version']}"]
    if result.get("notice"):
        notes.insert(0, result["notice"])
    if result.get("games_under_other_rules_data"):
        k = result["games_under_other_rules_data"]
        notes.append(
            f"{k} stored games of this tournament were played under other rules data and are "
            + ("pooled here (--pool-rules)." if result["pooled_rules"] else "not rated here.")
        )
    if "sprt" in result:
        notes.append(result["sprt"]["text"])
    paths = [out / "result.json"]
    paths[0].write_text(json.dumps(result, indent=2, default=json_default))
    if "board" in result:
        (out / "leaderboard.md").write_text(markdown(result["board"], title, notes))
        plot_ratings(result["board"], out / "ratings.png")
        plot_heatmap(result["board"], out / "winrates.png")
        paths += [out / "leaderboard.md", out / "ratings.png", out / "winrates.png"]
    return paths


def json_default(x):
    """json.dumps' default= for numpy scalars and arrays."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of `python -m training.arena.tournament`."""
    p = OneLineParser(
        prog="python -m training.arena.tournament",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--game",
        default=None,
        choices=game_names(),
        help="default: the game of the checkpoint entrants, else village",
    )
    p.add_argument("--players", type=int, default=2)
    p.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="entrants: bot names, mcts:key=value,..., checkpoint paths, py:module:factory",
    )
    p.add_argument("--games", type=int, default=20, help="games per line-up (multiple of players)")
    p.add_argument("--db", required=True, help="the SQLite game store (created if missing)")
    p.add_argument("--format", default="round-robin", help="round-robin or gauntlet:SPEC")
    add_backend_arguments(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        help="head-to-head of two agents: stop when a sequential probability ratio test decides "
        "between 'first agent is ELO0 stronger' and 'ELO1 stronger' (alpha = beta = 0.05); "
        "--games is then the most games played",
    )
    p.add_argument(
        "--pool-rules",
        action="store_true",
        help="rate games played under other RULES_DATA_HASH values together with these",
    )
    p.add_argument(
        "--rules",
        metavar="FILE",
        help="play under a rules variant / corrected provisional values (docs/rules_data.md)",
    )
    p.add_argument(
        "--report", "--out", metavar="DIR", help="report folder (default: DB name + _report)"
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        help="random game orders for the spread of the sequential openskill column",
    )
    p.add_argument("--no-progress", action="store_true")
    return p


def add_backend_arguments(p: argparse.ArgumentParser) -> None:
    """--workers, --backend and --address (shared with training.balance)."""
    from training.arena.ray_backend import BACKENDS

    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes playing games (default 1); with --backend ray the most Ray tasks at "
        "once (default: every CPU of the cluster; a local instance gets this many CPUs)",
    )
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="process",
        help="process: a local process pool; ray: Ray tasks (the optional extra [ray]; "
        "docs/scale-out.md)",
    )
    p.add_argument(
        "--address",
        default=None,
        help="with --backend ray: a running Ray cluster, auto or HOST:PORT (default: start a "
        "local Ray instance)",
    )


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    sprt = None
    if args.sprt:
        try:
            e0, e1 = (float(x) for x in args.sprt.split(","))
        except ValueError:
            parser.error(f"--sprt takes ELO0,ELO1 (e.g. 0,50), got {args.sprt!r}")
        sprt = (e0, e1)
    try:
        args.game = resolve_game(args.game, args.agents)
        notice = machine_notice(clocked_agents(args.game, args.agents, args.players))
        if notice:  # the first line: said before anything is played
            print(notice, flush=True)
        plan = TournamentPlan(
            args.game,
            args.players,
            args.agents,
            args.games,
            args.db,
            fmt=args.format,
            workers=args.workers,
            seed=args.seed,
            sprt=sprt,
            pool_rules=args.pool_rules,
            progress=not args.no_progress,
            n_boot=args.bootstrap,
            rules_file=args.rules,
            backend=args.backend,
            address=args.address,
        )
        result = play_tournament(plan)
    except (ValueError, CheckpointError, GameNotAvailableError, StoreError, AgentSpecError) as e:
        parser.error(str(e))
    except WorkerLostError as e:
        print(e, file=sys.stderr)
        return 3
    except BrokenProcessPool:
        print(
            "a worker process died; every game finished before it is stored; rerun the same "
            "command to play the rest",
            file=sys.stderr,
        )
        return 3
    except KeyboardInterrupt:
        print("interrupted; finished games are stored; rerun to continue", file=sys.stderr)
        return 130
    report = args.report or f"{os.path.splitext(args.db)[0]}_report"
    paths = write_report(result, report)
    print(
        f"{result['stored_games']}/{result['scheduled_games']} games in {args.db} "
        f"({result['played_now']} played now, {result['wall_seconds']} s)"
    )
    if "board" in result:
        from rich.console import Console

        from training.arena.leaderboard import print_board

        console = Console()
        if not console.is_terminal:  # a log or a pipe: 100 columns, not 80
            console = Console(width=100)
        print_board(result["board"], f"{args.game}, {result['players']} players", console)
        if result["notice"]:
            print(result["notice"])
    if "sprt" in result:
        print(result["sprt"]["text"])
    print(result["note"])
    print("report: " + ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
