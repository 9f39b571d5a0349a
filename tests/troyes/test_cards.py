"""One test (at least) per Activity card, Event card and Character card (rules §6)."""

import numpy as np
import pytest

import troyes_env as T
from troyes_env.layout import PH_ARCHER, PH_COUNTER, PH_EVENT, PH_GOON, PH_TURN
from troyes_env.tables import TABLES

from .conftest import (
    a,
    add_event,
    card_id,
    die,
    event_id,
    events_state,
    fix_supply,
    legal,
    run,
    set_card,
    set_dice,
    set_spaces,
    turn_state,
    v,
)

CONFIRM = a("CONFIRM")
GO_ON = a("GO_ON")


def activity_state(key, colour, values, pos=0):
    s = turn_state(2)
    set_card(s, pos, key)
    v(s, "sup")[pos, 0] = 1
    fix_supply(s)
    for val in values:
        set_dice(s, 0, colour, val)
    return s


def activate(s, pos=0, extra=()):
    s = run(s, a("ACTIVITY", pos))
    # choose every own die in order, then confirm, when the engine did not do it already
    dice = v(s, "dice")[0]
    while int(v(s, "phase")[0]) == 5:
        lg = sorted(legal(s))
        s = run(s, lg[0] if lg[0] != CONFIRM else CONFIRM)
    for x in extra:
        s = run(s, x)
    _ = dice
    return s


# ------------------------------------------------------------------ immediate Activity cards
# (key, colour, die values, extra actions, expected deltas {segment: delta for seat 0})
IMMEDIATE = [
    ("ARTISAN", "Y", [6], [GO_ON], {"influence": -2, "deniers": 12}),  # 6//3 = 2
    ("MERCHANT", "Y", [6], [], {"deniers": 6}),
    ("INNKEEPER", "Y", [4], [GO_ON], {"deniers": -2, "influence": 2}),
    ("JOURNEYMAN", "Y", [6], [GO_ON], {"deniers": -6, "vp": 4}),
    ("GOLDSMITH", "Y", [4], [], {"vp": 1, "deniers": 2}),
    ("SCULPTOR", "Y", [6], [], {"vp": 2}),
    ("PILGRIMAGE", "W", [6], [], {"vp": 2}),
    ("DIPLOMAT", "R", [4], [], {"influence": 1}),
    ("HUNT", "R", [6], [], {"influence": 2}),
    ("MERCENARY", "R", [6], [], {"deniers": 6}),
    ("RED_II_3", "R", [6], [], {"deniers": 4}),
    ("TROUBADOUR", "R", [4], [], {"influence": -1, "vp": 2}),
]


@pytest.mark.parametrize("key,colour,values,extra,delta", IMMEDIATE, ids=[r[0] for r in IMMEDIATE])
def test_immediate_card(key, colour, values, extra, delta):
    s = activity_state(key, colour, values)
    before = {k: int(v(s, k)[0]) for k in delta}
    s = activate(s, 0, extra)
    for k, d in delta.items():
        assert int(v(s, k)[0]) - before[k] == d, k
    assert int(v(s, "phase")[0]) == PH_TURN and int(v(s, "cur")[0]) == 1
    assert T.check_invariants(s) == []


def test_artisan_stop_after_first():
    s = activity_state("ARTISAN", "Y", [6])
    s = run(s, a("ACTIVITY", 0))
    assert int(v(s, "phase")[0]) == PH_GOON
    s = run(s, a("STOP"))
    assert v(s, "deniers")[0] == 26 and v(s, "influence")[0] == 3


def test_artisan_needs_influence_to_pay():
    s = activity_state("ARTISAN", "Y", [6])
    v(s, "influence")[0] = 0
    assert a("ACTIVITY", 0) not in legal(s)


def test_miller_counts_the_larger_building():
    s = activity_state("MILLER", "Y", [4])
    set_spaces(s, [0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1] + [4] * 6)
    s = activate(s)
    assert v(s, "deniers")[0] == 20 + 2 * 2  # Palace 2 > Bishopric 1


def test_glassmaker_counts_own_cathedral_cubes():
    s = activity_state("GLASSMAKER", "W", [6])
    v(s, "cath")[0, :3] = 0
    v(s, "cubes_out")[0] = 3
    s = activate(s)
    assert v(s, "vp")[0] == 3


def test_procession_counts_own_bishopric_citizens():
    s = activity_state("PROCESSION", "W", [4])
    set_spaces(s, [1] * 6 + [0, 1, 0, 1, 0, 1] + [1, 1, 4, 4, 4, 4])
    s = activate(s)
    assert v(s, "vp")[0] == 3


