"""The step driver, written once for every game (DESIGN D5, D14): a legal action is applied, then
every following decision that has a single legal option, until a real decision or the end.

This module is a template: core.codegen renders it for each game, imported as
`<game>_env.engine.step`, with the marked rules import below pointed at the game's
`engine/rules.py` (the contract: core/game_contract.py; why a module per game:
core/codegen.py). Status codes are core.errors'; masks are bool arrays of NUM_ACTIONS and `work`
the game's int64 scratch; nothing is allocated per step (unless the game's ALLOCATES says its
rules do).
"""

from __future__ import annotations

from core.agents import pick_legal
from core.errors import ERR_ILLEGAL, ERR_NO_LEGAL, ERR_OVER, ERR_RANGE, OK
from core.game_contract import (
    ALLOCATES,
    NUM_ACTIONS,
    r_apply,
    r_init,
    r_legal,
    r_mask,
    r_over,
)
from core.jit import jit
from core.maskbits import first_set


@jit(alloc=ALLOCATES)
def settle(s, T, mask, work):
    """Apply every decision that has a single legal option, until a real decision (OK; `mask`
    holds its legal mask) or the end (OK; `mask` is not written once over). ERR_NO_LEGAL for a
    state that is not over and has no legal action, which the rules never make (D5)."""
    while not r_over(s):
        n = r_mask(s, T, mask, work)
        if n == 0:
            return ERR_NO_LEGAL
        if n > 1:
            return OK
        r_apply(s, T, first_set(mask, NUM_ACTIONS), work)
    return OK


@jit(alloc=ALLOCATES)
def step_inplace(s, T, a, mask, work):
    """Apply action a in place if legal, then settle; else return an error code (ERR_OVER,
    ERR_RANGE, ERR_ILLEGAL) and leave s untouched. `mask` is a caller-owned scratch buffer; on
    success it holds the new state's legal mask (not written once the game is over)."""
    if r_over(s):
        return ERR_OVER
    if a < 0 or a >= NUM_ACTIONS:
        return ERR_RANGE
    if not r_legal(s, T, a, mask, work):
        return ERR_ILLEGAL
    r_apply(s, T, a, work)
    return settle(s, T, mask, work)


@jit(alloc=ALLOCATES, inline=True)
def step_trusted(s, T, a, mask, work):
    """step_inplace for a caller that holds s's legal mask in `mask` (settle leaves it there after
    every step, so the batch loops and the compiled random loops always have it): legality is
    mask[a], no second mask computation. Same codes and the same next state."""
    if r_over(s):  # settle builds no mask once over: a stale one is never read
        return ERR_OVER
    if a < 0 or a >= NUM_ACTIONS:
        return ERR_RANGE
    if not mask[a]:
        return ERR_ILLEGAL
    r_apply(s, T, a, work)
    return settle(s, T, mask, work)


@jit
def play_random_games(T, n_players, n_games, seed, s, mask, rng_state, work):
    """Play `n_games` seeded random games in the caller's buffers (game g: seed words
    (seed, g, 0), seat 0 first), every decision drawn by core.agents.pick_legal from the
    `rng_state` words, as RandomAgent draws; returns the decisions played, or -1 on an engine
    error. The benchmarks' fully compiled loop: nothing is allocated (`work`: the game's
    scratch, max(1, WORK_SIZE) entries)."""
    total = 0
    for g in range(n_games):
        r_init(s, T, n_players, seed, g, 0, 0)
        if settle(s, T, mask, work) != OK:  # mask: the first decision's legal mask
            return -1
        while not r_over(s):
            a = pick_legal(mask, rng_state)
            if a < 0 or step_trusted(s, T, a, mask, work) != OK:  # mask: settle's, of s
                return -1
            total += 1
    return total
