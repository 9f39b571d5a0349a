"""Chip In rules scenarios (docs/games/chipin.md): setup, take, pay, bury, masks, forced takes, the
end and scoring, replaceable rules data, and the conformance checker over every player count."""

from __future__ import annotations

import numpy as np
import pytest
from training.arena.evaluate import evaluate

from core.errors import IllegalActionError
from core.testing import check_game

import chipin_env as g
from chipin_env import layout
from chipin_env.layout import A_BURY, A_PAY, A_TAKE

LOW = 3  # rules_data.CARD_LOW: card value = LOW + index
N_CARDS = layout.N_CARDS
DECK = N_CARDS - 9  # rules_data.REMOVED_CARDS


def v(s, name):
    return g.LAYOUT.view(s, name)


def make_state(
    n=2,
    face=20,
    deck=(10, 11, 12),
    held=None,
    buried=(),
    chips=None,
    pot=0,
    buries=None,
    actor=0,
):
    """A consistent state from the visible facts (card values, not indices): `deck` lists the
    deck's next cards (the next one last); of the cards not named, the 9 highest are the
    removed ones and the others lie face down below `deck`."""
    s = g.new_game(n, 0).copy()
    held = held or {}
    chips = chips if chips is not None else [11] * n
    buries = buries if buries is not None else [1] * n
    idx = lambda c: c - LOW  # noqa: E731
    used = {face, *deck, *held, *buried}
    rest = [c for c in range(LOW, LOW + N_CARDS) if c not in used]
    removed = rest[len(rest) - (N_CARDS - DECK) :]
    deck = (*rest[: len(rest) - len(removed)], *deck)
    st = v(s, "stack")
    st[:] = -1
    st[: len(deck)] = [idx(c) for c in deck]
    st[DECK:] = [idx(c) for c in removed]
    v(s, "deck_left")[0] = len(deck)
    v(s, "face_up")[0] = idx(face)
    v(s, "pot")[0] = pot
    v(s, "owner")[:] = -1
    for c, p in held.items():
        v(s, "owner")[idx(c)] = p
    v(s, "buried")[:] = 0
    for c in buried:
        v(s, "buried")[idx(c)] = 1
    v(s, "chips")[:n] = chips
    v(s, "buries_left")[:n] = buries
    v(s, "actor")[0] = actor
    v(s, "round")[0] = len(held) + len(buried) + 1
    for p in range(n):
        runs = sum(c for c in held if held[c] == p and held.get(c - 1) != p)
        v(s, "score_src")[p] = [chips[p], -runs]
        v(s, "score")[p] = chips[p] - runs
    return g.validate(s)


def test_setup_deals_chips_and_turns_up_the_first_card():
    for n in (2, 3, 4):
        s = g.new_game(n, 7, start_player=n - 1)
        assert (
            v(s, "chips")[:n].tolist() == [11] * n and v(s, "buries_left")[:n].tolist() == [1] * n
        )
        assert v(s, "deck_left")[0] == DECK - 1 and v(s, "round")[0] == 1 and v(s, "pot")[0] == 0
        assert g.current_player(s) == n - 1 and v(s, "face_up")[0] >= 0
        assert g.scores(s).tolist() == [11] * n
        # the removed cards differ from game to game, and nobody holds anything yet
        assert (v(s, "owner") == -1).all()
    assert not np.array_equal(v(g.new_game(3, 1), "stack"), v(g.new_game(3, 2), "stack"))


def test_pay_puts_a_chip_on_the_card_and_passes_the_turn():
    s = make_state(n=3, face=20, pot=2, chips=[11, 10, 10], actor=1)
    t = g.step(s, A_PAY)
    assert v(t, "chips")[:3].tolist() == [11, 9, 10] and v(t, "pot")[0] == 3
    assert g.current_player(t) == 2 and v(t, "face_up")[0] == 20 - LOW
    assert g.score_by_source(t)[1].tolist() == [9, 0]


def test_take_gives_card_and_chips_and_the_taker_goes_on():
    s = make_state(n=2, deck=(10, 11, 12), pot=4, chips=[11, 7], actor=1, held={21: 1, 30: 0})
    t = g.step(s, A_TAKE)
    assert v(t, "owner")[20 - LOW] == 1 and v(t, "chips")[1] == 11 and v(t, "pot")[0] == 0
    assert g.current_player(t) == 1  # the taker decides on the next card
    assert v(t, "face_up")[0] == 12 - LOW and v(t, "deck_left")[0] == v(s, "deck_left")[0] - 1
    assert v(t, "round")[0] == 4
    # 20 joins 21: the run 20-21 counts 20 instead of 21
    assert g.scores(t).tolist() == [11 - 30, 11 - 20]
    assert g.score_by_source(t)[1].tolist() == [11, -20]


@pytest.mark.parametrize(
    "held, penalty", [({}, 20), ({19: 0}, 19), ({21: 0, 22: 0}, 20), ({18: 0}, 18 + 20)]
)
def test_a_run_counts_its_lowest_card_only(held, penalty):
    s = make_state(n=2, face=20, actor=0, held=held, deck=(10,))
    t = g.step(s, A_TAKE)
    assert g.scores(t)[0] == 11 - penalty


