"""Game statistics of finished games, re-simulated from their seed and actions.

`collect(game_name, records)` replays stored games (training.arena.store.GameRecord) with the game's
compiled replay loop (`<game>_env/engine/stats_loops.py`, generated from core/stats_template.py)
and returns one `GameStats`: column arrays over the games, per seat where it applies:

- points by source (the package's `SCORE_SOURCES` over its `score_src` segment; each game's rows
  add up to its final scores; a game without them has one source, its score),
- resources gained and spent by kind (`RESOURCES` of the stats module the game's spec names,
  GameSpec.stats), actions taken by kind (the action space's segments), deaths (Village), rounds
  (a game's `round` segment, else its turns) and decisions,
- the random setup and who took what (the stats module's `ITEMS`: Village customer tiles; Troyes
  Activity cards, events, characters); a game whose spec names no stats module has none of these
  three,
- the winner's margin, lead changes between rounds and decisiveness (the share of the game's
  rounds after which the final winner led for good),
- game-quality metrics after Ludii (docs/balance.md): branching factor and decision moves from
  the number of legal actions at each decision, lead changes per round transition, and drama
  (how far behind the leader the eventual winner was while not leading),
- each seat's first decision (the opening whose diversity training.balance.measures reports).

Games must have been played under the rules data loaded now (their RULES_DATA_HASH); a game that
does not replay to its recorded scores raises StatsError naming it.
"""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from core.registry import game_packages, get_game

MAX_ROUND_ROWS = 128  # score snapshots per game (one per round; Village caps at 40 rounds)
QUALITY_FIELDS = ("branching", "decision_moves", "lead_change_rate", "drama", "drama_max")


class StatsError(ValueError):
    """A game that cannot be analysed (other rules data, a replay that does not match)."""


@dataclass
class GameStats:
    """Statistics of G games of one game at one player count (arrays indexed [game, seat, ...])."""

    game: str
    players: int
    rules_data_hash: str
    sources: tuple[str, ...]
    resources: tuple[str, ...]
    action_kinds: tuple[str, ...]
    items: tuple[str, ...]
    game_ids: np.ndarray  # (G,) store ids
    seats: np.ndarray  # (G, P) entrant ids by seat
    scores: np.ndarray  # (G, P)
    win_shares: np.ndarray  # (G, P): 1 win, 1/k shared among k tied winners, else 0
    points: np.ndarray  # (G, P, S) points by source
    gained: np.ndarray  # (G, P, R)
    spent: np.ndarray  # (G, P, R)
    actions: np.ndarray  # (G, P, K) decisions by action kind
    deaths: np.ndarray  # (G, P); zeros for a game without deaths
    in_play: np.ndarray  # (G, I) bool
    taken: np.ndarray  # (G, P, I) bool
    decisions: np.ndarray  # (G,)
    rounds: np.ndarray  # (G,)
    truncated: np.ndarray  # (G,) bool
    margin: np.ndarray  # (G,) best score minus the best other score
    lead_changes: np.ndarray  # (G,) changes of the sole leader between rounds
    decided_at: np.ndarray  # (G,) share of rounds played when the final winner led for good
    deal_seeds: np.ndarray  # (G,) the seed each game was dealt from
    play_digests: np.ndarray  # (G,) a 64-bit digest of the action sequence (same play, same digest)
    # game-quality metrics (after Ludii; `game_quality`, `lead_change_rate`, `drama_stats`);
    # None (files and callers of earlier versions) reads as nan for every game
    branching: np.ndarray | None = None  # (G,) mean number of legal actions per decision
    decision_moves: np.ndarray | None = None  # (G,) share of decisions with > 1 legal action
    lead_change_rate: np.ndarray | None = None  # (G,) lead changes per round transition
    drama: np.ndarray | None = None  # (G,) mean points the winner trailed by while not leading
    drama_max: np.ndarray | None = None  # (G,) the most points the winner ever trailed by
    # (G, P) each seat's first decision (an action id; -1: the seat never decided); None (files
    # of earlier versions) reads as -1 everywhere
    first_actions: np.ndarray | None = None
    labels: dict[int, str] = field(default_factory=dict)  # entrant id -> label

    def __post_init__(self) -> None:
        for name in QUALITY_FIELDS:
            if getattr(self, name) is None:
                setattr(self, name, np.full(self.game_ids.shape[0], np.nan))
        if self.first_actions is None:
            self.first_actions = np.full(self.seats.shape, -1, np.int64)

    def __len__(self) -> int:
        return int(self.game_ids.shape[0])

    def subset(self, rows: np.ndarray) -> GameStats:
        """The games at `rows` (a boolean mask or indices)."""
        kw = {}
        for f in fields(self):
            v = getattr(self, f.name)
            kw[f.name] = v[rows] if isinstance(v, np.ndarray) else v
        return GameStats(**kw)

    def save(self, path: str | Path) -> Path:
        """The arrays and names as one .npz (what notebooks/balance.ipynb loads)."""
        path = Path(path)
        meta = {
            "game": self.game,
            "players": self.players,
            "rules_data_hash": self.rules_data_hash,
            "sources": list(self.sources),
            "resources": list(self.resources),
            "action_kinds": list(self.action_kinds),
            "items": list(self.items),
            "labels": {str(k): v for k, v in self.labels.items()},
        }
        import json

        arrays = {f.name: getattr(self, f.name) for f in fields(self)}
        arrays = {k: v for k, v in arrays.items() if isinstance(v, np.ndarray)}
        np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)
        return path

    @staticmethod
    def load(path: str | Path) -> GameStats:
        import json

        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            arrays = {k: z[k] for k in z.files if k != "meta"}
        g = arrays["game_ids"].shape[0]
        for name in ("deal_seeds", "play_digests"):  # not in files of earlier versions
            arrays.setdefault(name, np.full(g, -1 if name == "deal_seeds" else 0, np.int64))
        names = ("sources", "resources", "action_kinds", "items")
        return GameStats(
            game=meta["game"],
            players=int(meta["players"]),
            rules_data_hash=meta["rules_data_hash"],
            labels={int(k): v for k, v in meta["labels"].items()},
            **{k: tuple(meta[k]) for k in names},
            **arrays,
        )


