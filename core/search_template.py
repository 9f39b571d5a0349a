"""Template of the search loops: the compiled iterations of core.search's information-set MCTS,
written once for any game's kernels (core/game_contract.py).

Not used at run time. core.codegen renders it for each game, imported as
`<game>_env.engine.search_loops`, with this docstring replaced and the marked kernels import
below pointed at the game's kernels module (why a module per game: core/codegen.py).
"""

import math

import numpy as np

from core import mlp
from core import rng as xo
from core import search_tree as st
from core.agents import pick_legal
from core.batch import returns_into

# CONTRACT: core.codegen points this one import at the game's rendered contract.
from core.contract_template import (
    k_actor,
    k_bot_values,
    k_determinize,
    k_evaluate,
    k_keys,
    k_mask,
    k_observe,
    k_over,
    k_quiet,
    k_step,
)
from core.jit import jit


@jit
def _lead(v, n, p):
    """Seat p's value minus the best other seat's (v float or int, length >= n)."""
    best = -1e300
    for q in range(n):
        if q != p and v[q] > best:
            best = v[q]
    return v[p] - best


@jit
def greedy_action(s, T, n, mask, P, rng, sc):
    """The informed rollout policy: with probability 1 - epsilon the legal action whose
    successor (on this determinization) the game's position evaluation (k_evaluate, the
    heuristic bots' projected final scores) rates best for the player to act, as own projection
    minus the best other; else, and between equals, uniformly random. -1 if none is legal.
    sc: search's scratch bundle (its t, tmask, work, keys, proj, tmp; stats[2] counts the
    lookahead steps)."""
    t, tmask, work, tmp = sc.t, sc.tmask, sc.work, sc.tmp
    keys, proj, stats = sc.keys, sc.proj, sc.stats
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
def bot_action(s, T, n, mask, P, rng, sc):
    """The `rollout=bot` policy (the searcher's own rollout decisions): with probability
    1 - epsilon the legal action the game's own lookahead (k_bot_values: Troyes' heuristic bot's
    chain search to the end of the turn) values best, between equals uniformly; else uniformly
    random. Where the game cannot value the state (k_bot_values nonzero) greedy_action decides,
    with its own epsilon draw. -1 if none is legal. sc: search's scratch bundle (its tmask, work,
    legal, val, bi, bf; stats[2] counts the lookahead calls)."""
    tmask, work, stats = sc.tmask, sc.work, sc.stats
    legal, val, bi, bf = sc.legal, sc.val, sc.bi, sc.bf
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
        return greedy_action(s, T, n, mask, P, rng, sc)
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


@jit(alloc=False, inline=True)
def start_walk(root, root_mask, T, me, rng, s, mask, work):
    """The start of every walk (search's, pv_search's, the many games' self-play's): s a copy of
    the root determinized from me's point of view (k_determinize: what me cannot see redrawn, the
    chance stream reseeded by three draws of the search's rng), mask its legal actions that are
    legal at the root (root_mask): the searcher's options, the same in every determinization."""
    for i in range(s.shape[0]):  # (a loop: no runtime needed, callers may be compiled without)
        s[i] = root[i]
    a0 = xo.rng_next(rng, 0)
    a1 = xo.rng_next(rng, 0)
    a2 = xo.rng_next(rng, 0)
    k_determinize(s, T, me, a0, a1, a2, work)
    k_mask(s, T, mask, work)
    for a in range(mask.shape[0]):
        mask[a] = mask[a] & root_mask[a]  # (no branch: vectorised)


