"""The compiled step driver (DESIGN D5): a legal action is applied, then every following
decision that has a single legal option, until a real decision or the end. Codes: core.errors.

A minimal copy of village_env/engine/step.py, to be replaced by the step driver written once in
core."""

from __future__ import annotations

from core.errors import ERR_ILLEGAL, ERR_NO_LEGAL, ERR_RANGE, OK
from core.jit import jit

from chipin_env.engine.apply import apply_action
from chipin_env.engine.legal import legal_mask_into
from chipin_env.layout import S_OVER


@jit
def step_inplace(s, T, a, mask):
    """Apply action a in place if legal (else return ERR_ILLEGAL and leave s untouched), then
    apply every following decision that has a single legal option (DESIGN D5).
    `mask` is a caller-owned bool scratch buffer of NUM_ACTIONS entries."""
    if a < 0 or a >= mask.shape[0]:
        return ERR_RANGE
    n = legal_mask_into(s, T, mask)
    if n == 0 or not mask[a]:
        return ERR_ILLEGAL
    apply_action(s, T, a)
    return settle(s, T, mask)


@jit
def step_trusted(s, T, a, mask):
    """step_inplace for a caller that holds s's legal mask in `mask` (settle leaves it there after
    every step, so the batch loops and the compiled random loop always have it): legality is
    mask[a], no second mask computation. Same codes and the same next state."""
    if a < 0 or a >= mask.shape[0]:
        return ERR_RANGE
    if s[S_OVER] or not mask[a]:  # settle builds no mask once over: a stale one is never read
        return ERR_ILLEGAL
    apply_action(s, T, a)
    return settle(s, T, mask)


@jit
def settle(s, T, mask):
    """Apply forced single-option decisions until a real decision or the end."""
    while s[S_OVER] == 0:
        n = legal_mask_into(s, T, mask)
        if n == 0:
            return ERR_NO_LEGAL
        if n > 1:
            return OK
        for a in range(mask.shape[0]):
            if mask[a]:
                apply_action(s, T, a)
                break
    return OK