class NoStats:
    """What a balance study reads of a game whose spec names no stats module: no resources, no
    items, no deaths (scores, actions, turns and margins are read for every game)."""

    RESOURCES: tuple = ()
    ITEMS: tuple = ()
    deaths = None

    @staticmethod
    def items(final: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(0, bool), np.zeros((n, 0), bool)


def stats_modules(game_name: str):
    """(game package, its stats module or NoStats, its generated stats loops)."""
    pkg = game_packages()[game_name]
    game = importlib.import_module(pkg)
    stats = game.GAME.spec.stats
    return (
        game,
        NoStats if stats is None else importlib.import_module(stats),
        importlib.import_module(f"{pkg}.engine.stats_loops"),
    )


def score_sources(game) -> tuple[tuple[str, ...], object | None]:
    """(source names, the layout segment holding points by source) of a game that credits its
    points by source (`SCORE_SOURCES` and a `score_src` segment), else (("score",), None): the
    final score is then the one source."""
    names = getattr(game, "SCORE_SOURCES", None)
    if names is None or "score_src" not in game.LAYOUT.segments:
        return ("score",), None
    return tuple(names), game.LAYOUT.segments["score_src"]


def round_field(game) -> tuple[int, bool]:
    """(the state word whose change marks a new round for the lead statistics, whether it is a
    round counter): the `round` segment if the layout has one, else the seat to act (each turn
    then counts as a round, and rounds are counted by the replay's snapshots)."""
    if "round" in game.LAYOUT.segments:
        return game.LAYOUT.offset("round"), True
    return game.GAME.spec.fields.actor, False


def _track_indices(layout, resources, players: int) -> np.ndarray:
    """State indices of every (seat, resource) in seat-major order."""
    idx = np.zeros((players, len(resources)), dtype=np.int64)
    for r, (_name, seg_name, k) in enumerate(resources):
        seg = layout.segments[seg_name]
        row = int(np.prod(seg.shape[1:])) if len(seg.shape) > 1 else 1
        for p in range(players):
            idx[p, r] = seg.offset + p * row + (0 if k is None else k)
    return idx.ravel()


def lead_stats(rows: np.ndarray, winner: int) -> tuple[int, float]:
    """(changes of the sole leader between consecutive rounds, share of the rounds after which
    `winner` led for good: 1.0 = only at the end, 0.0 = from the first round); `rows` (R, P)
    scores after each round, the last after the end; winner -1 (a shared win) gives nan."""
    changes, leader = 0, -1
    top = rows.max(axis=1)
    sole = (rows == top[:, None]).sum(axis=1) == 1
    best = rows.argmax(axis=1)
    for r in range(rows.shape[0]):
        if sole[r]:
            if leader >= 0 and best[r] != leader:
                changes += 1
            leader = int(best[r])
    if winner < 0:
        return changes, float("nan")
    leads = sole & (best == winner)
    k = rows.shape[0]
    while k > 0 and leads[k - 1]:
        k -= 1
    return changes, k / rows.shape[0]


def game_quality(legal: np.ndarray) -> tuple[float, float]:
    """(branching factor: the mean number of legal actions per decision, decision moves: the
    share of decisions that had more than one legal action) of one game, from the number of
    legal actions at each of its decisions; nan for a game without decisions."""
    if legal.shape[0] == 0:
        return float("nan"), float("nan")
    return float(legal.mean()), float((legal > 1).mean())


def lead_change_rate(changes: int, snapshots: int) -> float:
    """Lead changes per chance to change: `changes` (lead_stats) over the snapshots - 1
    transitions between consecutive round snapshots; nan with fewer than two snapshots."""
    return changes / (snapshots - 1) if snapshots > 1 else float("nan")


def drama_stats(rows: np.ndarray, winner: int) -> tuple[float, float]:
    """(mean, max) over the round snapshots where `winner` was not leading (its score below the
    best score; a tie for the lead counts as leading) of the gap best score - winner's score, in
    points; (0.0, 0.0) when the winner never trailed, (nan, nan) for a shared win (winner -1).
    `rows` (R, P) scores after each round, the last after the end (as in lead_stats)."""
    if winner < 0:
        return float("nan"), float("nan")
    gap = rows.max(axis=1) - rows[:, winner]
    behind = gap[gap > 0]
    if behind.size == 0:
        return 0.0, 0.0
    return float(behind.mean()), float(behind.max())


def play_digest(actions: np.ndarray) -> int:
    """A signed 64-bit digest of an action sequence: two games on the same deal were played alike
    exactly when their digests agree (up to a 2**-64 chance)."""
    a = np.ascontiguousarray(actions, dtype=np.int64)
    return int.from_bytes(
        hashlib.blake2b(a.tobytes(), digest_size=8).digest(), "little", signed=True
    )


def collect(game_name: str, records: list, labels: dict[int, str] | None = None) -> GameStats:
    """Statistics of `records` (all of one player count) by compiled replay."""
    game = get_game(game_name)
    pkg, meta, loops = stats_modules(game_name)
    n, rules = _check_records(game, records)
    sources, src = score_sources(pkg)
    kinds = tuple(game.ACTIONS.segments)
    track = _track_indices(game.LAYOUT, meta.RESOURCES, n)
    G, R, K, Ni = len(records), len(meta.RESOURCES), len(kinds), len(meta.ITEMS)
    out = _zero_stats(G, n, len(sources), R, K, Ni)
    replay = _Replay(game, meta, loops, n, track, records)
    for g, rec in enumerate(records):
        replay.record(out, g, rec, src, len(sources))
    return GameStats(
        game=game_name,
        players=n,
        rules_data_hash=rules,
        sources=sources,
        resources=tuple(r[0] for r in meta.RESOURCES),
        action_kinds=kinds,
        items=tuple(meta.ITEMS),
        labels=dict(labels or {}),
        **out,
    )


def _check_records(game, records: list) -> tuple[int, str]:
    """(player count, rules data hash) of `records`: some games, all of one player count, all
    played under the loaded rules data (a StatsError otherwise)."""
    if not records:
        raise StatsError("no games to analyse")
    n = int(records[0].players)
    if any(int(r.players) != n for r in records):
        raise StatsError("games of several player counts: analyse one player count at a time")
    rules = str(game.RULES_DATA_HASH)
    for r in records:
        if r.rules_data_hash != rules:
            raise StatsError(
                f"game {r.id} was played under rules data {r.rules_data_hash}, the loaded rules "
                f"data is {rules}: load the same rules data (or a variant file) to analyse it"
            )
    return n, rules


def _zero_stats(G: int, n: int, n_src: int, R: int, K: int, Ni: int) -> dict[str, np.ndarray]:
    """GameStats' arrays, zero (first actions -1), for G games of n seats, n_src score sources,
    R resources, K action kinds and Ni items."""
    return dict(
        points=np.zeros((G, n, n_src), np.int64),
        gained=np.zeros((G, n, R), np.int64),
        spent=np.zeros((G, n, R), np.int64),
        actions=np.zeros((G, n, K), np.int64),
        deaths=np.zeros((G, n), np.int64),
        in_play=np.zeros((G, Ni), bool),
        taken=np.zeros((G, n, Ni), bool),
        decisions=np.zeros(G, np.int64),
        rounds=np.zeros(G, np.int64),
        truncated=np.zeros(G, bool),
        margin=np.zeros(G, np.int64),
        lead_changes=np.zeros(G, np.int64),
        decided_at=np.zeros(G, np.float64),
        **{name: np.zeros(G, np.float64) for name in QUALITY_FIELDS},
        scores=np.zeros((G, n), np.int64),
        win_shares=np.zeros((G, n), np.float64),
        seats=np.zeros((G, n), np.int64),
        first_actions=np.full((G, n), -1, np.int64),
        game_ids=np.zeros(G, np.int64),
        deal_seeds=np.zeros(G, np.int64),
        play_digests=np.zeros(G, np.int64),
    )


class _Replay:
    """collect's compiled replay of games of `n` seats (the game's stats module `meta` and its
    generated loops), with the scratch buffers it reuses from game to game."""

    def __init__(self, game, meta, loops, n: int, track: np.ndarray, records: list) -> None:
        self.game, self.meta, self.loops, self.n, self.track = game, meta, loops, n, track
        self.owner = game.ACTIONS.segment_index
        self.T = game.GAME.tables
        self.mask = np.zeros(game.NUM_ACTIONS, dtype=np.bool_)
        self.work = np.zeros(max(1, game.GAME.spec.work_size), dtype=np.int64)
        self.prev = np.zeros(track.shape[0], np.int64)
        self.gained = np.zeros(track.shape[0], np.int64)
        self.spent = np.zeros(track.shape[0], np.int64)
        self.keys = np.zeros((max(game.PLAYER_COUNTS), game.GAME.spec.n_keys), np.int64)
        self.round_at, self.counts_rounds = round_field(game)
        # a snapshot per round, or per turn (at most one per decision, and the end) without rounds
        cap = MAX_ROUND_ROWS if self.counts_rounds else max(len(r.actions) for r in records) + 1
        self.rows = np.zeros((cap, n), np.int64)
        self.actors = np.zeros(0, np.int64)
        self.legal = np.zeros(0, np.int64)

    def replay(self, rec, acts: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
        """Replay game `rec` (its actions `acts`): the final state, the number of score
        snapshots, the final scores (a StatsError where the replay refuses a decision or ends
        elsewhere than the record)."""
        game = self.game
        if self.actors.shape[0] < acts.shape[0]:
            self.actors = np.zeros(acts.shape[0] * 2, np.int64)
            self.legal = np.zeros(acts.shape[0] * 2, np.int64)
        s = game.new_game(self.n, rec.seed).copy()
        self.gained[:] = 0
        self.spent[:] = 0
        scratch = (self.mask, self.work, self.prev, self.keys)
        into = (self.gained, self.spent, self.actors, self.legal, self.rows)
        nrows = self.loops.replay_track(s, self.T, acts, self.track, self.round_at, scratch, into)
        if nrows < 0:
            raise StatsError(f"game {rec.id}: the replay refused decision {-nrows - 1}")
        sc = np.asarray(game.scores(s), dtype=np.int64)
        if not game.is_terminal(s) or list(sc) != [int(x) for x in rec.scores]:
            raise StatsError(
                f"game {rec.id}: the replay ends with scores {sc.tolist()}, the record says "
                f"{list(rec.scores)} (other rules data or engine version?)"
            )
        return s, nrows, sc

    def record(self, out: dict[str, np.ndarray], g: int, rec, src, n_src: int) -> None:
        """Replay game `rec` and write its statistics to row `g` of `out` (`src`: the layout
        segment of the `n_src` points by source, None: the final score is the one source)."""
        n, meta, rows = self.n, self.meta, self.rows
        acts = np.asarray(rec.actions, dtype=np.int64)
        s, nrows, sc = self.replay(rec, acts)
        actors, legal = self.actors, self.legal
        if src is None:
            out["points"][g, :, 0] = sc
        else:
            out["points"][g] = s[src.offset : src.offset + src.size].reshape(-1, n_src)[:n]
        R = len(meta.RESOURCES)
        out["gained"][g] = self.gained.reshape(n, R)
        out["spent"][g] = self.spent.reshape(n, R)
        na = acts.shape[0]
        np.add.at(out["actions"][g], (actors[:na], self.owner[acts]), 1)
        for p in range(n):
            mine = np.flatnonzero(actors[:na] == p)
            if mine.size:
                out["first_actions"][g, p] = acts[mine[0]]
        if meta.deaths is not None:
            out["deaths"][g] = meta.deaths(s, n)
        out["in_play"][g], out["taken"][g] = meta.items(s, n)
        out["decisions"][g] = na
        out["rounds"][g] = int(s[self.round_at]) if self.counts_rounds else nrows
        out["truncated"][g] = bool(rec.truncated)
        out["scores"][g] = sc
        ws = np.asarray(rec.win_shares, dtype=np.float64)
        out["win_shares"][g] = ws
        out["seats"][g] = rec.seats
        out["game_ids"][g] = -1 if rec.id is None else rec.id
        out["deal_seeds"][g] = int(rec.seed)
        out["play_digests"][g] = play_digest(acts)
        srt = np.sort(sc)
        out["margin"][g] = srt[-1] - srt[-2]
        winner = int(np.argmax(ws)) if (ws == 1.0).sum() == 1 else -1
        changes, out["decided_at"][g] = lead_stats(rows[:nrows], winner)
        out["lead_changes"][g] = changes
        out["lead_change_rate"][g] = lead_change_rate(changes, nrows)
        out["drama"][g], out["drama_max"][g] = drama_stats(rows[:nrows], winner)
        out["branching"][g], out["decision_moves"][g] = game_quality(legal[:na])
