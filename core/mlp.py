"""Trained actors (MLPs stored as plain arrays: W0, b0, W1, b1, ... and `activations`, the format
of training.agents.checkpoint.actor_arrays) packed for compiled code, and their forward pass and
choice compiled, so the batch engine plays frozen policies inside its bots' loop
(core.bots_template.play_seats) with no Python per decision.

Packing: every actor's weights go, each layer's matrix transposed (inputs major), into one
float32 vector; `meta[k]` says where actor k's layers lie: [layers, then per layer: inputs,
outputs, weight offset, bias offset, activation (ACT_*; ACT_NONE for the last layer)]. The
forward pass adds each input's column in turn (skipping zero inputs: observations are mostly
zeros), a loop the compiler vectorises without reordering any sum, so it is deterministic; it
rounds differently from numpy's matrix product (training.agents.policy.mlp_logits) in the last
bits of float32.
"""

from __future__ import annotations

import numpy as np

from core.jit import jit
from core.rng import rng_next

MAX_LAYERS = 8  # Linear layers per actor (hidden layers + the action head)
LAYER_META = 5  # inputs, outputs, weight offset, bias offset, activation
META_SIZE = 1 + LAYER_META * MAX_LAYERS
ACT_NONE, ACT_TANH, ACT_RELU = 0, 1, 2
ACTIVATIONS = {"tanh": ACT_TANH, "relu": ACT_RELU}


def packable(actor: dict[str, np.ndarray]) -> bool:
    """Whether pack_actors takes this actor (at most MAX_LAYERS layers, known activations)."""
    acts = [str(x) for x in actor["activations"]]
    return len(acts) < MAX_LAYERS and all(a in ACTIVATIONS for a in acts)


def fold_features(
    actor: dict[str, np.ndarray], obs_size: int, feat: np.ndarray
) -> dict[str, np.ndarray]:
    """The actor over the observation alone, for a conditioned actor whose input is the
    observation followed by `feat` (the rules features, the same for every decision of a game):
    W0's feature columns times `feat` folded into b0 once. Its outputs equal the whole forward's
    within float32 rounding (the sums are grouped differently). ValueError if W0 is not
    obs_size + len(feat) wide."""
    w0 = np.asarray(actor["W0"], dtype=np.float32)
    feat = np.asarray(feat, dtype=np.float32).reshape(-1)
    if w0.shape[1] != obs_size + feat.size:
        raise ValueError(
            f"the network's first layer reads {w0.shape[1]} inputs, not {obs_size} observation "
            f"+ {feat.size} rules features"
        )
    out = dict(actor)
    out["W0"] = np.ascontiguousarray(w0[:, :obs_size])
    out["b0"] = (np.asarray(actor["b0"], dtype=np.float32) + w0[:, obs_size:] @ feat).astype(
        np.float32
    )
    return out


