"""Template of expert iteration's self-play of many games at once: the guided search of
core/search_template.py (`pv_selfplay`) played in G games in lock step, their leaves evaluated
by one batched network forward per round (core.mlp.batch_trunk) instead of one forward per leaf.

It plays the games pv_selfplay plays, bit for bit (tests/training/test_selfplay_many.py), in
less time: the same walk (`_descend`: pv_search's steps, the shared start_walk and
core.search_tree's enter, guided_choice, add_child and backup), each game's network outputs
kept by observation, only the outputs a search reads computed (the seats' values at every leaf,
a node's logits at its legal actions when a walk first needs them, core.mlp.head_outputs: most
actions are illegal at any node), the loops compiled without the runtime (no reference counts
on array views).

Not used at run time. core.codegen renders it for each game, imported as
`<game>_env.engine.selfplay_loops`, its marked imports pointed at the game's rendered contract
and search loops.
"""

import math

import numpy as np

from core import mlp
from core import rng as xo
from core import search_tree as st
from core.batch import returns_into

# CONTRACT: core.codegen points these two imports at the game's rendered modules.
from core.contract_template import (
    k_actor,
    k_keys,
    k_observe,
    k_over,
    k_step,
)
from core.jit import jit
from core.search_template import (
    leaf_returns,
    start_walk,
)

# a game's control row (ctl, int64, core.search_tree.N_CTL entries): where its self-play stands
# between rounds
C_PHASE, C_STAGE, C_ME, C_TODO, C_LEAF, C_DEPTH, C_ROWS = range(7)
C_K, C_PER, C_REP, C_I, C_USED, C_PHASES, C_FORCE = range(7, 14)
C_SLOT, C_KEY = 14, 15  # the cache entry a leaf waiting for the network will fill (-1: none)
C_LOOKS, C_HITS = 16, 17  # the game's cache lookups and hits so far
# a game whose cache answered fewer than one lookup in CACHE_MIN_SHARE after CACHE_TRIAL lookups
# stops looking (hashing each leaf's observation would cost more than it saves); any use of the
# cache gives the same games, as it answers only an observation equal to one the network scored
CACHE_TRIAL, CACHE_MIN_SHARE = 512, 10
# C_PHASE: at a real decision / a simulation to start / a leaf waiting for the network /
# a simulation backed up / the game over
PH_DECIDE, PH_SIM, PH_EVAL, PH_BACKED, PH_OVER = range(5)
# C_STAGE: the PUCT root's own evaluation, its simulations; the Gumbel root's evaluation, halving
ST_PUCT_ROOT, ST_PUCT, ST_GUMBEL_ROOT, ST_GUMBEL = range(4)
# _advance(): a leaf to evaluate was written, the game is over, a decision was recorded (the
# game goes on next round), failures
NEED, IDLE, DECIDED = 1, 0, 2
ERR_ENGINE, ERR_ROWS = -1, -2


