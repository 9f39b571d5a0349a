"""Troyes observation layout (DESIGN D6): float32, seat-relative, per observer.

Relative seat r = (seat - observer) mod P: 0 is the observer, 1..3 the next players clockwise;
"grey" is the neutral colour. Counts are scaled by the divisor in the doc. The observation never
holds another player's characters, the event deck order, face-down Activity cards or the RNG.
"""

from __future__ import annotations

# (name, size, doc)
OBS_BLOCKS = [
    ("n_players", 3, "one-hot 2 / 3 / 4 players"),
    ("round", 7, "one-hot round 0..6"),
    ("phase", 11, "one-hot PH_* decision"),
    ("start", 4, "one-hot relative seat of the start player"),
    ("actor", 4, "one-hot relative seat to act (all 0 when over)"),
    ("deck_drawn", 3, "event cards drawn from the Y / W / R decks, /8"),
    ("grey_supply", 1, "grey citizens in the general supply, /8"),
    (
        "players",
        40,
        "per relative seat x 10: deniers/20, influence/20, VP/20, supply/12, "
        "owned/12, passed, district deniers/10, events kept/5, cubes on the board/20, seat exists",
    ),
    ("own_chars", 6, "the observer's own Character cards (multi-hot)"),
    ("spaces", 108, "18 spaces x one-hot (empty, rel 0..3, grey)"),
    ("lying", 15, "3 buildings x (rel 0..3, grey) lying citizens"),
    ("act_cards", 36, "9 positions x (revealed, one-hot which of the 3 cards of colour and level)"),
    ("supervisors", 108, "9 positions x rel 0..3 x (slot 1, slot 2, illustration)"),
    ("act_cubes", 36, "9 positions x rel 0..3 Activity cubes, /5"),
    ("cathedral", 90, "3 levels x 6 values x one-hot (empty, rel 0..3)"),
    (
        "event_row",
        546,
        "13 row positions x (one-hot card 17 + 5 flags x one-hot (empty, rel 0..3))",
    ),
    ("kept", 85, "17 event cards x (kept by rel 0..3, left the game)"),
    ("dice", 90, "relative district 0..3 + neutral x colour x value, count/6"),
    ("black", 6, "black dice to counter per value, /6"),
    ("event_step", 2, "event effect in progress: row position/13, items left/3"),
    ("counter", 26, "counter turn: black chosen/6 (6), own dice chosen/6 (18), last id/18, open"),
    (
        "pending",
        123,
        "target kind one-hot 6, target index one-hot 13, cube one-hot (none + 9), "
        "chosen dice per relative type (90), placement value/6, hiring, N/10, done/10",
    ),
    ("flip", 18, "own dice chosen to flip, /3"),
]

OBS_OFFSETS = {}
_off = 0
for _name, _size, _doc in OBS_BLOCKS:
    OBS_OFFSETS[_name] = _off
    _off += _size
OBS_SIZE = _off

OB_NP = OBS_OFFSETS["n_players"]
OB_ROUND = OBS_OFFSETS["round"]
OB_PHASE = OBS_OFFSETS["phase"]
OB_START = OBS_OFFSETS["start"]
OB_ACTOR = OBS_OFFSETS["actor"]
OB_DRAWN = OBS_OFFSETS["deck_drawn"]
OB_GREY = OBS_OFFSETS["grey_supply"]
OB_PLAYERS = OBS_OFFSETS["players"]
OB_CHARS = OBS_OFFSETS["own_chars"]
OB_SPACES = OBS_OFFSETS["spaces"]
OB_LYING = OBS_OFFSETS["lying"]
OB_ACARDS = OBS_OFFSETS["act_cards"]
OB_SUPS = OBS_OFFSETS["supervisors"]
OB_ACUBES = OBS_OFFSETS["act_cubes"]
OB_CATH = OBS_OFFSETS["cathedral"]
OB_ROW = OBS_OFFSETS["event_row"]
OB_KEPT = OBS_OFFSETS["kept"]
OB_DICE = OBS_OFFSETS["dice"]
OB_BLACK = OBS_OFFSETS["black"]
OB_EVSTEP = OBS_OFFSETS["event_step"]
OB_COUNTER = OBS_OFFSETS["counter"]
OB_PENDING = OBS_OFFSETS["pending"]
OB_FLIP = OBS_OFFSETS["flip"]
