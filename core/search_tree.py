"""The search tree of core.search (information-set MCTS), in flat preallocated arrays: the parts
that do not depend on a game (the loops that step a game are core/search_template.py).

A tree of capacity C is two arrays, made once per agent (`new_tree`) and reused for every
decision, so the search allocates nothing per iteration and no Python object per node:

- `tree` int64 (C, 5), one row per node: first child, next sibling (children form a linked list),
  the action of the edge into the node, visits, availability (how often the node's action was
  legal when its parent was visited: single-observer ISMCTS, Cowling, Powley & Whitehouse 2012);
- `vals` float64 (C, 4): the sum of the returns each seat got through the node.

`hdr[0]` is the number of nodes in use; node 0 is the root (the searcher's decision). A node is
keyed by the actions from the root only (every action of both games is public), so the same node
holds the statistics of every determinization that reaches it (open loop over chance).
"""

from __future__ import annotations

import math

import numpy as np

from core.jit import jit
from core.rng import rng_next

F_FIRST, F_NEXT, F_ACTION, F_VISITS, F_AVAIL = range(5)
TREE_COLS = 5
MAX_SEATS = 4  # columns of `vals`: the most players of any game

# the search parameters, one float64 array handed to the compiled loops
P_C, P_CUTOFF, P_ROLLOUT, P_EPS, P_RETURNS, P_SCALE, P_QUIET, P_SPREAD, P_MIX, P_CSCALE = range(10)
P_OPP = 10
N_PARAMS = 11  # P_MIX: the guided search's share of the position evaluation in a leaf's value;
# P_CSCALE: the Gumbel root's c_scale; P_OPP: how the guided search plays the other seats
# (OPP_CODES)
QUIET_SLACK = 200  # most decisions a cut-off rollout goes on looking for a quiet state (k_quiet)
# the Gumbel root's transform of completed Q-values: sigma(q) = (C_VISIT + max visits) c_scale q
# (Danihelka et al. 2022, "Policy improvement by planning with Gumbel"; c_scale is P[P_CSCALE])
GUMBEL_C_VISIT = 50.0
ROLLOUT_CODES = {"random": 0, "greedy": 1, "bot": 2}
RETURN_CODES = {"win_loss": 0, "rank": 1, "margin": 2}  # as core.batch.KIND_CODES
# the guided search's other seats: `tree` (nodes of their own, chosen by PUCT as the searcher's
# are), `net` (no nodes: each decision drawn from the network's policy on that seat's own
# observation, so the tree holds only the searcher's decisions), `netmax` (the policy's most
# likely action instead of a draw), `prior` (nodes of their own, but no search: each of their
# moves drawn from the policy the network gave their node when it was added, so no network call
# beyond the new node's), `priormax` (that policy's most likely action)
OPP_CODES = {"tree": 0, "net": 1, "netmax": 2, "prior": 3, "priormax": 4}
# the `mcts` agent's other seats: `tree` (nodes of their own, by UCB) or `greedy` (no nodes: each
# of their decisions inside the tree walk is the epsilon-greedy rollout policy's)
MCTS_OPP_CODES = {"tree": 0, "greedy": 1}


