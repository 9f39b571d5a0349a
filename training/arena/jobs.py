"""One scheduled game and how it is played: the unit of work of every tournament backend (the
local process pool of training.arena.tournament and the Ray tasks of training.arena.ray_backend).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from core.registry import get_game
from core.rules_file import load_rules_file
from training.agents.checkpoint import library_version
from training.agents.registry import UserAgent, make_agent
from training.arena.evaluate import play_game, ranks, win_shares
from training.arena.store import GameRecord, state_check


def seed_of(*words: int) -> int:
    """A 63-bit seed from integer words (numpy's SeedSequence: well mixed, platform-independent)."""
    ss = np.random.SeedSequence([int(w) & 0xFFFFFFFF for w in words])
    return int(ss.generate_state(2, dtype=np.uint64)[0] >> np.uint64(1))


@dataclass(frozen=True)
class Job:
    """One game of the schedule: who sits where and with which seeds."""

    order: int  # position in the schedule (reports and SPRT read games in this order)
    match_key: str
    lineup: str
    rotation: int
    deal: int
    seed: int
    specs: tuple[str, ...]  # by seat
    labels: tuple[str, ...]  # by seat
    agent_seeds: tuple[int, ...]  # by seat


def play_recorded(game, agents: list, seed: int, max_decisions: int = 1_000_000):
    """Play one game (evaluate.play_game); (final state, actions, state checks, wall seconds)."""
    t0 = time.perf_counter()
    actions: list[int] = []
    checks: list[int] = []

    def record(a: int, s: np.ndarray) -> None:
        actions.append(int(a))
        checks.append(state_check(s))

    s = play_game(game, agents, seed, max_decisions, on_step=record)
    return s, actions, checks, time.perf_counter() - t0


def play_job(game_name: str, players: int, job: Job, seat_ids: list[int]) -> GameRecord:
    """Play one scheduled game and return its record (entrants by store id)."""
    game = get_game(game_name)
    agents = []
    for p in range(players):
        agent = make_agent(job.specs[p], game_name, players, job.agent_seeds[p])
        if isinstance(agent, UserAgent):  # the user protocol's optional reset(seed)
            agent.reset(job.agent_seeds[p])
        agents.append(agent)
    s, actions, checks, wall = play_recorded(game, agents, job.seed)
    return GameRecord(
        match_key=job.match_key,
        players=players,
        lineup=job.lineup,
        rotation=job.rotation,
        game_index=job.deal,
        seed=job.seed,
        seats=list(seat_ids),
        agent_seeds=list(job.agent_seeds),
        scores=[int(x) for x in game.scores(s)],
        ranks=[float(x) for x in ranks(game, s)],
        tiebreaks=np.asarray(game.tiebreaks(s)).reshape(players, -1).tolist(),
        win_shares=[float(x) for x in win_shares(game, s)],
        truncated=bool(game.is_truncated(s)),
        decisions=len(actions),
        wall_seconds=round(wall, 4),
        rules_data_hash=str(game.RULES_DATA_HASH),
        library_version=library_version(),
        actions=actions,
        checks=checks,
    )


def play_chunk(args: tuple) -> list[GameRecord]:
    game_name, players, chunk, rules = args
    if rules is not None:  # a rules variant (rules_file, its hash): load it once per process
        game = get_game(game_name)
        if game.RULES_DATA_HASH != rules[1]:
            game.load_rules_data(load_rules_file(rules[0], game_name))
    return [play_job(game_name, players, job, ids) for job, ids in chunk]