def pack_actors(actors: list[dict[str, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, int]:
    """(weights float32, meta int64 (K, META_SIZE), widest hidden layer) of the actors, in
    order; ValueError for an actor with more than MAX_LAYERS layers or an unknown activation."""
    parts: list[np.ndarray] = []
    meta = np.zeros((max(1, len(actors)), META_SIZE), dtype=np.int64)
    off, widest = 0, 1
    for k, a in enumerate(actors):
        acts = [str(x) for x in a["activations"]]
        n = len(acts) + 1
        if n > MAX_LAYERS:
            raise ValueError(f"an actor has {n} layers; at most {MAX_LAYERS} are supported")
        meta[k, 0] = n
        for i in range(n):
            w = np.asarray(a[f"W{i}"], dtype=np.float32)  # (outputs, inputs)
            b = np.asarray(a[f"b{i}"], dtype=np.float32)
            if i < n - 1:
                if acts[i] not in ACTIVATIONS:
                    raise ValueError(f"unknown activation {acts[i]!r}; known: {list(ACTIVATIONS)}")
                widest = max(widest, w.shape[0])
            m = 1 + LAYER_META * i
            meta[k, m : m + LAYER_META] = (
                w.shape[1],
                w.shape[0],
                off,
                off + w.size,
                ACTIVATIONS[acts[i]] if i < n - 1 else ACT_NONE,
            )
            parts += [np.ascontiguousarray(w.T).ravel(), b]
            off += w.size + b.size
    weights = np.concatenate(parts) if parts else np.zeros(1, dtype=np.float32)
    return weights.astype(np.float32, copy=False), meta, widest


def actor_io(meta: np.ndarray, k: int) -> tuple[int, int]:
    """(inputs, outputs) of packed actor k: its observation size and its number of actions."""
    last = 1 + LAYER_META * (int(meta[k, 0]) - 1)
    return int(meta[k, 1]), int(meta[k, last + 1])


@jit(alloc=False, inline=True)
def layer(w, meta, k, i):
    """Layer i of packed actor k: its weights (inputs x outputs, a view of w), its bias (a view)
    and its activation (ACT_*). Views indexed by range variables only: an index that may be
    negative makes numba emit wraparound code, which keeps the loops from being vectorised."""
    m = 1 + LAYER_META * i
    n_in, n_out, wo, bo = meta[k, m], meta[k, m + 1], meta[k, m + 2], meta[k, m + 3]
    return w[wo : wo + n_in * n_out].reshape((n_in, n_out)), w[bo : bo + n_out], meta[k, m + 4]


@jit(alloc=False)
def actor_logits(w, meta, k, x, h, logits):
    """logits[:outputs] = actor k's action logits (float32) for the observation x (float32);
    h: (2, widest hidden layer) float32 scratch."""
    n = meta[k, 0]
    src = x
    for i in range(n):
        dst = logits if i == n - 1 else h[i % 2]
        wt, b, act = layer(w, meta, k, i)
        n_in, n_out = wt.shape
        for o in range(n_out):
            dst[o] = b[o]
        for j in range(n_in):
            v = src[j]
            if v != 0.0:
                for o in range(n_out):
                    dst[o] += wt[j, o] * v
        if act == ACT_TANH:
            for o in range(n_out):
                dst[o] = np.tanh(dst[o])
        elif act == ACT_RELU:
            for o in range(n_out):
                if dst[o] < 0.0:
                    dst[o] = 0.0
        src = dst


@jit(alloc=False)
def _layer_rows(w, meta, k, i, src, rows, dst, idx):
    """dst[r] = layer i of actor k applied to src[r], for r < rows, with its activation: each
    output's sum runs in actor_logits' order (the bias, then the non-zero inputs in turn), with
    up to eight inputs per pass over a row's outputs: one load and one store of each output per
    eight multiply-adds instead of per one (the additions stay in order), which makes the
    forward bound by the arithmetic, not the memory (benchmarks/results/selfplay/README.md).
    The non-zero inputs are listed without a branch (a branch per entry, mispredicted for about
    half of a hidden layer's entries, cost more than the list). idx: int64 scratch as long as
    the layer's inputs."""
    wt, b, act = layer(w, meta, k, i)
    n_in, n_out = wt.shape
    for r in range(rows):
        xr = src[r]
        d = dst[r]
        for o in range(n_out):
            d[o] = b[o]
        nz = 0
        for j in range(n_in):
            idx[nz] = j
            nz += xr[j] != 0.0
        p = 0
        while p + 8 <= nz:
            j0, j1, j2, j3 = idx[p], idx[p + 1], idx[p + 2], idx[p + 3]
            j4, j5, j6, j7 = idx[p + 4], idx[p + 5], idx[p + 6], idx[p + 7]
            v0, v1, v2, v3 = xr[j0], xr[j1], xr[j2], xr[j3]
            v4, v5, v6, v7 = xr[j4], xr[j5], xr[j6], xr[j7]
            w0, w1, w2, w3 = wt[j0], wt[j1], wt[j2], wt[j3]
            w4, w5, w6, w7 = wt[j4], wt[j5], wt[j6], wt[j7]
            for o in range(n_out):
                t = (((d[o] + w0[o] * v0) + w1[o] * v1) + w2[o] * v2) + w3[o] * v3
                d[o] = (((t + w4[o] * v4) + w5[o] * v5) + w6[o] * v6) + w7[o] * v7
            p += 8
        while p + 4 <= nz:
            j0, j1, j2, j3 = idx[p], idx[p + 1], idx[p + 2], idx[p + 3]
            v0, v1, v2, v3 = xr[j0], xr[j1], xr[j2], xr[j3]
            w0, w1, w2, w3 = wt[j0], wt[j1], wt[j2], wt[j3]
            for o in range(n_out):
                d[o] = (((d[o] + w0[o] * v0) + w1[o] * v1) + w2[o] * v2) + w3[o] * v3
            p += 4
        while p < nz:
            v0 = xr[idx[p]]
            w0 = wt[idx[p]]
            for o in range(n_out):
                d[o] += w0[o] * v0
            p += 1
        if act == ACT_TANH:
            for o in range(n_out):
                d[o] = np.tanh(d[o])
        elif act == ACT_RELU:
            for o in range(n_out):
                if d[o] < 0.0:
                    d[o] = 0.0


@jit(alloc=False)
def batch_trunk(w, meta, k, x, rows, h, idx):
    """Actor k's hidden layers (all but its last) over x[r], for r < rows, layer by layer over
    the batch (_layer_rows: each row bit-identical to actor_logits'); returns which of h (0 or
    1) holds the last hidden layer's outputs, or -1 for an actor without hidden layers (its last
    layer reads x itself). h: (2, rows or more, widest hidden layer) float32 scratch; idx:
    int64 scratch as long as the widest layer's inputs."""
    n = meta[k, 0]
    for i in range(n - 1):
        _layer_rows(w, meta, k, i, x if i == 0 else h[(i - 1) % 2], rows, h[i % 2], idx)
    return (n - 2) % 2 if n > 1 else -1


@jit(alloc=False, inline=True)
def compact(v, n, idx, val):
    """The non-zero entries of v[:n], in order: their count, their indices into idx and values
    into val (an input of actor_logits' sums: it adds exactly these, in this order). n: the
    layer's width, which a row of batch_trunk's scratch may exceed (what lies past it is left
    from a wider layer)."""
    nz = 0
    for j in range(n):  # without a branch (each entry written, kept if non-zero)
        idx[nz] = j
        val[nz] = v[j]
        nz += v[j] != 0.0
    return nz


@jit(alloc=False)
def head_outputs(w, meta, k, idx, val, nz, cols, ncols, out):
    """out[c] = output cols[c] of actor k's last layer, for c < ncols, from the last hidden
    layer's non-zero entries (idx[:nz], val[:nz]: compact's), bit-identical to actor_logits'
    (the bias, then the entries in turn): only the outputs a search reads (a node's legal
    actions, the seats' values) instead of all of them. Four outputs per pass over the entries,
    each sum kept in a register."""
    wt, b, _ = layer(w, meta, k, meta[k, 0] - 1)
    c = 0
    while c + 4 <= ncols:
        o0, o1, o2, o3 = cols[c], cols[c + 1], cols[c + 2], cols[c + 3]
        s0, s1, s2, s3 = b[o0], b[o1], b[o2], b[o3]
        for t in range(nz):
            row = wt[idx[t]]
            v = val[t]
            s0 += row[o0] * v
            s1 += row[o1] * v
            s2 += row[o2] * v
            s3 += row[o3] * v
        out[c], out[c + 1], out[c + 2], out[c + 3] = s0, s1, s2, s3
        c += 4
    while c < ncols:
        o0 = cols[c]
        s0 = b[o0]
        for t in range(nz):
            s0 += wt[idx[t], o0] * val[t]
        out[c] = s0
        c += 1


@jit(alloc=False)
def actor_choice(logits, mask, deterministic, rng, cdf):
    """The action of an actor with these logits among the legal ones (mask): the most likely
    (deterministic; the first of equals), else drawn from the softmax over the legal actions
    with one 32-bit draw of rng (core.rng words), the distribution and the draw of
    training.agents.policy.PolicyAgent.act; -1 if none is legal. cdf: float64 scratch of the
    mask's length."""
    n = mask.shape[0]
    best = -1
    for a in range(n):
        if mask[a] and (best < 0 or logits[a] > logits[best]):
            best = a
    if best < 0 or deterministic:
        return best
    top = np.float64(logits[best])
    total = 0.0
    for a in range(n):
        if mask[a]:
            total += np.exp(np.float64(logits[a]) - top)
        cdf[a] = total
    u = rng_next(rng, 0) / 2.0**32 * total
    for a in range(n):
        if cdf[a] > u:  # the sum grows only at legal actions: a is legal
            return a
    last = n - 1
    while not mask[last]:
        last -= 1
    return last
