"""Playing a balance study: the tournament field, the games the store lacks, their statistics.

`run_study` plays what the store lacks (training.arena.tournament: one agent is self-play, several
a round robin, every deal once per seat rotation) under the current rules or a rules override
file, and re-simulates every game (training.balance.game_stats).
"""

from __future__ import annotations

import time
from pathlib import Path

from core.registry import get_game
from core.rules_file import load_rules_file, rules_file_loaded
from training.agents.registry import make_agent
from training.arena.tournament import run_tournament
from training.balance.game_stats import collect
from training.balance.results import StudyRun


def study_specs(agents: list[str], players: int) -> list[str]:
    """The tournament field: one agent is self-play (a copy per seat), several a round robin."""
    return list(agents) * players if len(agents) == 1 else list(agents)


def run_study(
    game_name: str,
    players: int,
    agents: list[str],
    games: int,
    db: str | Path,
    rules_file: str | Path | None = None,
    workers: int | None = 1,
    seed: int = 0,
    progress: bool = True,
    backend: str = "process",
    address: str | None = None,
) -> StudyRun:
    """Play what the store lacks and collect the statistics: the tournament result (without
    records) and the GameStats. `backend`, `address`: as
    training.arena.tournament.run_tournament (Ray tasks with backend="ray")."""
    specs = study_specs(agents, players)
    t = run_tournament(
        game_name,
        players,
        specs,
        games,
        db,
        workers=workers,
        seed=seed,
        progress=progress,
        n_boot=100,
        rules_file=rules_file,
        keep_records=True,
        rate=len(set(agents)) > 1,
        backend=backend,
        address=address,
    )
    records = t.pop("records")
    labels = {v: k for k, v in t["entrant_ids"].items()}
    t0 = time.perf_counter()
    game = get_game(game_name)
    if rules_file is None:
        st = collect(game_name, records, labels)
    else:
        with game.GAME.using_rules_data(load_rules_file(rules_file, game_name)):
            st = collect(game_name, records, labels)
    t["analysis_seconds"] = round(time.perf_counter() - t0, 2)
    return StudyRun(t, st)


def check_agents_under(game_name: str, players: int, agents: list[str], rules_files) -> None:
    """Build every agent under each rules file's data, so that one the variant refuses (a network
    trained under other rules data whose spec lacks `rules=any`) stops the study before any game
    is played or stored."""
    for path in rules_files:
        with rules_file_loaded(path, game_name):
            for spec in dict.fromkeys(agents):
                make_agent(spec, game_name, players)