def test_jousts_counts_own_palace_citizens():
    s = activity_state("JOUSTS", "R", [4])
    set_spaces(s, [0, 0, 1, 1, 1, 1] + [1] * 6 + [4] * 6)
    s = activate(s)
    assert v(s, "vp")[0] == 2


def test_captain_counts_events_with_own_cube():
    s = activity_state("CAPTAIN", "R", [5])
    add_event(s, "WAR", [0])
    add_event(s, "HERESY", [1])
    v(s, "row_flags")[0, 0] = 0
    v(s, "cubes_out")[0] += 1
    s = activate(s)
    assert v(s, "vp")[0] == 2  # Marauding and War


def test_knight_places_a_cube_on_a_chosen_event():
    s = activity_state("KNIGHT", "R", [4])
    i = add_event(s, "WAR")
    s = run(s, a("ACTIVITY", 0))
    assert int(v(s, "phase")[0]) == PH_ARCHER
    assert legal(s) == {a("EVENT", 0), a("EVENT", i)}
    s = run(s, a("EVENT", i))
    assert v(s, "row_flags")[i, 0] == 0 and v(s, "influence")[0] == 5
    assert T.check_invariants(s) == []


def test_archer_rolls_a_black_die_first():
    base = activity_state("ARCHER", "R", [2])  # 2 // 2 = 1 activation
    outcomes = set()
    for seed in range(40):
        s = run(T.reseed(base, seed), a("ACTIVITY", 0))  # Marauding is the only target: forced
        if v(s, "row_flags")[0, 0] == 0:
            assert v(s, "influence")[0] == 5 and v(s, "row_flags")[0, 0] == 0
            outcomes.add("hit")
        else:
            assert v(s, "influence")[0] == 4 and (v(s, "row_flags") < 0).all()
            outcomes.add("miss")
    assert outcomes == {"hit", "miss"}


# ------------------------------------------------------------------ delayed Activity cards
DELAYED = [
    ("BLACKSMITH", "Y", [6], 2),
    ("MILITIA", "Y", [3], 1),
    ("TITHING", "W", [4], 1),
    ("MONK", "W", [6], 2),
    ("PRIEST", "W", [3], 1),
    ("APPRENTICESHIP", "W", [5], 1),
    ("TEMPLAR", "W", [3], 1),
    ("CONFESSION", "W", [6], 2),
]


@pytest.mark.parametrize("key,colour,values,cubes", DELAYED, ids=[r[0] for r in DELAYED])
def test_delayed_card_places_cubes(key, colour, values, cubes):
    s = activity_state(key, colour, values)
    s = activate(s)
    assert v(s, "act_cubes")[0, 0] == cubes and v(s, "cubes_out")[0] == cubes


def cube_state(cube_key, target_key, dice, cube_pos=8, target_pos=0):
    s = turn_state(2)
    set_card(s, cube_pos, cube_key)
    set_card(s, target_pos, target_key)
    v(s, "act_cubes")[cube_pos, 0] = 1
    v(s, "cubes_out")[0] = 1
    v(s, "sup")[target_pos, 0] = 1
    fix_supply(s)
    for d, c, val in dice:
        set_dice(s, d, c, val)
    return s


def spend(s, target_pos, cube_pos, dice):
    s = run(s, a("ACTIVITY", target_pos))
    if int(v(s, "phase")[0]) == 4:
        s = run(s, a("ACTIVITY", cube_pos))
    for x in dice:
        if int(v(s, "phase")[0]) == 5 and x in legal(s):
            s = run(s, x)
    if int(v(s, "phase")[0]) == 5:
        s = run(s, CONFIRM)
    assert v(s, "act_cubes")[cube_pos, 0] == 0, "cube spent"
    return s


