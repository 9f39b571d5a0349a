"""Helpers for Troyes scenario tests: build a state at a chosen decision, then script actions."""

from __future__ import annotations

import numpy as np
import pytest

import troyes_env as T
from troyes_env.actions import ACTIONS
from troyes_env.layout import LAYOUT, PH_TURN

COL = {"Y": 0, "W": 1, "R": 2}


def v(s, name):
    """Writable view of a state segment."""
    return LAYOUT.view(s, name)


def a(name, *idx):
    """Action id from a segment name and indices (DIE values are 1..6: a_die(d, 'Y', 5))."""
    return ACTIONS.encode(name, *idx)


def die(d, c, val):
    return ACTIONS.encode("DIE", d, COL[c] if isinstance(c, str) else c, val - 1)


def card_id(key):
    from troyes_env.rules_data import ACTIVITY_CARDS

    return next(r[0] for r in ACTIVITY_CARDS if r[1] == key)


def event_id(key):
    from troyes_env.rules_data import EVENT_CARDS

    return next(r[0] for r in EVENT_CARDS if r[1] == key)


def card_pos(key):
    """Board position colour*3 + level-1 of an Activity card."""
    from troyes_env.rules_data import ACTIVITY_CARDS

    r = next(r for r in ACTIVITY_CARDS if r[1] == key)
    return int(r[2]) * 3 + r[3] - 1


def play_until(s, pred, limit=2000):
    """Play the lowest legal action until pred(s) holds."""
    for _ in range(limit):
        if pred(s):
            return s
        s = T.step(s, int(np.flatnonzero(T.legal_mask(s))[0]))
    raise AssertionError("state not reached")


def turn_state(n=2, seed=0, clear=True):
    """A round-1 action-phase state, seat 0 to act and start player, board cleared of dice,
    black dice, event cards (Marauding only) and Activity cubes when `clear`."""
    s = play_until(T.new_game(n, seed), lambda x: int(v(x, "phase")[0]) == PH_TURN)
    s = s.copy()
    v(s, "cur")[0] = 0
    v(s, "start_player")[0] = 0
    if clear:
        v(s, "dice")[:] = 0
        v(s, "rolled")[:] = 0
        v(s, "passed")[:] = 0
        v(s, "dist_den")[:] = 0
        v(s, "black")[:] = 0
        # keep only Marauding in the row, nothing kept
        v(s, "row_card")[1:] = -1
        v(s, "row_flags")[:] = -1
        v(s, "kept_by")[:] = -1
        v(s, "deck_drawn")[:] = 0
        v(s, "cubes_out")[:] = 0
        v(s, "act_cubes")[:] = 0
        v(s, "cath")[:] = -1
        v(s, "deniers")[:n] = 20
        v(s, "influence")[:n] = 4
        v(s, "vp")[:] = 0
        if n < 4:
            # a sentinel die in the district of a seat that is not playing: no player can use it,
            # but it keeps the action phase open after the scripted action (ED-20)
            v(s, "dice")[3, 0, 0] = 1
            v(s, "rolled")[3, 0] = 1
    return s


def drop_sentinel(s):
    v(s, "dice")[3] = 0
    v(s, "rolled")[3] = 0


def set_dice(s, d, c, val, count=1):
    """Put dice (absolute district d, colour 'Y'/'W'/'R', value 1..6); keeps `rolled` consistent."""
    ci = COL[c]
    v(s, "dice")[d, ci, val - 1] += count
    v(s, "rolled")[d, ci] += count


def set_card(s, pos, key):
    """Reveal Activity card `key` at board position pos."""
    v(s, "act_card")[pos] = card_id(key)
    v(s, "act_hidden")[pos] = -1


def add_event(s, key, flags=()):
    """Append event `key` to the row with the given flag owners; returns its row position."""
    rc = v(s, "row_card")
    i = int((rc >= 0).sum())
    rc[i] = event_id(key)
    for f, o in enumerate(flags):
        v(s, "row_flags")[i, f] = o
        if 0 <= o < 4:
            v(s, "cubes_out")[o] += 1
    return i


def run(s, *actions):
    for x in actions:
        s = T.step(s, x)
    return s


def legal(s):
    return set(int(x) for x in np.flatnonzero(T.legal_mask(s)))


def segs(s):
    return sorted({ACTIONS.decode(x)[0] for x in legal(s)})


@pytest.fixture
def ts2():
    return turn_state(2)


def set_spaces(s, owners):
    """Set all 18 building spaces (list of owners: -1 empty, 0..3 seat, 4 grey) and rebalance the
    personal and grey supplies so every citizen is in exactly one place."""
    sp = v(s, "spaces")
    sp[:] = owners
    fix_supply(s)


def fix_supply(s):
    n = int(v(s, "n_players")[0])
    for p in range(n):
        placed = (
            int((v(s, "spaces") == p).sum())
            + int(v(s, "lying")[:, p].sum())
            + int((v(s, "sup")[:, p] > 0).sum())
        )
        own = max(int(v(s, "owned")[p]), placed)
        v(s, "owned")[p] = own
        v(s, "supply")[p] = own - placed
    v(s, "grey_supply")[0] = 8 - int((v(s, "spaces") == 4).sum()) - int(v(s, "lying")[:, 4].sum())


def own_space(s, p):
    return int(np.flatnonzero(v(s, "spaces") == p)[0])


def events_state(keys, n=2, dice=True):
    """Row = Marauding + the given events; Phase 3 about to apply them (ED-13). Each player holds
    one red 6 so the counter step waits for a decision. Returns the state after the automatic
    part of the event phase (at the first decision)."""
    from troyes_env.engine import WORK_SIZE, advance, settle
    from troyes_env.engine.rounds import enter_card
    from troyes_env.layout import PH_A_EVENTS
    from troyes_env.tables import TABLES

    s = turn_state(n)
    for k in keys:
        add_event(s, k)
    if dice:
        for p in range(n):
            set_dice(s, p, "R", 6)
    v(s, "ev_pos")[0] = 0
    v(s, "black_n")[0] = 0
    v(s, "phase")[0] = PH_A_EVENTS
    enter_card(s, TABLES)
    advance(s, TABLES)
    settle(s, TABLES, np.zeros(T.NUM_ACTIONS, np.bool_), np.zeros(WORK_SIZE, np.int64))
    return s