@jit
def search(root, root_mask, T, n, me, n_iter, P, rng, tr, sc):
    """Run n_iter ISMCTS iterations from the searcher `me`'s decision `root` into the tree.

    Each iteration: copy the root and determinize it from me's point of view (start_walk);
    descend from node 0 by UCB on the acting seat's mean return among the children legal in this
    determinization (core.search_tree.ucb_choice: availability counts in the log term); add one
    child for a legal action not yet in the tree (chosen uniformly; core.search_tree.add_child);
    roll out with the configured policy for P[P_CUTOFF]
    decisions (< 0: to the end) and, if P[P_QUIET], on to the next quiet state (k_quiet); score
    the last state (leaf_returns) and add the return vector to every node on the path
    (core.search_tree.backup). The arrays come in two bundles (core.search.search_bundles makes
    them): tr the tree (tree, vals, hdr) and sc the scratch (core.bundles.MCTSScratch).
    `child_of` (NUM_ACTIONS, all -1) maps an action to a child of the current node while it is
    examined, `legal` lists that node's legal actions (core.search_tree.enter); legal (int64),
    val (float64), both NUM_ACTIONS, and bi, bf (the kernels' BOT_SCRATCH_I, BOT_SCRATCH_F) are
    bot_action's scratch in the rollout.
    With P[P_OPP] = 1 (`opp=greedy`) the other seats get no nodes: inside the tree walk each of
    their decisions is greedy_action's, so the tree branches on the searcher's decisions only.
    stats += (iterations, engine steps, lookahead steps, errors). Returns 0, or -1 if the
    engine refused an action."""
    tree, vals, hdr = tr
    s, mask, work, tmp = sc.s, sc.mask, sc.work, sc.tmp
    child_of, path, stats = sc.child_of, sc.path, sc.stats
    keys, proj, ret, legal = sc.keys, sc.proj, sc.ret, sc.legal
    cap = tree.shape[0]
    c = P[st.P_C]
    opp = int(P[st.P_OPP])
    cutoff = int(P[st.P_CUTOFF])
    rollout = int(P[st.P_ROLLOUT])
    quiet = P[st.P_QUIET] != 0.0
    steps = 0
    for _ in range(n_iter):
        start_walk(root, root_mask, T, me, rng, s, mask, work)
        node = 0
        depth = 0
        path[0] = 0
        while not k_over(s):
            actor = k_actor(s)
            if opp > 0 and actor != me:  # another seat, played by the rollout policy: no node
                a = greedy_action(s, T, n, mask, P, rng, sc)
                if a < 0 or k_step(s, T, a, mask, work) != 0:
                    stats[3] += 1
                    return -1
                steps += 1
                continue
            nl = st.enter(tree, node, mask, child_of, legal)
            n_new = 0
            for i in range(nl):
                if child_of[legal[i]] < 0:
                    n_new += 1
            expanded = n_new > 0 and hdr[0] < cap
            if expanded:  # a legal action without a node, drawn uniformly, gets one
                r = xo.rng_below(rng, 0, n_new)
                act = -1
                for i in range(nl):
                    if child_of[legal[i]] < 0:
                        if r == 0:
                            act = legal[i]
                            break
                        r -= 1
                chosen = st.add_child(tree, vals, hdr, node, act)
            else:
                chosen, act = st.ucb_choice(tree, vals, actor, legal, nl, child_of, c)
            st.leave(tree, node, child_of)
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
                a = bot_action(s, T, n, mask, P, rng, sc)
            else:
                a = greedy_action(s, T, n, mask, P, rng, sc)
            if a < 0 or k_step(s, T, a, mask, work) != 0:
                stats[3] += 1
                return -1
            k += 1
        steps += k
        leaf_returns(s, T, n, P, keys, proj, tmp, ret)
        st.backup(tree, vals, path, depth, n, ret)
    stats[0] += n_iter
    stats[1] += steps
    return 0


@jit
def pv_leaf(s, T, n, P, net, logits, keys, proj, tmp, ev, ret, stats):
    """The value vector `ret` (n seats) of a state reached by the guided search, and, when the game
    is not over, the network's logits for the seat to act in `logits` (NUM_ACTIONS).

    Over: the real returns (returns_into, P[P_RETURNS]). Else the packed policy-value network
    (core.mlp; net: core.bundles.Network, the packed network and its scratch) reads that seat's
    observation (k_observe): its first NUM_ACTIONS outputs are the logits, the next ones the
    values of the seats in turn order from the observer's (value j: the seat j places after it),
    each clipped to [-1, 1]; with P[P_MIX] = m > 0 the value is (1 - m) x
    the network's + m x the position evaluation's (leaf_returns: k_evaluate's projected scores), ev
    its scratch."""
    if k_over(s):
        k_keys(s, keys)
        returns_into(keys, n, int(P[st.P_RETURNS]), P[st.P_SCALE], ret)
        return
    na = logits.shape[0]
    actor = k_actor(s)
    obs, out = net.obs, net.out
    k_observe(s, T, actor, obs)
    mlp.actor_logits(net.w, net.meta, 0, obs, net.h, out)
    stats[2] += 1
    for a in range(na):
        logits[a] = out[a]
    mix = P[st.P_MIX]
    if mix > 0.0:
        leaf_returns(s, T, n, P, keys, proj, tmp, ev)
    for j in range(n):
        v = min(1.0, max(-1.0, np.float64(out[na + j])))
        q = (actor + j) % n
        ret[q] = (1.0 - mix) * v + mix * ev[q] if mix > 0.0 else v
    for q in range(n, ret.shape[0]):
        ret[q] = 0.0


