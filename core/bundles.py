"""The bundles of arrays the compiled searches and self-play take: each a `typing.NamedTuple`
whose fields are documented here, made by the factory below it. Numba takes a named tuple of
arrays as one argument and reads `bundle.field` in compiled code as it reads a tuple position
(a constant offset, no lookup), so a loop names what it reads and no list of integer positions
has to be kept in step with the factory.

- `MCTSScratch` (`mcts_scratch`): the scratch of the `mcts` agent's search (core.search,
  core/search_template.py `search`);
- `GuidedScratch` (`guided_scratch`): the scratch of the guided search (core.guided,
  core/search_template.py `pv_search`, `pv_gumbel`, `pv_selfplay`);
- `GameRows` (`game_rows`): what each game of the self-play of many games at once keeps between
  rounds, one row per game (core/selfplay_template.py `pv_selfplay_many`);
- `SharedScratch` (`shared_scratch`): the scratch those games share;
- `ExampleRecords` (`example_records`): the rows of training examples a self-play loop writes;
- `Network` (`network`): the guided search's packed network and its one-observation scratch;
- `BatchNetwork` (`batch_network`): the packed network with the scratch of a batched forward.

The two search scratches begin with the same fields, those of a tree walk (`WALK_FIELDS`), so the
walk's steps read them by name from either.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from core.search_tree import MAX_SEATS, N_CTL

# the fields of a tree walk, first in both search scratches
WALK_FIELDS = ("s", "mask", "work", "tmp", "child_of", "path", "keys", "proj", "ret", "stats",
               "legal", "exp")  # fmt: skip


class MCTSScratch(NamedTuple):
    """The `mcts` search's scratch: the walk's fields, then its lookahead's and its rollout's."""

    s: np.ndarray  # int64 (state_size): the state walked (a determinization of the root)
    mask: np.ndarray  # bool (num_actions): its legal mask
    work: np.ndarray  # int64 (work_size): the kernels' work
    tmp: np.ndarray  # int64 (state_size + 16): k_evaluate's scratch
    child_of: np.ndarray  # int64 (num_actions): the child of each action at a node, else -1
    path: np.ndarray  # int64 (cap + 1): the nodes of the walk
    keys: np.ndarray  # int64 (MAX_SEATS, n_keys): the standing keys of each seat
    proj: np.ndarray  # float64 (MAX_SEATS): projected scores
    ret: np.ndarray  # float64 (MAX_SEATS): the returns backed up
    stats: np.ndarray  # int64 (4): iterations, engine steps, lookahead steps, errors
    legal: np.ndarray  # int64 (num_actions): a node's legal actions in order (enter)
    exp: np.ndarray  # float64 (num_actions): their prior weights (puct_choice)
    t: np.ndarray  # int64 (state_size): the greedy lookahead's state
    tmask: np.ndarray  # bool (num_actions): its legal mask
    val: np.ndarray  # float64 (num_actions): rollout=bot's action values
    bi: np.ndarray  # int64 (BOT_SCRATCH_I): the bot's int scratch
    bf: np.ndarray  # float64 (BOT_SCRATCH_F): the bot's float scratch


class GuidedScratch(NamedTuple):
    """The guided search's scratch: the walk's fields, then its evaluation's and Gumbel root's."""

    s: np.ndarray  # the walk's fields, as MCTSScratch's
    mask: np.ndarray
    work: np.ndarray
    tmp: np.ndarray
    child_of: np.ndarray
    path: np.ndarray
    keys: np.ndarray
    proj: np.ndarray
    ret: np.ndarray
    stats: np.ndarray  # int64 (4): simulations, engine steps, network calls, errors
    legal: np.ndarray
    exp: np.ndarray
    ev: np.ndarray  # float64 (MAX_SEATS): the position evaluation a leaf's value mixes in
    gum: np.ndarray  # float64 (num_actions): the Gumbel root's scores
    cand: np.ndarray  # int64 (num_actions): its considered actions
    q: np.ndarray  # float64 (num_actions): the root's completed Q-values
    pi: np.ndarray  # float64 (num_actions): the Gumbel root's improved policy


def _walk_arrays(game, cap: int) -> dict[str, np.ndarray]:
    """The walk's fields (WALK_FIELDS) for a tree of `cap` nodes: child_of all -1, else zeros."""
    size, na = game.state_size, game.num_actions
    return {
        "s": np.zeros(size, dtype=np.int64),
        "mask": np.zeros(na, dtype=np.bool_),
        "work": np.zeros(max(1, game.spec.work_size), dtype=np.int64),
        "tmp": np.zeros(size + 16, dtype=np.int64),
        "child_of": np.full(na, -1, dtype=np.int64),
        "path": np.zeros(cap + 1, dtype=np.int64),
        "keys": np.zeros((MAX_SEATS, game.spec.n_keys), dtype=np.int64),
        "proj": np.zeros(MAX_SEATS, dtype=np.float64),
        "ret": np.zeros(MAX_SEATS, dtype=np.float64),
        "stats": np.zeros(4, dtype=np.int64),
        "legal": np.zeros(na, dtype=np.int64),
        "exp": np.zeros(na, dtype=np.float64),
    }


