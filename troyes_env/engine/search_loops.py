"""Search loops for troyes: GENERATED from core/search_template.py by
`python -m core.codegen troyes_env`, do not edit
(tests/core/test_search.py checks it is current)."""

import math

from core import rng as xo
from core import search_tree as st
from core.agents import pick_legal
from core.batch import returns_into
from core.jit import jit

# KERNELS: core.codegen points this one import at the game's kernels module.
from troyes_env.engine.kernels import (
    k_actor,
    k_bot_values,
    k_determinize,
    k_evaluate,
    k_keys,
    k_mask,
    k_over,
    k_quiet,
    k_step,
)


@jit
def _lead(v, n, p):
    """Seat p's value minus the best other seat's (v float or int, length >= n)."""
    best = -1e300
    for q in range(n):
        if q != p and v[q] > best:
            best = v[q]
    return v[p] - best


@jit
def greedy_action(s, T, n, mask, P, rng, t, tmask, work, keys, proj, tmp, stats):
    """The informed rollout policy: with probability 1 - epsilon the legal action whose
    successor (on this determinization) the game's position evaluation (k_evaluate, the
    heuristic bots' projected final scores) rates best for the player to act, as own projection
    minus the best other; else, and between equals, uniformly random. -1 if none is legal.
    stats[2] counts the lookahead steps."""
    eps = P[st.P_EPS]
    if eps > 0.0 and xo.rng_next(rng, 0) < eps * 4294967296.0:
        return pick_legal(mask, rng)
    actor = k_actor(s)
    best = -1e300
    best_a = -1
    ties = 0
    n_legal = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            n_legal += 1
            best_a = a
    if n_legal <= 1:
        return best_a
    best_a = -1
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        t[:] = s
        tmask[:] = mask
        stats[2] += 1
        if k_step(t, T, a, tmask, work) != 0:
            continue
        if k_over(t):
            k_keys(t, keys)
            v = float(_lead(keys[:, 0], n, actor)) * 1000.0  # a real end dominates projections
        else:
            k_evaluate(t, T, proj, tmp)
            v = _lead(proj, n, actor)
        if v > best + 1e-9:
            best = v
            best_a = a
            ties = 1
        elif v >= best - 1e-9:
            ties += 1
            if xo.rng_below(rng, 0, ties) == 0:
                best_a = a
    return best_a


@jit
def bot_action(s, T, n, mask, P, rng, t, tmask, work, keys, proj, tmp, stats, legal, val, bi, bf):
    """The `rollout=bot` policy (the searcher's own rollout decisions): with probability
    1 - epsilon the legal action the game's own lookahead (k_bot_values: Troyes' heuristic bot's
    chain search to the end of the turn) values best, between equals uniformly; else uniformly
    random. Where the game cannot value the state (k_bot_values nonzero) greedy_action decides,
    with its own epsilon draw. -1 if none is legal. stats[2] counts the lookahead calls."""
    eps = P[st.P_EPS]
    if eps > 0.0 and xo.rng_next(rng, 0) < eps * 4294967296.0:
        return pick_legal(mask, rng)
    nl = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            legal[nl] = a
            nl += 1
    if nl <= 1:
        return legal[0] if nl == 1 else -1
    stats[2] += 1
    if k_bot_values(s, T, legal[:nl], val[:nl], bi, bf, tmask, work) != 0:
        return greedy_action(s, T, n, mask, P, rng, t, tmask, work, keys, proj, tmp, stats)
    best = -1e300
    best_a = -1
    ties = 0
    for i in range(nl):
        v = val[i]
        if v > best + 1e-9:
            best = v
            best_a = legal[i]
            ties = 1
        elif v >= best - 1e-9:
            ties += 1
            if xo.rng_below(rng, 0, ties) == 0:
                best_a = legal[i]
    return best_a


@jit
def leaf_returns(s, T, n, P, keys, proj, tmp, out):
    """The returns of a rollout's last state: the real ones (core.batch.returns_into on the
    standings) when the game is over, else those of the evaluation's projected final scores."""
    if k_over(s):
        k_keys(s, keys)
        returns_into(keys, n, int(P[st.P_RETURNS]), P[st.P_SCALE], out)
    else:
        k_evaluate(s, T, proj, tmp)
        st.float_returns(proj, n, int(P[st.P_RETURNS]), P[st.P_SCALE], P[st.P_SPREAD], out)


