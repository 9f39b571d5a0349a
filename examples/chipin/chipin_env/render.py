"""Words for actions (`describe`) and a text board (`render`)."""

from __future__ import annotations

import numpy as np

from chipin_env.actions import A_BURY, A_PAY, A_TAKE, ACTIONS
from chipin_env.layout import LAYOUT, PHASE_NAMES
from chipin_env.tables import T_CARD_LOW, TABLES


def _value(card: int, T: np.ndarray) -> int:
    return int(T[T_CARD_LOW]) + int(card)


def describe(action: int, state: np.ndarray | None = None, T: np.ndarray = TABLES) -> str:
    """Words for an action; with a state, naming the face-up card and the chips on it."""
    if state is None or LAYOUT.view(state, "face_up")[0] < 0:
        return ACTIONS.decode(action)[0]
    card = _value(LAYOUT.view(state, "face_up")[0], T)
    pot = int(LAYOUT.view(state, "pot")[0])
    if action == A_TAKE:
        return f"take {card} with {pot} chip{'s' * (pot != 1)}"
    if action == A_PAY:
        return f"pay a chip onto {card}"
    assert action == A_BURY
    return f"bury {card} ({pot} chip{'s' * (pot != 1)} roll onto the next card)"


def _runs(cards: list[int]) -> str:
    """Held cards grouped into runs of consecutive values: "5-7 12 20-21"."""
    out, i = [], 0
    while i < len(cards):
        j = i
        while j + 1 < len(cards) and cards[j + 1] == cards[j] + 1:
            j += 1
        out.append(str(cards[i]) if i == j else f"{cards[i]}-{cards[j]}")
        i = j + 1
    return " ".join(out) or "-"


def render(state: np.ndarray, T: np.ndarray = TABLES) -> str:
    """A readable text board."""
    v = lambda k: LAYOUT.view(state, k)  # noqa: E731
    n = int(v("n_players")[0])
    actor = int(v("actor")[0])
    face = int(v("face_up")[0])
    top = f"face up: {_value(face, T)} with {int(v('pot')[0])} chips" if face >= 0 else "over"
    lines = [
        f"Chip In, {n} players | card {int(v('round')[0])} | phase: "
        f"{PHASE_NAMES[int(v('phase')[0])]} | to act: "
        + (f"player_{actor}" if actor >= 0 else "nobody (game over)"),
        f"{top} | deck: {int(v('deck_left')[0])} face down"
        + " | buried: "
        + (" ".join(str(_value(c, T)) for c in np.flatnonzero(v("buried"))) or "-"),
    ]
    owner = v("owner")
    for p in range(n):
        cards = [_value(c, T) for c in np.flatnonzero(owner == p)]
        lines.append(
            f"player_{p}: score {int(v('score')[p])} chips {int(v('chips')[p])} "
            f"buries {int(v('buries_left')[p])} cards {_runs(cards)}"
        )
    return "\n".join(lines)