MODIFIERS = [
    # cube card, target card, dice (district, colour, value), deniers/VP delta for seat 0
    ("PRIEST", "MERCHANT", [(0, "Y", 1)], ("deniers", 4)),  # (1+3)//2 = 2
    ("BLACKSMITH", "MERCENARY", [(0, "R", 1)], ("deniers", 6)),  # (1+5)//3 = 2
    ("MILITIA", "MERCENARY", [(0, "Y", 6)], ("deniers", 6)),  # yellow acts as red: 6//3
    ("MONK", "MERCHANT", [(0, "W", 2)], ("deniers", 6)),  # 3 x 2 = 6 -> 3
    ("TEMPLAR", "MERCENARY", [(0, "W", 3)], ("deniers", 6)),  # 2 x 3 = 6 -> 2 x 3 deniers
    ("APPRENTICESHIP", "MERCHANT", [(0, "W", 1), (0, "R", 1)], ("deniers", 10)),  # 5+5 -> 5
    ("CONFESSION", "PILGRIMAGE", [(0, "W", 1)], ("vp", 1)),  # 1+2 = 3 -> 1
    ("TITHING", "MERCHANT", [(1, "Y", 6)], ("deniers", 6)),  # bought for free
]


@pytest.mark.parametrize("cube,target,dice,delta", MODIFIERS, ids=[r[0] for r in MODIFIERS])
def test_cube_modifier(cube, target, dice, delta):
    tpos = {"MERCHANT": 0, "MERCENARY": 6, "PILGRIMAGE": 3}[target]
    cpos = 8 if tpos != 8 else 7
    s = cube_state(cube, target, dice, cube_pos=cpos, target_pos=tpos)
    before = int(v(s, delta[0])[0])
    opp = int(v(s, "deniers")[1])
    ids = [die(d, c, val) for d, c, val in dice]
    s = spend(s, tpos, cpos, ids)
    assert int(v(s, delta[0])[0]) - before == delta[1]
    if cube == "TITHING":
        assert int(v(s, "deniers")[1]) == opp  # free dice pay nobody
    assert T.check_invariants(s) == []


def test_cube_scope_excludes_palace_and_cathedral():
    """ED-25: no cube applies to a Palace placement or the Cathedral."""
    s = cube_state("APPRENTICESHIP", "MERCHANT", [(0, "R", 1)])
    set_spaces(s, [1] * 12 + [4] * 6)
    assert int(v(run(s, a("BUILDING", 0)), "phase")[0]) != 4


# ------------------------------------------------------------------ events
@pytest.mark.parametrize("key", ["WAR", "RED_R3", "RED_R5", "RED_R7"])
def test_black_dice_events(key):
    s = events_state([key])
    n_black = 1 + int(TABLES[T.tables.T_EV + event_id(key) * T.tables.E_W + T.tables.E_BLACK])
    assert int(v(s, "black").sum()) == n_black == 3
    assert int(v(s, "phase")[0]) == PH_COUNTER and int(v(s, "cur")[0]) == 0


@pytest.mark.parametrize("key", ["RED_R4", "DROUGHT"])
def test_pay_events(key):
    s = events_state([key])
    assert list(v(s, "deniers")[:2]) == [18, 18]
    s = turn_state(2)
    v(s, "vp")[:2] = [5, 5]
    v(s, "deniers")[:2] = [1, 2]
    from troyes_env.engine.board import penalty  # noqa: F401

    s2 = events_state([key])
    assert list(v(s2, "vp")[:2]) == [0, 0]  # VP never below 0


def test_pay_event_shortfall_penalty():
    from troyes_env.engine.rounds import enter_card
    from troyes_env.layout import PH_A_EVENTS

    s = turn_state(2)
    i = add_event(s, "DROUGHT")
    v(s, "deniers")[:2] = [1, 5]
    v(s, "vp")[:2] = [5, 5]
    v(s, "ev_pos")[0] = i
    v(s, "phase")[0] = PH_A_EVENTS
    enter_card(s, TABLES)
    assert list(v(s, "deniers")[:2]) == [0, 3] and list(v(s, "vp")[:2]) == [3, 5]


def test_heresy_loses_influence_with_penalty_at_zero():
    from troyes_env.engine.rounds import enter_card
    from troyes_env.layout import PH_A_EVENTS

    s = turn_state(2)
    i = add_event(s, "HERESY")
    v(s, "influence")[:2] = [0, 3]
    v(s, "vp")[:2] = [4, 4]
    v(s, "ev_pos")[0] = i
    v(s, "phase")[0] = PH_A_EVENTS
    enter_card(s, TABLES)
    assert list(v(s, "influence")[:2]) == [0, 2] and list(v(s, "vp")[:2]) == [2, 4]


