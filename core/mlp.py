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


@jit(alloc=False)
def actor_logits(w, meta, k, x, h, logits):
    """logits[:outputs] = actor k's action logits (float32) for the observation x (float32);
    h: (2, widest hidden layer) float32 scratch."""
    n = meta[k, 0]
    src = x
    for i in range(n):
        m = 1 + LAYER_META * i
        n_in = meta[k, m]
        n_out = meta[k, m + 1]
        wo = meta[k, m + 2]
        bo = meta[k, m + 3]
        act = meta[k, m + 4]
        dst = logits if i == n - 1 else h[i % 2]
        # views indexed by range variables only: an index that may be negative makes numba
        # emit wraparound code, which keeps the loops from being vectorised
        wt = w[wo : wo + n_in * n_out].reshape((n_in, n_out))
        b = w[bo : bo + n_out]
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
