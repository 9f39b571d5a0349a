"""Chip In's numbers as the engine reads them (the rules: docs/games/chipin.md): the rules
tables (`build_tables`: rules data -> the flat read-only int64 table every compiled function
takes as an argument, so replaced rules data needs no recompile; `T_*` offsets into it), the
state layout (one flat int64 array sized for 4 players; cards are indices 0..N_CARDS-1, value
CARD_LOW + index; only the `stack` segment, the deck order and the removed cards, and the RNG
are hidden), the action space and the seat-relative observation layout (built by
`engine.rules.r_observe`, which never reads the hidden segments). The number of cards is a shape:
changing CARD_LOW / CARD_HIGH needs a layout version bump.
"""

from __future__ import annotations

import types

import numpy as np

from core import tables as core_tables
from core.actions import ActionSpace
from core.layout import Layout
from core.tables import tables_hash

from chipin_env import rules_data as _default

# the table: CARD_LOW, the number of cards, REMOVED_CARDS, the starting chips by player count
# (0-4), BURIES_PER_PLAYER
T_CARD_LOW, T_N_CARDS, T_REMOVED, T_CHIPS, T_BURIES = 0, 1, 2, 3, 8
N_CARDS = _default.CARD_HIGH - _default.CARD_LOW + 1  # a shape: the card segments' length


def build_tables(rd=_default) -> np.ndarray:
    """The flat table for rules data `rd` (read-only); refuses data of another shape."""
    chips = [0, 0] + [rd.STARTING_CHIPS[n] for n in (2, 3, 4)]  # T[T_CHIPS + n]: n players
    n_cards = rd.CARD_HIGH - rd.CARD_LOW + 1
    T = np.array(
        [rd.CARD_LOW, n_cards, rd.REMOVED_CARDS, *chips, rd.BURIES_PER_PLAYER], dtype=np.int64
    )
    if n_cards != N_CARDS:
        raise ValueError(
            f"rules data has {n_cards} cards, the layout needs {N_CARDS} "
            "(a change of the card range needs a layout version bump)"
        )
    if not 0 <= T[T_REMOVED] < N_CARDS:
        raise ValueError(f"REMOVED_CARDS must be in 0..{N_CARDS - 1}")
    T.flags.writeable = False
    return T


def rules_with(**changes) -> types.SimpleNamespace:
    """A copy of the default rules data with some names replaced (for studies and tests)."""
    return core_tables.rules_with(_default, **changes)


TABLES = build_tables()
RULES_DATA_HASH = tables_hash(TABLES)


GAME_ID = 0x434850  # "CHP"
VERSION = 1
MAXP = 4

PH_TURN = 0  # the player to act takes the face-up card, pays a chip onto it or buries it
PH_OVER = 1
PHASE_NAMES = ("turn", "game over")

# where a score comes from (balance studies): the `score_src` segment's second axis. A score is
# chips minus the lowest card of each run of consecutive cards held; every change of it is
# credited to one source when it happens (board.add_score), so each row sums to the score.
SCORE_SOURCES = (
    "chips",  # chips held: paid onto cards (-1 each), won with a taken card (+ its pot)
    "cards",  # minus the lowest card of each run of consecutive cards held
)
N_SCORE_SOURCES = len(SCORE_SOURCES)
SRC_CHIPS, SRC_CARDS = 0, 1

BIG = 1 << 40
P, C = MAXP, N_CARDS
SEGMENTS = [
    # name, shape, lo, hi, hidden, encoding
    ("game_id", (), GAME_ID, GAME_ID, False, "constant tag of a Chip In state"),
    ("version", (), VERSION, VERSION, False, "layout version"),
    ("n_players", (), 2, MAXP, False, "number of players"),
    ("rng", (4,), 0, 0xFFFFFFFF, True, "xoshiro128** words (core.rng); used by setup only"),
    ("round", (), 0, C, False, "cards turned face up so far (the face-up card's number, 1-based)"),
    ("phase", (), 0, 1, False, "PH_TURN, PH_OVER"),
    ("actor", (), -1, MAXP - 1, False, "seat that must decide now; -1 when over"),
    ("face_up", (), -1, C - 1, False, "the face-up card's index; -1 once the game is over"),
    ("pot", (), 0, BIG, False, "chips lying on the face-up card"),
    ("deck_left", (), 0, C, False, "cards still face down in the deck"),
    # stack[0:deck_left] the deck, the next card last; stack[deck_left:deck_size] -1 (drawn);
    # stack[deck_size:] the removed cards (deck_size = N_CARDS - REMOVED_CARDS)
    ("stack", (C,), -1, C - 1, True, "the face-down deck in draw order, then the removed cards"),
    ("owner", (C,), -1, MAXP - 1, False, "seat holding each card, -1 none"),
    ("buried", (C,), 0, 1, False, "1 if the card was buried (out of the game, face up)"),
    ("chips", (P,), 0, BIG, False, "chips held, per seat"),
    ("buries_left", (P,), 0, BIG, False, "buries a seat may still use"),
    ("score", (P,), -BIG, BIG, False, "chips minus the lowest card of each run held"),
    ("game_over", (), 0, 1, False, "terminal"),
    # not observed (the observation has the score); rows sum to `score` (checks.py)
    ("score_src", (P, N_SCORE_SOURCES), -BIG, BIG, False, "score by SCORE_SOURCES, per seat"),
]
LAYOUT = Layout(
    "chipin", VERSION, SEGMENTS, per_seat=("chips", "buries_left", "score", "score_src")
)
STATE_SIZE = LAYOUT.size
_o = LAYOUT.offset
S_GAME_ID, S_VERSION, S_NP, S_RNG = _o("game_id"), _o("version"), _o("n_players"), _o("rng")
S_ROUND, S_PHASE, S_ACTOR = _o("round"), _o("phase"), _o("actor")
S_FACE, S_POT, S_LEFT, S_STACK = _o("face_up"), _o("pot"), _o("deck_left"), _o("stack")
S_OWNER, S_BURIED, S_CHIPS, S_BURIES = _o("owner"), _o("buried"), _o("chips"), _o("buries_left")
S_SCORE, S_OVER, S_SCORE_SRC = _o("score"), _o("game_over"), _o("score_src")


ACTIONS_VERSION = 1  # the action space's own version (VERSION is the state layout's)
ACTIONS = ActionSpace(
    "chipin",
    ACTIONS_VERSION,
    [
        ("take", (), "take the face-up card and the chips on it; the taker then decides again"),
        ("pay", (), "pay one chip onto the face-up card (needs a chip); the next player decides"),
        ("bury", (), "bury the face-up card, its chips roll onto the next (once; not the last)"),
    ],
)
NUM_ACTIONS = ACTIONS.n
A_TAKE = ACTIONS.offset("take")
A_PAY = ACTIONS.offset("pay")
A_BURY = ACTIONS.offset("bury")


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
OBS_OFFSETS = {n: sum(k for _, k in OBS_SEGMENTS[:i]) for i, (n, _) in enumerate(OBS_SEGMENTS)}
O_MINE, O_NP, O_FACE, O_FACE_VALUE, O_POT, O_LEFT, O_CARDS, O_SEATS = OBS_OFFSETS.values()