def test_bury_rolls_the_chips_onto_the_next_card():
    s = make_state(n=2, face=20, deck=(10, 11, 12), pot=3, chips=[11, 8], actor=0)
    t = g.step(s, A_BURY)
    assert v(t, "buried")[20 - LOW] == 1 and v(t, "buries_left")[:2].tolist() == [0, 1]
    assert v(t, "face_up")[0] == 12 - LOW and v(t, "pot")[0] == 3 and g.current_player(t) == 1
    assert g.scores(t).tolist() == [11, 8]


def test_masks_pay_needs_a_chip_bury_needs_one_left_and_a_next_card():
    s = make_state(n=2, chips=[0, 22], actor=0)
    assert g.legal_mask(s).tolist() == [True, False, True]
    s = make_state(n=2, buries=[0, 1], buried=(13,), deck=(10, 11), actor=0)
    assert g.legal_mask(s).tolist() == [True, True, False]
    with pytest.raises(IllegalActionError, match="takes only take, pay"):
        g.step(s, A_BURY)
    held = {c: i % 2 for i, c in enumerate(range(LOW, LOW + DECK - 1))}  # the last card
    s = make_state(n=2, face=LOW + DECK - 1, deck=(), held=held, actor=0)
    assert g.legal_mask(s).tolist() == [True, True, False]


def test_a_single_option_is_taken_automatically():
    """Seat 1 has no chip and no bury: after seat 0 pays, seat 1's take happens at once, and it
    goes on taking while the deck lasts and it has nothing else."""
    s = make_state(n=2, deck=(10, 11, 12), chips=[22, 0], buries=[0, 0], buried=(30, 31))
    t = g.step(s, A_PAY)
    # seat 1 took 20 (with the chip), then 12 came up: it now has a chip, so it decides
    assert v(t, "owner")[20 - LOW] == 1 and v(t, "chips")[:2].tolist() == [21, 1]
    assert g.current_player(t) == 1 and v(t, "face_up")[0] == 12 - LOW


def test_the_last_take_ends_the_game_and_ties_go_to_more_chips():
    last = LOW + DECK - 1  # 26, the deck's last card in these states
    # seat 0 holds the odd cards 3..25, seat 1 the even ones 4..24 and takes 26: no runs
    held = {c: (c - LOW) % 2 for c in range(LOW, last)}
    s = make_state(n=2, face=last, deck=(), held=held, actor=1)
    t = g.step(s, A_TAKE)
    assert g.is_terminal(t) and g.current_player(t) == -1 and v(t, "face_up")[0] == -1
    want = [11 - sum(range(3, 26, 2)), 11 - sum(range(4, 27, 2))]
    assert g.scores(t).tolist() == want and g.returns(t).tolist() == [1.0, -1.0]
    assert g.check_invariants(t) == []
    # seat 0 holds the run 3..14 (counts 3), seat 1 the run 15..25 and takes 26 with 2 chips
    # (counts 15): both score 2, seat 1 has more chips and wins
    held = {c: int(c >= 15) for c in range(LOW, last)}
    s = make_state(n=2, face=last, deck=(), held=held, chips=[5, 15], pot=2, actor=1)
    t = g.step(s, A_TAKE)
    assert g.scores(t).tolist() == [2, 2] and g.tiebreaks(t)[:, 0].tolist() == [5, 17]
    assert g.returns(t).tolist() == [-1.0, 1.0]


def test_a_table_change_reaches_the_engine():
    try:
        g.load_rules_data(layout.rules_with(STARTING_CHIPS={2: 5, 3: 6, 4: 7}, REMOVED_CARDS=0))
        s = g.new_game(3, 0)
        assert v(s, "chips")[:3].tolist() == [6, 6, 6] and v(s, "deck_left")[0] == N_CARDS - 1
        assert check_game(g, 3, range(3)).games == 3
    finally:
        g.load_rules_data()
    assert v(g.new_game(3, 0), "chips")[:3].tolist() == [11, 11, 11]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_conformance_and_the_length_bound(n):
    rep = check_game(g, n, range(15))
    assert rep.games == 15 and rep.illegal_checked > 0 and rep.hidden_checked > 0
    assert max(rep.lengths) <= DECK * (1 + 11 * n)  # docs/games/chipin.md, Termination


def test_determinize_redraws_only_the_unseen_cards():
    s = g.new_game(3, 4)
    for _ in range(10):
        s = g.step(s, int(np.flatnonzero(g.legal_mask(s))[-1]))
    d = g.determinize(s, 1, 99)
    assert not np.array_equal(v(d, "stack"), v(s, "stack"))
    for name in g.LAYOUT.segments:
        if name not in ("stack", "rng"):
            assert np.array_equal(v(d, name), v(s, name)), name
    unseen = lambda t: sorted(set(v(t, "stack").tolist()) - {-1})  # noqa: E731
    assert unseen(d) == unseen(s)
    assert np.array_equal(g.determinize(g.perturb_hidden(s, 5), 1, 99), d)


@pytest.mark.slow  # 100 games
def test_heuristic_beats_random_70_percent_of_100_games():
    """The game's `heuristic` is a real opponent: it wins at least 70% of 100 two-player
    games against `random`, seats alternated (seeded)."""
    res = evaluate("chipin", 2, ["heuristic", "random"], games=100, seed=2024)
    h = res["agents"][0]
    assert h["games_per_seat"] == [50, 50]
    assert h["win_rate"] >= 0.70, h