@jit(alloc=False)
def _descend(gi, T, n, P, games, tr, gs, sh, net, x_row):
    """Start one simulation of game gi's search (pv_search's, same arithmetic and draws):
    determinize the root, walk down by PUCT (or the stored policy at other seats' nodes with
    opp 3, 4) and stop at the state to score. Returns NEED with that state's observation in x_row
    (ctl's C_LEAF: the node, or the plog row, for its outputs, C_DEPTH: the path's depth), IDLE
    when the state is over or its observation was cached (its returns backed up already),
    ERR_ENGINE if the engine refused."""
    tree, vals, plog, hdr = tr[0][gi], tr[1][gi], tr[2][gi], tr[3][gi]
    s, path, ctl, rng = gs.s[gi], gs.path[gi], gs.ctl[gi], gs.rng[gi]
    root, root_mask = games[0][gi], games[1][gi]
    me, force = ctl[C_ME], ctl[C_FORCE]
    mask, work, child_of, stats = sh.mask, sh.work, sh.child_of, sh.stats
    legal, ex = sh.legal, sh.exp
    cap = tree.shape[0]
    c = P[st.P_C]
    opp = int(P[st.P_OPP])
    na = mask.shape[0]
    stats[0] += 1
    start_walk(root, root_mask, T, me, rng, s, mask, work)
    node = 0
    depth = 0
    path[0] = 0
    leaf = 0
    if tree[0, st.F_VISITS] != 0:
        while True:
            if k_over(s):
                leaf = cap
                break
            actor = k_actor(s)
            nl = st.enter(tree, node, mask, child_of, legal)
            # the logits of the legal actions, computed where this is the first walk to need them
            _logits(gi, node, legal, nl, tr, gs, sh, net)
            act = st.guided_choice(tree, vals, plog, node, actor, me, opp, legal, nl, child_of,
                                   c, rng, ex)  # fmt: skip
            if depth == 0 and force >= 0:
                act = force if mask[force] else -1
            chosen = child_of[act] if act >= 0 else -1
            st.leave(tree, node, child_of)
            if act < 0 or k_step(s, T, act, mask, work) != 0:
                stats[3] += 1
                return ERR_ENGINE
            stats[1] += 1
            if chosen < 0 and hdr[0] < cap:
                chosen = st.add_child(tree, vals, hdr, node, act)
                depth += 1
                path[depth] = chosen
                for a in range(na):  # no stale logits if this node is found over (pv_search's)
                    plog[chosen, a] = 0.0
                leaf = chosen
                break
            if chosen < 0:
                leaf = cap
                break
            node = chosen
            depth += 1
            path[depth] = node
    ctl[C_DEPTH] = depth
    ctl[C_LEAF] = leaf
    if k_over(s):
        ret = sh.ret
        k_keys(s, sh.keys)
        returns_into(sh.keys, n, int(P[st.P_RETURNS]), P[st.P_SCALE], ret)
        st.backup(tree, vals, path, depth, n, ret)
        return IDLE
    k_observe(s, T, k_actor(s), x_row)
    ctl[C_SLOT] = -1
    if ctl[C_LOOKS] < CACHE_TRIAL or ctl[C_HITS] * CACHE_MIN_SHARE >= ctl[C_LOOKS]:
        ckey, cobs = gs.ckey[gi], gs.cobs[gi]
        key, slot = _obs_key(x_row, sh.mult, ckey.shape[0])
        ctl[C_LOOKS] += 1
        if ckey[slot] == key and _same(cobs[slot], x_row):  # seen before: the same outputs
            ctl[C_HITS] += 1
            nz = gs.cnz[gi][slot]
            gs.nnz[gi][leaf] = nz
            _copy(gs.cidx[gi][slot], gs.nidx[gi][leaf], nz)
            _copy(gs.cval[gi][slot], gs.nval[gi][leaf], nz)
            _score(gi, T, n, P, games, tr, gs, sh, net, gs.cv[gi][slot])
            return IDLE
        ctl[C_SLOT] = slot
        ctl[C_KEY] = key
    stats[2] += 1
    return NEED


@jit(alloc=False, inline=True)
def _obs_key(x, mult, size):
    """(key, slot) of observation x in a cache of `size` entries (a power of two): a hash of its
    entries' bits (the sum of each times its own odd multiplier, mult: int64 per entry; no branch,
    so the compiler vectorises it), never 0 (an empty entry's key)."""
    bits = x.view(np.int32)
    h = 0
    for j in range(x.shape[0]):
        h += bits[j] * mult[j]
    h ^= h >> 29
    return h | 1, (h >> 40) & (size - 1)


@jit(alloc=False, inline=True)
def _same(a, b):
    """Whether observations a and b are equal entry by entry (no early exit: vectorised)."""
    differ = 0
    for j in range(a.shape[0]):
        differ += a[j] != b[j]
    return differ == 0


@jit(alloc=False, inline=True)
def _copy(src, dst, count):
    for j in range(count):
        dst[j] = src[j]


@jit(alloc=False, inline=True)
def _remember(gi, n, gs, x_row, v):
    """Keep what the network gave for game gi's leaf (observation x_row: the leaf node's last
    hidden layer, the seats' values v) in its cache entry."""
    ctl = gs.ctl[gi]
    slot = ctl[C_SLOT]
    if slot < 0:
        return
    leaf = ctl[C_LEAF]
    nz = gs.nnz[gi][leaf]
    gs.ckey[gi][slot] = ctl[C_KEY]
    gs.cnz[gi][slot] = nz
    _copy(x_row, gs.cobs[gi][slot], x_row.shape[0])
    _copy(gs.nidx[gi][leaf], gs.cidx[gi][slot], nz)
    _copy(gs.nval[gi][leaf], gs.cval[gi][slot], nz)
    _copy(v, gs.cv[gi][slot], n)


