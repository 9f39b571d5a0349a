"""What core.game needs to know about Toss (DESIGN D10): its words, invariants and spec."""

from __future__ import annotations

import os

import numpy as np

from core.game import GameSpec
from core.tables import tables_hash

from toss_env import rules_data
from toss_env.engine import api, contract
from toss_env.layout import (
    ACTIONS,
    LAYOUT,
    MAXP,
    PH_OVER,
    T_DECISIONS,
    T_HEADS,
    T_KEEP,
    build_tables,
)


def describe(action: int, state=None, T=None) -> str:
    return ACTIONS.decode(action)[0]


def chance(before: np.ndarray, action: int, after: np.ndarray, T=None) -> list[str]:
    """The coin a decision tossed for the next one (public); none after the last."""
    if LAYOUT.view(after, "game_over")[0]:
        return []
    return ["the next coin lies " + ("heads" if LAYOUT.view(after, "coin")[0] else "tails")]


def render(state: np.ndarray, T=None) -> str:
    v = lambda k: LAYOUT.view(state, k)  # noqa: E731
    n, actor = int(v("n_players")[0]), int(v("actor")[0])
    scores = " ".join(f"player_{p}: {int(v('score')[p])}" for p in range(n))
    who = f"player_{actor}" if actor >= 0 else "nobody (game over)"
    coin = "heads" if v("coin")[0] else "tails"
    made = int(v("decisions")[0])
    return f"Toss, {n} players | decisions {made} | coin: {coin} | to act: {who}\n{scores}"


def invariant_problems(state: np.ndarray, T: np.ndarray) -> list[str]:
    """Broken bounds and laws; empty when the state is consistent."""
    v = lambda k: LAYOUT.view(state, k)  # noqa: E731
    n, made, over = int(v("n_players")[0]), int(v("decisions")[0]), int(v("game_over")[0])
    total = n * int(T[T_DECISIONS])
    bad = []
    if made > total:
        bad.append(f"{made} decisions made, a game has {total}")
    if over != (made == total) or over != (v("phase")[0] == PH_OVER):
        bad.append("game_over, the phase and the decisions made disagree")
    if (v("actor")[0] == -1) != bool(over) or v("actor")[0] >= n:
        bad.append("no seat (or an absent seat) to act before the end, or one after it")
    most = max(int(T[T_KEEP]), int(T[T_HEADS]))
    for p in range(MAXP):
        own = (made + n - 1 - p) // n if p < n else 0  # an upper bound on p's decisions so far
        if not 0 <= v("score")[p] <= most * own:
            bad.append(f"seat {p}: score {int(v('score')[p])} out of reach")
    return bad


# TOSS_PLAYER_COUNTS=3,4 (or 2, ...) narrows the counts Toss is played at, so that the generic
# tests can be run on a game for other counts than 2-4 (tests/conftest.py: --game toss)
COUNTS = tuple(int(x) for x in os.environ.get("TOSS_PLAYER_COUNTS", "2,3,4").split(","))

SPEC = GameSpec(
    name="toss",
    player_counts=COUNTS,
    layout=LAYOUT,
    actions=ACTIONS,
    contract=contract,  # the sizes, the score (k_keys), the game id; no safety cap
    phase_names=("turn", "game over"),
    margin_scale=rules_data.MARGIN_SCALE,
    rules_data=rules_data,
    build_tables=build_tables,
    tables_hash=tables_hash,
    compile_entry_points=api.compile_entry_points,
    describe=describe,
    chance=chance,
    render=render,
    invariant_problems=invariant_problems,
)
