"""Template of the bot loops: the baseline bots' decisions (core.bots) compiled, written once for
any game's kernels (core/game_contract.py).

`bot_choice` is one bot's decision in one state: the generic greedy `heuristic`
(core.bots.GreedyHeuristic, code BOT_GREEDY) or one of the game's own compiled bots (codes >= 1,
the game's `k_own_bot_values`). The Python bot classes (core.bots.CompiledBot) call it for each
decision; `play_seats` calls it for every slot of a batch where such a bot is to act, in one
call (core.batch.BatchEngine.play_seats, training's BatchVecEnv). Each bot draws from its own
xoshiro128** stream (core.bots.BotRng's four words), exactly as the Python bot does, and nothing
is allocated per decision: the scratch comes from the caller (core.batch.bot_scratch).

Not used at run time. core.codegen renders it for each game, imported as
`<game>_env.engine.bot_loops`, with this docstring replaced and the marked kernels import below
pointed at the game's kernels module (why a module per game: core/codegen.py).
"""

from numba import prange

from core import mlp
from core import rng as xo
from core.agents import pick_legal
from core.batch import BOT_GREEDY, SEAT_POLICY, SEAT_RANDOM, returns_into

# CONTRACT: core.codegen points this one import at the game's rendered contract.
from core.contract_template import (
    k_actor,
    k_determinize,
    k_evaluate,
    k_keys,
    k_mask,
    k_observe,
    k_over,
    k_own_bot_values,
    k_step,
)
from core.jit import jit

TIE = 1e-9  # values within this of the best are equally good (a uniform draw between them)
BOT_NO_LEGAL = -1  # bot_choice's error codes: no legal action in the mask,
BOT_ENGINE = -2  # the engine refused an action of the lookahead,
BOT_UNKNOWN = -3  # the game has no compiled bot of that code


@jit(inline=True)
def greedy_values(probe, T, n, me, legal, val, bs, r, work):
    """val[i] = the greedy heuristic's value of action legal[i] for seat `me` on the
    determinized state `probe`: the successor's projected final score (k_evaluate) of `me`
    minus the best other seat's; a successor where the game is over is valued by its real result,
    100 x win_loss + own score - the best other score. Returns 0, or 2 when the engine refuses
    an action (one not legal in `probe`). Scratch: row r of the bots' scratch bundle bs
    (bot_choice): its states[1] (the successor), masks[0] (probe's mask), masks[1], keys, proj,
    ret and tmp (k_evaluate's)."""
    pmask = bs[1][r, 0]
    tmask = bs[1][r, 1]
    t = bs[0][r, 1]
    keys, proj, ret, tmp = bs[4][r], bs[5][r], bs[6][r], bs[7][r]
    k_mask(probe, T, pmask, work)
    for i in range(legal.shape[0]):
        a = legal[i]
        if not pmask[a]:
            return 2
        for j in range(t.shape[0]):
            t[j] = probe[j]
        for j in range(tmask.shape[0]):
            tmask[j] = pmask[j]
        if k_step(t, T, a, tmask, work) != 0:
            return 2
        if k_over(t):
            k_keys(t, keys)
            returns_into(keys, n, 0, 1.0, ret)  # win_loss
            best = -(1 << 62)
            for q in range(n):
                if q != me and keys[q, 0] > best:
                    best = keys[q, 0]
            val[i] = 100.0 * ret[me] + float(keys[me, 0] - best)
        else:
            k_evaluate(t, T, proj, tmp)
            best_f = -1e300
            for q in range(n):
                if q != me and proj[q] > best_f:
                    best_f = proj[q]
            val[i] = proj[me] - best_f
    return 0


