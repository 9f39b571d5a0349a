"""What chance decided in a step, in the game's words (GameSpec.chance): printed games, replays
and the viewer's logs show it."""

from __future__ import annotations

import numpy as np
import pytest

from core.play import play_log
from core.registry import game_names, get_game


@pytest.mark.parametrize("name", game_names())
def test_chance_words_are_a_list_of_text_for_every_step(name):
    g = get_game(name)
    s = g.new_game(min(g.PLAYER_COUNTS), 5)
    rng = np.random.default_rng(0)
    for _ in range(30):
        if g.is_terminal(s):
            break
        a = int(rng.choice(np.flatnonzero(g.legal_mask(s))))
        after = g.step(s, a)
        words = g.chance_words(s, a, after)
        assert isinstance(words, list) and all(isinstance(w, str) and w for w in words)
        s = after


def test_chip_in_names_the_card_a_take_turns_up_and_nothing_after_a_payment():
    g = get_game("chipin")
    from chipin_env.layout import A_PAY, A_TAKE, LAYOUT, T_CARD_LOW

    low = int(g.TABLES[T_CARD_LOW])
    s = g.new_game(2, 4)
    paid = g.step(s, A_PAY)
    assert g.chance_words(s, A_PAY, paid) == []  # the same card stays face up
    taken = g.step(paid, A_TAKE)
    face = int(LAYOUT.view(taken, "face_up")[0])
    assert face >= 0 and g.chance_words(paid, A_TAKE, taken) == [f"{low + face} turned face up"]


def test_toss_names_the_coin_for_the_next_decision_and_nothing_after_the_last():
    g = get_game("toss")
    s = g.new_game(2, 1)
    after = g.step(s, 0)
    side = "heads" if g.LAYOUT.view(after, "coin")[0] else "tails"
    assert g.chance_words(s, 0, after) == [f"the next coin lies {side}"]
    while not g.is_terminal(s):
        s, last = g.step(s, 0), s
    assert g.chance_words(last, 0, s) == []


def test_a_printed_game_shows_what_chance_decided():
    lines, _s = play_log("chipin", 2, seed=4)
    turned = [line for line in lines if line.startswith("     chance: ")]
    assert turned and all(line.endswith("turned face up") for line in turned)
    # one card turned for each card taken or buried, but the last (the deck runs out)
    decisions = [line for line in lines if "player_" in line and "[turn]" in line]
    assert len(turned) == sum(("take" in d or "bury" in d) for d in decisions) - 1


def test_a_replay_gives_each_decision_the_chance_words_of_its_step():
    from training.arena.replay import replay
    from training.arena.store import GameRecord, state_check

    g = get_game("chipin")
    s, actions, checks, want = g.new_game(2, 9), [], [], []
    rng = np.random.default_rng(2)
    while not g.is_terminal(s):
        a = int(rng.choice(np.flatnonzero(g.legal_mask(s))))
        before, s = s, g.step(s, a)
        actions.append(a)
        checks.append(state_check(s))
        want.append(g.chance_words(before, a, s))
    n = len(actions)
    rec = GameRecord(
        "m", 2, "x", 0, 0, 9, [0, 1], [0, 0], [int(x) for x in g.scores(s)], [1.0, 2.0],
        g.tiebreaks(s).tolist(), [1.0, 0.0], False, n, 0.0, g.RULES_DATA_HASH, "0", actions,
        checks,
    )  # fmt: skip
    _s, steps = replay(g, rec, describe=True)
    assert [st["chance"] for st in steps] == want and any(want)
