"""The game-records store of tournaments: one SQLite file, no server, a versioned schema.

One store holds the games of one game (Village or Troyes), any player counts, any tournaments:

- `meta`: format tag, schema version, game name (a store of another game, a newer schema or a
  file that is not ours is refused before anything is written);
- `entrants`: an agent spec with its fingerprint (a checkpoint's SHA-256, a bot's or the search
  agent's code digest, a user agent's own fingerprint): the same spec with other contents is
  another entrant;
- `tournaments`: each command's configuration (line-ups, seeds, games), by a key;
- `games`: one row per finished game, keyed by its *match key* (players, tournament seed,
  line-up, seat rotation, game index, rules data hash): the deal seed, seat -> entrant, scores,
  finishing ranks, tie-breaks, win shares, truncation, decisions, wall time, RULES_DATA_HASH,
  library version, and the action sequence (little-endian uint16) with a CRC-32 of the state
  after every decision (replay names the first decision that diverges).

A game is written in one transaction, whole or not at all: an interrupted tournament leaves only
complete games, and a rerun plays only the match keys the store lacks.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "village-troyes-rl/game-store"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entrants (
    id INTEGER PRIMARY KEY,
    spec TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    copy INTEGER NOT NULL DEFAULT 1,
    UNIQUE (spec, fingerprint, copy)
);
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    players INTEGER NOT NULL,
    config TEXT NOT NULL,
    created_utc TEXT NOT NULL
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    match_key TEXT NOT NULL UNIQUE,
    tournament_id INTEGER REFERENCES tournaments (id),
    players INTEGER NOT NULL,
    lineup TEXT NOT NULL,
    rotation INTEGER NOT NULL,
    game_index INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    agent_seeds TEXT NOT NULL,
    scores TEXT NOT NULL,
    ranks TEXT NOT NULL,
    tiebreaks TEXT NOT NULL,
    win_shares TEXT NOT NULL,
    truncated INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    wall_seconds REAL NOT NULL,
    rules_data_hash TEXT NOT NULL,
    library_version TEXT NOT NULL,
    actions BLOB NOT NULL,
    checks BLOB NOT NULL,
    finished_utc TEXT NOT NULL
);
CREATE INDEX games_lineup ON games (players, lineup);
"""


class StoreError(Exception):
    """The file is not a game store this library can use (foreign, corrupt, newer, other game)."""


def state_check(state: np.ndarray) -> int:
    """The CRC-32 of a state's bytes: recorded after every decision, compared on replay."""
    return zlib.crc32(np.ascontiguousarray(state).view(np.uint8)) & 0xFFFFFFFF


def pack_actions(actions: Iterable[int]) -> bytes:
    """Actions as little-endian uint16 (both games have fewer than 65,536 action ids)."""
    return np.asarray(list(actions), dtype="<u2").tobytes()


def unpack_actions(blob: bytes) -> list[int]:
    """The inverse of pack_actions."""
    return [int(a) for a in np.frombuffer(blob, dtype="<u2")]


def pack_checks(checks: Iterable[int]) -> bytes:
    """State checks (CRC-32 per decision) as little-endian uint32."""
    return np.asarray(list(checks), dtype="<u4").tobytes()


def unpack_checks(blob: bytes) -> list[int]:
    """The inverse of pack_checks."""
    return [int(c) for c in np.frombuffer(blob, dtype="<u4")]


@dataclass
class GameRecord:
    """One finished game as the store keeps it (entrants by id; see the module docstring)."""

    match_key: str
    players: int
    lineup: str
    rotation: int
    game_index: int
    seed: int
    seats: list[int]  # seat -> entrant id
    agent_seeds: list[int]  # seat -> the agent's seed
    scores: list[int]
    ranks: list[float]  # 1 = first, tied players share the average position
    tiebreaks: list[list[int]]
    win_shares: list[float]
    truncated: bool
    decisions: int
    wall_seconds: float
    rules_data_hash: str
    library_version: str
    actions: list[int]
    checks: list[int]
    tournament_id: int | None = None
    id: int | None = None
    finished_utc: str = field(
        default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    )


