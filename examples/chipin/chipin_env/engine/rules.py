"""Chip In's rules contract (core/rules_contract.py): the names the step driver
(`engine.step`) and API entry points (`engine.api`), rendered by core.codegen, call.
Nothing here changes the rules; the adapters are inlined into the driver, so it calls the rules
code directly."""

from __future__ import annotations

from core.jit import jit

from chipin_env.actions import NUM_ACTIONS
from chipin_env.engine.apply import apply_action
from chipin_env.engine.legal import legal_mask_into
from chipin_env.engine.observe import observe_into
from chipin_env.engine.setup import init_state
from chipin_env.layout import GAME_ID, S_GAME_ID, S_NP, S_OVER, S_VERSION, STATE_SIZE, VERSION

__all__ = [
    "STATE_SIZE",
    "NUM_ACTIONS",
    "S_VERSION",
    "VERSION",
    "S_GAME_ID",
    "GAME_ID",
    "S_NP",
    "ALLOCATES",
    "MASK_WRITES_STATE",
    "r_init",
    "r_over",
    "r_mask",
    "r_legal",
    "r_apply",
    "r_observe",
]

ALLOCATES = False  # the rules code never allocates (jit(alloc=False) throughout)
MASK_WRITES_STATE = False  # legal_mask_into only reads the state


@jit(inline=True)
def r_init(s, T, n, a, b, c, start):
    init_state(s, T, n, a, b, c, start)


@jit(inline=True)
def r_over(s):
    return s[S_OVER] != 0


@jit(inline=True)
def r_mask(s, T, mask, work):
    """Chip In needs no scratch beyond the mask."""
    return legal_mask_into(s, T, mask)


@jit(inline=True)
def r_legal(s, T, a, mask, work):
    legal_mask_into(s, T, mask)
    return mask[a]


@jit(inline=True)
def r_apply(s, T, a, work):
    apply_action(s, T, a)


@jit(inline=True)
def r_observe(s, T, p, out):
    observe_into(s, T, p, out)