@pytest.mark.parametrize(
    "key,building,space", [("SUCCESSION_CONFLICT", 0, 0), ("WHITE_W3", 1, 6), ("YELLOW_Y3", 2, 12)]
)
def test_grey_citizen_events(key, building, space):
    from troyes_env.engine.rounds import enter_card
    from troyes_env.layout import PH_A_EVENTS

    s = turn_state(2)
    set_spaces(s, [1] * 6 + [1] * 6 + [0] * 6)
    i = add_event(s, key)
    v(s, "ev_pos")[0] = i
    v(s, "phase")[0] = PH_A_EVENTS
    g = int(v(s, "grey_supply")[0])
    enter_card(s, TABLES)
    assert v(s, "spaces")[space] == 4 and v(s, "grey_supply")[0] == g - 1
    assert v(s, "lying")[building].sum() == 1
    # protection: the expelled citizen's owner already lies there -> nothing happens
    s = turn_state(2)
    set_spaces(s, [1] * 6 + [1] * 6 + [0] * 6)
    v(s, "lying")[building, 0 if building == 2 else 1] = 1
    fix_supply(s)
    i = add_event(s, key)
    v(s, "ev_pos")[0] = i
    v(s, "phase")[0] = PH_A_EVENTS
    before = v(s, "spaces").copy()
    enter_card(s, TABLES)
    assert np.array_equal(v(s, "spaces"), before)


@pytest.mark.parametrize("key", ["RED_R6", "WHITE_W4"])
def test_lose_event_cube_events(key):
    s = turn_state(2)
    j = add_event(s, "WAR", [0, 1, 0])
    from troyes_env.engine import WORK_SIZE, advance, settle
    from troyes_env.engine.rounds import enter_card
    from troyes_env.layout import PH_A_EVENTS

    i = add_event(s, key)
    for p in range(2):
        set_dice(s, p, "R", 6)
    v(s, "ev_pos")[0] = i
    v(s, "phase")[0] = PH_A_EVENTS
    enter_card(s, TABLES)
    advance(s, TABLES)
    settle(s, TABLES, np.zeros(T.NUM_ACTIONS, np.bool_), np.zeros(WORK_SIZE, np.int64))
    # each player has cubes only on War: forced, highest-numbered own flag (ED-14)
    assert list(v(s, "row_flags")[j, :3]) == [0, -1, -1]
    assert T.check_invariants(s) == []
    # no cube at all -> 2 VP penalty (U-COMPLY)
    s = turn_state(2)
    v(s, "vp")[:2] = [3, 3]
    for p in range(2):
        set_dice(s, p, "R", 6)
    i = add_event(s, key)
    v(s, "ev_pos")[0] = i
    v(s, "phase")[0] = PH_A_EVENTS
    enter_card(s, TABLES)
    advance(s, TABLES)
    assert list(v(s, "vp")[:2]) == [1, 1]


def test_lose_event_cube_choice():
    s = turn_state(2)
    add_event(s, "WAR", [0])
    add_event(s, "HERESY", [0, 1])
    s2 = s.copy()
    from troyes_env.engine import advance
    from troyes_env.engine.rounds import enter_card
    from troyes_env.layout import PH_A_EVENTS

    i = add_event(s2, "RED_R6")
    v(s2, "ev_pos")[0] = i
    v(s2, "phase")[0] = PH_A_EVENTS
    enter_card(s2, TABLES)
    advance(s2, TABLES)
    assert int(v(s2, "phase")[0]) == PH_EVENT and int(v(s2, "cur")[0]) == 0
    assert legal(s2) == {a("EVENT", 1), a("EVENT", 2)}


def test_lose_activity_cube_event():
    from troyes_env.engine import advance
    from troyes_env.engine.rounds import enter_card
    from troyes_env.layout import PH_A_EVENTS

    s = turn_state(2)
    set_card(s, 3, "PRIEST")
    set_card(s, 4, "MONK")
    v(s, "act_cubes")[3, 0] = 1
    v(s, "act_cubes")[4, 0] = 2
    v(s, "cubes_out")[0] = 3
    v(s, "vp")[1] = 3
    i = add_event(s, "YELLOW_Y1")
    v(s, "ev_pos")[0] = i
    v(s, "phase")[0] = PH_A_EVENTS
    enter_card(s, TABLES)
    advance(s, TABLES)
    assert int(v(s, "phase")[0]) == PH_EVENT and legal(s) == {a("ACTIVITY", 3), a("ACTIVITY", 4)}
    s = run(s, a("ACTIVITY", 4))
    assert v(s, "act_cubes")[4, 0] == 1 and v(s, "vp")[1] == 1  # seat 1 had none: penalty


