"""The one error class every game raises for a rejected action (DESIGN D5)."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the state it was applied to is unchanged."""

    def __init__(self, action: int, description: str, phase: str, why: str):
        self.action = int(action)
        self.description = description
        self.phase = phase
        self.why = why
        super().__init__(f"illegal action {action} ({description}) in phase {phase}: {why}")


class StateFormatError(ValueError):
    """A state array or serialised state that is corrupt, foreign or of another version."""