@jit(alloc=False)
def _logits(gi, node, legal, nl, tr, gs, sh, net):
    """Game gi's plog row `node` at the actions legal[:nl]: those still unknown (NaN) computed
    from the node's last hidden layer (core.mlp.head_outputs: the network's logits, bit for
    bit). A node keeps only the logits some walk needed, most of its actions being illegal
    wherever the search meets it."""
    row = tr[2][gi][node]
    cols, out = sh.cols, sh.hout
    k = 0
    for i in range(nl):
        a = legal[i]
        if row[a] != row[a]:
            cols[k] = a
            k += 1
    if k > 0:
        nz = gs.nnz[gi][node]
        mlp.head_outputs(net.w, net.meta, 0, gs.nidx[gi][node], gs.nval[gi][node], nz,
                         cols, k, out)  # fmt: skip
        for i in range(k):
            row[cols[i]] = out[i]


@jit(alloc=False)
def _score(gi, T, n, P, games, tr, gs, sh, net, out):
    """Finish game gi's simulation waiting for the network, its leaf node's last hidden layer
    stored: the leaf's logits (plog's C_LEAF row) left to compute when a walk needs them (at
    the root, at once: the root's legal actions), the seats' values `out` (from the leaf's actor
    on) mixed with the position evaluation when P[P_MIX] > 0 and backed up along the path
    (pv_leaf's arithmetic)."""
    tree, vals, plog = tr[0][gi], tr[1][gi], tr[2][gi]
    s, path, ctl = gs.s[gi], gs.path[gi], gs.ctl[gi]
    ret, ev = sh.ret, sh.ev
    na = plog.shape[1]
    leaf = ctl[C_LEAF]
    actor = k_actor(s)
    for a in range(na):
        plog[leaf, a] = np.nan
    mix = P[st.P_MIX]
    if mix > 0.0:
        leaf_returns(s, T, n, P, sh.keys, sh.proj, sh.tmp, ev)
    for j in range(n):
        v = min(1.0, max(-1.0, np.float64(out[j])))
        q = (actor + j) % n
        ret[q] = (1.0 - mix) * v + mix * ev[q] if mix > 0.0 else v
    for q in range(n, ret.shape[0]):
        ret[q] = 0.0
    st.backup(tree, vals, path, ctl[C_DEPTH], n, ret)
    if leaf == 0:  # (after reading `out`: this reuses the scratch it may lie in)
        root_mask, legal = games[1][gi], sh.legal
        nl = 0
        for a in range(na):
            if root_mask[a]:
                legal[nl] = a
                nl += 1
        _logits(gi, 0, legal, nl, tr, gs, sh, net)


@jit(alloc=False)
def _gumbel_start(gi, sims, m, noise, games, tr, gs):
    """After the Gumbel root's own evaluation: each legal root action's score (`noise` x Gumbel
    noise plus the root's logit), the m best considered, the first phase of sequential halving
    set up (pv_gumbel's first part, the same draws). False if no action is legal."""
    tree, vals, plog = tr[0][gi], tr[1][gi], tr[2][gi]
    root_mask = games[1][gi]
    gum, cand, ctl, rng = gs.gum[gi], gs.cand[gi], gs.ctl[gi], gs.rng[gi]
    me = ctl[C_ME]
    gs.vroot[gi] = vals[0, me] / tree[0, st.F_VISITS]
    k, phases = st.gumbel_candidates(plog, root_mask, noise, m, sims, rng, gum, cand)
    if k == 0:
        return False
    ctl[C_K] = k
    ctl[C_PHASES] = phases
    ctl[C_USED] = 0
    _gumbel_phase(ctl, sims)
    return True


