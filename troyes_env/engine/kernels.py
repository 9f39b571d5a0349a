"""Troyes's kernels of the game contract (core/game_contract.py) that look ahead through the step
driver (the heuristic bot's chain search, the position evaluation), so they cannot sit in
rules.py below it, and the other kernels beside them: the standing keys, the seat to act, the
determinization and quiet states. Nothing here changes the rules; it only adapts. No safety cap
(k_truncated keeps core's default)."""

from __future__ import annotations

from core.jit import jit
from troyes_env.actions import NUM_ACTIONS
from troyes_env.engine.evaluate import (
    EVAL_WEIGHTS,
    TMP_NEED,
    ChainScratch,
    bot_char_weights,
    chain_values,
    evaluate_into,
    held_char_weights,
)
from troyes_env.engine.hidden import determinize_into
from troyes_env.layout import (
    MAXP,
    PH_OVER,
    PH_SETUP,
    PH_TURN,
    S_CUR,
    S_FINAL,
    S_NP,
    S_PHASE,
    S_VP,
    STATE_SIZE,
)
from troyes_env.tables import N_CHAR

N_KEYS = 2  # VP, then one constant column: Troyes has no tie-breaker (ED-34)
# the heuristic bot (troyes_env/bots.py, k_own_bot_values): its chain search's budget
HEURISTIC = 1  # its code among the game's compiled bots (TroyesHeuristic.batch_code)
NODE_BUDGET = 24  # search nodes per first decision
MAX_DEPTH = 6  # decisions deep
# rollout=bot (k_bot_values): the same chain search on a smaller budget, as it runs at every
# rollout decision
BOT_BUDGET = 6  # search nodes per first decision
BOT_DEPTH = 3  # decisions deep


def _chain_scratch(depth: int) -> tuple[int, int]:
    """The int64 and float64 scratch sizes of _chain to `depth`: int64 [the state per depth |
    legal actions per depth | their count | the next one | project's tmp], float64
    [Character weights | best value per depth | projections]."""
    k = depth + 1
    return k * (STATE_SIZE + NUM_ACTIONS + 2) + TMP_NEED, N_CHAR + k + MAXP


BOT_SCRATCH_I = max(_chain_scratch(MAX_DEPTH)[0], _chain_scratch(BOT_DEPTH)[0])
BOT_SCRATCH_F = max(_chain_scratch(MAX_DEPTH)[1], _chain_scratch(BOT_DEPTH)[1])
__all__ = ["N_KEYS", "BOT_SCRATCH_I", "BOT_SCRATCH_F"]


@jit(alloc=False)
def k_keys(s, keys):
    over = s[S_PHASE] == PH_OVER
    for p in range(s[S_NP]):
        keys[p, 0] = s[S_FINAL + p] if over else s[S_VP + p]
        keys[p, 1] = 0


@jit(alloc=False)
def k_actor(s):
    return s[S_CUR]


@jit(alloc=False)
def k_determinize(s, T, observer, a, b, c, work):
    """ED-35: the others' Character cards, the undrawn deck orders, the face-down Activity cards
    and the RNG redrawn (engine/hidden.py); observer -1 keeps every Character with its owner."""
    determinize_into(s, T, observer, a, b, c, work)


@jit(alloc=False)
def k_evaluate(s, T, out, tmp):
    """The heuristic bot's projected final score per seat (engine/evaluate.py), each Character
    card some seat holds in s counted in full."""
    evaluate_into(s, T, out, tmp)


@jit(alloc=False)
def k_quiet(s):
    """Quiet = a turn's first decision (pre-placement or an action-phase turn, DP-1/DP-4) or the
    end: the search's rollout cut-off waits for one, so the projection never scores a half-made
    action (a die chosen, its citizen source not yet)."""
    ph = s[S_PHASE]
    return ph == PH_SETUP or ph == PH_TURN or ph == PH_OVER


@jit(alloc=False, inline=True)
def _chain(probe, T, me, legal, val, budget, depth, bi, bf, bmask, work, score_over):
    """engine/evaluate.chain_values for `me` on `probe` with the Character weights bf[:N_CHAR],
    its scratch cut from bi and bf (_chain_scratch(depth))."""
    k = depth + 1
    acts = k * STATE_SIZE
    nacts = acts + k * NUM_ACTIONS
    idx = nacts + k
    tmp = idx + k
    sc = ChainScratch(
        bi[:acts].reshape((k, STATE_SIZE)), bi[acts:nacts].reshape((k, NUM_ACTIONS)),
        bi[nacts:idx], bi[idx:tmp], bf[N_CHAR : N_CHAR + k], bmask, work,
        bi[tmp : tmp + TMP_NEED], bf[N_CHAR + k : N_CHAR + k + MAXP],
    )  # fmt: skip
    return chain_values(
        probe, T, me, bf[:N_CHAR], EVAL_WEIGHTS, legal, val, budget, depth, sc, score_over
    )


@jit(alloc=False)
def k_bot_values(s, T, legal, val, bi, bf, bmask, work):
    """The heuristic bot's chain values (engine/evaluate.chain_values: the max over the player's
    own decisions to the end of the turn, BOT_BUDGET nodes per action, BOT_DEPTH deep) of each
    action in `legal` for the player to act, every Character card some seat holds in s counted
    in full (s is a determinization); 1 when a chain reaches the end of the game."""
    held_char_weights(s, bf[:N_CHAR])
    return _chain(s, T, s[S_CUR], legal, val, BOT_BUDGET, BOT_DEPTH, bi, bf, bmask, work, False)


@jit(alloc=False, inline=True)
def k_own_bot_values(bot, s, probe, T, me, legal, val, bi, bf, bmask, work):
    """HEURISTIC (troyes_env/bots.py, TroyesHeuristic): the chain values of each action in
    `legal` for `me` on `probe` (NODE_BUDGET nodes per action, MAX_DEPTH deep, a finished game
    valued by its result: evaluate.final_value), the Character cards weighted as `me` sees them
    in s (evaluate.bot_char_weights). 1 for any other bot."""
    if bot != HEURISTIC:
        return 1
    bot_char_weights(s, me, bf[:N_CHAR])
    return _chain(probe, T, me, legal, val, NODE_BUDGET, MAX_DEPTH, bi, bf, bmask, work, True)
