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

Everything is checked when read: a game's ranks and win shares are derived from its scores and
tie-breakers (training.arena.evaluate.standing, the rule tournaments record them with) and the
stored ones must agree; the action and state-check blobs must hold one entry per decision; a
game that fails is refused with one line naming it (BadGameError), the others still read.
Replaying (training.arena.replay) verifies the rest.

The file uses SQLite's rollback journal (a `-journal` file exists only while a transaction is
being written): a store opened read-only never writes and leaves no file beside it. A store an
older version left in WAL mode is switched to the rollback journal when opened for writing, and
read without side files (`immutable`) while no writer has it open.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from training.arena.evaluate import standing

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


class BadGameError(StoreError):
    """One stored game that cannot be used as stored (a malformed record, or ranks or win shares
    that disagree with its scores): one line naming the store, the game's id and seed, and why."""

    def __init__(self, path: str | Path, game_id: Any, seed: Any, reason: str):
        self.game_id, self.seed, self.reason = game_id, seed, reason
        super().__init__(f"{path}: game {game_id} (seed {seed}): {reason}")


def state_check(state: np.ndarray) -> int:
    """The CRC-32 of a state's bytes: recorded after every decision, compared on replay."""
    return zlib.crc32(np.ascontiguousarray(state).view(np.uint8)) & 0xFFFFFFFF


def pack_actions(actions: Iterable[int]) -> bytes:
    """Actions as little-endian uint16 (both games have fewer than 65,536 action ids)."""
    return np.asarray(list(actions), dtype="<u2").tobytes()


def unpack_actions(blob: bytes) -> list[int]:
    """The inverse of pack_actions."""
    return np.frombuffer(blob, dtype="<u2").tolist()


def pack_checks(checks: Iterable[int]) -> bytes:
    """State checks (CRC-32 per decision) as little-endian uint32."""
    return np.asarray(list(checks), dtype="<u4").tobytes()


def unpack_checks(blob: bytes) -> list[int]:
    """The inverse of pack_checks."""
    return np.frombuffer(blob, dtype="<u4").tolist()


@dataclass
class GameRecord:
    """One finished game as the store keeps it (entrants by id; see the module docstring). Read
    from a store, `ranks` and `win_shares` are the ones derived from the scores and tie-breaks."""

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
_CHECKED_JSON = ("seats", "agent_seeds", "scores", "ranks", "tiebreaks", "win_shares")
_SELECT = f"SELECT id, {', '.join(_COLUMNS)} FROM games"
_BATCH = 256  # games read at a time
_SQLITE_MAGIC = b"SQLite format 3\x00"
# stored ranks may differ from the derived ones by float32 rounding (older versions computed
# four-player ranks as 1.9999999850988388); anything further off disagrees
_AGREE = 1e-6


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _check_header(path: Path) -> None:
    """StoreError unless `path` is a non-empty file that starts as an SQLite database does (read
    only; nothing is written)."""
    if not path.is_file():
        raise StoreError(f"{path}: not a game store (not a file); refusing to touch it")
    with open(path, "rb") as f:
        head = f.read(len(_SQLITE_MAGIC))
    if not head:
        raise StoreError(f"{path}: not a game store (an empty file); refusing to touch it")
    if head != _SQLITE_MAGIC:
        raise StoreError(f"{path}: not a game store (not an SQLite file); refusing to touch it")


