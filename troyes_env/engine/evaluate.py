"""The position evaluation of Troyes's `heuristic` bot (troyes_env/bots.py) and of the
compiled search (kernels.k_evaluate): each seat's projected final score, allocation-free; and the
bot's chain search over its own decisions (chain_values: kernels.k_own_bot_values, and the
search's `rollout=bot` policy, kernels.k_bot_values).

A seat's projection is its final score as it stands now (rules §7: VP tokens + 1 per unresolved
event holding an own cube + printed VP of own supervisor slots - 2 per Cathedral level without an
own cube; `score_final` without the Character cards), plus each Character card's VP for the seat
(§6.3: every revealed card scores for every player) times that card's weight `cw` (the chance it
is in play), plus hand-tuned values (`EVAL_WEIGHTS`, VP per unit) of resources that turn into
points later (deniers, influence, Activity cubes, standing citizens, citizens in supply, own dice
not yet used), scaled down as the game nears its end.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from core.jit import jit
from troyes_env.actions import NUM_ACTIONS
from troyes_env.engine.board import character_vp, score_final
from troyes_env.engine.rules import r_apply
from troyes_env.engine.step import settle, step_inplace
from troyes_env.layout import (
    DIST_DICE,
    LAYOUT,
    MAXP,
    N_ACTPOS,
    N_COL,
    N_SPACES,
    N_VAL,
    PH_OVER,
    PH_TURN,
    S_ACUBE,
    S_CHARS,
    S_CUR,
    S_DDEN,
    S_DEN,
    S_DICE,
    S_FINAL,
    S_INF,
    S_NP,
    S_NROUNDS,
    S_PHASE,
    S_ROUND,
    S_SPACES,
    S_SUP,
    STATE_SIZE,
)
from troyes_env.tables import N_CHAR

# the one table of hand-tuned weights (VP per unit of a thing not yet scored, at the start of the
# game; they fade linearly to EVAL_WEIGHTS[W_END_FRACTION] of that by the last round), indexed by
# the W_* constants
W_DENIER = 0  # a denier, in hand or on the own district
W_INFLUENCE = 1  # a step on the influence track
W_ACT_CUBE = 2  # an Activity cube: one more activation of a card
W_STANDING = 3  # a standing citizen in a main building: one die per round
W_SUPPLY = 4  # a citizen in the personal supply
W_DIE = 5  # an own die still in the district this round (not faded) ...
W_DIE_VALUE = 6  # ... plus this per pip (not faded)
W_END_FRACTION = 7  # the share of the weights above left in the last round
EVAL_WEIGHTS = np.array([0.22, 0.25, 0.7, 1.1, 0.35, 0.12, 0.02, 0.25])
EVAL_WEIGHTS.setflags(write=False)  # compiled code reads it as a constant: edit the source
N_WEIGHTS = EVAL_WEIGHTS.shape[0]
N_CHAR_SLOTS = LAYOUT.segments["chars"].size  # Character card slots, seat by seat
# tmp: [0:STATE_SIZE] the state without Character cards, then score_final's out, then cw
TMP_FIN = STATE_SIZE
TMP_CW = TMP_FIN + MAXP
TMP_NEED = TMP_CW + N_CHAR


@jit(alloc=False)
def project(s, T, cw, w, out, tmp):
    """out[p] = seat p's projected final score for p < n, with Character card weights cw (N_CHAR)
    and weights w (EVAL_WEIGHTS' layout); tmp: int64 scratch of at least TMP_CW entries.

    The terms are added in a fixed order (the bot's decisions depend on exact float values)."""
    n = s[S_NP]
    t = tmp[:STATE_SIZE]
    for i in range(STATE_SIZE):
        t[i] = s[i]
    for i in range(N_CHAR_SLOTS):
        t[S_CHARS + i] = -1
    fin = tmp[TMP_FIN : TMP_FIN + MAXP]
    score_final(t, T, fin)  # rules §7 items 1-4 (clamped at 0)
    rounds = max(s[S_NROUNDS], 1)
    left = (rounds - max(s[S_ROUND], 1)) / max(rounds - 1, 1)
    scale = w[W_END_FRACTION] + (1.0 - w[W_END_FRACTION]) * left
    for p in range(n):
        v = float(fin[p])
        for ch in range(N_CHAR):  # rules §7 item 5, §6.3
            if cw[ch] > 0:
                v += cw[ch] * character_vp(s, T, ch, p)
        cubes = 0
        for pos in range(N_ACTPOS):
            cubes += s[S_ACUBE + pos * MAXP + p]
        standing = 0
        for i in range(N_SPACES):
            if s[S_SPACES + i] == p:
                standing += 1
        ndice = 0
        pips = 0
        for c in range(N_COL):
            for k in range(N_VAL):
                d = s[S_DICE + p * DIST_DICE + c * N_VAL + k]
                ndice += d
                pips += d * (k + 1)
        v += scale * (
            w[W_DENIER] * (s[S_DEN + p] + s[S_DDEN + p])
            + w[W_INFLUENCE] * s[S_INF + p]
            + w[W_ACT_CUBE] * cubes
            + w[W_STANDING] * standing
            + w[W_SUPPLY] * s[S_SUP + p]
        )
        v += w[W_DIE] * ndice + w[W_DIE_VALUE] * pips
        out[p] = v


@jit(alloc=False)
def held_char_weights(s, cw):
    """cw[ch] = 1 for each Character card some seat holds in s, 0 for the others (N_CHAR)."""
    for ch in range(N_CHAR):
        cw[ch] = 0
    for i in range(N_CHAR_SLOTS):
        if s[S_CHARS + i] >= 0:
            cw[s[S_CHARS + i]] = 1


@jit(alloc=False)
def evaluate_into(s, T, out, tmp):
    """kernels.k_evaluate: `project` with EVAL_WEIGHTS and cw[ch] = 1 for each Character card
    some seat holds in s, 0 for the others (on a determinized state every card's owner is
    sampled, so the mean over determinizations weighs each card by the chance it is in play);
    out[n:MAXP] = 0."""
    cw = tmp[TMP_CW : TMP_CW + N_CHAR]
    held_char_weights(s, cw)
    project(s, T, cw, EVAL_WEIGHTS, out, tmp)
    for p in range(s[S_NP], MAXP):
        out[p] = 0.0


@jit(alloc=False)
def bot_char_weights(s, me, cw):
    """cw[ch] = the weight of Character card ch in `me`'s projection as the heuristic bot sees
    s: 1 for `me`'s own cards; for every card `me` cannot see, the chance that another seat holds
    it (the other seats' cards among those `me` does not hold; rules §6.3: it will be
    revealed)."""
    own = 0
    for k in range(2):
        if s[S_CHARS + 2 * me + k] >= 0:
            own += 1
    held = 0
    for i in range(2 * s[S_NP]):
        if s[S_CHARS + i] >= 0:
            held += 1
    w = (held - own) / max(N_CHAR - own, 1)
    for ch in range(N_CHAR):
        cw[ch] = w
    for k in range(2):
        c = s[S_CHARS + 2 * me + k]
        if c >= 0:
            cw[c] = 1.0


@jit(alloc=False)
def final_value(s, me):
    """The heuristic bot's value of a finished game for `me`: 100 x win_loss (rules §7: the most
    VP wins; a tie for the most shares it) + own final VP - the best other seat's."""
    best = -(1 << 62)
    for p in range(s[S_NP]):
        if p != me and s[S_FINAL + p] > best:
            best = s[S_FINAL + p]
    mine = s[S_FINAL + me]
    wl = 1.0 if mine > best else (0.0 if mine == best else -1.0)
    return 100.0 * wl + float(mine) - float(best)


# -- the heuristic bot's chain search, compiled (the bot itself: kernels.k_own_bot_values)
@jit(alloc=False)
def _chain_leaf(s, me, max_depth, depth, budget):
    """The bot's leaf test: too deep, out of budget, another seat's decision, a new turn, or the
    end of the game."""
    return (
        depth >= max_depth
        or budget <= 0
        or s[S_CUR] != me
        or s[S_PHASE] == PH_TURN
        or s[S_PHASE] == PH_OVER
    )


@jit(alloc=False)
def _chain_eval(s, T, me, cw, w, vout, tmp):
    """The bot's static value of a non-final state: own projection minus the best other one."""
    project(s, T, cw, w, vout, tmp)
    best = -np.inf
    for p in range(s[S_NP]):
        if p != me and vout[p] > best:
            best = vout[p]
    return vout[me] - best


@jit(alloc=False)
def _chain_children(mask, d, acts, nacts):
    """acts[d, :nacts[d]] = the legal actions of the node at depth d, ascending, from `mask`: its
    legal mask, as the step that made the node left it (settle)."""
    k = 0
    for a in range(NUM_ACTIONS):
        if mask[a]:
            acts[d, k] = a
            k += 1
    nacts[d] = k


@jit(alloc=False)
def _chain_step(s, T, a, mask, work):
    """An action listed by its node's own legal mask, then settle: step_inplace without a second
    legality test (same next state, same codes). mask: the new state's legal mask."""
    r_apply(s, T, a, work)
    return settle(s, T, mask, work)


class ChainScratch(NamedTuple):
    """The arrays chain_values works in, cut by its caller from the bot's scratch
    (kernels._chain): a row per depth 0..max_depth."""

    st: np.ndarray  # (max_depth+1, STATE_SIZE) int64: the state at each depth
    acts: np.ndarray  # (max_depth+1, NUM_ACTIONS) int64: each depth's legal actions, in order
    nacts: np.ndarray  # (max_depth+1,) int64: how many
    idx: np.ndarray  # (max_depth+1,) int64: the next of them to try
    best: np.ndarray  # (max_depth+1,) float64: the best value found below each depth
    mask: np.ndarray  # (NUM_ACTIONS,) bool: a legal mask
    work: np.ndarray  # (WORK_SIZE,) int64: the engine's work row
    tmp: np.ndarray  # the projection's scratch (evaluate_into)
    vout: np.ndarray  # (MAXP,) float64: the projected scores


@jit(alloc=False)
def chain_values(probe, T, me, cw, w, legal, val, node_budget, max_depth, sc, score_over):
    """val[i] = the heuristic bot's value of root action legal[i] on state `probe`: the max over
    `me`'s own continuation of the action (depth-first, in ascending action order, a fresh budget
    of `node_budget` nodes per root action, `max_depth` deep), the static value at its ends
    (_chain_eval; a finished game: final_value). Returns 0, or 1 when the search meets a
    finished game and not `score_over` (the search's rollouts then use another policy), or 2 when
    the engine refuses an action it listed as legal. `sc`: its ChainScratch."""
    st, acts, nacts, idx, best = sc.st, sc.acts, sc.nacts, sc.idx, sc.best
    mask, work, tmp, vout = sc.mask, sc.work, sc.tmp, sc.vout
    for r in range(legal.shape[0]):
        budget = node_budget
        for i in range(STATE_SIZE):
            st[1, i] = probe[i]
        if step_inplace(st[1], T, legal[r], mask, work) != 0:
            return 2
        if _chain_leaf(st[1], me, max_depth, 1, budget):
            if st[1, S_PHASE] != PH_OVER:
                val[r] = _chain_eval(st[1], T, me, cw, w, vout, tmp)
            elif score_over:
                val[r] = final_value(st[1], me)
            else:
                return 1
            continue
        _chain_children(mask, 1, acts, nacts)
        idx[1] = 0
        best[1] = -np.inf
        d = 1
        while True:
            if idx[d] < nacts[d]:
                a = acts[d, idx[d]]
                idx[d] += 1
                budget -= 1
                for i in range(STATE_SIZE):
                    st[d + 1, i] = st[d, i]
                if _chain_step(st[d + 1], T, a, mask, work) != 0:
                    return 2
                if _chain_leaf(st[d + 1], me, max_depth, d + 1, budget):
                    if st[d + 1, S_PHASE] != PH_OVER:
                        v = _chain_eval(st[d + 1], T, me, cw, w, vout, tmp)
                    elif score_over:
                        v = final_value(st[d + 1], me)
                    else:
                        return 1
                    if v > best[d]:
                        best[d] = v
                    if budget <= 0:
                        idx[d] = nacts[d]
                else:
                    d += 1
                    _chain_children(mask, d, acts, nacts)
                    idx[d] = 0
                    best[d] = -np.inf
            else:  # node d is done: its value goes up to its parent
                if d == 1:
                    val[r] = best[1]
                    break
                v = best[d]
                d -= 1
                if v > best[d]:
                    best[d] = v
                if budget <= 0:
                    idx[d] = nacts[d]
    return 0
