"""Throughput of our games side by side with the peer libraries installed (DESIGN §5).

    python -m benchmarks.run            # full run (~10 min), writes runs/benchmarks-<UTC time>/
    python -m benchmarks.run --quick    # under a minute (CI), peers skipped if not installed
    python -m benchmarks.run --update-committed   # refresh the checked-in benchmarks/results/
    python -m benchmarks.run --groups search      # only some groups (comma list; see GROUPS)

Writes results.json, results.md and results.png to --out (default: a fresh folder
runs/benchmarks-<UTC timestamp>/ under the current directory, so a run never overwrites the
committed results; --update-committed writes benchmarks/results/ instead) and prints the Markdown
table. Every row runs single-threaded in this process (one core) unless its
`threads`/`procs` column says otherwise. Decisions and games per second as DESIGN §5 defines
them: a decision is a step with an agent-chosen action; forced single-option choices and chance
outcomes are not counted. Targets are ratios measured in the same run: after the rows, the two
rows of each ratio target are measured again alternately, and the median of those rounds' ratios
is the figure checked (the rows' own ratio is kept beside it).
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # as a command only: an importer's numba keeps its own settings
    os.environ.setdefault("NUMBA_NUM_THREADS", "2")  # rows set 1 thread; the scaling row uses 2
    os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")  # fork-safe (GNU OpenMP is not)

import argparse  # noqa: E402
import datetime as dt  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
import multiprocessing as mp  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

import numba  # noqa: E402

from benchmarks import engine_speed, peers  # noqa: E402
from benchmarks import search as search_bench  # noqa: E402
from benchmarks import selfplay as selfplay_bench  # noqa: E402
from benchmarks.report import to_markdown, to_png  # noqa: E402
from core.registry import game_names, get_game

RESULTS = Path(__file__).parent / "results"  # the committed results (--update-committed)
RUNS = Path("runs")  # default parent of a run's own folder (git-ignored)
TARGETS = [
    # (name, numerator row, denominator row or None, needed ratio / absolute[, field[, "<="]])
    (
        "compiled batch random play B=1024 >= 1,000,000 decisions/s",
        "compiled:{g} batch B=1024",
        None,
        1_000_000,
    ),
    (
        "compiled batch B=1024 >= 5x OpenSpiel chess rollouts",
        "compiled:{g} batch B=1024",
        "compiled:OpenSpiel chess",
        5.0,
    ),
    (
        "single-game API with observe >= 2x OpenSpiel chess with observation_tensor",
        "api:{g} API + observe",
        "api:OpenSpiel chess + observation_tensor",
        2.0,
    ),
    (
        "AEC env() >= 1.8x PettingZoo connect_four_v3 env()",
        "aec:{g} env()",
        "aec:PettingZoo connect_four_v3 env()",
        1.8,
    ),
    (
        "MaskablePPO env throughput (learn() steps/s): batch VecEnv >= 3x SubprocVecEnv",
        "ppo:{g} MaskablePPO batch VecEnv",
        "ppo:{g} MaskablePPO SubprocVecEnv(2)",
        3.0,
    ),
    (
        "MaskablePPO rollout collection only: batch VecEnv >= 3x SubprocVecEnv",
        "ppo:{g} MaskablePPO batch VecEnv",
        "ppo:{g} MaskablePPO SubprocVecEnv(2)",
        3.0,
        "rollout_steps_per_s",
    ),
    (
        "learn: the default run's learner steps/s >= 4x the settings it replaced",
        "learn:{g} default run, new settings",
        "learn:{g} default run, settings before",
        4.0,
    ),
    (
        "learn with 2 busy neighbours: the default run's learner steps/s >= 2x the settings it "
        "replaced (half the quiet target)",
        "learn:{g} default run, new settings, 2 busy neighbours",
        "learn:{g} default run, settings before, 2 busy neighbours",
        2.0,
    ),
    (
        "search: engine decisions/s inside search >= 50% of compiled B=1 random play",
        "search:{g} mcts iters=1000, random rollouts",
        "search:{g} random play B=1 (reference)",
        0.5,
    ),
    (
        "search: median wall time of one 100-simulation guided decision <= 50 ms",
        "search:{g} az sims=100, puct root",
        None,
        50.0,
        "median_decision_ms",
        "<=",
    ),
    (
        "search: a default mcts decision at 4 players <= 2x its 2-player time (median ms)",
        "search:{g} default mcts, 4 players",
        "search:{g} default mcts, 2 players",
        2.0,
        "median_decision_ms",
        "<=",
    ),
    (
        "search: a conditioned az decision <= 1.2x the per-count network's, 2 players (paired)",
        "search:{g} conditioned az vs az-2p, 2 players",
        None,
        1.2,
        "paired_ratio",
        "<=",
    ),
    (
        "search: a conditioned az decision <= 1.2x the per-count network's, 4 players (paired)",
        "search:{g} conditioned az vs az-4p, 4 players",
        None,
        1.2,
        "paired_ratio",
        "<=",
    ),
    (
        "search: a 100-simulation az decision at 4 players <= 2x its 2-player time (median ms)",
        "search:{g} az sims=100 as shipped, 4 players",
        "search:{g} az sims=100 as shipped, 2 players",
        2.0,
        "median_decision_ms",
        "<=",
    ),
    (
        "search: median wall time of one 1,000-iteration decision, 4 players <= 100 ms",
        "search:{g} mcts iters=1000, random rollouts",
        None,
        100.0,
        "median_decision_ms",
        "<=",
    ),
]
GROUPS = (
    "compiled",
    "batch-py",
    "api",
    "aec",
    "gym",
    "memory",
    "scaling",
    "ppo",
    "learn",
    "search",
    "selfplay",
)
PAIRED_ROUNDS = 5  # rounds of the alternating re-measurement of each ratio target (full run)


def timed(fn, seconds: float, min_calls: int = 1) -> dict:
    """Call fn() -> (decisions, games) until `seconds` have passed (at least min_calls)."""
    fn()  # warm: compilation, caches, first-call imports are not timed
    dec = games = calls = 0
    t0 = time.perf_counter()
    while calls < min_calls or time.perf_counter() - t0 < seconds:
        d, g = fn()
        dec += d
        games += g
        calls += 1
    el = time.perf_counter() - t0
    return {
        "decisions_per_s": dec / el,
        "games_per_s": games / el,
        "decisions": int(dec),
        "games": int(games),
        "seconds": round(el, 3),
    }


class Bench:
    def __init__(self, seconds: float, quick: bool):
        self.seconds = seconds
        self.quick = quick
        self.rows: list[dict] = []
        self.skipped: list[dict] = []
        self.fns: dict[str, tuple] = {}  # row key -> (fn, threads), for the paired ratios

    def row(self, group, name, lib, fn, *, threads=1, procs=1, note="", seconds=None, extra=None):
        """Measure one row; a failure becomes a skipped row with its reason."""
        numba.set_num_threads(threads)
        try:
            r = fn(seconds or self.seconds) if callable(fn) else fn
        except Exception as e:  # a peer that breaks must not sink the run
            self.skip(group, name, lib, f"{type(e).__name__}: {e}")
            traceback.print_exc(file=sys.stderr)
            return None
        finally:
            numba.set_num_threads(1)
        out = {
            "group": group,
            "name": name,
            "lib": lib,
            "threads": threads,
            "procs": procs,
            "note": note,
            **r,
            **(extra or {}),
        }
        self.rows.append(out)
        if callable(fn):
            self.fns[f"{group}:{name}"] = (fn, threads)
        if "bytes_per_state" in out:
            what = f"{out['bytes_per_state']:>14,.0f} bytes per game state"
        else:
            what = (
                f"{out.get('decisions_per_s') or 0:>14,.0f} dec/s "
                f"{out.get('games_per_s') or 0:>10,.1f} games/s"
            )
            if "median_decision_ms" in out:
                what += f" {out['median_decision_ms']:,.1f} ms/decision"
        print(f"  {group:10s} {name:48s} {what}", file=sys.stderr, flush=True)
        return out

    def skip(self, group, name, lib, why):
        self.skipped.append({"group": group, "name": name, "lib": lib, "reason": why})
        print(f"  {group:10s} {name:48s} skipped: {why}", file=sys.stderr, flush=True)


# --- our rows -----------------------------------------------------------------------------


def compiled_batch(g: str, players: int, B: int, threads: int = 1):
    def run(seconds):
        eng = get_game(g).make_batch(B, players, seed=1, observe=False, threads=threads)
        per_call = max(1, 20_000 // B)
        eng.random_play(per_call)  # warm (compile or cache load)
        return timed(lambda: eng.random_play(per_call), seconds)

    return run


def python_driven_batch(g: str, players: int, B: int):
    """eng.step() called from Python with compiled random action choice and observations."""

    def run(seconds):
        eng = get_game(g).make_batch(B, players, seed=2, observe=True, threads=1)

        def call():
            eng.step(eng.random_actions())
            return B, int(eng.dones.sum())

        call()
        return timed(call, seconds)

    return run


def _scaling_child(g, players, B, seconds, q):
    numba.set_num_threads(1)
    eng = get_game(g).make_batch(B, players, seed=os.getpid(), observe=False, threads=1)
    eng.random_play(10)
    q.put(timed(lambda: eng.random_play(max(1, 20_000 // B)), seconds))


def processes(g: str, players: int, B: int, n_procs: int):
    """n_procs forked processes each running the compiled batch loop; throughputs summed."""

    def run(seconds):
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        ps = [
            ctx.Process(target=_scaling_child, args=(g, players, B, seconds, q))
            for _ in range(n_procs)
        ]
        for p in ps:
            p.start()
        try:
            res = [q.get(timeout=seconds * 4 + 30) for _ in ps]
        finally:
            for p in ps:
                p.join(timeout=5)
                if p.is_alive():
                    p.terminate()
        return {
            "decisions_per_s": sum(r["decisions_per_s"] for r in res),
            "games_per_s": sum(r["games_per_s"] for r in res),
            "decisions": sum(r["decisions"] for r in res),
            "games": sum(r["games"] for r in res),
            "seconds": max(r["seconds"] for r in res),
        }

    return run


def rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def _rss_child(make, q):
    make(10)  # imports and first allocations before the baseline
    r0 = rss_bytes()
    xs = make(None)
    q.put((rss_bytes() - r0) / len(xs))


def fresh_process_rss_per_item(make) -> float:
    """RSS growth per item of make(None) in a fresh interpreter (a warm heap would hide it)."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_rss_child, args=(make, q))
    p.start()
    try:
        return q.get(timeout=120)
    finally:
        p.join(timeout=5)


