"""Template of the statistics loops: the compiled replay of a finished game that collects what a
balance study needs (training.balance.game_stats), written once for any game's kernels (the
contract: core/game_contract.py).

Not used at run time. core.codegen renders it for each game, imported as
`<game>_env.engine.stats_loops`, with this docstring replaced and the marked kernels import
below pointed at the game's kernels module (why a module per game: core/codegen.py).
"""

# CONTRACT: core.codegen points this one import at the game's rendered contract.
from core.contract_template import (
    k_actor,
    k_keys,
    k_mask,
    k_over,
    k_step,
)
from core.jit import jit


@jit
def replay_track(s, T, actions, track, round_at, scratch, out):
    """Replay `actions` from the start state `s` (in place: `s` ends as the final state).

    Per decision i: actors[i] = the seat that took it, legal[i] = the number of legal actions
    it was chosen from. Per tracked state entry j (`track` holds indices into the state):
    gained[j] / spent[j] += each rise / fall of s[track[j]] over a decision. After every
    decision that changes the round counter s[round_at], and after the last one,
    round_scores[row, p] = seat p's standing score (k_keys column 0) and the row count grows
    (rows beyond round_scores' capacity are dropped). Returns the number of rows written, or
    -(i + 1) if action i was refused (the replay stops there). Allocates nothing.

    scratch: (mask (NUM_ACTIONS) bool, work, prev (like track) int64, keys (max players, N_KEYS)
    int64); out: (gained, spent (like track), actors, legal (at least one per action),
    round_scores (rows, players)) int64."""
    mask, work, prev, keys = scratch
    gained, spent, actors, legal, round_scores = out
    k_mask(s, T, mask, work)
    rows = 0
    last = s[round_at]
    n = round_scores.shape[1]
    for i in range(actions.shape[0]):
        for j in range(track.shape[0]):
            prev[j] = s[track[j]]
        actors[i] = k_actor(s)
        # `mask` holds this state's legal mask here (k_mask before the loop, then k_step)
        c = 0
        for k in range(mask.shape[0]):
            c += mask[k] != 0
        legal[i] = c
        if k_step(s, T, actions[i], mask, work) != 0:
            return -(i + 1)
        for j in range(track.shape[0]):
            d = s[track[j]] - prev[j]
            if d > 0:
                gained[j] += d
            elif d < 0:
                spent[j] -= d
        over = k_over(s)
        if s[round_at] != last or over or i == actions.shape[0] - 1:
            if rows < round_scores.shape[0]:
                k_keys(s, keys)
                for p in range(n):
                    round_scores[rows, p] = keys[p, 0]
                rows += 1
            last = s[round_at]
        if over:
            if i != actions.shape[0] - 1:
                return -(i + 2)  # actions after the end of the game
            break
    return rows