def new_tree(capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tree, vals, hdr) for at most `capacity` nodes, holding an empty root."""
    tree = np.zeros((max(int(capacity), 1), TREE_COLS), dtype=np.int64)
    vals = np.zeros((tree.shape[0], MAX_SEATS), dtype=np.float64)
    hdr = np.zeros(2, dtype=np.int64)
    clear(tree, vals, hdr)
    return tree, vals, hdr


# entries of a self-play game's control row (core/selfplay_template.py's C_ columns)
N_CTL = 18


@jit
def clear(tree, vals, hdr):
    """Empty the tree: one root node, no children, no statistics."""
    tree[0, F_FIRST] = -1
    tree[0, F_NEXT] = -1
    tree[0, F_ACTION] = -1
    tree[0, F_VISITS] = 0
    tree[0, F_AVAIL] = 0
    vals[0, :] = 0.0
    hdr[0] = 1


# --- the steps of a tree walk, written once for every walk: `search` (the `mcts` agent) and
# `pv_search` (the guided search) of core/search_template.py, and `_descend` (the guided search
# of many self-play games at once) of core/selfplay_template.py. Inlined into each (numba IR), so
# a walk costs no call per node; none allocates (callers compiled without the runtime use them).


@jit(alloc=False, inline=True)
def enter(tree, node, mask, child_of, legal):
    """A walk arrives at `node`: its children are looked up by action (child_of[a]: the child of
    action a; child_of is all -1 outside a node), the actions legal in this determinization
    (mask) listed in order in `legal`, and each child of a legal action counted available
    (F_AVAIL). Returns the number of legal actions. `leave` undoes the lookup."""
    ch = tree[node, F_FIRST]
    while ch >= 0:
        child_of[tree[ch, F_ACTION]] = ch
        ch = tree[ch, F_NEXT]
    nl = 0
    for a in range(mask.shape[0]):  # (without a branch: a few legal actions among many)
        legal[nl] = a
        nl += mask[a]
    for i in range(nl):
        ch = child_of[legal[i]]
        if ch >= 0:
            tree[ch, F_AVAIL] += 1
    return nl


@jit(alloc=False, inline=True)
def leave(tree, node, child_of):
    """The walk leaves `node`: child_of back to all -1 (enter's lookup undone)."""
    ch = tree[node, F_FIRST]
    while ch >= 0:
        child_of[tree[ch, F_ACTION]] = -1
        ch = tree[ch, F_NEXT]


@jit(alloc=False, inline=True)
def ucb_choice(tree, vals, actor, legal, nl, child_of, c):
    """The `mcts` selection (UCB with availability, single-observer ISMCTS) among the children
    of the legal actions legal[:nl] (enter's): the one maximising the acting seat's mean return
    + c sqrt(ln(availability) / visits), an unvisited child first, the first of equals.
    Returns (child, action); (-1, -1) if no legal action has a child."""
    best = -1e300
    chosen = -1
    act = -1
    for i in range(nl):
        a = legal[i]
        ch = child_of[a]
        if ch >= 0:
            nv = tree[ch, F_VISITS]
            if nv == 0:
                u = 1e300
            else:
                u = vals[ch, actor] / nv + c * math.sqrt(math.log(tree[ch, F_AVAIL]) / nv)
            if u > best:
                best = u
                chosen = ch
                act = a
    return chosen, act


@jit(alloc=False, inline=True)
def puct_choice(tree, vals, plog, node, actor, legal, nl, child_of, c, ex):
    """The guided search's selection (PUCT, AlphaZero's rule) at `node` among the legal actions
    legal[:nl] (enter's): the action maximising Q + c P sqrt(N) / (1 + n), where P is the prior
    (the softmax of the node's logits plog[node] over those actions; ex: their exponentials,
    each computed once), n the child's visits, N the node's, Q the acting seat's mean return
    through the child (unvisited: the node's own mean, or 0); the first of equals. -1 if none
    is legal."""
    top = -1e300
    for i in range(nl):
        if plog[node, legal[i]] > top:
            top = plog[node, legal[i]]
    z = 0.0
    for i in range(nl):
        ex[i] = math.exp(plog[node, legal[i]] - top)
        z += ex[i]
    nv = tree[node, F_VISITS]
    fpu = vals[node, actor] / nv if nv > 0 else 0.0
    sq = math.sqrt(max(nv, 1))
    best = -1e300
    act = -1
    for i in range(nl):
        a = legal[i]
        ch = child_of[a]
        cn = tree[ch, F_VISITS] if ch >= 0 else 0
        q = vals[ch, actor] / cn if cn > 0 else fpu
        u = q + c * ex[i] / z * sq / (1.0 + cn)
        if u > best:
            best = u
            act = a
    return act


@jit(alloc=False, inline=True)
def stored_choice(plog, node, legal, nl, greedy, rng, ex):
    """policy_action by the node's stored logits plog[node] over the legal actions legal[:nl]
    (in order): the same action from the same draw, each exponential computed once (ex:
    scratch). The guided search's move at another seat's node with opp `prior` / `priormax`."""
    if nl == 0:
        return -1
    best = legal[0]
    for i in range(1, nl):
        if plog[node, legal[i]] > plog[node, best]:
            best = legal[i]
    if greedy:
        return best
    top = np.float64(plog[node, best])
    total = 0.0
    for i in range(nl):
        ex[i] = math.exp(np.float64(plog[node, legal[i]]) - top)
        total += ex[i]
    u = rng_next(rng, 0) / 4294967296.0 * total
    for i in range(nl):
        u -= ex[i]
        if u < 0.0:
            return legal[i]
    return best


@jit(alloc=False, inline=True)
def guided_choice(tree, vals, plog, node, actor, me, opp, legal, nl, child_of, c, rng, ex):
    """The guided search's action at `node` (enter's legal[:nl]): another seat's with opp 3 or 4
    (`prior`, `priormax`) by the node's stored policy (stored_choice: no search), else by PUCT
    (puct_choice)."""
    if opp >= 3 and actor != me:
        return stored_choice(plog, node, legal, nl, opp == 4, rng, ex)
    return puct_choice(tree, vals, plog, node, actor, legal, nl, child_of, c, ex)


@jit(alloc=False, inline=True)
def add_child(tree, vals, hdr, node, act):
    """Expansion: a new node in the next free row (the caller checked hdr[0] < capacity), the
    child of `node` by action `act`, unvisited, available once, first in node's children.
    Returns it."""
    new = hdr[0]
    hdr[0] += 1
    tree[new, F_FIRST] = -1
    tree[new, F_NEXT] = tree[node, F_FIRST]
    tree[new, F_ACTION] = act
    tree[new, F_VISITS] = 0
    tree[new, F_AVAIL] = 1
    for p in range(vals.shape[1]):
        vals[new, p] = 0.0
    tree[node, F_FIRST] = new
    return new


@jit(alloc=False, inline=True)
def backup(tree, vals, path, depth, n, ret):
    """Backup: one visit and the return vector ret (n seats) added to every node of the walk's
    path[: depth + 1]."""
    for d in range(depth + 1):
        nd = path[d]
        tree[nd, F_VISITS] += 1
        for p in range(n):
            vals[nd, p] += ret[p]


@jit
def child(tree, node, action):
    """The child of `node` reached by `action`, or -1."""
    ch = tree[node, F_FIRST]
    while ch >= 0:
        if tree[ch, F_ACTION] == action:
            return ch
        ch = tree[ch, F_NEXT]
    return -1


@jit
def reroot(tree, vals, hdr, new_root, tree2, vals2, queue):
    """Keep only the subtree under `new_root`, moved to the front (it becomes node 0) in
    breadth-first order, through the scratch arrays tree2/vals2/queue (same capacity). Returns
    the number of nodes kept."""
    queue[0] = new_root
    m = 1
    i = 0
    while i < m:
        old = queue[i]
        tree2[i, F_ACTION] = tree[old, F_ACTION]
        tree2[i, F_VISITS] = tree[old, F_VISITS]
        tree2[i, F_AVAIL] = tree[old, F_AVAIL]
        tree2[i, F_FIRST] = -1
        tree2[i, F_NEXT] = -1
        vals2[i, :] = vals[old, :]
        prev = -1
        ch = tree[old, F_FIRST]
        while ch >= 0:
            queue[m] = ch
            if prev < 0:
                tree2[i, F_FIRST] = m
            else:
                tree2[prev, F_NEXT] = m
            prev = m
            m += 1
            ch = tree[ch, F_NEXT]
        i += 1
    tree[:m, :] = tree2[:m, :]
    vals[:m, :] = vals2[:m, :]
    tree[0, F_ACTION] = -1
    tree[0, F_NEXT] = -1
    hdr[0] = m
    return m


@jit
def root_choice(tree, vals, root_mask, me, out):
    """The most visited root child whose action is legal in `root_mask` (ties: the higher mean
    return of seat `me`, then the lower action id); out = (action, visits). Action -1 when no
    legal child exists."""
    best = -1
    best_n = -1
    best_v = 0.0
    ch = tree[0, F_FIRST]
    while ch >= 0:
        a = tree[ch, F_ACTION]
        nv = tree[ch, F_VISITS]
        if root_mask[a] and nv > 0:
            v = vals[ch, me] / nv
            if (
                nv > best_n
                or (nv == best_n and v > best_v)
                or (nv == best_n and v == best_v and a < best)
            ):
                best, best_n, best_v = a, nv, v
        ch = tree[ch, F_NEXT]
    out[0] = best
    out[1] = best_n
    return best


@jit
def float_returns(v, n, kind, margin_scale, spread, out):
    """Returns of the seats from real-valued scores v[:n] (a position evaluation), with the same
    meaning as core.batch.returns_into on final standings: kind 0 win/loss (+1 sole best, 0 a
    shared best, -1 else), 1 rank (+1 first .. -1 last, ties averaged), 2 margin (own score
    minus the best other, / margin_scale).

    A projection is not a result: with spread > 0 the rank is the expected one under logistic
    noise of that many points on each pairwise gap, the mean over the others q of
    tanh((v[p] - v[q]) / (2 spread)) (= 2 P(p ahead of q) - 1), so a lead of one point is worth
    less than a decided game, and more than a lead of none."""
    for p in range(n):
        better = 0
        equal = 0
        soft = 0.0
        best_other = -1e300
        for q in range(n):
            if v[q] > v[p]:
                better += 1
            elif v[q] == v[p]:
                equal += 1
            if q != p:
                if v[q] > best_other:
                    best_other = v[q]
                if spread > 0.0:
                    soft += math.tanh((v[p] - v[q]) / (2.0 * spread))
        if kind == 0:
            out[p] = -1.0 if better > 0 else (1.0 if equal == 1 else 0.0)
        elif kind == 1:
            if n <= 1:
                out[p] = 0.0
            elif spread > 0.0:
                out[p] = soft / (n - 1)
            else:
                out[p] = 1.0 - 2.0 * (better + (equal - 1) / 2.0) / (n - 1)
        else:
            out[p] = (v[p] - best_other) / margin_scale
    for p in range(n, out.shape[0]):
        out[p] = 0.0


@jit
def completed_q(tree, vals, plog, root_mask, me, v_root, child_of, q):
    """The Gumbel root's completed Q-values: q[a] for each action legal in root_mask, seat `me`'s
    mean return through the root child of action a, or for an unvisited action the mixed value
    estimate (v_root and the prior-weighted mean of the visited children's values, as
    Danihelka et al. 2022, appendix D); then rescaled by their minimum and maximum to [0, 1] (all
    0 when they are equal). The priors are the softmax of the root's logits plog[0] over the
    legal actions. child_of (NUM_ACTIONS) is scratch, all -1 on entry and on return. Returns
    the most visits of a root child."""
    na = q.shape[0]
    top = -1e300
    for a in range(na):
        if root_mask[a] and plog[0, a] > top:
            top = plog[0, a]
    z = 0.0
    for a in range(na):
        if root_mask[a]:
            z += math.exp(plog[0, a] - top)
    ch = tree[0, F_FIRST]
    while ch >= 0:
        child_of[tree[ch, F_ACTION]] = ch
        ch = tree[ch, F_NEXT]
    sum_n = 0.0
    sum_p = 0.0
    sum_pq = 0.0
    most = 0
    for a in range(na):
        ch = child_of[a]
        if root_mask[a] and ch >= 0 and tree[ch, F_VISITS] > 0:
            cn = tree[ch, F_VISITS]
            p = math.exp(plog[0, a] - top) / z
            sum_n += cn
            sum_p += p
            sum_pq += p * vals[ch, me] / cn
            most = max(most, cn)
    v_mix = v_root if sum_p <= 0.0 else (v_root + sum_n * sum_pq / sum_p) / (1.0 + sum_n)
    lo = 1e300
    hi = -1e300
    for a in range(na):
        if root_mask[a]:
            ch = child_of[a]
            if ch >= 0 and tree[ch, F_VISITS] > 0:
                q[a] = vals[ch, me] / tree[ch, F_VISITS]
            else:
                q[a] = v_mix
            lo = min(lo, q[a])
            hi = max(hi, q[a])
        else:
            q[a] = 0.0
    for a in range(na):
        if root_mask[a]:
            q[a] = (q[a] - lo) / (hi - lo) if hi - lo > 1e-12 else 0.0
        child_of[a] = -1
    return most


@jit
def improved_policy(plog, root_mask, q, most, c_scale, pi):
    """pi (NUM_ACTIONS): the Gumbel root's improved policy, softmax over the legal actions of
    the root's logits plus sigma(completed Q) (completed_q's q and most)."""
    sig = (GUMBEL_C_VISIT + most) * c_scale
    top = -1e300
    for a in range(pi.shape[0]):
        if root_mask[a]:
            top = max(top, plog[0, a] + sig * q[a])
    z = 0.0
    for a in range(pi.shape[0]):
        if root_mask[a]:
            pi[a] = math.exp(plog[0, a] + sig * q[a] - top)
            z += pi[a]
        else:
            pi[a] = 0.0
    for a in range(pi.shape[0]):
        pi[a] /= z


@jit(alloc=False)
def policy_action(logits, mask, greedy, rng):
    """A legal action (mask) by a policy's logits (float32, at least the mask's length): the
    most likely (greedy; the first of equals), else drawn from the softmax over the legal actions
    with one 32-bit draw of rng (core.rng words). -1 if none is legal."""
    na = mask.shape[0]
    best = -1
    for a in range(na):
        if mask[a] and (best < 0 or logits[a] > logits[best]):
            best = a
    if greedy or best < 0:
        return best
    top = np.float64(logits[best])
    total = 0.0
    for a in range(na):
        if mask[a]:
            total += math.exp(np.float64(logits[a]) - top)
    u = rng_next(rng, 0) / 4294967296.0 * total
    for a in range(na):
        if mask[a]:
            u -= math.exp(np.float64(logits[a]) - top)
            if u < 0.0:
                return a
    return best


@jit
def visit_policy(tree, root_mask, pi):
    """pi (NUM_ACTIONS): the root's visit shares (a PUCT root's policy target; all 0 before any
    visit); returns the most visited legal action (the first of equals; the first legal one
    when none was visited)."""
    na = pi.shape[0]
    for a in range(na):
        pi[a] = 0.0
    total = 0.0
    ch = tree[0, F_FIRST]
    while ch >= 0:
        pi[tree[ch, F_ACTION]] = tree[ch, F_VISITS]
        total += tree[ch, F_VISITS]
        ch = tree[ch, F_NEXT]
    best = -1.0
    act = -1
    for a in range(na):
        pi[a] = pi[a] / total if total > 0.0 else 0.0
        if root_mask[a] and pi[a] > best:
            best = pi[a]
            act = a
    return act


@jit
def record_example(records, row, root_mask, pi, me, tree, vals, n):
    """Row `row` of the example records (core.bundles.ExampleRecords; the observation is the
    caller's): the legal mask, the policy target, the seat and the root's mean value of each seat
    (column j: the seat j places after `me`)."""
    x_mask, x_pi, x_actor, x_q = records.mask, records.pi, records.actor, records.q
    for a in range(root_mask.shape[0]):
        x_mask[row, a] = root_mask[a]
        x_pi[row, a] = pi[a]
    x_actor[row] = me
    rv = tree[0, F_VISITS]
    for j in range(n):
        x_q[row, j] = vals[0, (me + j) % n] / rv if rv > 0 else 0.0


@jit
def draw_from(pi, act, rng):
    """An action drawn from the policy pi with one 32-bit draw of rng (the last one pi gives
    weight to if the sum falls short); `act` if pi gives none any."""
    r = rng_next(rng, 0) / 4294967296.0
    for a in range(pi.shape[0]):
        if pi[a] > 0.0:
            act = a
            r -= pi[a]
            if r < 0.0:
                break
    return act


@jit
def gumbel_candidates(plog, root_mask, gscale, m, n_sims, rng, gum, cand):
    """The Gumbel root's considered actions: each legal root action's score gum[a] = gscale x
    Gumbel(0, 1) noise (one rng draw each, none with gscale 0) + its logit plog[0, a], and the
    max(1, min(m, legal, n_sims)) best first in cand. Returns (considered, phases of sequential
    halving: ceil(log2 considered)); (0, 0) if no action is legal."""
    k = 0
    for a in range(root_mask.shape[0]):
        if root_mask[a]:
            g = 0.0
            if gscale > 0.0:
                u = (rng_next(rng, 0) + 0.5) / 4294967296.0
                g = gscale * -math.log(-math.log(u))
            gum[a] = g + plog[0, a]
            cand[k] = a
            k += 1
    if k == 0:
        return 0, 0
    m = max(1, min(m, k, n_sims))
    for i in range(m):  # the m best scores first
        b = i
        for j in range(i + 1, k):
            if gum[cand[j]] > gum[cand[b]]:
                b = j
        cand[i], cand[b] = cand[b], cand[i]
    phases = 0
    t = 1
    while t < m:
        t *= 2
        phases += 1
    return m, phases


@jit
def gumbel_rank(tree, vals, plog, root_mask, me, v_root, c_scale, gum, cand, k, child_of, q):
    """Rank the k considered actions cand[:k], best first, by gum[a] + sigma(completed Q(a))
    (completed_q; sigma's c_scale), an insertion sort: one step of sequential halving."""
    most = completed_q(tree, vals, plog, root_mask, me, v_root, child_of, q)
    sig = (GUMBEL_C_VISIT + most) * c_scale
    for i in range(1, k):
        a = cand[i]
        x = gum[a] + sig * q[a]
        j = i - 1
        while j >= 0 and gum[cand[j]] + sig * q[cand[j]] < x:
            cand[j + 1] = cand[j]
            j -= 1
        cand[j + 1] = a
