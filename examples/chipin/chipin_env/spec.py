"""What core.game needs to know about Chip In (DESIGN D10): words for actions and a text board,
what a player cannot see (resampled for search agents and for the test that observations leak
nothing: the deck order and the removed cards, redrawn together by the compiled
`k_determinize` on a copy), the accounting checks of a state (plain numpy; `validate` and the
conformance checker run them), and the spec. The public API is core.game.Game."""

from __future__ import annotations

import numpy as np

from core.game import GameSpec
from core.rng import split_seed

from chipin_env import rules_data
from chipin_env.engine import api, contract
from chipin_env.engine.contract import k_determinize
from chipin_env.layout import *  # noqa: F403  the layout's offsets, the tables' and the actions'


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


def chance(before: np.ndarray, action: int, after: np.ndarray, T: np.ndarray = TABLES) -> list[str]:
    """The card a step turned face up from the deck (public), if any."""
    face = int(LAYOUT.view(after, "face_up")[0])
    turned = face >= 0 and int(LAYOUT.view(after, "round")[0]) > LAYOUT.view(before, "round")[0]
    return [f"{_value(face, T)} turned face up"] if turned else []


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


def determinize(state: np.ndarray, observer: int, seed: int, T: np.ndarray) -> np.ndarray:
    """A copy of `state` with the unseen cards reshuffled into the deck and the removed pile."""
    s = np.array(state, dtype=np.int64, order="C")
    a, b, c = split_seed(seed)
    k_determinize(s, T, int(observer), a, b, c, np.zeros(max(contract.WORK_SIZE, 1), np.int64))
    return s


def perturb_hidden(state: np.ndarray, seed: int, T: np.ndarray) -> np.ndarray:
    return determinize(state, -1, seed, T)


def _penalty(owner: np.ndarray, p: int, low: int) -> int:
    held = owner == p
    starts = held & ~np.concatenate(([False], held[:-1]))
    return int((np.flatnonzero(starts) + low).sum())


def invariant_problems(state: np.ndarray, T: np.ndarray) -> list[str]:
    """Broken conservation laws and bounds; empty when the state is consistent."""
    v = lambda k: LAYOUT.view(state, k)  # noqa: E731
    bad = []
    n = int(v("n_players")[0])
    owner, buried, stack = v("owner"), v("buried"), v("stack")
    chips, score, src = v("chips"), v("score"), v("score_src")
    left, face, over = int(v("deck_left")[0]), int(v("face_up")[0]), int(v("game_over")[0])
    size = N_CARDS - int(T[T_REMOVED])
    if not 0 <= left <= size:
        return [f"deck_left {left} outside 0..{size}"]
    # every card is in exactly one place: deck, removed, face up, held or buried
    where = np.zeros(N_CARDS, dtype=np.int64)
    for c in (*stack[:left], *stack[size:]):
        if c < 0:
            bad.append("an empty slot in the deck or among the removed cards")
        else:
            where[c] += 1
    if np.any(stack[left:size] != -1):
        bad.append("a drawn slot of the stack is not empty")
    if face >= 0:
        where[face] += 1
    where += (owner >= 0).astype(np.int64) + buried
    if np.any(where != 1):
        bad.append(f"cards not in exactly one place: {np.flatnonzero(where != 1).tolist()}")
    if np.any(owner >= n) or np.any(owner[buried == 1] >= 0):
        bad.append("a card held by an absent seat, or held and buried")
    # chips are conserved: hands plus the pot
    if int(chips[:n].sum()) + int(v("pot")[0]) != n * int(T[T_CHIPS + n]):
        bad.append("chips not conserved")
    if np.any(chips[n:] != 0) or np.any(score[n:] != 0) or np.any(src[n:] != 0):
        bad.append("an absent seat holds chips or points")
    if np.any(v("buries_left")[:n] > T[T_BURIES]):
        bad.append("more buries left than dealt")
    if int(v("buries_left")[:n].sum()) + int(buried.sum()) != n * int(T[T_BURIES]):
        bad.append("buries not conserved")
    low = int(T[T_CARD_LOW])
    for p in range(n):
        want = int(chips[p]) - _penalty(owner, p, low)
        if score[p] != want:
            bad.append(f"seat {p}: score {score[p]}, chips minus runs give {want}")
        if src[p].sum() != score[p]:
            bad.append(f"seat {p}: points by source do not add up to the score")
    if over != (v("phase")[0] == PH_OVER) or (over and (face != -1 or left != 0)):
        bad.append("game_over, phase and the face-up card disagree")
    if not over and (face < 0 or not 0 <= v("actor")[0] < n):
        bad.append("no face-up card or no player to act before the end")
    taken = int((owner >= 0).sum()) + int(buried.sum())
    if int(v("round")[0]) != taken + (0 if over else 1):
        bad.append("round does not count the cards turned face up")
    return bad


SPEC = GameSpec(
    name="chipin",
    player_counts=(2, 3, 4),
    layout=LAYOUT,
    actions=ACTIONS,
    contract=contract,  # sizes, keys (score, then chips left), game id; no safety cap (README)
    phase_names=PHASE_NAMES,
    margin_scale=rules_data.MARGIN_SCALE,
    rules_data=rules_data,
    build_tables=build_tables,
    tables_hash=tables_hash,
    compile_entry_points=api.compile_entry_points,
    describe=describe,
    chance=chance,
    render=render,
    invariant_problems=invariant_problems,
    determinize=determinize,  # the deck order and the removed cards
    perturb_hidden=perturb_hidden,
    options=("start_player",),
    tiebreak_labels=("chips",),  # the tie-break: chips left
    stats="chipin_env.stats",  # what a balance study reads beyond the scores
)
