"""Pieces shared by every game: layouts, in-state RNG, action codec, errors, AEC base env.

Importing core installs the finder that renders each game's repeated engine modules from core's
templates at their first import (core.rendering, core.codegen).
"""

from core import rendering as _rendering
from core.actions import ActionSpace
from core.errors import IllegalActionError, StateFormatError
from core.layout import Layout
from core.returns import RETURN_KINDS, compute_returns

__all__ = [
    "ActionSpace",
    "IllegalActionError",
    "Layout",
    "RETURN_KINDS",
    "StateFormatError",
    "compute_returns",
]

_rendering.install()
