"""Pieces shared by every game: layouts, in-state RNG, action codec, errors, AEC base env."""

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
