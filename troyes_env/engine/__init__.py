"""Compiled Troyes engine (numba), split by area: board helpers, dice groups, round flow."""

from troyes_env.engine.flow import (  # noqa: F401
    WORK_SIZE,
    init_state,
    legal_mask_into,
    step_inplace,
)
from troyes_env.engine.observe import observe_into  # noqa: F401
