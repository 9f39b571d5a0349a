"""The viewer's JSON payloads: the store summary, the filtered game list and one game's replay.

Every function takes already-parsed arguments and raises `RequestError` (an HTTP status with a
one-line reason) for anything a client could get wrong; server.py turns those into responses.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from types import ModuleType
from typing import Any

from training.agents.names import display_name
from training.arena.replay import ReplayMismatch, replay
from training.arena.store import BadGameError, GameRecord, GameStore, StoreError
from training.view.positions import position

RESULTS = ("win", "draw", "loss")
MAX_LIMIT = 500
DEFAULT_LIMIT = 50


class RequestError(Exception):
    """A request the viewer refuses: an HTTP status and a one-line reason."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Viewer:
    """One store opened read-only for one game; thread-safe (one query at a time) with a small
    cache of replays (a replay re-simulates the whole game)."""

    def __init__(self, db_path: str, game: ModuleType, cache: int = 8):
        self.game = game
        self.store = GameStore(db_path, game.NAME, create=False, read_only=True)
        self._lock = threading.Lock()
        self._cache: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._cache_size = cache

    def close(self) -> None:
        self.store.close()

    def _query(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self.store.db.execute(sql, args).fetchall()

    def _labels(self) -> dict[int, str]:
        """Entrant id -> the name the page shows (training.agents.names: paths shortened)."""
        with self._lock:
            return {i: display_name(spec) for i, (spec, _fp) in self.store.entrants().items()}

    # -- /api/store ------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        with self._lock:
            tournaments = self.store.tournaments()
            count = self.store.count()
        return {
            "game": self.game.NAME,
            "games": count,
            "rules_data_hash": str(self.game.RULES_DATA_HASH),
            "tournaments": [
                {"id": t["id"], "key": t["key"], "players": t["players"]} for t in tournaments
            ],
            "agents": sorted(set(self._labels().values())),
            "results": list(RESULTS),
        }

    # -- /api/games ------------------------------------------------------------------------------
    def games(
        self,
        tournament: int | None = None,
        agent: str | None = None,
        seat: int | None = None,
        result: str | None = None,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
    ) -> dict[str, Any]:
        """Stored games in id order that match every filter given (see docs/viewer.md): the
        considered seats are those of `agent` (any seat it held) and/or `seat`; `result` asks
        that one considered seat (all seats when neither is given) won alone, shared the win
        or lost."""
        labels = self._labels()
        tournaments = {t[0]: t[1] for t in self._query("SELECT id, key FROM tournaments")}
        if tournament is not None and tournament not in tournaments:
            raise RequestError(404, f"no tournament with id {tournament}")
        if agent is not None and agent not in labels.values():
            raise RequestError(404, f"no agent labelled {agent!r} in this store")
        if result is not None and result not in RESULTS:
            raise RequestError(400, f"result must be one of {', '.join(RESULTS)}")
        if not 1 <= limit <= MAX_LIMIT:
            raise RequestError(400, f"limit must be 1..{MAX_LIMIT}")
        if offset < 0:
            raise RequestError(400, "offset must be 0 or more")
        out, bad = [], []
        with self._lock:  # ranks and win shares as the store derives them from the scores
            records = list(self.store.read_games())
        for rec in records:
            if isinstance(rec, BadGameError):
                bad.append({"id": rec.game_id, "seed": rec.seed, "reason": rec.reason})
                continue
            if tournament is not None and rec.tournament_id != tournament:
                continue
            g = self._list_entry(rec, labels, tournaments)
            if _matches(g, agent, seat, result):
                out.append(g)
        return {
            "total": len(out),
            "offset": offset,
            "limit": limit,
            "games": out[offset : offset + limit],
            "bad_games": bad,  # stored games that cannot be used as stored (never listed above)
        }

    def _list_entry(self, rec: GameRecord, labels, tournaments) -> dict[str, Any]:
        return {
            "id": rec.id,
            "tournament": rec.tournament_id,
            "tournament_key": tournaments.get(rec.tournament_id),
            "players": rec.players,
            "seed": rec.seed,
            "seats": [
                {"seat": p, "agent": labels.get(e, f"entrant {e}")} for p, e in enumerate(rec.seats)
            ],
            "scores": rec.scores,
            "ranks": rec.ranks,
            "win_shares": rec.win_shares,
            "winner": [p for p, s in enumerate(rec.win_shares) if s > 0],
            "truncated": bool(rec.truncated),
            "decisions": rec.decisions,
            "rules_data_hash": rec.rules_data_hash,
            "replayable": rec.rules_data_hash == str(self.game.RULES_DATA_HASH),
        }

    # -- /api/games/<id> -------------------------------------------------------------------------
    def replay(self, game_id: int) -> dict[str, Any]:
        """One stored game re-simulated: per decision the seat, action and its description, the
        public position before the first decision and after each one (decisions + 1), and the
        public scores at each of those positions."""
        with self._lock:
            hit = self._cache.get(game_id)
            if hit is not None:
                self._cache.move_to_end(game_id)
                return hit
            try:
                rec = self.store.game(game_id)
            except BadGameError as e:
                raise RequestError(409, _one_line(str(e))) from None
            except StoreError:
                raise RequestError(404, f"no game with id {game_id}") from None
        labels = self._labels()
        if rec.rules_data_hash != str(self.game.RULES_DATA_HASH):
            raise RequestError(
                409,
                f"game {game_id} was played under rules_data_hash {rec.rules_data_hash}; "
                f"this viewer runs {self.game.RULES_DATA_HASH} and cannot replay it",
            )
        positions: list[dict[str, Any]] = []
        score_track: list[list[int]] = []

        def visit(s) -> None:
            positions.append(position(self.game, s))
            score_track.append([int(x) for x in self.game.scores(s)])

        try:
            _s, steps = replay(self.game, rec, describe=True, visit=visit)
        except ReplayMismatch as e:
            raise RequestError(409, _one_line(str(e))) from None
        payload = {
            "id": rec.id,
            "game": self.game.NAME,
            "players": rec.players,
            "seed": rec.seed,
            "tournament": rec.tournament_id,
            "seats": [
                {"seat": p, "agent": labels.get(e, f"entrant {e}")} for p, e in enumerate(rec.seats)
            ],
            "scores": rec.scores,
            "ranks": rec.ranks,
            "win_shares": rec.win_shares,
            "truncated": rec.truncated,
            "decisions": rec.decisions,
            "rules_data_hash": rec.rules_data_hash,
            "steps": [
                {
                    "decision": st["decision"],
                    "seat": st["seat"],
                    "action": st["action"],
                    "describe": st["description"],
                    "chance": st["chance"],
                }
                for st in steps
            ],
            "positions": positions,
            "score_track": score_track,
        }
        with self._lock:
            self._cache[game_id] = payload
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return payload


def _matches(g: dict[str, Any], agent: str | None, seat: int | None, result: str | None) -> bool:
    considered = [
        p
        for p, s in enumerate(g["seats"])
        if (agent is None or s["agent"] == agent) and (seat is None or p == seat)
    ]
    if not considered:
        return False
    if result is None:
        return True
    shares = g["win_shares"]
    want = {"win": lambda x: x >= 1.0, "draw": lambda x: 0.0 < x < 1.0, "loss": lambda x: x <= 0}
    return any(want[result](shares[p]) for p in considered)


def _one_line(text: str) -> str:
    return " ".join(text.split())
