"""Chip In observation layout (DESIGN D6): a float32 vector, seat-relative (the observer first,
then the others in turn order). Built by the compiled `engine.observe.observe_into`.

Hidden, and never read by the observation: the order of the face-down deck and which cards were
removed at setup (the `stack` segment), and the RNG words. Everything else is public: the
face-up card and its chips, how many cards are left, every card taken or buried and by whom,
every player's chips, score and buries left.
"""

from __future__ import annotations

import numpy as np

from chipin_env.layout import MAXP
from chipin_env.tables import N_CARDS

MIN_PLAYERS = 2
SCALE = 10.0  # chips, pot and scores are divided by this
CARD_BLOCK = MAXP + 1  # per card: held by relative seat one-hot, buried
SEAT_BLOCK = 5  # per relative seat: present, chips, score, buries left, cards held

OBS_SEGMENTS = [
    ("my_decision", 1),
    ("n_players", MAXP - MIN_PLAYERS + 1),
    ("face_up", N_CARDS),  # one-hot of the face-up card (all 0 once over)
    ("face_value", 1),  # its value / N_CARDS
    ("pot", 1),  # chips on it / SCALE
    ("deck_left", 1),  # face-down cards left / N_CARDS
    ("cards", N_CARDS * CARD_BLOCK),
    ("seats", MAXP * SEAT_BLOCK),
]
OBS_SIZE = sum(n for _, n in OBS_SEGMENTS)
_off = 0
OBS_OFFSETS = {}
for _name, _n in OBS_SEGMENTS:
    OBS_OFFSETS[_name] = _off
    _off += _n
O_MINE, O_NP, O_FACE, O_FACE_VALUE = (
    OBS_OFFSETS["my_decision"],
    OBS_OFFSETS["n_players"],
    OBS_OFFSETS["face_up"],
    OBS_OFFSETS["face_value"],
)
O_POT, O_LEFT, O_CARDS, O_SEATS = (
    OBS_OFFSETS["pot"],
    OBS_OFFSETS["deck_left"],
    OBS_OFFSETS["cards"],
    OBS_OFFSETS["seats"],
)


def empty_obs() -> np.ndarray:
    return np.zeros(OBS_SIZE, dtype=np.float32)