def test_yellow_y1_combat_box():
    """Yellow event Y1: yellow dice, /5, 2 flags, R1 + R2 = 3 [1: RSS]."""
    s = turn_state(2)
    i = add_event(s, "YELLOW_Y1", [1])
    set_dice(s, 0, "Y", 5)
    s = run(s, a("EVENT", i))
    # one cube each: tie for most, (2 + 1) // 2 each; the earlier flag (seat 1) keeps the card
    assert v(s, "vp")[0] == 1 and v(s, "vp")[1] == 1
    assert v(s, "kept_by")[event_id("YELLOW_Y1")] == 1


def test_theological_dispute_top_cube_only():
    from troyes_env.engine import advance
    from troyes_env.engine.rounds import enter_card
    from troyes_env.layout import PH_A_EVENTS

    s = turn_state(2)
    c = v(s, "cath")
    c[0, 0] = 0
    c[1, 0] = 1  # seat 0's value-1 cube is covered
    c[0, 3] = 0
    c[0, 5] = 0
    v(s, "cubes_out")[:2] = [3, 1]
    i = add_event(s, "THEOLOGICAL_DISPUTE")
    v(s, "ev_pos")[0] = i
    v(s, "phase")[0] = PH_A_EVENTS
    enter_card(s, TABLES)
    advance(s, TABLES)
    assert int(v(s, "cur")[0]) == 0 and legal(s) == {a("CATH_VALUE", 3), a("CATH_VALUE", 5)}
    s = run(s, a("CATH_VALUE", 3))
    # seat 1's only cube is on top: forced
    assert v(s, "cath")[0, 3] == -1 and v(s, "cath")[1, 0] == -1
    assert T.check_invariants(s) == []


@pytest.mark.parametrize("key", ["RED_R8", "YELLOW_Y4"])
def test_lose_city_hall_citizen(key):
    from troyes_env.engine import advance
    from troyes_env.engine.rounds import enter_card
    from troyes_env.layout import PH_A_EVENTS

    s = turn_state(2)
    set_spaces(s, [0, 0, 0, 1, 1, 1] + [0, 1, 0, 1, 4, 4] + [0, 1, 0, 4, 4, 4])
    i = add_event(s, key)
    v(s, "ev_pos")[0] = i
    v(s, "phase")[0] = PH_A_EVENTS
    sup0 = int(v(s, "supply")[0])
    enter_card(s, TABLES)
    advance(s, TABLES)
    assert legal(s) == {a("SPACE", 12), a("SPACE", 14)}
    s = run(s, a("SPACE", 12))
    # seat 1's only City Hall citizen goes home too (forced); the rows close up (ED-8)
    assert list(v(s, "spaces")[12:15]) == [0, -1, -1]
    assert v(s, "supply")[0] == sup0 + 1
    assert T.check_invariants(s) == []


def test_marauding_brings_a_black_die_every_round():
    s = events_state([])
    assert int(v(s, "black").sum()) == 1


# ------------------------------------------------------------------ characters (rules §6.3)
CHARS = [
    ("HENRI_I", lambda s: v(s, "kept_by").__setitem__(slice(1, 4), 0), 4),  # 3 kept -> 4
    ("HUGUES_DE_PAYNS", lambda s: v(s, "influence").__setitem__(0, 10), 4),
    ("URBAIN_IV", lambda s: v(s, "cath").__setitem__((0, slice(0, 6)), 0), 6),
    ("THIBAUT_II", lambda s: v(s, "deniers").__setitem__(0, 29), 4),
    ("CHRETIEN_DE_TROYES", lambda s: v(s, "spaces").__setitem__(slice(0, 5), 0), 4),
    ("LE_FLORENTIN", lambda s: v(s, "sup").__setitem__((slice(0, 2), 0), 1), 2),
]


@pytest.mark.parametrize("key,setup,vp", CHARS, ids=[c[0] for c in CHARS])
def test_character_scoring(key, setup, vp):
    from troyes_env.engine.board import character_vp
    from troyes_env.rules_data import CHARACTER_CARDS

    ch = next(r[0] for r in CHARACTER_CARDS if r[1] == key)
    s = turn_state(2)
    v(s, "spaces")[:] = 4
    v(s, "sup")[:] = 0
    v(s, "influence")[0] = 0
    v(s, "deniers")[0] = 0
    assert character_vp(s, TABLES, ch, 0) == 0
    setup(s)
    assert character_vp(s, TABLES, ch, 0) == vp


def test_card_ids_helper():
    assert card_id("ARTISAN") == 0 and event_id("MARAUDING") == 0
    _ = PH_GOON
