"""Batches of games as one (B, STATE_SIZE) array, stepped in one compiled call (DESIGN D8).

    eng = village_env.make_batch(1024, num_players=4, seed=7)     # any game: GAME.make_batch
    obs, rewards, dones, players = eng.step(eng.random_actions())

What the loops call: eight compiled functions of the game's rendered contract
(`<game>_env.engine.contract`, core/contract_template.py: k_init, k_step, k_mask, k_observe,
k_keys, k_over, k_actor, k_truncated), with the exact signatures documented in
`core/game_contract.py`, so the batch loops are the same for every game.

The generic loops are a real module, `core/batch_loops_template.py`, never used at run time.
core.codegen renders it for each game at first import, as `<game>_env.engine.batch_loops`, with
its one marked kernels import pointed at the game's module, into the game's compile cache. Why
not numba's first-class functions: a compiled function that takes another as an argument (or
closes over one) cannot be cached, so every process would pay the parallel compile (seconds)
again.

Seeds: slot i's k-th game is seeded by the words (seed mod 2**32, i, k), i.e. it is exactly
`game.new_game(n, batch_game_seed(seed, i, k))`, so any batch run replays from (seed, actions).

Opponents the engine plays itself (`BatchEngine.play_seats`): random seats, and the compiled
bots of `core/bots_template.py` (rendered as `<game>_env.engine.bot_loops` like the loops),
every slot in one call; each seat's code says who plays it (SEAT_CALLER, SEAT_RANDOM, or a bot
code: BOT_GREEDY or one of the game's own, core.bots.CompiledBot.batch_code).
"""

from __future__ import annotations

import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import ModuleType

import numba
import numpy as np

from core.codegen import SERIAL
from core.errors import IllegalActionError
from core.jit import jit
from core.mlp import actor_io, pack_actors
from core.registry import integer_arg
from core.returns import RETURN_KINDS
from core.rng import M32, rng_seed, split_seed

KIND_CODES = {k: i for i, k in enumerate(RETURN_KINDS)}  # win_loss 0, rank 1, margin 2

# who plays a seat in BatchEngine.play_seats (codes[slot, seat])
SEAT_CALLER = -2  # the caller decides (the learner, a policy, a bot in Python): play_seats stops
SEAT_RANDOM = -1  # a uniform legal move from the slot's random-play stream (BatchEngine.rngs)
SEAT_POLICY = -3  # codes <= this: SEAT_POLICY - k plays actor k of BatchEngine.set_actors
BOT_GREEDY = 0  # the generic greedy heuristic (core.bots.GreedyHeuristic); >= 1: the game's own

# A parallel loop gets one thread per MIN_SLOTS_PER_THREAD slots (at most NUMBA_NUM_THREADS).
# Waking a second thread costs more than a few games' step saves, and on a busy machine (PPO's
# torch on the other core) a small parallel region waited milliseconds for its thread: 8 slots
# of Village with 2 threads ran 69 env steps/s against 468 with one (2026-11-30, loaded box).
MIN_SLOTS_PER_THREAD = 64
_threads_set = threading.local()
# How a BatchEngine runs a loop on more than one thread: "numba", the loop's parallel (prange)
# version on numba's threads; "split", only for the bots' loop (play_seats, a search per bot
# decision: milliseconds a call), the slots cut into one contiguous share per thread, each share
# run by the loop's one-thread twin (which releases the GIL) on its own Python thread, the other
# loops on one thread (handing work to a Python thread costs ~80 us on a 2-core box, more than
# those loops take for a few hundred games). "split" never compiles a parallel loop. Both give
# the same games.
THREADINGS = ("numba", "split")
SPLIT_LOOP = "play_seats"  # the one loop "split" shares among threads