def mcts_scratch(game, cap: int, bot_i: int, bot_f: int) -> MCTSScratch:
    """The `mcts` search's scratch for a tree of `cap` nodes; bot_i, bot_f: the sizes of the
    game's bot scratch (its contract's BOT_SCRATCH_I, BOT_SCRATCH_F)."""
    size, na = game.state_size, game.num_actions
    return MCTSScratch(
        **_walk_arrays(game, cap),
        t=np.zeros(size, dtype=np.int64),
        tmask=np.zeros(na, dtype=np.bool_),
        val=np.zeros(na, dtype=np.float64),
        bi=np.zeros(max(1, bot_i), dtype=np.int64),
        bf=np.zeros(max(1, bot_f), dtype=np.float64),
    )


def guided_scratch(game, cap: int) -> GuidedScratch:
    """The guided search's scratch for a tree of `cap` nodes."""
    na = game.num_actions
    return GuidedScratch(
        **_walk_arrays(game, cap),
        ev=np.zeros(MAX_SEATS, dtype=np.float64),
        gum=np.zeros(na, dtype=np.float64),
        cand=np.zeros(na, dtype=np.int64),
        q=np.zeros(na, dtype=np.float64),
        pi=np.zeros(na, dtype=np.float64),
    )


class GameRows(NamedTuple):
    """What each game of the self-play of many games at once keeps between rounds: row g of each
    array is game g's."""

    s: np.ndarray  # int64 (games, state_size): the state walked
    path: np.ndarray  # int64 (games, cap + 1): the path of the walk
    gum: np.ndarray  # float64 (games, num_actions): the Gumbel root's scores
    cand: np.ndarray  # int64 (games, num_actions): its considered actions
    ctl: np.ndarray  # int64 (games, N_CTL): the control row (selfplay_template's C_ columns)
    vroot: np.ndarray  # float64 (games): the Gumbel root's value
    rng: np.ndarray  # int64 (games, 4): the game's rng words
    # the game's cache of network outputs by observation (a power of two of entries)
    ckey: np.ndarray  # int64 (games, cache): the keys (0: empty)
    cobs: np.ndarray  # float32 (games, cache, obs_size): the observations
    cnz: np.ndarray  # int64 (games, cache): their last hidden layer's non-zero entries: count,
    cidx: np.ndarray  # int64 (games, cache, hidden): indices,
    cval: np.ndarray  # float32 (games, cache, hidden): values
    cv: np.ndarray  # float32 (games, cache, seats): the seats' values
    # each tree node's last hidden layer (non-zero entries), from which its logits are computed
    # when a walk first needs them (core.mlp.head_outputs)
    nnz: np.ndarray  # int64 (games, cap + 1): count
    nidx: np.ndarray  # int64 (games, cap + 1, hidden): indices
    nval: np.ndarray  # float32 (games, cap + 1, hidden): values


def game_rows(game, games: int, cap: int, cache: int, hidden: int) -> GameRows:
    """GameRows of `games` games with trees of `cap` nodes, caches of `cache` entries and a last
    hidden layer of `hidden` units; all zeros."""
    na, seats, size = game.num_actions, max(game.spec.player_counts), game.state_size
    obs = game.spec.obs_size
    return GameRows(
        s=np.zeros((games, size), dtype=np.int64),
        path=np.zeros((games, cap + 1), dtype=np.int64),
        gum=np.zeros((games, na), dtype=np.float64),
        cand=np.zeros((games, na), dtype=np.int64),
        ctl=np.zeros((games, N_CTL), dtype=np.int64),
        vroot=np.zeros(games, dtype=np.float64),
        rng=np.zeros((games, 4), dtype=np.int64),
        ckey=np.zeros((games, cache), dtype=np.int64),
        cobs=np.zeros((games, cache, obs), dtype=np.float32),
        cnz=np.zeros((games, cache), dtype=np.int64),
        cidx=np.zeros((games, cache, hidden), dtype=np.int64),
        cval=np.zeros((games, cache, hidden), dtype=np.float32),
        cv=np.zeros((games, cache, seats), dtype=np.float32),
        nnz=np.zeros((games, cap + 1), dtype=np.int64),
        nidx=np.zeros((games, cap + 1, hidden), dtype=np.int64),
        nval=np.zeros((games, cap + 1, hidden), dtype=np.float32),
    )


class SharedScratch(NamedTuple):
    """The scratch the games of the self-play of many games at once share (one game walks at a
    time): the walk's fields but the state and path (each game keeps its own), the guided
    search's ev, q, pi, and the cache's hash and the network's outputs."""

    mask: np.ndarray  # the walk's fields, as MCTSScratch's
    work: np.ndarray
    tmp: np.ndarray
    child_of: np.ndarray
    keys: np.ndarray
    proj: np.ndarray
    ret: np.ndarray
    ev: np.ndarray  # as GuidedScratch's
    q: np.ndarray
    pi: np.ndarray
    stats: np.ndarray  # int64 (4): simulations, engine steps, network calls, errors
    legal: np.ndarray
    exp: np.ndarray
    mult: np.ndarray  # int64 (obs_size): the cache's hash, an odd multiplier per entry
    cols: np.ndarray  # int64 (num_actions + seats): the network outputs to compute
    hout: np.ndarray  # float32 (num_actions + seats): them computed (core.mlp.head_outputs)