@jit(alloc=False)
def _gumbel_phase(ctl, sims):
    """Set up the next phase of sequential halving (its simulations per considered action), or
    mark the halving done (C_K = 1) when one action is left or the budget is spent."""
    k, used = ctl[C_K], ctl[C_USED]
    if k > 1 and used < sims:
        per = max(1, sims // (ctl[C_PHASES] * k))
        if k == 2:
            per = (sims - used + 1) // 2
        ctl[C_PER] = per
        ctl[C_REP] = 0
        ctl[C_I] = 0
    else:
        ctl[C_K] = 1


@jit(alloc=False)
def _gumbel_next(gi, sims, P, games, tr, gs, sh):
    """The root action game gi's next simulation must take under sequential halving (pv_gumbel's
    loop, one simulation at a time: each phase gives every considered action `per` simulations,
    then ranks them by score + sigma(completed Q) and keeps the better half), or -1 when the
    halving is over."""
    tree, vals, plog = tr[0][gi], tr[1][gi], tr[2][gi]
    root_mask = games[1][gi]
    gum, cand, ctl = gs.gum[gi], gs.cand[gi], gs.ctl[gi]
    q, child_of = sh.q, sh.child_of
    while ctl[C_K] > 1:
        if ctl[C_USED] >= sims:  # the rest of this phase plays nothing
            ctl[C_REP] = ctl[C_PER]
        if ctl[C_I] >= ctl[C_K]:
            ctl[C_I] = 0
            ctl[C_REP] += 1
        if ctl[C_REP] < ctl[C_PER]:
            a = cand[ctl[C_I]]
            ctl[C_I] += 1
            ctl[C_USED] += 1
            return a
        k = ctl[C_K]
        st.gumbel_rank(tree, vals, plog, root_mask, ctl[C_ME], gs.vroot[gi], P[st.P_CSCALE],
                       gum, cand, k, child_of, q)  # fmt: skip
        ctl[C_K] = (k + 1) // 2
        _gumbel_phase(ctl, sims)
    return -1


@jit(alloc=False)
def _decide(gi, T, n, play, P, games, tr, gs, sh, records):
    """End game gi's search: the policy target and the action (pv_selfplay's: the root's visit
    shares and the most visited with a PUCT root; the improved policy and the action sequential
    halving kept with a Gumbel root), one example recorded at the pool's next row (the first
    `explore` of a game play an action drawn from the target), and the action played. Returns
    0, or ERR_ENGINE if the engine refused it."""
    sims, root_kind, m, explore, noise, max_rows = play
    g, gmask = games[0][gi], games[1][gi]
    tree, vals, plog = tr[0][gi], tr[1][gi], tr[2][gi]
    ctl, rng = gs.ctl[gi], gs.rng[gi]
    pi, q, child_of = sh.pi, sh.q, sh.child_of
    x_obs, x_act, x_game, fill = records.obs, records.act, records.game, records.fill
    me = ctl[C_ME]
    if root_kind == 1:
        most = st.completed_q(tree, vals, plog, gmask, me, gs.vroot[gi], child_of, q)
        st.improved_policy(plog, gmask, q, most, P[st.P_CSCALE], pi)
        act = gs.cand[gi][0]
    else:
        act = st.visit_policy(tree, gmask, pi)
    row = fill[0]
    k_observe(g, T, me, x_obs[row])
    st.record_example(records, row, gmask, pi, me, tree, vals, n)
    if ctl[C_ROWS] < explore:
        act = st.draw_from(pi, act, rng)
    x_act[row] = act
    x_game[row] = gi
    fill[0] += 1
    ctl[C_ROWS] += 1
    ctl[C_PHASE] = PH_DECIDE
    if k_step(g, T, act, gmask, sh.work) != 0:
        return ERR_ENGINE
    return 0


@jit(alloc=False)
def _advance(gi, T, n, play, P, games, tr, gs, sh, net, records, x_row):
    """Play game gi on from where it stands until its search needs a leaf evaluated (NEED, the
    leaf's observation in x_row), a decision is recorded (DECIDED: at most one example per call,
    so a round records at most one per game) or the game is over (IDLE); ERR_ENGINE or ERR_ROWS
    (more decisions than `max_rows`) on failure."""
    sims, root_kind, m, explore, noise, max_rows = play
    g, gmask = games[0][gi], games[1][gi]
    tree, vals, plog, hdr = tr[0][gi], tr[1][gi], tr[2][gi], tr[3][gi]
    ctl, rng = gs.ctl[gi], gs.rng[gi]
    na = gmask.shape[0]
    while True:
        ph = ctl[C_PHASE]
        if ph == PH_OVER:
            return IDLE
        if ph == PH_BACKED:  # a simulation is over: what the search does next
            stage = ctl[C_STAGE]
            nxt = -1  # the next simulation's forced root action; -2: the search is over
            if stage == ST_PUCT_ROOT:
                if noise > 0.0:
                    for a in range(na):
                        if gmask[a]:
                            u = (xo.rng_next(rng, 0) + 0.5) / 4294967296.0
                            plog[0, a] += noise * -math.log(-math.log(u))
                ctl[C_STAGE] = ST_PUCT
                ctl[C_TODO] = sims
                if sims <= 0:
                    nxt = -2
            elif stage == ST_PUCT:
                ctl[C_TODO] -= 1
                if ctl[C_TODO] <= 0:
                    nxt = -2
            else:
                if stage == ST_GUMBEL_ROOT:
                    if not _gumbel_start(gi, sims, m, noise, games, tr, gs):
                        return ERR_ENGINE
                    ctl[C_STAGE] = ST_GUMBEL
                nxt = _gumbel_next(gi, sims, P, games, tr, gs, sh)
                if nxt < 0:
                    nxt = -2
            if nxt == -2:
                if _decide(gi, T, n, play, P, games, tr, gs, sh, records) != 0:
                    return ERR_ENGINE
                return DECIDED
            ctl[C_FORCE] = nxt
            ctl[C_PHASE] = PH_SIM
        elif ph == PH_DECIDE:
            if k_over(g):
                ctl[C_PHASE] = PH_OVER
                return IDLE
            nl = 0
            last = -1
            for a in range(na):
                if gmask[a]:
                    nl += 1
                    last = a
            if nl == 0:
                return ERR_ENGINE
            if nl == 1:
                if k_step(g, T, last, gmask, sh.work) != 0:
                    return ERR_ENGINE
                continue
            if ctl[C_ROWS] >= max_rows:
                return ERR_ROWS
            ctl[C_ME] = k_actor(g)
            st.clear(tree, vals, hdr)
            ctl[C_STAGE] = ST_GUMBEL_ROOT if root_kind == 1 else ST_PUCT_ROOT
            ctl[C_FORCE] = -1
            ctl[C_PHASE] = PH_SIM
        code = _descend(gi, T, n, P, games, tr, gs, sh, net, x_row)
        if code == NEED:
            ctl[C_PHASE] = PH_EVAL
            return NEED
        if code < 0:
            return code
        ctl[C_PHASE] = PH_BACKED


@jit(alloc=False)
def pv_selfplay_many(T, n, play, P, games, tr, gs, sh, net, records):
    """Play G self-play games (games: their states (G, STATE_SIZE) and legal masks, played in
    place) by the guided search of every seat, as pv_selfplay plays each (the same decisions and
    draws from each game's own rng row), in rounds: every game still playing goes on until its
    search needs a leaf evaluated or it records a decision, then one batched forward of the
    hidden layers (core.mlp.batch_trunk) scores all those leaves: each keeps its last hidden
    layer (its logits are computed from it when needed), and backs up its values. A leaf whose
    observation the game's cache holds (the same observation, entry by entry) takes what is
    kept there instead: the network's outputs depend on the observation only. Examples
    go to the pool `records` (core.bundles.ExampleRecords: game the game's index, fill [rows
    used, failing game]) in the order they are made.

    Returns 0 when every game is over, 1 when the pool has room for fewer than G more rows (the
    caller takes the rows, sets fill[0] = 0 and calls again: every game resumes where it
    stopped), ERR_ENGINE or ERR_ROWS (fill[1] the game) on failure. play: (sims, root_kind, m,
    explore, noise, max_rows); gs, sh: each game's rows and the games' shared scratch
    (core.bundles.GameRows, SharedScratch); net: the packed network and the batch's scratch
    (core.bundles.BatchNetwork)."""
    x, h, owner = net.x, net.h, net.owner
    fill = records.fill
    na = games[1].shape[1]
    cols, vout = sh.cols, sh.hout
    games_n = games[0].shape[0]
    room = records.obs.shape[0]
    while True:
        if room - fill[0] < games_n:
            return 1
        rows = 0
        busy = False
        for gi in range(games_n):
            code = _advance(gi, T, n, play, P, games, tr, gs, sh, net, records, x[rows])
            if code == NEED:
                owner[rows] = gi
                rows += 1
            elif code == DECIDED:
                busy = True
            elif code < 0:
                fill[1] = gi
                return code
        if rows == 0:
            if busy:
                continue
            return 0
        last = mlp.batch_trunk(net.w, net.meta, 0, x, rows, h, net.idx)
        for r in range(rows):
            gi = owner[r]
            leaf = gs.ctl[gi][C_LEAF]
            nidx, nval = gs.nidx[gi][leaf], gs.nval[gi][leaf]
            src = x[r] if last < 0 else h[last][r]
            nz = mlp.compact(src, nidx.shape[0], nidx, nval)  # (the last layer's inputs)
            gs.nnz[gi][leaf] = nz
            for j in range(n):  # what every leaf needs at once: the seats' values
                cols[j] = na + j
            mlp.head_outputs(net.w, net.meta, 0, nidx, nval, nz, cols, n, vout)
            _remember(gi, n, gs, x[r], vout)
            _score(gi, T, n, P, games, tr, gs, sh, net, vout)
            gs.ctl[gi][C_PHASE] = PH_BACKED