@jit(inline=True)
def bot_choice(code, s, T, n, mask, rng, work, bs, r):
    """The action bot `code` chooses in the n-player state s, whose legal mask is `mask`; s and
    mask are left unchanged. With a single legal action, that action (no draw). Else the bot draws
    a 32-bit seed from its stream `rng` (4 words, advanced in place), determinizes a copy of s
    for the seat to act with it (k_determinize, seed words (seed, 0, 0): Game.determinize), values
    each legal action in ascending order (BOT_GREEDY: greedy_values; codes >= 1: the game's
    k_own_bot_values) and plays one of those valued within TIE of the best, drawn uniformly from
    its stream. Returns the action, or BOT_NO_LEGAL, BOT_ENGINE, BOT_UNKNOWN.
    Scratch: row r of the bundle bs (core.batch.bot_scratch; each array has a leading axis of
    rows): states (2, STATE_SIZE) int64; masks (2, NUM_ACTIONS) bool; legal (NUM_ACTIONS) int64;
    val (NUM_ACTIONS) float64; keys (max players, N_KEYS) int64; proj, ret (max players) float64;
    tmp (STATE_SIZE + 16) int64; bi, bf: the kernels' BOT_SCRATCH_I int64 and BOT_SCRATCH_F
    float64 entries."""
    legal, val, masks = bs[2][r], bs[3][r], bs[1][r]
    nl = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            legal[nl] = a
            nl += 1
    if nl == 0:
        return BOT_NO_LEGAL
    if nl == 1:
        return legal[0]
    me = k_actor(s)
    probe = bs[0][r, 0]
    for j in range(probe.shape[0]):
        probe[j] = s[j]
    k_determinize(probe, T, me, xo.rng_next(rng, 0), 0, 0, work)
    if code == BOT_GREEDY:
        status = greedy_values(probe, T, n, me, legal[:nl], val[:nl], bs, r, work)
    else:
        status = k_own_bot_values(
            code, s, probe, T, me, legal[:nl], val[:nl], bs[8][r], bs[9][r], masks[1], work
        )
    if status == 1:
        return BOT_UNKNOWN
    if status != 0:
        return BOT_ENGINE
    best = val[0]
    for i in range(1, nl):
        if val[i] > best:
            best = val[i]
    ties = 0
    for i in range(nl):
        if val[i] >= best - TIE:
            ties += 1
    pick = xo.rng_below(rng, 0, ties)
    for i in range(nl):
        if val[i] >= best - TIE:
            if pick == 0:
                return legal[i]
            pick -= 1
    return BOT_ENGINE  # unreachable: pick < ties


@jit(parallel=True)
def play_seats(idx, codes, states, masks, works, rngs, bot_rngs, T, n, players, moves, bs,
               ac):  # fmt: skip
    """In each slot i of idx, play while the seat p to act is one the engine plays itself and the
    game is not over: codes[i, p] == SEAT_RANDOM, a uniform legal action from the slot's
    random-play stream rngs[i] (core.agents.pick_legal); codes[i, p] >= 0, bot_choice of that
    bot, drawing from its own stream bot_rngs[i, p]; codes[i, p] <= SEAT_POLICY, the packed actor
    SEAT_POLICY - codes[i, p] (core.mlp: a_w, a_meta; a_det: its most likely action, else one
    drawn from bot_rngs[i, p]) on the seat's observation; any other code stops (the caller
    decides). moves[i] = how many moves, or a negative code: -1 when the engine refused a move
    or none was legal, else bot_choice's error. players[i] = the seat to act after. bs:
    bot_choice's scratch bundle, ac the actors' (a_w, a_meta, a_det, a_obs, a_h, a_logits, a_cdf:
    core.batch.BatchEngine.set_actors), one row per slot (only the rows of slots where a bot or
    an actor acts are used)."""
    a_w, a_meta, a_det, a_obs, a_h, a_logits, a_cdf = ac
    for j in prange(idx.shape[0]):
        i = idx[j]
        s = states[i]
        moves[i] = 0
        while not k_over(s):
            p = k_actor(s)
            code = codes[i, p]
            if code == SEAT_RANDOM:
                a = pick_legal(masks[i], rngs[i])
                if a < 0:
                    moves[i] = -1
                    break
            elif code >= 0:
                a = bot_choice(code, s, T, n, masks[i], bot_rngs[i, p], works[i], bs, i)
                if a < 0:
                    moves[i] = a
                    break
            elif code <= SEAT_POLICY:
                k_observe(s, T, p, a_obs[i])
                mlp.actor_logits(a_w, a_meta, SEAT_POLICY - code, a_obs[i], a_h[i], a_logits[i])
                a = mlp.actor_choice(a_logits[i], masks[i], a_det, bot_rngs[i, p], a_cdf[i])
                if a < 0:
                    moves[i] = -1
                    break
            else:
                break
            if k_step(s, T, a, masks[i], works[i]) != 0:
                moves[i] = -1
                break
            moves[i] += 1
        players[i] = k_actor(s)