@jit
def pv_opponent(s, T, actor, mask, opp, rng, net, stats):
    """The action of seat `actor` (not the searcher) in a simulation of the guided search with
    opp = P[P_OPP] 1 or 2: its only legal action, else the network's policy on that seat's own
    observation of the determinized state (k_observe; mask: its legal actions), drawn from the
    softmax with one rng draw (opp 1, `net`) or its most likely action (opp 2, `netmax`; the
    first of equals): core.search_tree.policy_action. -1 if no action is legal."""
    na = mask.shape[0]
    nl = 0
    last = -1
    for a in range(na):
        if mask[a]:
            nl += 1
            last = a
    if nl <= 1:
        return last
    obs, out = net.obs, net.out
    k_observe(s, T, actor, obs)
    mlp.actor_logits(net.w, net.meta, 0, obs, net.h, out)
    stats[2] += 1
    return st.policy_action(out, mask, opp == 2, rng)


@jit
def pv_search(root, root_mask, T, n, me, n_sims, force, P, rng, tr, sc, net):
    """Run n_sims simulations of the network-guided search (PUCT, AlphaZero's rule, over the
    determinizations of `search`) from the searcher `me`'s decision `root` into the tree; with
    `force` >= 0 every simulation takes that root action (pv_gumbel's sequential halving).

    Each simulation: copy and determinize the root from me's point of view and keep me's legal
    actions there (root_mask; start_walk); descend from node 0: at a node, among the actions
    legal in this determinization, take the one maximising Q + c P sqrt(N) / (1 + n)
    (core.search_tree.puct_choice), where P is the prior (the softmax of the node's stored
    logits over those actions), n the child's visits, N the node's, Q the acting seat's mean
    return through the child (unvisited: the node's own mean, or 0); a new child is added for an
    action first taken (core.search_tree.add_child), and the state it reaches is scored by
    pv_leaf (its logits stored in its row of plog, float32 (tree rows + 1,
    NUM_ACTIONS), whose last row is scratch); a known terminal state by its real result. The
    value vector is added to every node on the path. The first simulation of an empty tree
    scores the root. `child_of` (NUM_ACTIONS, all -1) is the lookup of a node's
    children while it is examined. With P[P_OPP] 1 or 2 (core.search_tree.OPP_CODES) the other
    seats get no nodes: each of their decisions is pv_opponent's, so the tree branches on the
    searcher's decisions only and a new node is scored at the searcher's next decision (or the
    end). With P[P_OPP] 3 or 4 they get nodes as with 0, but no search: at another seat's node
    the action is drawn from (3) or the most likely of (4) the node's stored policy, the logits
    its seat's observation got when the node was added (core.search_tree.stored_choice), so a
    simulation still calls the network once. stats += (simulations, engine steps, network
    calls, errors). Returns 0, or -1 if the engine refused an action.

    The arrays come in three bundles (core.guided.search_bundles makes them): tr the tree
    (tree, vals, plog, hdr), sc the scratch (core.bundles.GuidedScratch) and net the network
    (core.bundles.Network)."""
    tree, vals, plog, hdr = tr
    s, mask, work, tmp = sc.s, sc.mask, sc.work, sc.tmp
    child_of, path, stats = sc.child_of, sc.path, sc.stats
    keys, proj, ret = sc.keys, sc.proj, sc.ret
    ev, legal, ex = sc.ev, sc.legal, sc.exp
    cap = tree.shape[0]
    c = P[st.P_C]
    opp = int(P[st.P_OPP])
    na = mask.shape[0]
    steps = 0
    for _ in range(n_sims):
        start_walk(root, root_mask, T, me, rng, s, mask, work)
        node = 0
        depth = 0
        path[0] = 0
        if tree[0, st.F_VISITS] == 0:  # the root's own evaluation (its logits)
            pv_leaf(s, T, n, P, net, plog[0], keys, proj, tmp, ev, ret, stats)
        else:
            while True:
                if k_over(s):  # a terminal node: its real result
                    pv_leaf(s, T, n, P, net, plog[cap], keys, proj, tmp, ev, ret, stats)
                    break
                actor = k_actor(s)  # with opp 1 or 2 always me: the other seats were played below
                nl = st.enter(tree, node, mask, child_of, legal)
                act = st.guided_choice(tree, vals, plog, node, actor, me, opp, legal, nl,
                                       child_of, c, rng, ex)  # fmt: skip
                if depth == 0 and force >= 0:
                    act = force if mask[force] else -1
                chosen = child_of[act] if act >= 0 else -1
                st.leave(tree, node, child_of)
                if act < 0 or k_step(s, T, act, mask, work) != 0:
                    stats[3] += 1
                    return -1
                steps += 1
                # opp 1 or 2: the other seats move by pv_opponent, on to me's next turn (no nodes)
                while 0 < opp < 3 and not k_over(s) and k_actor(s) != me:
                    code = pv_opponent(s, T, k_actor(s), mask, opp, rng, net, stats)
                    if code < 0 or k_step(s, T, code, mask, work) != 0:
                        stats[3] += 1
                        return -1
                    steps += 1
                if chosen < 0 and hdr[0] < cap:
                    chosen = st.add_child(tree, vals, hdr, node, act)
                    depth += 1
                    path[depth] = chosen
                    for a in range(na):  # no stale logits if this node is found over
                        plog[chosen, a] = 0.0
                    pv_leaf(s, T, n, P, net, plog[chosen], keys, proj, tmp, ev, ret, stats)
                    break
                if chosen < 0:  # the tree is full: score the state reached, keep no node
                    pv_leaf(s, T, n, P, net, plog[cap], keys, proj, tmp, ev, ret, stats)
                    break
                node = chosen
                depth += 1
                path[depth] = node
        st.backup(tree, vals, path, depth, n, ret)
    stats[0] += n_sims
    stats[1] += steps
    return 0


