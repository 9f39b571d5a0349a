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


# Status codes returned by every game's compiled step and API entry points (one set for all
# games; the Python wrappers turn them into the exceptions above).
OK = 0  # done
ERR_ILLEGAL = 1  # the action is not legal now (the state is untouched)
ERR_RANGE = 2  # the action id is outside 0..NUM_ACTIONS-1
ERR_OVER = 3  # the game is over: no action is legal
ERR_NO_LEGAL = 4  # an engine bug: no legal action before the end (never expected)
API_BAD_STATE = -1  # not a state of this game and layout version (StateFormatError)
API_BAD_PLAYER = -2  # observe: no such seat (ValueError)
# legal_mask / step: a state that is not over yet has no legal action (D5 says this never
# happens to a state the engine made: a tampered or corrupt array; StateFormatError)
API_INCONSISTENT = -3
