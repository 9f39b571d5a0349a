"""Action effects: one legal action applied in place."""

from __future__ import annotations

from core.jit import jit

from chipin_env.actions import A_PAY, A_TAKE
from chipin_env.engine.board import add_score, card_penalty, end_game, reveal_next
from chipin_env.layout import (
    S_ACTOR,
    S_BURIED,
    S_BURIES,
    S_CHIPS,
    S_FACE,
    S_LEFT,
    S_NP,
    S_OWNER,
    S_POT,
    SRC_CARDS,
    SRC_CHIPS,
)


@jit(alloc=False)
def apply_action(s, T, a):
    """Apply legal action a for the player to act."""
    p = s[S_ACTOR]
    card = s[S_FACE]
    if a == A_TAKE:
        # the card and its chips go to the taker, who then decides on the next card
        pot = s[S_POT]
        s[S_CHIPS + p] += pot
        add_score(s, p, pot, SRC_CHIPS)
        s[S_POT] = 0
        before = card_penalty(s, T, p)
        s[S_OWNER + card] = p
        add_score(s, p, before - card_penalty(s, T, p), SRC_CARDS)
        if s[S_LEFT] == 0:
            end_game(s)
        else:
            reveal_next(s)
    elif a == A_PAY:
        # one chip onto the card; the next player decides
        s[S_CHIPS + p] -= 1
        add_score(s, p, -1, SRC_CHIPS)
        s[S_POT] += 1
        s[S_ACTOR] = (p + 1) % s[S_NP]
    else:
        # bury: the card leaves the game, its chips roll onto the next card, the next player
        # decides (never on the last card: the mask requires a card left in the deck)
        s[S_BURIED + card] = 1
        s[S_BURIES + p] -= 1
        reveal_next(s)
        s[S_ACTOR] = (p + 1) % s[S_NP]