@jit
def search(
    root,
    root_mask,
    T,
    n,
    me,
    n_iter,
    P,
    rng,
    tree,
    vals,
    hdr,
    s,
    mask,
    t,
    tmask,
    work,
    tmp,
    child_of,
    path,
    keys,
    proj,
    ret,
    stats,
    legal,
    val,
    bi,
    bf,
):
    """Run n_iter ISMCTS iterations from the searcher `me`'s decision `root` into the tree.

    Each iteration: copy the root and determinize it from me's point of view (k_determinize:
    what me cannot see is redrawn, the chance stream reseeded from the search's own rng); descend
    from node 0 by UCB on the acting seat's mean return among the children legal in this
    determinization (availability counts in the log term); add one child for a legal action not
    yet in the tree (chosen uniformly); roll out with the configured policy for P[P_CUTOFF]
    decisions (< 0: to the end) and, if P[P_QUIET], on to the next quiet state (k_quiet); score
    the last state (leaf_returns) and add the return vector to every node on the path. `child_of`
    (NUM_ACTIONS, all -1) maps an action to a child of the current node while it is examined;
    legal (int64), val (float64), both NUM_ACTIONS, and bi, bf (the kernels' BOT_SCRATCH_I,
    BOT_SCRATCH_F) are bot_action's scratch.
    stats += (iterations, engine steps, lookahead steps, errors). Returns 0, or -1 if the
    engine refused an action."""
    cap = tree.shape[0]
    c = P[st.P_C]
    cutoff = int(P[st.P_CUTOFF])
    rollout = int(P[st.P_ROLLOUT])
    quiet = P[st.P_QUIET] != 0.0
    na = mask.shape[0]
    steps = 0
    for _ in range(n_iter):
        s[:] = root
        a0 = xo.rng_next(rng, 0)
        a1 = xo.rng_next(rng, 0)
        a2 = xo.rng_next(rng, 0)
        k_determinize(s, T, me, a0, a1, a2, work)
        k_mask(s, T, mask, work)  # the searcher's own options: the same in every determinization
        for a in range(na):
            mask[a] = mask[a] and root_mask[a]
        node = 0
        depth = 0
        path[0] = 0
        while not k_over(s):
            actor = k_actor(s)
            ch = tree[node, st.F_FIRST]
            while ch >= 0:
                child_of[tree[ch, st.F_ACTION]] = ch
                ch = tree[ch, st.F_NEXT]
            n_new = 0
            for a in range(na):
                if mask[a]:
                    ch = child_of[a]
                    if ch < 0:
                        n_new += 1
                    else:
                        tree[ch, st.F_AVAIL] += 1
            chosen = -1
            act = -1
            expanded = False
            if n_new > 0 and hdr[0] < cap:
                r = xo.rng_below(rng, 0, n_new)
                for a in range(na):
                    if mask[a] and child_of[a] < 0:
                        if r == 0:
                            act = a
                            break
                        r -= 1
                chosen = hdr[0]
                hdr[0] += 1
                tree[chosen, st.F_FIRST] = -1
                tree[chosen, st.F_NEXT] = tree[node, st.F_FIRST]
                tree[chosen, st.F_ACTION] = act
                tree[chosen, st.F_VISITS] = 0
                tree[chosen, st.F_AVAIL] = 1
                vals[chosen, :] = 0.0
                tree[node, st.F_FIRST] = chosen
                expanded = True
            else:
                best = -1e300
                for a in range(na):
                    ch = child_of[a]
                    if mask[a] and ch >= 0:
                        nv = tree[ch, st.F_VISITS]
                        if nv == 0:
                            u = 1e300
                        else:
                            u = vals[ch, actor] / nv + c * math.sqrt(
                                math.log(tree[ch, st.F_AVAIL]) / nv
                            )
                        if u > best:
                            best = u
                            chosen = ch
                            act = a
            ch = tree[node, st.F_FIRST]
            while ch >= 0:
                child_of[tree[ch, st.F_ACTION]] = -1
                ch = tree[ch, st.F_NEXT]
            if chosen < 0:  # the tree is full and no legal action has a node: roll out
                break
            if k_step(s, T, act, mask, work) != 0:
                stats[3] += 1
                return -1
            steps += 1
            node = chosen
            depth += 1
            path[depth] = node
            if expanded:
                break
        k = 0
        while not k_over(s) and (
            cutoff < 0 or k < cutoff or (quiet and not k_quiet(s) and k < cutoff + st.QUIET_SLACK)
        ):
            if rollout == 0:
                a = pick_legal(mask, rng)
            elif rollout == 2 and k_actor(s) == me:  # the bot's lookahead for the searcher only
                a = bot_action(
                    s, T, n, mask, P, rng, t, tmask, work, keys, proj, tmp, stats, legal, val, bi,
                    bf,
                )  # fmt: skip
            else:
                a = greedy_action(s, T, n, mask, P, rng, t, tmask, work, keys, proj, tmp, stats)
            if a < 0 or k_step(s, T, a, mask, work) != 0:
                stats[3] += 1
                return -1
            k += 1
        steps += k
        leaf_returns(s, T, n, P, keys, proj, tmp, ret)
        for d in range(depth + 1):
            nd = path[d]
            tree[nd, st.F_VISITS] += 1
            for p in range(n):
                vals[nd, p] += ret[p]
    stats[0] += n_iter
    stats[1] += steps
    return 0