def _connect_ro(path: Path) -> sqlite3.Connection:
    """A connection that only reads and leaves no file beside the store. A store in rollback
    journal mode needs nothing more than `mode=ro`; one an older version left in WAL mode would
    get -wal/-shm files from a read-only reader, so it is opened `immutable` when no writer has
    it open (no -wal file beside it)."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    with open(path, "rb") as f:
        head = f.read(20)
    if head[18:20] == b"\x02\x02" and not Path(f"{path}-wal").exists():
        uri += "&immutable=1"
    return _connect(uri, uri=True, timeout=30.0, check_same_thread=False)


class _Bad(Exception):
    """Why a record cannot be used (BadGameError names the game)."""


class _NotUTF8(bytes):
    """A TEXT value whose bytes are not UTF-8 (a damaged or foreign row): read as this, so the
    record checks refuse it by name instead of sqlite3 failing the whole query."""


def _text_factory(raw: bytes) -> str | _NotUTF8:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return _NotUTF8(raw)


def _connect(*args, **kwargs) -> sqlite3.Connection:
    """sqlite3.connect, with every TEXT value read through _text_factory."""
    db = sqlite3.connect(*args, **kwargs)
    db.text_factory = _text_factory
    return db


_SQL_TYPES = {
    bytes: "blob",
    str: "text",
    int: "integer",
    float: "real",
    type(None): "null",
    _NotUTF8: "text that is not UTF-8",
}


def _kind(value: Any) -> str:
    return _SQL_TYPES.get(type(value), type(value).__name__)


def _integer(d: dict[str, Any], col: str, low: int | None = None) -> int:
    v = d[col]
    if type(v) is not int:
        raise _Bad(f"{col} is {_kind(v)}, not an integer")
    if low is not None and v < low:
        raise _Bad(f"{col} is {v}, below {low}")
    return v


def _text(d: dict[str, Any], col: str) -> str:
    if type(d[col]) is not str:
        raise _Bad(f"{col} is {_kind(d[col])}, not text")
    return d[col]


def _per_seat(d: dict[str, Any], col: str, n: int, kinds: tuple[type, ...]) -> list:
    """The JSON list in column `col`: one value of the given types per seat."""
    v = d[col]
    if type(v) is not str:
        raise _Bad(f"{col} is {_kind(v)}, not a JSON list")
    try:
        x = json.loads(v)
    except ValueError:
        raise _Bad(f"{col} is not a JSON list") from None
    if type(x) is not list:
        raise _Bad(f"{col} is not a JSON list")
    if len(x) != n:
        raise _Bad(f"{col} holds {len(x)} value{'s' * (len(x) != 1)} for {n} players")
    if any(type(e) not in kinds for e in x):
        names = " or ".join(t.__name__ for t in kinds)
        raise _Bad(f"{col} holds something other than {names}: {v}")
    return x


def _blob(d: dict[str, Any], col: str, what: str, unit: str, size: int, decisions: int) -> bytes:
    """The blob in column `col`: whole `size`-byte entries, one per decision."""
    v = d[col]
    if type(v) is not bytes:
        raise _Bad(f"{col} is {_kind(v)}, not a blob")
    if len(v) % size:
        raise _Bad(f"the {what} blob has {len(v)} bytes, not whole {size}-byte {unit}")
    if len(v) // size != decisions:
        raise _Bad(f"the {what} blob holds {len(v) // size} {unit} for {decisions} decisions")
    return v


def _parse(d: dict[str, Any], entrants: set[int] | None, stored: str = "stored ") -> GameRecord:
    """A GameRecord from a games row (column -> value), every field checked (_Bad says what is
    wrong); ranks and win shares derived from the scores and tie-breakers. `entrants`: the
    entrant ids the seats may name (None: not checked). A column not checked here is passed
    on as stored (a JSON field decoded)."""
    n = _integer(d, "players", 1)
    decisions = _integer(d, "decisions", 0)
    out: dict[str, Any] = dict(d)
    for col in _JSON_FIELDS:
        if col not in _CHECKED_JSON:
            try:
                out[col] = json.loads(d[col])
            except (TypeError, ValueError):
                raise _Bad(f"{col} is not JSON") from None
    out.update(players=n, decisions=decisions)
    for col in ("seed", "rotation", "game_index"):
        out[col] = _integer(d, col)
    tid = d["tournament_id"]
    if tid is not None and type(tid) is not int:
        raise _Bad(f"tournament_id is {_kind(tid)}, not an integer")
    out["tournament_id"] = tid
    for col in ("match_key", "lineup", "rules_data_hash", "library_version", "finished_utc"):
        out[col] = _text(d, col)
    if d["truncated"] not in (0, 1) or type(d["truncated"]) is not int:
        raise _Bad(f"truncated is {d['truncated']!r}, not 0 or 1")
    out["truncated"] = bool(d["truncated"])
    if type(d["wall_seconds"]) not in (int, float):
        raise _Bad(f"wall_seconds is {_kind(d['wall_seconds'])}, not a number")
    out["wall_seconds"] = float(d["wall_seconds"])
    out["seats"] = _per_seat(d, "seats", n, (int,))
    if entrants is not None:
        for p, e in enumerate(out["seats"]):
            if e not in entrants:
                raise _Bad(f"seat {p} names entrant {e}, which the store does not hold")
    out["agent_seeds"] = _per_seat(d, "agent_seeds", n, (int,))
    out["scores"] = _per_seat(d, "scores", n, (int,))
    tiebreaks = _per_seat(d, "tiebreaks", n, (list,))
    if len({len(t) for t in tiebreaks}) != 1 or any(
        type(x) is not int for t in tiebreaks for x in t
    ):
        raise _Bad(f"tiebreaks is not one list of integers of one length per seat: {tiebreaks}")
    out["tiebreaks"] = tiebreaks
    out["actions"] = unpack_actions(_blob(d, "actions", "actions", "actions", 2, decisions))
    out["checks"] = unpack_checks(_blob(d, "checks", "state checks", "CRCs", 4, decisions))
    ranks, shares = standing(out["scores"], tiebreaks)
    for col, words, derived in (("ranks", "ranks", ranks), ("win_shares", "win shares", shares)):
        have = _per_seat(d, col, n, (int, float))
        if any(abs(a - b) > _AGREE for a, b in zip(have, derived, strict=True)):
            raise _Bad(
                f"{stored}{words} {have} disagree with its scores {out['scores']} and "
                f"tie-breakers (which give {words} {derived})"
            )
        out[col] = derived
    return GameRecord(**out)


class GameStore:
    """A store file opened for one game (see the module docstring). Use as a context manager."""

    def __init__(
        self, path: str | Path, game_name: str, create: bool = True, read_only: bool = False
    ):
        """`create`: make a new store when nothing is at `path` (an existing file, even an empty
        one, must be a store of this game). `read_only`: open an existing store for reading only
        (never creates or writes, and leaves no file beside it; the connection may be used from
        any thread, one at a time: the caller serialises)."""
        self.path = Path(path)
        self.game_name = str(game_name)
        exists = os.path.lexists(self.path)
        if not exists and (read_only or not create):
            raise StoreError(f"{self.path}: no such game store")
        if exists:
            # everything is checked through a read-only connection before anything may write
            _check_header(self.path)
            self.db = _connect_ro(self.path)
            self._check_meta()
            if read_only:
                return
            self.db.close()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = _connect(self.path, timeout=30.0, isolation_level=None)
        self.db.execute("PRAGMA foreign_keys = ON")
        # the rollback journal: no file stays beside the store once a write is committed (a
        # store left in WAL mode is switched back here; while another connection has it open it
        # cannot be, and stays in WAL mode until a later open)
        try:
            self.db.execute("PRAGMA journal_mode = DELETE")
        except sqlite3.OperationalError:
            pass
        if not exists:
            self._create()

    @staticmethod
    def game_of(path: str | Path) -> str:
        """The game a store file holds (read-only look; StoreError if it is not a store)."""
        p = Path(path)
        if not os.path.lexists(p):
            raise StoreError(f"{p}: no such game store")
        _check_header(p)
        db = _connect_ro(p)
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
        duplicated). Returns how many were written. A record the store would refuse to read back
        (blobs not one entry per decision, ranks or win shares that disagree with its scores)
        raises ValueError naming its match key, and nothing of the batch is written."""
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
                try:
                    _parse(dict(zip(("id", *_COLUMNS), (None, *row), strict=True)), None, "")
                except _Bad as e:
                    raise ValueError(f"match key {rec.match_key}: {e}") from None
                cur = self.db.execute(
                    f"INSERT OR IGNORE INTO games ({', '.join(_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(_COLUMNS))})",
                    row,
                )
                n += cur.rowcount
        return n

    def _record(self, row: tuple, entrants: set[int]) -> GameRecord | BadGameError:
        """The checked record of a games row, or the BadGameError saying why it is refused."""
        d = dict(zip(("id", *_COLUMNS), row, strict=True))
        try:
            return _parse(d, entrants)
        except _Bad as e:
            return BadGameError(self.path, d["id"], d["seed"], str(e))

    def game(self, game_id: int) -> GameRecord:
        """The stored game with id `game_id`; a clear error if there is none, BadGameError if it
        cannot be used as stored."""
        row = self.db.execute(f"{_SELECT} WHERE id = ?", (int(game_id),)).fetchone()
        if row is None:
            (count,) = self.db.execute("SELECT COUNT(*) FROM games").fetchone()
            raise StoreError(f"{self.path}: no game with id {game_id} ({count} games stored)")
        rec = self._record(row, set(self.entrants()))
        if isinstance(rec, BadGameError):
            raise rec
        return rec

    def read_games(
        self,
        match_keys: Iterable[str] | None = None,
        players: int | None = None,
        rules_data_hash: str | None = None,
    ) -> Iterator[GameRecord | BadGameError]:
        """Stored games in id order, optionally only those with the given match keys, player
        count and rules data hash: each a checked GameRecord, or the BadGameError of a game
        that cannot be used as stored (yielded, not raised: a verifier lists them all)."""
        where, args = [], []
        if players is not None:
            where.append("players = ?")
            args.append(int(players))
        if rules_data_hash is not None:
            where.append("rules_data_hash = ?")
            args.append(rules_data_hash)
        # in batches, each read whole: no read lock is held while the caller works on a game
        # (a long verification must not block a tournament writing to the same store)
        q = f"{_SELECT} WHERE {' AND '.join(['id > ?', *where])} ORDER BY id LIMIT {_BATCH}"
        wanted = set(match_keys) if match_keys is not None else None
        entrants = set(self.entrants())
        last = -(2**63)
        while True:
            rows = self.db.execute(q, [last, *args]).fetchall()
            for row in rows:
                if wanted is None or row[1] in wanted:
                    yield self._record(row, entrants)
            if len(rows) < _BATCH:
                return
            last = rows[-1][0]

    def games(
        self,
        match_keys: Iterable[str] | None = None,
        players: int | None = None,
        rules_data_hash: str | None = None,
    ) -> Iterator[GameRecord]:
        """As read_games, raising the BadGameError of the first game that cannot be used."""
        for rec in self.read_games(match_keys, players, rules_data_hash):
            if isinstance(rec, BadGameError):
                raise rec
            yield rec

    def rules_data_hashes(self) -> dict[str, int]:
        """How many games were played under each rules data hash."""
        q = "SELECT rules_data_hash, COUNT(*) FROM games GROUP BY rules_data_hash ORDER BY 1"
        return {str(h): int(c) for h, c in self.db.execute(q)}

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