_JSON_FIELDS = ("seats", "agent_seeds", "scores", "ranks", "tiebreaks", "win_shares")
_COLUMNS = (
    "match_key tournament_id players lineup rotation game_index seed seats agent_seeds scores "
    "ranks tiebreaks win_shares truncated decisions wall_seconds rules_data_hash "
    "library_version actions checks finished_utc"
).split()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class GameStore:
    """A store file opened for one game (see the module docstring). Use as a context manager."""

    def __init__(
        self, path: str | Path, game_name: str, create: bool = True, read_only: bool = False
    ):
        """`read_only`: open an existing store for reading only (never creates or writes; the
        connection may be used from any thread, one at a time: the caller serialises)."""
        self.path = Path(path)
        self.game_name = str(game_name)
        exists = self.path.exists() and self.path.stat().st_size > 0
        if not exists and (read_only or not create):
            raise StoreError(f"{self.path}: no such game store")
        if exists:
            self._check_header()
        if read_only:
            uri = f"{self.path.resolve().as_uri()}?mode=ro"
            self.db = sqlite3.connect(uri, uri=True, timeout=30.0, check_same_thread=False)
            self._check_meta()
            return
        if not exists:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        self.db.execute("PRAGMA foreign_keys = ON")
        if not exists:
            self._create()
        else:
            self._check_meta()
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")

    @staticmethod
    def game_of(path: str | Path) -> str:
        """The game a store file holds (read-only look; StoreError if it is not a store)."""
        p = Path(path)
        if not p.exists():
            raise StoreError(f"{p}: no such game store")
        with open(p, "rb") as f:
            if f.read(16) != b"SQLite format 3\x00":
                raise StoreError(f"{p}: not a game store (not an SQLite file)")
        db = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        try:
            rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{p}: not a game store of this library ({e})") from None
        finally:
            db.close()
        if rows.get("format") != FORMAT or "game" not in rows:
            raise StoreError(f"{p}: not a game store of this library (format tag missing)")
        return str(rows["game"])

    # -- opening: refuse what is not ours before writing anything --------------------------------
    def _check_header(self) -> None:
        with open(self.path, "rb") as f:
            head = f.read(16)
        if head != b"SQLite format 3\x00":
            raise StoreError(
                f"{self.path}: not a game store (not an SQLite file); refusing to touch it"
            )

    def _check_meta(self) -> None:
        try:
            rows = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise StoreError(f"{self.path}: not a game store of this library ({e})") from None
        if rows.get("format") != FORMAT:
            self.db.close()
            raise StoreError(f"{self.path}: not a game store of this library (format tag missing)")
        version = int(rows.get("schema_version", -1))
        if version > SCHEMA_VERSION:
            self.db.close()
            raise StoreError(
                f"{self.path}: store schema version {version} is newer than this library's "
                f"({SCHEMA_VERSION}); upgrade the library to read it"
            )
        if version != SCHEMA_VERSION:
            self.db.close()
            raise StoreError(
                f"{self.path}: store schema version {version}, this library reads version "
                f"{SCHEMA_VERSION}"
            )
        if rows.get("game") != self.game_name:
            self.db.close()
            raise StoreError(
                f"{self.path}: a store of {rows.get('game')!r} games, asked to use it for "
                f"{self.game_name!r}; use another --db"
            )
        try:
            ok = self.db.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.DatabaseError as e:
            ok = str(e)
        if ok != "ok":
            self.db.close()
            raise StoreError(f"{self.path}: corrupt store ({ok})")

    def _create(self) -> None:
        with self.transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self.db.execute(statement)
            self.db.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("format", FORMAT),
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("game", self.game_name),
                    ("created_utc", _now()),
                ],
            )

    def transaction(self) -> _Transaction:
        """A context manager running its body in one transaction (all or nothing)."""
        return _Transaction(self.db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- entrants and tournaments ----------------------------------------------------------------
    def entrant_id(self, spec: str, fingerprint: str, copy: int = 1) -> int:
        """The id of entrant (spec, fingerprint, copy), added if new (copy: the k-th entrant
        with this spec in a field that holds one agent more than once)."""
        key = (spec, fingerprint, int(copy))
        q = "SELECT id FROM entrants WHERE spec = ? AND fingerprint = ? AND copy = ?"
        row = self.db.execute(q, key).fetchone()
        if row:
            return int(row[0])
        with self.transaction():
            cur = self.db.execute(
                "INSERT INTO entrants (spec, fingerprint, copy) VALUES (?, ?, ?)", key
            )
        return int(cur.lastrowid)

    def entrants(self) -> dict[int, tuple[str, str]]:
        """id -> (label, fingerprint) of every entrant (label: the spec, #k for a k-th copy)."""
        return {
            int(i): (s if c == 1 else f"{s}#{c}", f)
            for i, s, f, c in self.db.execute("SELECT id, spec, fingerprint, copy FROM entrants")
        }

    def tournament_id(self, key: str, players: int, config: dict[str, Any]) -> int:
        """The id of the tournament with `key`, added (with its configuration) if new."""
        row = self.db.execute("SELECT id FROM tournaments WHERE key = ?", (key,)).fetchone()
        if row:
            return int(row[0])
        with self.transaction():
            cur = self.db.execute(
                "INSERT INTO tournaments (key, players, config, created_utc) VALUES (?, ?, ?, ?)",
                (key, int(players), json.dumps(config, sort_keys=True), _now()),
            )
        return int(cur.lastrowid)

    def tournaments(self) -> list[dict[str, Any]]:
        """Every tournament: id, key, players, configuration, creation time."""
        return [
            {"id": i, "key": k, "players": p, "config": json.loads(c), "created_utc": t}
            for i, k, p, c, t in self.db.execute(
                "SELECT id, key, players, config, created_utc FROM tournaments ORDER BY id"
            )
        ]

    # -- games -----------------------------------------------------------------------------------
    def has_keys(self, keys: Iterable[str]) -> set[str]:
        """The subset of match keys already stored."""
        keys = list(keys)
        found: set[str] = set()
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            q = f"SELECT match_key FROM games WHERE match_key IN ({','.join('?' * len(chunk))})"
            found.update(r[0] for r in self.db.execute(q, chunk))
        return found

    def add_games(self, records: Iterable[GameRecord]) -> int:
        """Write finished games in one transaction; a match key already stored is skipped (never
        duplicated). Returns how many were written."""
        n = 0
        with self.transaction():
            for rec in records:
                row = []
                for col in _COLUMNS:
                    v = getattr(rec, col)
                    if col in _JSON_FIELDS:
                        v = json.dumps(v)
                    elif col == "actions":
                        v = pack_actions(v)
                    elif col == "checks":
                        v = pack_checks(v)
                    elif col == "truncated":
                        v = int(bool(v))
                    row.append(v)
                cur = self.db.execute(
                    f"INSERT OR IGNORE INTO games ({', '.join(_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(_COLUMNS))})",
                    row,
                )
                n += cur.rowcount
        return n

    def _record(self, row: sqlite3.Row | tuple) -> GameRecord:
        d = dict(zip(("id", *_COLUMNS), row, strict=True))
        for col in _JSON_FIELDS:
            d[col] = json.loads(d[col])
        d["actions"] = unpack_actions(d["actions"])
        d["checks"] = unpack_checks(d["checks"])
        d["truncated"] = bool(d["truncated"])
        return GameRecord(**d)

    def game(self, game_id: int) -> GameRecord:
        """The stored game with id `game_id`; a clear error if there is none."""
        row = self.db.execute(
            f"SELECT id, {', '.join(_COLUMNS)} FROM games WHERE id = ?", (int(game_id),)
        ).fetchone()
        if row is None:
            (count,) = self.db.execute("SELECT COUNT(*) FROM games").fetchone()
            raise StoreError(f"{self.path}: no game with id {game_id} ({count} games stored)")
        return self._record(row)

    def games(
        self,
        match_keys: Iterable[str] | None = None,
        players: int | None = None,
        rules_data_hash: str | None = None,
    ) -> Iterator[GameRecord]:
        """Stored games in id order, optionally only those with the given match keys, player
        count and rules data hash."""
        where, args = [], []
        if players is not None:
            where.append("players = ?")
            args.append(int(players))
        if rules_data_hash is not None:
            where.append("rules_data_hash = ?")
            args.append(rules_data_hash)
        q = f"SELECT id, {', '.join(_COLUMNS)} FROM games"
        if where:
            q += " WHERE " + " AND ".join(where)
        q += " ORDER BY id"
        wanted = set(match_keys) if match_keys is not None else None
        for row in self.db.execute(q, args):
            if wanted is None or row[1] in wanted:
                yield self._record(row)

    def count(self) -> int:
        (n,) = self.db.execute("SELECT COUNT(*) FROM games").fetchone()
        return int(n)


class _Transaction:
    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.db.execute("COMMIT")
        else:
            self.db.execute("ROLLBACK")