@jit
def pv_gumbel(root, root_mask, T, n, me, n_sims, m, gscale, P, rng, tr, sc, net):
    """The Gumbel root (Danihelka et al. 2022) of the guided search: at most n_sims simulations
    of pv_search after the root's own evaluation, spent on the root actions by sequential
    halving, and the action it selects (returned; -1 if the engine refused an action).

    Each legal root action a gets the score gum[a] = g(a) + logits(a), g(a) = gscale x Gumbel(0,
    1) noise (0: none, the deterministic search); the m best are considered. In each phase of
    sequential halving (ceil(log2 m) phases) every action still considered gets the same number
    of simulations that take it at the root (the last phase the rest of the budget); then they
    are ranked by gum[a] + sigma(completed Q(a)) (core.search_tree.completed_q; sigma's c_scale
    is P[P_CSCALE]) and the better
    half goes on. The selected action is the best of the last ranking. pi gets the improved
    policy (core.search_tree.improved_policy), the network's policy target, in sc's pi. The
    bundles as pv_search's (gum, cand, q, pi: its NUM_ACTIONS scratch)."""
    tree, vals, plog, hdr = tr
    child_of = sc.child_of
    gum, cand, q, pi = sc.gum, sc.cand, sc.q, sc.pi
    if tree[0, st.F_VISITS] == 0:
        code = pv_search(root, root_mask, T, n, me, 1, -1, P, rng, tr, sc, net)
        if code != 0:
            return -1
    v_root = vals[0, me] / tree[0, st.F_VISITS]
    k, phases = st.gumbel_candidates(plog, root_mask, gscale, m, n_sims, rng, gum, cand)
    if k == 0:
        return -1
    used = 0
    while k > 1 and used < n_sims:
        per = max(1, n_sims // (phases * k))
        if k == 2:
            per = (n_sims - used + 1) // 2
        for _ in range(per):
            for i in range(k):
                if used < n_sims:
                    code = pv_search(root, root_mask, T, n, me, 1, cand[i], P, rng, tr, sc, net)
                    if code != 0:
                        return -1
                    used += 1
        st.gumbel_rank(tree, vals, plog, root_mask, me, v_root, P[st.P_CSCALE], gum, cand, k,
                       child_of, q)  # fmt: skip
        k = (k + 1) // 2
    most = st.completed_q(tree, vals, plog, root_mask, me, v_root, child_of, q)
    st.improved_policy(plog, root_mask, q, most, P[st.P_CSCALE], pi)
    return cand[0]


@jit
def pv_selfplay(g, gmask, T, n, play, P, rng, tr, sc, net, records):
    """Play the game in g (a state, played in place to its end; gmask its legal mask, kept so)
    by the guided search of every seat in turn, each from its own point of view, and record one
    example per decision with more than one legal action: x_obs the seat's observation, x_mask
    its legal mask, x_pi the policy target, x_actor the seat, x_act the action played, x_q the
    search's root value of each seat (its mean return over the simulations; column j: the seat
    j places after the actor in turn order, columns past n left as they are).

    root_kind 0 (PUCT, pv_search: `sims` simulations after the root's evaluation): the root's
    logits get `noise` x Gumbel(0, 1) noise per legal action first; the target is the root's
    visit shares; the action the most visited (the first of equals). root_kind 1 (pv_gumbel with
    m considered actions and gscale = noise): the target is the improved policy, the action the
    one sequential halving selects. Either way the first `explore` recorded decisions play an
    action drawn from the target instead. Returns the number of examples, -1 if the engine
    refused an action, -2 if the game needs more rows than x_obs has. play: the settings (sims,
    root_kind, m, explore, noise); records: core.bundles.ExampleRecords (obs, mask, pi, actor,
    act, q); the other bundles as pv_search's.

    Self-play runs through this loop only where the other seats' rule calls the network inside a
    simulation (opp 1, 2: `net`, `netmax`; training.alphazero.selfplay.SelfPlayer.play_one);
    every other game is played by selfplay_loops' pv_selfplay_many (core/selfplay_template.py),
    the same games, which tests/training/test_selfplay_many.py checks against this loop."""
    sims, root_kind, m, explore, noise = play
    x_obs, x_act = records.obs, records.act
    tree, vals, plog, hdr = tr
    work, pi = sc.work, sc.pi
    na = gmask.shape[0]
    rows = 0
    while not k_over(g):
        nl = 0
        last = -1
        for a in range(na):
            if gmask[a]:
                nl += 1
                last = a
        if nl == 0:
            return -1
        act = last
        if nl > 1:
            if rows >= x_obs.shape[0]:
                return -2
            me = k_actor(g)
            st.clear(tree, vals, hdr)
            if root_kind == 1:
                act = pv_gumbel(g, gmask, T, n, me, sims, m, noise, P, rng, tr, sc, net)
                if act < 0:
                    return -1
            else:
                code = pv_search(g, gmask, T, n, me, 1, -1, P, rng, tr, sc, net)
                if code != 0:
                    return -1
                if noise > 0.0:
                    for a in range(na):
                        if gmask[a]:
                            u = (xo.rng_next(rng, 0) + 0.5) / 4294967296.0
                            plog[0, a] += noise * -math.log(-math.log(u))
                code = pv_search(g, gmask, T, n, me, sims, -1, P, rng, tr, sc, net)
                if code != 0:
                    return -1
                act = st.visit_policy(tree, gmask, pi)
            k_observe(g, T, me, x_obs[rows])
            st.record_example(records, rows, gmask, pi, me, tree, vals, n)
            if rows < explore:
                act = st.draw_from(pi, act, rng)
            x_act[rows] = act
            rows += 1
        if k_step(g, T, act, gmask, work) != 0:
            return -1
    return rows
