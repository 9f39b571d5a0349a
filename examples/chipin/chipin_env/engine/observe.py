"""The compiled observation (layout: chipin_env/observation.py). It never reads the `stack`
segment (deck order, removed cards) nor the RNG."""

from __future__ import annotations

from core.jit import jit

from chipin_env.layout import (
    MAXP,
    S_ACTOR,
    S_BURIED,
    S_BURIES,
    S_CHIPS,
    S_FACE,
    S_LEFT,
    S_NP,
    S_OWNER,
    S_POT,
    S_SCORE,
)
from chipin_env.observation import (
    CARD_BLOCK,
    MIN_PLAYERS,
    O_CARDS,
    O_FACE,
    O_FACE_VALUE,
    O_LEFT,
    O_MINE,
    O_NP,
    O_POT,
    O_SEATS,
    OBS_SIZE,
    SCALE,
    SEAT_BLOCK,
)
from chipin_env.tables import N_CARDS, T_CARD_LOW


@jit(alloc=False)
def observe_into(s, T, me, out):
    """out = seat `me`'s observation, seats relative to `me`."""
    for i in range(OBS_SIZE):
        out[i] = 0.0
    n = s[S_NP]
    out[O_MINE] = 1.0 if s[S_ACTOR] == me else 0.0
    out[O_NP + n - MIN_PLAYERS] = 1.0
    face = s[S_FACE]
    if face >= 0:
        out[O_FACE + face] = 1.0
        out[O_FACE_VALUE] = (T[T_CARD_LOW] + face) / N_CARDS
    out[O_POT] = s[S_POT] / SCALE
    out[O_LEFT] = s[S_LEFT] / N_CARDS
    for i in range(N_CARDS):
        o = s[S_OWNER + i]
        if o >= 0:
            out[O_CARDS + i * CARD_BLOCK + (o - me + n) % n] = 1.0
        if s[S_BURIED + i]:
            out[O_CARDS + i * CARD_BLOCK + MAXP] = 1.0
    for r in range(n):
        p = (me + r) % n
        b = O_SEATS + r * SEAT_BLOCK
        out[b] = 1.0
        out[b + 1] = s[S_CHIPS + p] / SCALE
        out[b + 2] = s[S_SCORE + p] / SCALE
        out[b + 3] = s[S_BURIES + p]
        held = 0
        for i in range(N_CARDS):
            if s[S_OWNER + i] == p:
                held += 1
        out[b + 4] = held / SCALE