def shared_scratch(game, cap: int) -> SharedScratch:
    """SharedScratch for trees of `cap` nodes; the hash multipliers drawn from a generator seeded
    by the observation's size, so every batch of a game hashes alike."""
    na, seats, obs = game.num_actions, max(game.spec.player_counts), game.spec.obs_size
    walk = _walk_arrays(game, cap)
    del walk["s"], walk["path"]
    return SharedScratch(
        **walk,
        ev=np.zeros(MAX_SEATS, dtype=np.float64),
        q=np.zeros(na, dtype=np.float64),
        pi=np.zeros(na, dtype=np.float64),
        mult=np.random.default_rng(obs).integers(1, 2**62, size=obs, dtype=np.int64) | 1,
        cols=np.zeros(na + seats, dtype=np.int64),
        hout=np.zeros(na + seats, dtype=np.float32),
    )


class ExampleRecords(NamedTuple):
    """Training examples as a self-play loop writes them, one row each."""

    obs: np.ndarray  # float32 (rows, obs_size): the actor's observation
    mask: np.ndarray  # bool (rows, num_actions): the legal mask
    pi: np.ndarray  # float32 (rows, num_actions): the policy target
    actor: np.ndarray  # int64 (rows): the seat that acted
    act: np.ndarray  # int64 (rows): the action played
    q: np.ndarray  # float32 (rows, seats): the root's value of each seat (j: j places after)
    game: np.ndarray  # int64 (rows): the game of the row (the self-play of many games)
    fill: np.ndarray  # int64 (2): rows written; the game of a failure (the many games' loop)


# the fields of an example itself (the rest say where it comes from and how many there are)
EXAMPLE_FIELDS = ("obs", "mask", "pi", "actor", "act", "q")


def example_records(game, rows: int) -> ExampleRecords:
    """ExampleRecords of `rows` rows of `game`, all zeros."""
    na, seats, obs = game.num_actions, max(game.spec.player_counts), game.spec.obs_size
    return ExampleRecords(
        obs=np.zeros((rows, obs), dtype=np.float32),
        mask=np.zeros((rows, na), dtype=np.bool_),
        pi=np.zeros((rows, na), dtype=np.float32),
        actor=np.zeros(rows, dtype=np.int64),
        act=np.zeros(rows, dtype=np.int64),
        q=np.zeros((rows, seats), dtype=np.float32),
        game=np.zeros(rows, dtype=np.int64),
        fill=np.zeros(2, dtype=np.int64),
    )


class Network(NamedTuple):
    """The guided search's network (core.mlp.pack_actors) and its scratch for one observation."""

    w: np.ndarray  # float32: the packed weights of core.mlp.pack_actors
    meta: np.ndarray  # int64: their layout (core.mlp's LAYER_META entries per layer)
    obs: np.ndarray  # float32 (obs_size): the observation of the seat evaluated
    h: np.ndarray  # float32 (2, widest): the hidden layers' activations
    out: np.ndarray  # float32 (num_actions + seats): the logits, then the seats' values


def network(game, w: np.ndarray, meta: np.ndarray, widest: int) -> Network:
    """Network of the packed network (w, meta; `widest`: its widest layer) for `game`."""
    na, seats = game.num_actions, max(game.spec.player_counts)
    return Network(
        w=w,
        meta=meta,
        obs=np.zeros(game.spec.obs_size, dtype=np.float32),
        h=np.zeros((2, widest), dtype=np.float32),
        out=np.zeros(na + seats, dtype=np.float32),
    )


class BatchNetwork(NamedTuple):
    """The packed network with the scratch of a forward of many games' leaves at once
    (core.mlp.batch_trunk)."""

    w: np.ndarray  # float32: the packed weights, as Network's
    meta: np.ndarray  # int64: their layout
    x: np.ndarray  # float32 (games, obs_size): the observations, one row per leaf
    h: np.ndarray  # float32 (2, games, widest): the hidden layers' activations
    owner: np.ndarray  # int64 (games): the game of each row
    idx: np.ndarray  # int64 (max(obs_size, widest)): batch_trunk's non-zero input indices


def batch_network(game, games: int, w: np.ndarray, meta: np.ndarray, widest: int) -> BatchNetwork:
    """BatchNetwork of the packed network (w, meta, widest) for rows of `games` leaves."""
    obs = game.spec.obs_size
    return BatchNetwork(
        w=w,
        meta=meta,
        x=np.zeros((games, obs), dtype=np.float32),
        h=np.zeros((2, games, widest), dtype=np.float32),
        owner=np.zeros(games, dtype=np.int64),
        idx=np.zeros(max(obs, widest), dtype=np.int64),
    )