def threads_for(n_slots: int, cap: int | None = None) -> int:
    """Threads for a loop over n_slots games: one per MIN_SLOTS_PER_THREAD slots, at most `cap`
    (default NUMBA_NUM_THREADS)."""
    top = numba.config.NUMBA_NUM_THREADS
    if cap is not None:
        top = min(int(cap), top)
    return max(1, min(top, int(n_slots) // MIN_SLOTS_PER_THREAD))


def use_threads_for(n_slots: int, cap: int | None = None) -> int:
    """Set numba's thread count (for this thread) for a parallel loop over n_slots games
    (threads_for) and return it."""
    k = threads_for(n_slots, cap)
    if getattr(_threads_set, "k", None) != k:  # numba.set_num_threads itself costs ~8 us
        numba.set_num_threads(k)
        _threads_set.k = k
    return k


def batch_game_seed(seed: int, slot: int, k: int) -> int:
    """The single-game seed of slot `slot`'s k-th game in a batch seeded by `seed`."""
    return (int(seed) & M32) | ((int(slot) & M32) << 32) | ((int(k) & M32) << 64)


@jit
def returns_into(keys, n, kind, margin_scale, out):
    """Compiled twin of core.returns.compute_returns (kind: 0 win_loss, 1 rank, 2 margin).
    keys[p] = (score, tie-break 1, ...) compared lexicographically; writes out[:n]."""
    nk = keys.shape[1]
    for p in range(n):
        better = 0
        equal = 0
        for q in range(n):
            c = 0  # lexicographic comparison of keys[q] with keys[p]
            for j in range(nk):
                if keys[q, j] != keys[p, j]:
                    c = 1 if keys[q, j] > keys[p, j] else -1
                    break
            if c > 0:
                better += 1
            elif c == 0:
                equal += 1
        if kind == 0:
            if better > 0:
                out[p] = -1.0
            else:
                out[p] = 1.0 if equal == 1 else 0.0
        elif kind == 1:
            if n > 1:
                out[p] = 1.0 - 2.0 * (better + (equal - 1) / 2.0) / (n - 1)
            else:
                out[p] = 0.0
        else:
            best = -(1 << 62)
            for q in range(n):
                if q != p and keys[q, 0] > best:
                    best = keys[q, 0]
            out[p] = (keys[p, 0] - best) / margin_scale
    for p in range(n, out.shape[0]):
        out[p] = 0.0


@dataclass(frozen=True)
class BatchSpec:
    """What a game hands the batch machinery: shapes, tables and its generated loops module."""

    name: str
    state_size: int
    num_actions: int
    obs_size: int
    max_players: int
    n_keys: int
    work_size: int
    player_counts: tuple
    margin_scale: float
    loops: ModuleType
    tables: object  # callable returning the current TABLES (the game may reload rules data)
    bots: ModuleType  # the generated bot loops (core/bots_template.py)
    bot_scratch_i: int  # the kernels' BOT_SCRATCH_I and BOT_SCRATCH_F
    bot_scratch_f: int


def batch_spec(game, loops: ModuleType, bots: ModuleType, kernels: ModuleType) -> BatchSpec:
    """The BatchSpec of a core.game.Game, its rendered loops and bot loops modules and its
    rendered contract module."""
    g = game.spec
    return BatchSpec(
        name=g.name,
        state_size=game.state_size,
        num_actions=game.num_actions,
        obs_size=g.obs_size,
        max_players=max(g.player_counts),
        n_keys=g.n_keys,
        work_size=g.work_size,
        player_counts=tuple(g.player_counts),
        margin_scale=g.margin_scale,
        loops=loops,
        tables=lambda: game.tables,
        bots=bots,
        bot_scratch_i=int(kernels.BOT_SCRATCH_I),
        bot_scratch_f=int(kernels.BOT_SCRATCH_F),
    )


def bot_scratch(spec: BatchSpec, rows: int) -> tuple[np.ndarray, ...]:
    """The scratch bundle of the compiled bots (bot_loops.bot_choice's `bs`: the bot's lookahead
    states, masks, legal actions, values, standing keys, projections, returns, k_evaluate's tmp
    and the kernels' own scratch), each with a leading axis of `rows` (one row per slot of a
    batch)."""
    r, ss, na, mp = int(rows), spec.state_size, spec.num_actions, spec.max_players
    return (
        np.zeros((r, 2, ss), dtype=np.int64),
        np.zeros((r, 2, na), dtype=np.bool_),
        np.zeros((r, na), dtype=np.int64),
        np.zeros((r, na), dtype=np.float64),
        np.zeros((r, mp, spec.n_keys), dtype=np.int64),
        np.zeros((r, mp), dtype=np.float64),
        np.zeros((r, mp), dtype=np.float64),
        np.zeros((r, ss + 16), dtype=np.int64),
        np.zeros((r, max(1, spec.bot_scratch_i)), dtype=np.int64),
        np.zeros((r, max(1, spec.bot_scratch_f)), dtype=np.float64),
    )


class BatchEngine:
    """B games of one game stepped together (DESIGN D8).

    Arrays (views, updated in place by every call): `states` (B, STATE_SIZE) int64, `masks`
    (B, NUM_ACTIONS) bool, `obs` (B, OBS_SIZE) float32 for the player to act, `players` (B,)
    seat to act, `rewards` (B, num_players) float32 returns of games that just ended (zeros
    elsewhere), `dones` / `truncs` (B,) bool, `final_states` (B, STATE_SIZE) (valid where done),
    `games` (B,) number of the game each slot is playing.
    """

    def __init__(
        self,
        spec: BatchSpec,
        batch_size: int,
        num_players: int,
        seed: int = 0,
        reward_kind: str = "win_loss",
        observe: bool = True,
        threads: int | None = None,
        *,
        threading: str = "numba",
        start: bool = True,
    ):
        num_players = integer_arg(num_players, "num_players")
        if num_players not in spec.player_counts:
            raise ValueError(f"{spec.name}: num_players must be one of {spec.player_counts}")
        batch_size, seed = integer_arg(batch_size, "batch_size"), integer_arg(seed, "seed")
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if reward_kind not in KIND_CODES:
            raise ValueError(f"reward_kind must be one of {RETURN_KINDS}, got {reward_kind!r}")
        if threads is not None and integer_arg(threads, "threads") < 1:
            raise ValueError("threads must be >= 1 (or None for NUMBA_NUM_THREADS)")
        if threading not in THREADINGS:
            raise ValueError(f"threading must be one of {THREADINGS}, got {threading!r}")
        self.spec = spec
        self.threads = None if threads is None else int(threads)  # most threads per call
        self.threading = threading
        self._pool: ThreadPoolExecutor | None = None  # "split": the helper threads (made on use)
        self._pool_size = 0
        self.B = B = int(batch_size)
        self.num_players = int(num_players)
        self.reward_kind = reward_kind
        self.want_obs = bool(observe)
        self._L = spec.loops
        self.states = np.zeros((B, spec.state_size), dtype=np.int64)
        self.final_states = np.zeros((B, spec.state_size), dtype=np.int64)
        self._masks = self.masks = np.zeros((B, spec.num_actions), dtype=np.bool_)
        self._works = np.zeros((B, max(1, spec.work_size)), dtype=np.int64)
        self.obs = np.zeros((B, spec.obs_size), dtype=np.float32)
        self.players = np.zeros(B, dtype=np.int64)
        self.rewards = np.zeros((B, self.num_players), dtype=np.float32)
        self.dones = np.zeros(B, dtype=np.bool_)
        self.truncs = np.zeros(B, dtype=np.bool_)
        self.codes = np.zeros(B, dtype=np.int64)
        self.games = np.zeros(B, dtype=np.int64)
        self._keys = np.zeros((B, spec.max_players, spec.n_keys), dtype=np.int64)
        self._all = np.arange(B, dtype=np.int64)
        self._actions = np.zeros(B, dtype=np.int64)
        self._over = np.zeros(B, dtype=np.bool_)
        self.rngs = np.zeros((B, 4), dtype=np.int64)  # random-play generators, one per slot
        self.counts = np.zeros((B, 3), dtype=np.int64)  # random_play: decisions, games, errors
        self._bot_scratch: tuple[np.ndarray, ...] | None = None  # play_seats' (made when needed)
        self.set_actors([])
        if start:  # start=False: slots left unstarted (all zeros), only to compile a loop
            self.reset(seed)

    # --- seeding and reset ---------------------------------------------------------------------
    def reset(self, seed: int = 0) -> np.ndarray:
        """Start game 0 in every slot (slot i seeded by (seed, i, 0)); returns `obs`."""
        self.seed = int(seed)
        self._seed_a = self.seed & M32
        self.games[:] = 0
        self.dones[:] = False
        self.truncs[:] = False
        self.rewards[:] = 0.0
        self.counts[:] = 0
        for i in range(self.B):  # random-play streams: RandomAgent(batch_game_seed(seed, i, 0))
            rng_seed(self.rngs[i], 0, *split_seed(batch_game_seed(self.seed, i, 0)))
        self.reset_slots(self._all)
        return self.obs

    def reset_slots(self, idx: np.ndarray) -> None:
        """(Re)start the current game number of the slots idx from its seed."""
        idx = np.asarray(idx, dtype=np.int64)
        self._loop("reset_slots", len(idx))(
            idx,
            self.states,
            self._masks,
            self._works,
            self.spec.tables(),
            self.num_players,
            self._seed_a,
            self.games,
            self.players,
            self.obs,
            self.want_obs,
        )

    def game_seed(self, slot: int, k: int | None = None) -> int:
        """Single-game seed of slot's game k (default: the game it plays now)."""
        return batch_game_seed(self.seed, slot, self.games[slot] if k is None else k)

    # --- stepping --------------------------------------------------------------------------
    def step(self, actions, idx: np.ndarray | None = None, auto_reset: bool = True):
        """Apply one action per slot (all slots, or only the slots idx with actions indexed by
        slot). Returns (obs, rewards, dones, players). Raises IllegalActionError, before any slot
        moves, if an action is not legal in its slot."""
        acts = np.asarray(actions, dtype=np.int64)
        if idx is None:
            idx = self._all
            if acts.shape != (self.B,):
                raise ValueError(f"actions must have shape ({self.B},), got {acts.shape}")
            sel = acts
        else:
            idx = np.asarray(idx, dtype=np.int64)
            sel = acts[idx]
        na = self.spec.num_actions
        bad = (sel < 0) | (sel >= na)
        if not bad.any():
            bad = ~self.masks[idx, sel]
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(
                int(sel[j]),
                f"batch slot {int(idx[j])}",
                "batch",
                "not a legal action of the player to act in that slot",
            )
        slots = (self.states, self._masks, self._works, self.games, self.players)
        ends = (self.rewards, self.dones, self.truncs, self._keys, self.final_states)
        settings = (
            KIND_CODES[self.reward_kind],
            float(self.spec.margin_scale),
            bool(auto_reset),
            bool(self.want_obs),
        )
        self._loop("step_slots", len(idx))(
            idx, acts, self.spec.tables(), self.num_players, self._seed_a, slots, self.obs,
            self.codes, ends, settings,
        )  # fmt: skip
        if self.codes[idx].any():
            raise RuntimeError(f"{self.spec.name}: engine error codes {self.codes[idx]}")
        return self.obs, self.rewards, self.dones, self.players

    def random_actions(self, idx: np.ndarray | None = None) -> np.ndarray:
        """A uniform legal action per slot (from the slot's random-play generator)."""
        idx = self._all if idx is None else np.asarray(idx, dtype=np.int64)
        self._loop("random_actions", len(idx))(idx, self._masks, self.rngs, self._actions)
        return self._actions

    def random_play(self, n_decisions: int, idx: np.ndarray | None = None) -> tuple[int, int]:
        """n_decisions random decisions in every slot in one compiled call (finished games
        restart in place); returns (decisions, games finished) of this call."""
        idx = self._all if idx is None else np.asarray(idx, dtype=np.int64)
        before = self.counts.sum(axis=0)
        self._loop("random_play", len(idx))(
            idx,
            int(n_decisions),
            self.states,
            self._masks,
            self._works,
            self.rngs,
            self.spec.tables(),
            self.num_players,
            self._seed_a,
            self.games,
            self.counts,
        )
        d, g, e = self.counts.sum(axis=0) - before
        if e:
            raise RuntimeError(f"{self.spec.name}: {e} engine errors in random play")
        return int(d), int(g)

    def observe(
        self,
        seats: np.ndarray,
        idx: np.ndarray | None = None,
        out: np.ndarray | None = None,
        final: bool = False,
    ) -> np.ndarray:
        """Observation of seats[i] in slot i (of `final_states` if final) into out (B, OBS)."""
        idx = self._all if idx is None else np.asarray(idx, dtype=np.int64)
        out = np.zeros((self.B, self.spec.obs_size), np.float32) if out is None else out
        src = self.final_states if final else self.states
        self._loop("observe_slots", len(idx))(
            idx, src, np.asarray(seats, dtype=np.int64), self.spec.tables(), out
        )
        return out

    def over(self, idx: np.ndarray | None = None) -> np.ndarray:
        """Bool (B,): game over in each slot (only the slots idx are refreshed)."""
        idx = self._all if idx is None else np.asarray(idx, dtype=np.int64)
        self._loop("over_flags", len(idx))(idx, self.states, self._over)
        return self._over

    def play_seats(
        self, idx: np.ndarray, codes: np.ndarray, bot_rngs: np.ndarray, moves: np.ndarray
    ) -> None:
        """In each slot i of idx, play the moves of the seats the engine plays itself, in one
        compiled call, until a seat the caller plays is to act or the game is over: seat p of
        slot i is played by codes[i, p] (B, max players): SEAT_RANDOM a uniform legal move from the
        slot's random-play stream, a bot code (>= 0: BOT_GREEDY, or the game's own;
        core.bots.CompiledBot.batch_code) that compiled bot, drawing from its own stream
        bot_rngs[i, p] (B, max players, 4: core.bots.BotRng's words, advanced in place),
        SEAT_POLICY - k actor k of `set_actors` (drawing from bot_rngs[i, p] too), SEAT_CALLER
        the caller. moves[i] = how many moves; negative on an error (-1 the engine
        refused a move or none was legal, -2 it refused one of a bot's lookahead, -3 the game
        has no compiled bot of that code)."""
        idx = np.asarray(idx, dtype=np.int64)
        mp = self.spec.max_players
        if codes.shape != (self.B, mp) or codes.dtype != np.int64:
            raise ValueError(f"codes must be int64 of shape ({self.B}, {mp}), got {codes.shape}")
        if bot_rngs.shape != (self.B, mp, 4) or bot_rngs.dtype != np.int64:
            raise ValueError(
                f"bot_rngs must be int64 of shape ({self.B}, {mp}, 4), got {bot_rngs.shape}"
            )
        lo = int(codes[idx].min()) if len(idx) else 0
        if lo <= SEAT_POLICY and SEAT_POLICY - lo >= self._n_actors:
            raise ValueError(
                f"seat code {lo} names actor {SEAT_POLICY - lo}, but set_actors gave "
                f"{self._n_actors}"
            )
        scratch = self._bot_scratch
        if scratch is None or (len(scratch[0]) < self.B and (codes[idx] >= 0).any()):
            # one row per slot once a bot plays; until then one row the kernel never reads
            rows = self.B if (codes[idx] >= 0).any() else 1
            scratch = self._bot_scratch = bot_scratch(self.spec, rows)
        self._loop("play_seats", len(idx), self.spec.bots)(
            idx,
            codes,
            self.states,
            self._masks,
            self._works,
            self.rngs,
            bot_rngs,
            self.spec.tables(),
            self.num_players,
            self.players,
            moves,
            scratch,
            self._actors,
        )

    def set_actors(self, actors: list[dict[str, np.ndarray]], deterministic: bool = False) -> None:
        """The trained actors (training.agents.checkpoint.actor_arrays' format) that play_seats
        plays for seats of code SEAT_POLICY - k (k: the index in `actors`), each its most likely
        action (deterministic) or one drawn from its seat's stream, as
        training.agents.policy.PolicyAgent.act decides (core.mlp)."""
        w, meta, widest = pack_actors(actors)
        for k in range(len(actors)):
            n_in, n_out = actor_io(meta, k)
            if (n_in, n_out) != (self.spec.obs_size, self.spec.num_actions):
                raise ValueError(
                    f"actor {k} maps {n_in} inputs to {n_out} actions; {self.spec.name} needs "
                    f"{self.spec.obs_size} to {self.spec.num_actions}"
                )
        self._n_actors = len(actors)
        rows = self.B if actors else 1  # no actor: one row the loop never reads
        obs_n = self.spec.obs_size if actors else 1
        na = self.spec.num_actions
        self._actors = (
            w,
            meta,
            bool(deterministic),
            np.zeros((rows, obs_n), dtype=np.float32),
            np.zeros((rows, 2, widest), dtype=np.float32),
            np.zeros((rows, na if actors else 1), dtype=np.float32),
            np.zeros((rows, na if actors else 1), dtype=np.float64),
        )

    def _loop(self, name: str, n_slots: int, module: ModuleType | None = None):
        """The compiled loop `name` of the loops module (or `module`) for n_slots slots, called
        as loop(idx, ...). On one thread (threads_for) its serial twin
        (core.codegen.serial_twins), so a run on one thread never compiles a parallel loop; on
        more, the parallel loop with numba's threads set for it ("numba" threading) or, for the
        bots' loop, the twin on a share of idx in each thread ("split")."""
        module = module or self._L
        serial = getattr(module, name + SERIAL, None)  # a loop with no twin is serial
        if self.threading == "split" and serial is not None:
            k = threads_for(n_slots, self.threads) if name == SPLIT_LOOP else 1
            if k == 1:
                return serial
            return lambda idx, *args: self._split(serial, k, idx, args)
        if use_threads_for(n_slots, self.threads) == 1 and serial is not None:
            return serial
        return getattr(module, name)

    def _split(self, loop, k: int, idx: np.ndarray, args: tuple) -> None:
        """loop(share, *args) for k contiguous shares of idx, k-1 of them on helper threads and
        the last on this one (the loops touch only their own slots' rows)."""
        if self._pool_size < k - 1:
            if self._pool is not None:
                self._pool.shutdown()
            self._pool = ThreadPoolExecutor(k - 1, thread_name_prefix="batch-engine")
            self._pool_size = k - 1
            weakref.finalize(self, self._pool.shutdown, wait=False)
        cut = [len(idx) * t // k for t in range(k + 1)]
        futures = [self._pool.submit(loop, idx[cut[t] : cut[t + 1]], *args) for t in range(k - 1)]
        loop(idx[cut[k - 1] :], *args)
        for f in futures:
            f.result()

    def nbytes_per_game(self) -> int:
        """Bytes of one game's state (int64 array)."""
        return self.states.itemsize * self.states.shape[1]
