"""Chip In state layout: one flat int64 array (DESIGN D1), sized for 4 players at any count.

Cards are held as indices 0..N_CARDS-1 (card value = CARD_LOW + index, tables.T_CARD_LOW), so two
cards are consecutive in value exactly when their indices are. The `stack` segment is the only
hidden one: the face-down deck in draw order and the cards removed at setup.
"""

from __future__ import annotations

from core.layout import Layout

from chipin_env.tables import N_CARDS

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
LAYOUT = Layout("chipin", VERSION, SEGMENTS)
STATE_SIZE = LAYOUT.size
_o = LAYOUT.offset
S_GAME_ID, S_VERSION, S_NP, S_RNG = _o("game_id"), _o("version"), _o("n_players"), _o("rng")
S_ROUND, S_PHASE, S_ACTOR = _o("round"), _o("phase"), _o("actor")
S_FACE, S_POT, S_LEFT, S_STACK = _o("face_up"), _o("pot"), _o("deck_left"), _o("stack")
S_OWNER, S_BURIED, S_CHIPS, S_BURIES = _o("owner"), _o("buried"), _o("chips"), _o("buries_left")
S_SCORE, S_OVER, S_SCORE_SRC = _o("score"), _o("game_over"), _o("score_src")
