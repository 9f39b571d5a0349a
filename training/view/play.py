"""Play in the browser against agents: the games a human plays, one seat
each, against agents built by `make_agent`; a finished game goes into the store like a
tournament game.

The human's page only ever gets `view_payload`: the position from the human seat's point of view
(`positions.position(..., viewer=seat)`), whose turn it is, the human's legal actions when it is
their turn (grouped by action segment, `game.ACTIONS.decode`), the log of decisions with their
`describe` texts (every decision of both games is public: chance lives in the RNG, never in a
decision) and, once over, the result. Nothing in it depends on what the human seat cannot see:
states that differ only in that (`game.determinize(state, seat, seed)`) give the same payload
(tests/training/test_view_play.py).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from training.agents.checkpoint import library_version
from training.agents.registry import UserAgent, agent_fingerprint, make_agent
from training.arena.evaluate import ranks, win_shares
from training.arena.jobs import seed_of
from training.arena.store import GameRecord, GameStore, state_check
from training.view.api import RequestError
from training.view.positions import position

HUMAN = "human"  # the agent spec of the human seat (also its fingerprint in the store)
TOKEN_HEX = 32  # a game token: 32 lowercase hex digits (128 random bits)
MAX_SESSIONS = 256  # games kept in memory (the oldest finished ones are dropped first)
MAX_ACTIVE = 64  # unfinished games at once
MAX_DECISIONS = 100_000  # a safety stop for agents that never end a game


@dataclass(frozen=True)
class PlayConfig:
    """What `--play` was started with: the game, the seats' agent specs (one `human`), the store
    and the base seed (None: every game gets a fresh random deal)."""

    game: ModuleType
    specs: tuple[str, ...]
    db: str
    seed: int | None = None

    @property
    def players(self) -> int:
        return len(self.specs)

    @property
    def human_seat(self) -> int:
        return self.specs.index(HUMAN)


def check_specs(game: ModuleType, players: int, specs: list[str]) -> None:
    """ValueError (one line) unless `specs` seat exactly `players` agents with one `human`, and
    every other spec builds an agent (make_agent's own error names what is accepted)."""
    if players not in game.PLAYER_COUNTS:
        raise ValueError(
            f"{game.NAME}: --players must be one of {tuple(game.PLAYER_COUNTS)}, got {players}"
        )
    if len(specs) != players:
        raise ValueError(f"--agents needs one spec per seat: {players} specs, got {len(specs)}")
    if specs.count(HUMAN) != 1:
        raise ValueError(f"--agents needs exactly one 'human' (the seat you play), got {specs}")
    for spec in specs:
        if spec != HUMAN:
            make_agent(spec, game.NAME, players, 0)


def _utc() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def legal_groups(game: ModuleType, state: np.ndarray) -> list[dict[str, Any]]:
    """The legal actions of the seat to act, grouped by action segment in id order: per group
    the segment name and its actions (id, describe text)."""
    groups: list[dict[str, Any]] = []
    for a in np.flatnonzero(game.legal_mask(state)):
        seg, _idx = game.ACTIONS.decode(int(a))
        if not groups or groups[-1]["segment"] != seg:
            groups.append({"segment": seg, "actions": []})
        groups[-1]["actions"].append({"id": int(a), "describe": game.describe(int(a), state)})
    return groups


def view_payload(
    game: ModuleType,
    state: np.ndarray,
    seat: int,
    labels: list[str],
    log: list[dict[str, Any]],
    token: str,
    game_id: int | None = None,
) -> dict[str, Any]:
    """What the human at `seat` may see of `state` (module docstring), as a JSON-ready dict."""
    over = bool(game.is_terminal(state))
    to_act = None if over else int(game.current_player(state))
    payload: dict[str, Any] = {
        "token": token,
        "game": game.NAME,
        "players": len(labels),
        "seat": seat,
        "seats": [{"seat": p, "agent": lab} for p, lab in enumerate(labels)],
        "to_act": to_act,
        "your_turn": to_act == seat,
        "over": over,
        "decisions": len(log),
        "position": position(game, state, viewer=seat),
        "legal": legal_groups(game, state) if to_act == seat else [],
        "log": list(log),
        "result": None,
    }
    if over:
        payload["result"] = {
            "scores": [int(x) for x in game.scores(state)],
            "ranks": [float(x) for x in ranks(game, state)],
            "win_shares": [float(x) for x in win_shares(game, state)],
            "truncated": bool(game.is_truncated(state)),
            "game_id": game_id,  # the stored game (replay it at /api/games/<id>)
        }
    return payload


@dataclass
class PlayGame:
    """One game in progress: the state, the agents, the decisions so far."""

    token: str
    config: PlayConfig
    seed: int
    agent_seeds: list[int]
    agents: list[Any]  # by seat; None at the human seat
    state: np.ndarray
    started: float = field(default_factory=time.perf_counter)
    started_utc: str = field(default_factory=_utc)
    actions: list[int] = field(default_factory=list)
    checks: list[int] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    game_id: int | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def over(self) -> bool:
        return bool(self.config.game.is_terminal(self.state))

    def step(self, a: int) -> None:
        g = self.config.game
        seat = int(g.current_player(self.state))
        entry = {"decision": len(self.actions), "seat": seat, "action": int(a)}
        entry["describe"] = g.describe(int(a), self.state)
        before, self.state = self.state, g.step(self.state, int(a))
        entry["chance"] = g.chance_words(before, int(a), self.state)
        self.actions.append(int(a))
        self.checks.append(state_check(self.state))
        self.log.append(entry)
        for agent in self.agents:
            if agent is not None and hasattr(agent, "notify"):
                agent.notify(int(a))

    def run_agents(self) -> None:
        """Let the agents decide until it is the human's turn or the game is over."""
        g = self.config.game
        human = self.config.human_seat
        while not g.is_terminal(self.state):
            p = int(g.current_player(self.state))
            if p == human:
                return
            if len(self.actions) >= MAX_DECISIONS:
                raise RuntimeError(f"play game {self.token}: over {MAX_DECISIONS} decisions")
            self.step(int(self.agents[p].act(self.state)))


class PlayHost:
    """The games of one `--play` server: starts them, shows them, plays the human's moves, and
    records every finished game into the store. Thread-safe."""

    def __init__(self, config: PlayConfig):
        self.config = config
        game = config.game
        check_specs(game, config.players, list(config.specs))
        self.labels = []
        self.entrants = []  # (spec, fingerprint, copy) by seat
        specs = list(config.specs)
        for i, spec in enumerate(specs):
            copy = specs[: i + 1].count(spec)
            fp = HUMAN if spec == HUMAN else agent_fingerprint(spec, game.NAME, config.players)
            self.entrants.append((spec, fp, copy))
            self.labels.append(spec if specs.count(spec) == 1 else f"{spec}#{copy}")
        text = json.dumps([[s, f] + ([c] if c > 1 else []) for s, f, c in self.entrants])
        self.lineup = "play/" + hashlib.sha256(text.encode()).hexdigest()[:24]
        self._games: OrderedDict[str, PlayGame] = OrderedDict()
        self._lock = threading.Lock()
        self._store_lock = threading.Lock()  # one write at a time; close() waits for it
        self._closed = False
        self._count = 0

    # -- requests --------------------------------------------------------------------------------
    def start(self) -> dict[str, Any]:
        """A new game (its token in the payload); the agents seated before the human play first."""
        with self._lock:
            active = sum(1 for g in self._games.values() if g.game_id is None)
            if active >= MAX_ACTIVE:
                raise RequestError(429, f"{MAX_ACTIVE} games are running; finish one first")
            k = self._count
            self._count += 1
            token = secrets.token_hex(TOKEN_HEX // 2)
        cfg = self.config
        base = secrets.randbits(62) if cfg.seed is None else cfg.seed
        seed = seed_of(base, k)
        n = cfg.players
        agent_seeds = [
            0 if s == HUMAN else seed_of(base, k, p + 1) for p, s in enumerate(cfg.specs)
        ]
        agents: list[Any] = []
        for p, spec in enumerate(cfg.specs):
            if spec == HUMAN:
                agents.append(None)
                continue
            agent = make_agent(spec, cfg.game.NAME, n, agent_seeds[p])
            if isinstance(agent, UserAgent):
                agent.reset(agent_seeds[p])
            agents.append(agent)
        pg = PlayGame(token, cfg, seed, agent_seeds, agents, cfg.game.new_game(n, seed))
        with pg.lock:
            with self._lock:
                self._games[token] = pg
                self._evict()
            pg.run_agents()
            self._finish(pg)
            return self._view(pg)

    def view(self, token: str) -> dict[str, Any]:
        pg = self._get(token)
        with pg.lock:
            return self._view(pg)

    def act(self, token: str, action: int) -> dict[str, Any]:
        """Play the human's `action` (validated), then the agents until the human's turn again
        or the end; the new view."""
        pg = self._get(token)
        g = self.config.game
        with pg.lock:
            if pg.over:
                raise RequestError(409, "the game is over")
            human = self.config.human_seat
            if int(g.current_player(pg.state)) != human:
                raise RequestError(409, "it is not your turn")
            if not 0 <= action < g.NUM_ACTIONS:
                raise RequestError(400, f"action must be 0..{g.NUM_ACTIONS - 1}")
            if not g.legal_mask(pg.state)[action]:
                raise RequestError(409, f"action {action} is not legal now")
            pg.step(action)
            pg.run_agents()
            self._finish(pg)
            return self._view(pg)

    # -- helpers ---------------------------------------------------------------------------------
    def _get(self, token: str) -> PlayGame:
        with self._lock:
            pg = self._games.get(token)
        if pg is None:
            raise RequestError(404, "no game with this token (the server may have restarted)")
        return pg

    def _evict(self) -> None:
        while len(self._games) > MAX_SESSIONS:
            done = [t for t, g in self._games.items() if g.game_id is not None]
            self._games.pop(done[0] if done else next(iter(self._games)))

    def _view(self, pg: PlayGame) -> dict[str, Any]:
        return view_payload(
            self.config.game,
            pg.state,
            self.config.human_seat,
            self.labels,
            pg.log,
            pg.token,
            pg.game_id,
        )

    def _finish(self, pg: PlayGame) -> None:
        """Record a finished game (once) into the store."""
        if not pg.over or pg.game_id is not None:
            return
        rec = self.record(pg)
        with self._store_lock:
            if self._closed:
                raise RequestError(503, "the server is stopping; this game was not recorded")
            # opened per game and closed at once: between games nothing holds the store open
            with GameStore(self.config.db, self.config.game.NAME) as store:
                rec.seats = [store.entrant_id(*e) for e in self.entrants]
                store.add_games([rec])
                q = "SELECT id FROM games WHERE match_key = ?"
                pg.game_id = int(store.db.execute(q, (rec.match_key,)).fetchone()[0])

    def close(self) -> None:
        """Stop recording: waits for a game being written to the store, then refuses to record
        more (the server is stopping; the store is left closed, with no file beside it)."""
        with self._store_lock:
            self._closed = True

    def record(self, pg: PlayGame) -> GameRecord:
        """The GameRecord of a finished game (seats filled in by `_finish`)."""
        g, s, n = self.config.game, pg.state, self.config.players
        return GameRecord(
            match_key=f"play/{pg.started_utc}/{pg.token}",
            players=n,
            lineup=self.lineup,
            rotation=0,
            game_index=0,
            seed=pg.seed,
            seats=[],
            agent_seeds=list(pg.agent_seeds),
            scores=[int(x) for x in g.scores(s)],
            ranks=[float(x) for x in ranks(g, s)],
            tiebreaks=np.asarray(g.tiebreaks(s)).reshape(n, -1).tolist(),
            win_shares=[float(x) for x in win_shares(g, s)],
            truncated=bool(g.is_truncated(s)),
            decisions=len(pg.actions),
            wall_seconds=round(time.perf_counter() - pg.started, 4),
            rules_data_hash=str(g.RULES_DATA_HASH),
            library_version=library_version(),
            actions=list(pg.actions),
            checks=list(pg.checks),
        )


def prepare_store(db: str | Path, game: ModuleType) -> None:
    """Create the store if nothing is at `db` (StoreError if the file there, even an empty one,
    is not a store of `game`)."""
    GameStore(db, game.NAME).close()