def memory_rows(b: Bench, g: str, players: int):
    game = get_game(g)
    n = 2_000 if b.quick else 20_000

    def ours(_s):
        r0 = rss_bytes()
        eng = get_game(g).make_batch(n, players, seed=3, observe=False, threads=1)
        r1 = rss_bytes()
        per = eng.nbytes_per_game()
        del eng
        return {"bytes_per_state": per, "rss_bytes_per_game_in_batch": (r1 - r0) / n}

    b.row(
        "memory",
        f"{g} state ({game.LAYOUT.size} int64)",
        "ours",
        ours,
        note="bytes_per_state exact; RSS per game includes masks, obs, scratch",
    )

    def rss_of(make):
        def run(_s):
            return {"bytes_per_state": fresh_process_rss_per_item(make)}

        return run

    m = 500 if b.quick else 5_000
    if peers.available("pyspiel"):
        for name in ("chess", "backgammon"):
            b.row(
                "memory",
                f"OpenSpiel {name} state (clones)",
                "open_spiel",
                rss_of(functools.partial(peers.spiel_midgame_states, name, m)),
                note="RSS delta of holding clones of a mid-game state",
            )
    else:
        b.skip("memory", "OpenSpiel states", "open_spiel", "pyspiel not installed")
    if peers.available("catanatron"):
        b.row(
            "memory",
            "Catanatron game (copies)",
            "catanatron",
            rss_of(functools.partial(peers.catan_midgame_states, m // 10)),
            note="RSS delta of holding game.copy() of a mid-game",
        )
    else:
        b.skip("memory", "Catanatron games", "catanatron", "catanatron not installed")


def gym_rows(b: Bench, g: str, players: int):
    if not peers.available("training") or not peers.available("training.learn.env"):
        b.skip("gym", f"{g} single-seat gym env", "ours", "training package not merged yet")
        return
    from training.learn.env import SingleSeatEnv

    def single(seconds):
        env = SingleSeatEnv(g, players=players, opponents="random")
        from core.agents import RandomAgent

        bot = RandomAgent(0)
        k = [0]

        def one():
            k[0] += 1
            _o, info = env.reset(seed=k[0])
            d = info.get("opponent_moves", 0)
            done = False
            while not done:
                _o, _r, term, trunc, info = env.step(bot.act_mask(env.action_masks()))
                d += 1 + info.get("opponent_moves", 0)
                done = term or trunc
            return d, 1

        one()
        return timed(one, seconds)

    b.row(
        "gym",
        f"{g} single-seat gym env (random opponents)",
        "ours",
        single,
        note="decisions include the opponents' moves inside step",
    )
    try:
        from training.learn.batch_vec_env import BatchVecEnv
    except ImportError:
        b.skip("gym", f"{g} batch VecEnv", "ours", "batch VecEnv needs the training branch")
        return

    def vec(seconds, B=64):
        env = BatchVecEnv(g, n_envs=B, players=players, opponents="random", seed=0)
        env.reset()
        eng = env.engine

        def call():
            before = int(env.decisions)
            env.step(eng.random_actions().copy())
            return int(env.decisions) - before, int(env.episodes_done_last)

        call()
        return timed(call, seconds)

    b.row(
        "gym",
        f"{g} batch VecEnv B=64 (random opponents)",
        "ours",
        vec,
        note="decisions include the opponents' moves",
    )


def ppo_rows(b: Bench, g: str, players: int):
    try:
        from benchmarks.ppo import ppo_throughput
    except ImportError as e:
        b.skip("ppo", f"{g} MaskablePPO", "ours", f"needs training/sb3-contrib: {e}")
        return
    for vec in ("batch", "subproc"):
        name = (
            f"{g} MaskablePPO batch VecEnv"
            if vec == "batch"
            else f"{g} MaskablePPO SubprocVecEnv(2)"
        )
        b.row(
            "ppo",
            name,
            "ours",
            lambda s, vec=vec: ppo_throughput(g, players, vec, s),
            threads=2 if vec == "batch" else 1,
            procs=1 if vec == "batch" else 3,
            note="learner env steps/s of learn() incl. PPO updates; rollout-only figure in "
            "JSON (rollout_steps_per_s); same rollout size, net, timesteps",
        )


BUSY_NEIGHBOURS = 2  # the learn group's busy rows: as many spinning processes as the box's cores


def learn_rows(b: Bench, g: str, players: int):
    try:
        from benchmarks.learn import learn_throughput
    except ImportError as e:
        b.skip("learn", f"{g} default run", "ours", f"needs training/sb3-contrib: {e}")
        return
    for busy in (0, BUSY_NEIGHBOURS):
        for settings in ("before", "new"):
            name = "settings before" if settings == "before" else "new settings"
            b.row(
                "learn",
                f"{g} default run, {name}" + (f", {busy} busy neighbours" if busy else ""),
                "ours",
                lambda s, settings=settings, busy=busy: learn_throughput(
                    g, players, settings, s, busy
                ),
                threads=1 if settings == "before" else 2,
                note="learner steps/s of learn() (rollouts + PPO updates) of the game's default "
                "run (benchmarks/learn.py: what 'settings before' means)"
                + (f"; {busy} other processes spinning on the CPU meanwhile" if busy else ""),
            )


# --- the run ------------------------------------------------------------------------------
def machine_info() -> dict:
    info = engine_speed.machine_info()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info["platform"] = platform.platform()
    info["loadavg"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    return info


def compiled_rows(b: Bench, games: list[str], players: int, groups: tuple[str, ...]) -> None:
    for g in games:
        for B in (1, 64, 1024) if "compiled" in groups else ():
            b.row(
                "compiled",
                f"{g} batch B={B}",
                "ours",
                compiled_batch(g, players, B),
                note="batch random_play, one compiled call",
            )
        if "batch-py" not in groups:
            continue
        b.row(
            "batch-py",
            f"{g} batch step() B=1024 from Python + obs",
            "ours",
            python_driven_batch(g, players, 1024),
            note="eng.step(eng.random_actions()) with observations",
        )
    if "compiled" not in groups:
        return
    if peers.available("pyspiel"):
        for name in ("chess", "backgammon"):
            b.row(
                "compiled",
                f"OpenSpiel {name}",
                "open_spiel",
                lambda s, n=name: timed(peers.spiel_rollout_fn(n), s),
                note="pyspiel random rollout driven from Python",
            )
    else:
        b.skip("compiled", "OpenSpiel chess/backgammon", "open_spiel", "pyspiel not installed")
    if peers.available("catanatron"):
        b.row(
            "compiled",
            "Catanatron 4p",
            "catanatron",
            lambda s: timed(peers.catan_game_fn(4), s),
            note="Game(RandomPlayer x4).play()",
        )
    else:
        b.skip("compiled", "Catanatron 4p", "catanatron", "catanatron not installed")


def api_rows(b: Bench, games: list[str], players: int) -> None:
    for g in games:
        game = get_game(g)
        b.row(
            "api",
            f"{g} API + observe",
            "ours",
            lambda s, game=game: engine_speed.api_loop(game, players, s),
            note="new_game/legal_mask/observe/step per decision",
        )
    if peers.available("pyspiel"):
        for name in ("chess", "backgammon"):
            b.row(
                "api",
                f"OpenSpiel {name} + observation_tensor",
                "open_spiel",
                lambda s, n=name: timed(peers.spiel_rollout_fn(n, observe=True), s),
            )
        for g in games:  # the cost of the OpenSpiel door (interop.openspiel) on our own games
            b.row(
                "api",
                f"{g} through OpenSpiel (python_{g}) + observation_tensor",
                "ours via open_spiel",
                lambda s, g=g: timed(
                    peers.spiel_rollout_fn(f"python_{g}", True, params={"players": players}), s
                ),
                note="pyspiel random play of interop.openspiel's game, driven from Python",
            )


def aec_rows(b: Bench, games: list[str], players: int) -> None:
    for g in games:
        game = get_game(g)
        b.row(
            "aec",
            f"{g} env()",
            "ours",
            lambda s, game=game: timed(peers.aec_game_fn(game.env(num_players=players)), s),
        )
    if peers.available("pettingzoo.classic.connect_four_v3"):
        for name in ("connect_four_v3", "chess_v6"):
            try:
                env = peers.pz_env(name)
            except Exception as e:  # e.g. a missing classic extra (chess, pygame)
                b.skip("aec", f"PettingZoo {name} env()", "pettingzoo", repr(e))
                continue
            b.row(
                "aec",
                f"PettingZoo {name} env()",
                "pettingzoo",
                lambda s, env=env: timed(peers.aec_game_fn(env), s),
            )
    else:
        b.skip("aec", "PettingZoo classic env()", "pettingzoo", "pettingzoo[classic] missing")


def scaling_rows(b: Bench, g: str, players: int) -> None:
    b.row("scaling", f"{g} batch B=64, 1 process", "ours", processes(g, players, 64, 1))
    b.row(
        "scaling",
        f"{g} batch B=64, 2 processes",
        "ours",
        processes(g, players, 64, 2),
        procs=2,
        note="summed over processes",
    )
    b.row(
        "scaling",
        f"{g} batch B=1024, 2 threads (prange)",
        "ours",
        compiled_batch(g, players, 1024, threads=2),
        threads=2,
    )


def conditioned_counts(g: str) -> list[int]:
    """The counts at which `g` ships a conditioned network (the default `az` there)."""
    from training.agents.az_agent import CONDITIONED, shipped_folders, shipped_networks

    game = get_game(g)
    if CONDITIONED not in shipped_folders(game):
        return []
    folder = shipped_folders(game)[CONDITIONED]
    return sorted(n for n, f in shipped_networks(game).items() if f == folder)


def smallest_and_largest(g: str) -> list[int]:
    """The game's smallest and largest player counts (one when they are equal)."""
    counts = get_game(g).PLAYER_COUNTS
    return sorted({min(counts), max(counts)})


def selfplay_rows(b: Bench, games: list[str]) -> None:
    """Expert iteration's self-play (benchmarks/selfplay.py) at the smallest and largest player
    count of each game, by SelfPlayer.play_one (the single-game loop) and by SelfPlayer.play_many
    on the same seeds: games, decisions and network evaluations per second of one core, and their
    paired ratio."""
    for g in games:
        for n in smallest_and_largest(g):
            for path, how in (("one", "play_one"), ("many", "play_many")):
                b.row(
                    "selfplay",
                    f"{g} self-play, {n} players, {how}",
                    "ours",
                    selfplay_bench.paired_rate(g, n, path),
                    note=f"{selfplay_bench.SIMS} simulations per decision, the shipped search "
                    f"settings, a {search_bench.GUIDED_HIDDEN} network, random weights; the same "
                    "seeds both ways; network evaluations per second and the ratio play_many / "
                    "play_one in JSON",
                )
        n = min(get_game(g).PLAYER_COUNTS)
        for path, how in (("job", "an ordinary run's job"), ("variant", "a conditioned run's job")):
            b.row(
                "selfplay",
                f"{g} self-play, {n} players, {how}",
                "ours",
                selfplay_bench.conditioned_rate(g, n, path),
                note=f"groups of {selfplay_bench.VARIANT_GAMES} games at the game's own rules, "
                "the same seeds and games both ways (the conditioned network's folded first layer "
                "is the ordinary one's); the ratio conditioned / ordinary in JSON",
            )


def search_rows(b: Bench, games: list[str], players: int, quick: bool) -> None:
    """The ISMCTS agent (benchmarks/search.py) beside the same game's compiled B=1 random play,
    and OpenSpiel's C++ MCTSBot as the reference."""
    for g in games:
        b.row(
            "search",
            f"{g} random play B=1 (reference)",
            "ours",
            compiled_batch(g, players, 1),
            note="batch random_play, one compiled call",
        )
        for label, params in search_bench.SEARCH_CONFIGS.items():
            b.row(
                "search",
                f"{g} mcts iters=1000, {label}",
                "ours",
                search_bench.search_rate(g, players, params),
                note=f"mcts:{params}; engine steps inside search per busy second; "
                "median ms per decision in JSON",
            )
        for label, params in search_bench.GUIDED_CONFIGS.items():
            b.row(
                "search",
                f"{g} az sims=100, {label} root",
                "ours",
                search_bench.guided_rate(g, players, params),
                note=f"az:{params}, a {search_bench.GUIDED_HIDDEN} network, random weights",
            )
        for n in smallest_and_largest(g):
            b.row(
                "search",
                f"{g} default mcts, {n} players",
                "ours",
                search_bench.default_mcts_rate(g, n),
                note="the game's own mcts defaults; median ms per decision in JSON",
            )
            params = search_bench.shipped_search(g, n)
            b.row(
                "search",
                f"{g} az sims=100 as shipped, {n} players",
                "ours",
                search_bench.guided_rate(g, n, params),
                note=f"az:{params}, a {search_bench.GUIDED_HIDDEN} network, random weights",
            )
            name = f"{g} conditioned az vs az-{n}p, {n} players"
            if conditioned_counts(g) and n in conditioned_counts(g):
                b.row(
                    "search",
                    name,
                    "ours",
                    search_bench.conditioned_pair(g, n),
                    note="the shipped networks, 100 simulations each, alternating on the same "
                    "positions; paired_ratio: median of per-position time ratios",
                )
            else:
                b.skip("search", name, "ours", f"{g} ships no conditioned network at {n} players")
    if quick:
        return
    if peers.available("pyspiel"):
        for name in ("chess", "backgammon"):
            b.row(
                "search",
                f"OpenSpiel {name} MCTSBot (C++), 1,000 simulations",
                "open_spiel",
                search_bench.spiel_mcts(name),
                note="random rollouts to the end; median ms per decision in JSON",
            )
    else:
        b.skip("search", "OpenSpiel MCTSBot", "open_spiel", "pyspiel not installed")


def run(
    quick: bool,
    games: list[str],
    players: int,
    seconds: float | None,
    skip_ppo: bool,
    groups: tuple[str, ...] = GROUPS,
) -> dict:
    secs = seconds if seconds is not None else (0.6 if quick else 8.0)
    b = Bench(secs, quick)
    numba.set_num_threads(1)
    t_start = time.perf_counter()
    if "compiled" in groups or "batch-py" in groups:
        compiled_rows(b, games, players, groups)
    if "api" in groups:
        api_rows(b, games, players)
    if "aec" in groups:
        aec_rows(b, games, players)
    for g in games:
        if "gym" in groups:
            gym_rows(b, g, players)
        if "memory" in groups:
            memory_rows(b, g, players)
        if "scaling" in groups:
            scaling_rows(b, g, players)
        if "ppo" in groups and not (quick or skip_ppo):
            ppo_rows(b, g, players)
        if "learn" in groups and not (quick or skip_ppo):
            learn_rows(b, g, players)
    if "search" in groups:
        search_rows(b, games, players, quick)
    if "selfplay" in groups:
        selfplay_rows(b, games)

    paired = paired_ratios(
        b, games, 1 if quick else PAIRED_ROUNDS, secs if quick else min(secs, 2.0)
    )
    first = get_game(games[0])
    res = {
        "command": " ".join(["python -m benchmarks.run"] + sys.argv[1:]),
        "quick": quick,
        "groups": list(groups),
        "seconds_per_row": secs,
        "players": players,
        "games": games,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "rules_data_hash": {g: get_game(g).RULES_DATA_HASH for g in games},
        "provisional_rules_data": True,
        "note": "Results rest on provisional rules data (RULES_DATA_HASH); re-measure when the "
        "tables change. Single-threaded rows unless threads/procs say otherwise.",
        "machine": machine_info(),
        "peer_versions": peers.versions(),
        "rows": b.rows,
        "skipped": b.skipped,
        "paired": paired,
        "wall_seconds": round(time.perf_counter() - t_start, 1),
    }
    res["targets"] = check_targets(res, games)
    del first
    return res


def _measure(b: Bench, key: str, seconds: float) -> float:
    fn, threads = b.fns[key]
    numba.set_num_threads(threads)
    try:
        return fn(seconds)["decisions_per_s"]
    finally:
        numba.set_num_threads(1)


def paired_ratios(b: Bench, games: list[str], rounds: int, seconds: float) -> dict:
    """Each ratio target's two rows measured again, alternately (A B, then B A, ...), `rounds`
    times: the ratio of each round and their median. The box drifts by up to 2x between rows
    measured minutes apart, far less between neighbours. Pairs compare decisions_per_s (for
    the PPO rows: learn() env steps/s); a target on another field uses its rows' ratio."""
    out = {}
    for g in games:
        for _text, num, den, _need, *field in TARGETS:
            if den is None or field:
                continue
            a, d = num.format(g=g), den.format(g=g)
            if a not in b.fns or d not in b.fns or f"{a}/{d}" in out:
                continue
            ratios = []
            for r in range(rounds):
                if r % 2 == 0:
                    x = _measure(b, a, seconds)
                    y = _measure(b, d, seconds)
                else:
                    y = _measure(b, d, seconds)
                    x = _measure(b, a, seconds)
                ratios.append(x / y)
            ratios.sort()
            out[f"{a}/{d}"] = {
                "ratios": ratios,
                "median": ratios[len(ratios) // 2],
                "seconds_each": seconds,
            }
            print(
                f"  paired     {a} / {d}: median {ratios[len(ratios) // 2]:.2f} "
                f"(rounds {', '.join(f'{x:.2f}' for x in ratios)})",
                file=sys.stderr,
                flush=True,
            )
    return out


def check_targets(res: dict, games: list[str]) -> list[dict]:
    """Each target per game; a ratio uses the paired median where one was measured."""
    by = {f"{r['group']}:{r['name']}": r for r in res["rows"]}
    paired = res.get("paired", {})
    out = []
    groups = set(res.get("groups", GROUPS))
    for g in games:
        for text, num, den, need, *field in TARGETS:
            if num.split(":")[0] not in groups:  # a group this run did not measure
                continue
            key = field[0] if field else "decisions_per_s"
            at_most = len(field) > 1 and field[1] == "<="  # a ceiling (e.g. milliseconds)
            a = by.get(num.format(g=g))
            d = by.get(den.format(g=g)) if den else None
            if a is None or (den and d is None):
                out.append({"game": g, "target": text, "status": "not measured"})
                continue
            val = a[key] / d[key] if den else a[key]
            row = {"game": g, "target": text, "value": val, "needed": need, "how": "rows"}
            # the pairs re-measure decisions_per_s; a target on another field keeps its rows
            p = paired.get(f"{num.format(g=g)}/{den.format(g=g)}") if den and not field else None
            if p:
                row.update(
                    value=p["median"], rows_ratio=val, how=f"paired median of {len(p['ratios'])}"
                )
            row["met"] = bool(row["value"] <= need if at_most else row["value"] >= need)
            out.append(row)
    return out


def default_out_dir(now: dt.datetime | None = None) -> Path:
    """A fresh folder for one run: runs/benchmarks-<UTC timestamp> (relative to the cwd)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    return RUNS / f"benchmarks-{now.astimezone(dt.timezone.utc):%Y%m%dT%H%M%SZ}"


def output_dir(args: argparse.Namespace, now: dt.datetime | None = None) -> Path:
    """Where a run writes: --out if given, the committed benchmarks/results/ only with
    --update-committed, else a fresh default_out_dir()."""
    if args.update_committed:
        if args.out is not None and Path(args.out).resolve() != RESULTS.resolve():
            raise SystemExit("--update-committed writes benchmarks/results/; drop --out")
        return RESULTS
    if args.out is not None:
        return Path(args.out)
    return default_out_dir(now)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short rows, no PPO (under a minute)")
    ap.add_argument(
        "--games",
        "--game",
        default=None,
        help="comma list (default: every game with a batch engine)",
    )
    ap.add_argument("--players", type=int, default=4, choices=[2, 3, 4])
    ap.add_argument("--seconds", type=float, default=None, help="seconds per row")
    ap.add_argument(
        "--no-ppo", action="store_true", help="skip the MaskablePPO rows (groups ppo and learn)"
    )
    ap.add_argument(
        "--groups",
        default=",".join(GROUPS),
        help=f"comma list of row groups to run (default: all of {', '.join(GROUPS)})",
    )
    ap.add_argument(
        "--out",
        default=None,
        help="folder for results.json/.md/.png (default: a fresh runs/benchmarks-<UTC time>/)",
    )
    ap.add_argument(
        "--update-committed",
        action="store_true",
        help=f"write the committed results in {RESULTS.parent.name}/{RESULTS.name}/ instead",
    )
    return ap


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    out = output_dir(args)
    if args.games:
        games = args.games.split(",")
    else:
        games = game_names()
    groups = tuple(x.strip() for x in args.groups.split(",") if x.strip())
    unknown = sorted(set(groups) - set(GROUPS))
    if unknown or not groups:
        raise SystemExit(f"--groups: unknown {', '.join(unknown)}; allowed: {', '.join(GROUPS)}")
    res = run(args.quick, games, args.players, args.seconds, args.no_ppo, groups)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(res, indent=2) + "\n")
    md = to_markdown(res)
    (out / "results.md").write_text(md)
    png = to_png(res, out / "results.png")
    print(md)
    print(f"wrote {out / 'results.json'}, {out / 'results.md'}" + (f", {png}" if png else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
