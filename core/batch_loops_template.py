"""Template of the batch loops: the generic numba loops of core.batch (DESIGN D8), written once
for any game's kernels (core/game_contract.py).

Not used at run time. core.codegen renders it for each game, imported as
`<game>_env.engine.batch_loops`, with this docstring replaced and the marked kernels import below
pointed at the game's kernels module (why a module per game: core/codegen.py).
"""

from numba import prange

from core.agents import pick_legal
from core.batch import returns_into

# CONTRACT: core.codegen points this one import at the game's rendered contract.
from core.contract_template import (
    k_actor,
    k_init,
    k_keys,
    k_mask,
    k_observe,
    k_over,
    k_step,
    k_truncated,
)
from core.jit import jit


@jit(parallel=True)
def reset_slots(idx, states, masks, works, T, n, seed_a, games, players, obs, want_obs):
    """New games in the slots idx (slot i's game number games[i], seed words (seed_a, i, k))."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        s = states[i]
        k_init(s, T, n, seed_a, i, games[i], masks[i], works[i])
        players[i] = k_actor(s)
        if want_obs:
            k_observe(s, T, players[i], obs[i])


@jit
def _finish(i, s, T, n, ends, kind, margin_scale):
    rewards, dones, truncs, keys, final_states = ends
    k_keys(s, keys[i])
    returns_into(keys[i], n, kind, margin_scale, rewards[i])
    dones[i] = True
    truncs[i] = k_truncated(s)
    for j in range(s.shape[0]):  # a loop: a slice copy would compile numba's shape-error path
        final_states[i, j] = s[j]


@jit(parallel=True)
def step_slots(idx, actions, T, n, seed_a, slots, obs, codes, ends, settings):
    """Apply actions[i] in each slot i of idx. A game that ends writes rewards (all seats),
    dones, truncs and final_states[i]; with auto_reset the slot starts its next game.

    slots: (states, masks, works, games, players) of the batch; ends: what a game that ends
    writes (rewards, dones, truncs, keys, final_states); settings: (the reward kind code, the
    margin scale, auto_reset, want_obs). codes[i] = the engine's code for slot i's step."""
    states, masks, works, games, players = slots
    rewards, dones, truncs = ends[0], ends[1], ends[2]
    kind, margin_scale, auto_reset, want_obs = settings
    for j in prange(idx.shape[0]):
        i = idx[j]
        s = states[i]
        rewards[i, :] = 0.0
        dones[i] = False
        truncs[i] = False
        code = k_step(s, T, actions[i], masks[i], works[i])
        codes[i] = code
        if code != 0:
            continue
        if k_over(s):
            _finish(i, s, T, n, ends, kind, margin_scale)
            if auto_reset:
                games[i] += 1
                k_init(s, T, n, seed_a, i, games[i], masks[i], works[i])
        players[i] = k_actor(s)
        if want_obs and players[i] >= 0:
            k_observe(s, T, players[i], obs[i])


@jit(parallel=True)
def random_play(idx, n_decisions, states, masks, works, rngs, T, n, seed_a, games, counts):
    """Compiled random play: n_decisions uniform legal decisions per slot (RandomAgent's draw
    from rngs[i]), finished games restarted in place. counts[i] += (decisions, games, errors)."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        s = states[i]
        mask = masks[i]
        work = works[i]
        rng = rngs[i]
        for _ in range(n_decisions):
            a = pick_legal(mask, rng)
            if a < 0 or k_step(s, T, a, mask, work) != 0:
                counts[i, 2] += 1
                break
            counts[i, 0] += 1
            if k_over(s):
                counts[i, 1] += 1
                games[i] += 1
                k_init(s, T, n, seed_a, i, games[i], mask, work)


@jit(parallel=True)
def random_actions(idx, masks, rngs, actions):
    """actions[i] = a uniform legal action of slot i (RandomAgent's draw from rngs[i])."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        actions[i] = pick_legal(masks[i], rngs[i])


@jit(parallel=True)
def observe_slots(idx, states, seats, T, obs):
    """obs[i] = observation of seat seats[i] in states[i], for each slot i of idx."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        k_observe(states[i], T, seats[i], obs[i])


@jit
def over_flags(idx, states, out):
    """out[i] = the game in slot i is over, for each slot i of idx."""
    for j in range(idx.shape[0]):
        i = idx[j]
        out[i] = k_over(states[i])


@jit(parallel=True)
def mask_slots(idx, states, masks, works, T):
    """masks[i] = legal mask of states[i], for each slot i of idx."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        k_mask(states[i], T, masks[i], works[i])
