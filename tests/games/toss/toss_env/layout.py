"""Toss's state layout, action space, observation offsets and tables (the rules: the package
docstring): what the compiled engine and the spec both read."""

from __future__ import annotations

import numpy as np

from core.actions import ActionSpace
from core.layout import Layout

from toss_env import rules_data

GAME_ID, VERSION, MAXP = 0x544F53, 1, 4  # "TOS"
PH_TURN, PH_OVER = 0, 1
SEGMENTS = [
    # name, shape, lo, hi, hidden, encoding
    ("game_id", (), GAME_ID, GAME_ID, False, "constant tag of a Toss state"),
    ("version", (), VERSION, VERSION, False, "layout version"),
    ("n_players", (), 2, MAXP, False, "number of players"),
    ("rng", (4,), 0, 0xFFFFFFFF, True, "xoshiro128** words (core.rng): the coins to come"),
    ("phase", (), PH_TURN, PH_OVER, False, "PH_TURN, PH_OVER"),
    ("actor", (), -1, MAXP - 1, False, "seat that must decide now; -1 when over"),
    ("decisions", (), 0, 2 * MAXP * 8, False, "decisions made so far"),
    ("coin", (), 0, 1, False, "the coin lying face up for the next toss: 1 heads, 0 tails"),
    ("score", (MAXP,), 0, 1 << 20, False, "points per seat"),
    ("game_over", (), 0, 1, False, "terminal"),
]
LAYOUT = Layout("toss", VERSION, SEGMENTS, per_seat=("score",))
STATE_SIZE = LAYOUT.size
_o = LAYOUT.offset
S_GAME_ID, S_VERSION, S_NP, S_RNG = _o("game_id"), _o("version"), _o("n_players"), _o("rng")
S_PHASE, S_ACTOR, S_DECISIONS, S_COIN = _o("phase"), _o("actor"), _o("decisions"), _o("coin")
S_SCORE, S_OVER = _o("score"), _o("game_over")

ACTIONS = ActionSpace(
    "toss",
    VERSION,
    [("keep", (), "score the keep points"), ("toss", (), "toss a coin: heads scores more")],
)
NUM_ACTIONS = ACTIONS.n
A_KEEP, A_TOSS = ACTIONS.offset("keep"), ACTIONS.offset("toss")
# the observation: [to act, own decisions left / DECISIONS_EACH, scores / 8 from the observer on
# (4), the player count one-hot (2, 3, 4), the coin face up]
O_MINE, O_LEFT, O_SCORES, O_NP, O_COIN, OBS_SIZE = 0, 1, 2, 6, 9, 10

T_DECISIONS, T_KEEP, T_HEADS = 0, 1, 2  # offsets into the tables


def build_tables(rd=rules_data) -> np.ndarray:
    """The flat int64 table of rules data `rd` (read-only)."""
    vals = (rd.DECISIONS_EACH, rd.KEEP_POINTS, rd.HEADS_POINTS)
    if not 1 <= vals[0] <= 8 or min(vals[1:]) < 0:
        raise ValueError("DECISIONS_EACH must be in 1..8 and the points >= 0")
    T = np.array(vals, dtype=np.int64)
    T.flags.writeable = False
    return T
