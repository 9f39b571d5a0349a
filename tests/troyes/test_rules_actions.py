"""Scenario tests for rules §4 (actions) and §5 (influence), with the engine decisions they use."""

import numpy as np
import pytest

import troyes_env as T
from troyes_env.layout import PH_CUBE, PH_DICE, PH_GOON, PH_SOURCE, PH_TURN

from .conftest import (
    a,
    add_event,
    card_pos,
    die,
    fix_supply,
    legal,
    own_space,
    run,
    set_card,
    set_dice,
    set_spaces,
    turn_state,
    v,
)

PASS = a("PASS")
CONFIRM = a("CONFIRM")
SUPPLY = a("SUPPLY")


def merchant_state():
    s = turn_state(2)
    set_card(s, 0, "MERCHANT")
    return s


# ------------------------------------------------------------------ §4.0 dice groups and buying


def test_group_of_own_dice_is_free_and_dice_go_to_supply():
    s = merchant_state()
    set_dice(s, 0, "Y", 6)
    v(s, "sup")[0, 0] = 1  # supervisor already there
    fix_supply(s)
    s = run(s, a("ACTIVITY", 0))  # single die, then CONFIRM: both automatic (ED-5)
    assert v(s, "deniers")[0] == 20 + 3 * 2
    assert v(s, "dice")[:2].sum() == 0
    assert int(v(s, "cur")[0]) == 1 and int(v(s, "phase")[0]) == PH_TURN


@pytest.mark.parametrize(
    "own,bought,price",
    [(0, 1, 2), (1, 1, 4), (0, 2, 4), (2, 1, 6), (1, 2, 6), (0, 3, 6)],
)
def test_buying_price_follows_group_size(own, bought, price):
    """rules §4.0: 2 / 4 / 6 deniers per bought die for groups of 1 / 2 / 3, paid to the owner."""
    s = merchant_state()
    v(s, "sup")[0, 0] = 1
    fix_supply(s)
    for _ in range(own):
        set_dice(s, 0, "Y", 2)
    for _ in range(bought):
        set_dice(s, 1, "Y", 2)
    acts = [a("ACTIVITY", 0)] + [die(0, "Y", 2)] * own + [die(1, "Y", 2)] * bought
    s2 = s
    for x in acts:
        if int(v(s2, "phase")[0]) != PH_DICE and x != acts[0]:
            break
        s2 = T.step(s2, x)
    if int(v(s2, "phase")[0]) == PH_DICE:
        s2 = T.step(s2, CONFIRM)
    n = own + bought
    assert v(s2, "deniers")[0] == 20 - bought * price + 2 * (2 * n // 2)
    assert v(s2, "deniers")[1] == 20 + bought * price


def test_neutral_dice_are_paid_to_the_bank_and_unaffordable_groups_are_masked():
    s = merchant_state()
    v(s, "sup")[0, 0] = 1
    fix_supply(s)
    set_dice(s, 4, "Y", 6)
    v(s, "deniers")[0] = 1
    assert a("ACTIVITY", 0) not in legal(s)  # cannot pay 2 for the die (ED-23)
    v(s, "deniers")[0] = 2
    s = run(s, a("ACTIVITY", 0))
    assert v(s, "deniers")[0] == 0 + 6 and v(s, "deniers")[1] == 20


def test_dice_are_chosen_in_non_decreasing_order():
    s = merchant_state()
    v(s, "sup")[0, 0] = 1
    fix_supply(s)
    set_dice(s, 0, "Y", 3)
    set_dice(s, 0, "Y", 5)
    s = run(s, a("ACTIVITY", 0))
    assert int(v(s, "phase")[0]) == PH_DICE
    assert legal(s) == {die(0, "Y", 3), die(0, "Y", 5)}
    s = run(s, die(0, "Y", 5))
    # the 3 comes before the 5 in id order, so the group is complete: CONFIRM is automatic
    assert int(v(s, "cur")[0]) == 1 and v(s, "deniers")[0] == 24
    assert v(s, "dice")[0, 0, 2] == 1
    s2 = run(turn_state(2), PASS)
    assert int(v(s2, "cur")[0]) == 1


# ------------------------------------------------------------------ §4.1 activity cards, hiring


def test_hiring_pays_cost_takes_first_slot_and_source():
    s = merchant_state()
    set_dice(s, 0, "Y", 6)
    sp = own_space(s, 0)
    s = run(s, a("ACTIVITY", 0))
    assert int(v(s, "phase")[0]) == PH_SOURCE
    assert a("SPACE", sp) in legal(s)
    before = v(s, "spaces").copy()
    s = run(s, a("SPACE", sp))
    assert v(s, "sup")[0, 0] == 1
    assert v(s, "deniers")[0] == 20 - 4 + 6  # hire 4 (rules §6.1.1), then 3 x 2 deniers
    assert (v(s, "spaces") == 0).sum() == (before == 0).sum() - 1
    assert T.check_invariants(s) == []


def test_second_supervisor_takes_slot_2_then_illustration_and_no_slide():
    s = turn_state(3)
    set_card(s, 0, "MERCHANT")
    v(s, "sup")[0, 1] = 1
    v(s, "sup")[0, 2] = 2
    fix_supply(s)
    set_dice(s, 0, "Y", 2)
    s = run(s, a("ACTIVITY", 0), a("SPACE", own_space(s, 0)))
    assert v(s, "sup")[0, 0] == 3  # illustration: scores nothing
    # seat 1 leaves slot 1 to hire elsewhere: slot 1 frees, seat 2 stays in slot 2
    s = turn_state(3)
    set_card(s, 0, "MERCHANT")
    set_card(s, 1, "MILLER")
    v(s, "sup")[0, 1] = 1
    v(s, "sup")[0, 2] = 2
    fix_supply(s)
    v(s, "cur")[0] = 1
    set_dice(s, 1, "Y", 4)
    s = run(s, a("ACTIVITY", 1))
    assert a("ACTIVITY", 0) in legal(s)
    s = run(s, a("ACTIVITY", 0))
    assert list(v(s, "sup")[0, :3]) == [0, 0, 2] and v(s, "sup")[1, 1] == 1


def test_activation_needs_n_at_least_1():
    s = merchant_state()
    v(s, "sup")[0, 0] = 1
    fix_supply(s)
    set_dice(s, 0, "Y", 1)  # 1 // 2 = 0 activations
    assert a("ACTIVITY", 0) not in legal(s)


def test_hire_cost_must_be_payable():
    s = merchant_state()
    set_dice(s, 0, "Y", 6)
    v(s, "deniers")[0] = 3
    assert a("ACTIVITY", 0) not in legal(s)
    v(s, "deniers")[0] = 4
    assert a("ACTIVITY", 0) in legal(s)


def test_delayed_card_places_cubes_usable_only_later():
    s = turn_state(2)
    set_card(s, 3, "PRIEST")
    set_card(s, 0, "MERCHANT")
    v(s, "sup")[3, 0] = 1
    v(s, "sup")[0, 0] = 1
    fix_supply(s)
    set_dice(s, 0, "W", 6)
    set_dice(s, 0, "Y", 1)
    s = run(s, a("ACTIVITY", 3))
    assert v(s, "act_cubes")[3, 0] == 2 and v(s, "cubes_out")[0] == 2
    s = run(s, PASS)  # seat 1 passes; seat 0 again
    assert int(v(s, "cur")[0]) == 0
    s = run(s, a("ACTIVITY", 0))
    # only the cube makes Y1 enough (1 // 2 = 0): cube, die and confirm are all forced
    assert v(s, "act_cubes")[3, 0] == 1 and v(s, "cubes_out")[0] == 1
    assert v(s, "deniers")[0] == 20 + 2 * 2  # (1 + 3) // 2 = 2 activations


def test_at_most_one_cube_per_action():
    s = turn_state(2)
    set_card(s, 3, "PRIEST")
    set_card(s, 4, "TITHING")
    set_card(s, 0, "MERCHANT")
    v(s, "act_cubes")[3, 0] = 1
    v(s, "act_cubes")[4, 0] = 1
    v(s, "cubes_out")[0] = 2
    v(s, "sup")[0, 0] = 1
    fix_supply(s)
    set_dice(s, 0, "Y", 6)
    s = run(s, a("ACTIVITY", 0))
    assert int(v(s, "phase")[0]) == PH_CUBE
    assert legal(s) == {a("ACTIVITY", 3), a("ACTIVITY", 4), a("NO_CUBE")}
    s = run(s, a("ACTIVITY", 3))
    assert int(v(s, "phase")[0]) != PH_CUBE
    assert v(s, "act_cubes")[4, 0] == 1


def test_pay_gain_go_on_stop_and_affordability():
    s = turn_state(2)
    set_card(s, 0, "INNKEEPER")
    v(s, "sup")[0, 0] = 1
    fix_supply(s)
    set_dice(s, 0, "Y", 6)  # N = 3
    v(s, "deniers")[0] = 2  # only two payments possible
    s = run(s, a("ACTIVITY", 0))
    assert int(v(s, "phase")[0]) == PH_GOON
    s = run(s, a("GO_ON"))
    # after two payments nothing is left: the activations end by themselves
    assert int(v(s, "phase")[0]) == PH_TURN
    assert v(s, "deniers")[0] == 0 and v(s, "influence")[0] == 6


# ------------------------------------------------------------------ §4.2 Cathedral


def test_cathedral_levels_vp_influence_and_full_column():
    s = turn_state(2)
    set_dice(s, 0, "W", 2)
    set_dice(s, 0, "W", 2)
    set_dice(s, 0, "W", 5)
    s = run(s, a("CATHEDRAL"), die(0, "W", 2), die(0, "W", 2), die(0, "W", 5))
    c = v(s, "cath")
    assert c[0, 1] == 0 and c[1, 1] == 0 and c[0, 4] == 0 and c[2, 1] == -1
    assert v(s, "vp")[0] == 3 and v(s, "influence")[0] == 4 + 1 + 1 + 2
    # value 2 full on all levels: a white 2 can no longer build (ED-27)
    s = turn_state(2)
    v(s, "cath")[:, 1] = 1
    v(s, "cubes_out")[1] = 3
    set_dice(s, 0, "W", 2)
    assert a("CATHEDRAL") not in legal(s)


# ------------------------------------------------------------------ §4.3 combat


def test_combat_cubes_influence_and_cap_at_free_flags():
    s = turn_state(2)
    set_dice(s, 0, "Y", 6)
    set_dice(s, 0, "Y", 6)
    set_dice(s, 0, "Y", 6)
    s = run(s, a("EVENT", 0))  # the first Y6 is the only die type: chosen automatically
    s = run(s, die(0, "Y", 6), die(0, "Y", 6))  # three dice: CONFIRM automatic
    # Marauding (yellow, /3, 3 flags): 12 // 3 = 4 -> 3 placed and the card resolves
    assert v(s, "vp")[0] == 2 + 1  # sole owner: R1 + R2
    assert v(s, "influence")[0] == 4 + 3
    assert (v(s, "row_flags")[0] == -1).all() and v(s, "row_card")[0] == 0  # Marauding stays
    assert v(s, "cubes_out")[0] == 0


@pytest.mark.parametrize(
    "flags,expect_vp,keeper",
    [
        ([0, 0, 1, 1, 0], {0: 5, 1: 2}, 0),  # clear majority: R1 / R2
        ([0, 1, 1, 0, 0], {0: 5, 1: 2}, 0),
        ([1, 0, 1, 0, 2], {0: 3, 1: 3, 2: 0}, 1),  # tie for most: (5+2)//2 each, lowest flag keeps
        ([0, 1, 2, 0, 0], {0: 5, 1: 1, 2: 1}, 0),  # tie for second: R2 // 2 each
        ([0, 0, 0, 0, 0], {0: 7}, 0),  # one player: R1 + R2
    ],
)
def test_majority_payouts_and_keeper(flags, expect_vp, keeper):
    """rules §4.3 / ED-33 on Red event R3 (5 flags, R1 5, R2 2); the last flag is filled by the
    player of flags[-1] through combat."""
    s = turn_state(3)
    i = add_event(s, "RED_R3", flags[:-1])
    v(s, "cur")[0] = flags[-1]
    p = flags[-1]
    set_dice(s, p, "R", 4)
    s = run(s, a("EVENT", i))
    for q, vp in expect_vp.items():
        assert v(s, "vp")[q] == vp, (q, list(v(s, "vp")))
    from .conftest import event_id

    assert v(s, "kept_by")[event_id("RED_R3")] == keeper
    assert (v(s, "row_card")[1:] == -1).all()
    assert T.check_invariants(s) == []


def test_grey_majority_card_leaves_game():
    """ED-9 / U-NEUTRAL-MAJ: grey never gets cubes in play, but the branch is kept."""
    s = turn_state(2)
    i = add_event(s, "WAR", [4, 4, 4])
    set_dice(s, 0, "R", 4)
    s = run(s, a("EVENT", i))
    from .conftest import event_id

    assert v(s, "kept_by")[event_id("WAR")] == 4
    assert v(s, "vp")[0] == 2  # second most: R2


# ------------------------------------------------------------------ §4.4 placement


def test_palace_placement_expels_and_protection_rule():
    s = turn_state(2)
    set_spaces(s, [1, 4, 4, 4, 4, 4] + [0] * 6 + [1] * 6)
    set_dice(s, 0, "R", 1)
    s = run(s, a("BUILDING", 0))  # die and confirm forced; six own citizens as sources
    assert int(v(s, "phase")[0]) == PH_SOURCE
    s = run(s, a("SPACE", 6))
    assert v(s, "spaces")[0] == 0 and v(s, "lying")[0, 1] == 1
    assert list(v(s, "spaces")[6:8]) == [0, -1]  # the row closed up (ED-8)
    # seat 1 already lies at the Palace: its other citizen there cannot be expelled
    s = turn_state(2)
    set_spaces(s, [1, 4, 4, 4, 4, 4] + [0] * 6 + [1] * 6)
    v(s, "lying")[0, 1] = 1
    fix_supply(s)
    set_dice(s, 0, "R", 1)
    assert a("BUILDING", 0) not in legal(s)


def test_row_push_and_expel_last_and_own_expulsion():
    s = turn_state(2)
    # City Hall row 1 (values 1-3) = [1, 0, 1]
    set_spaces(s, [0] * 6 + [1] * 6 + [1, 0, 1, 4, 4, 4])
    set_dice(s, 0, "Y", 2)
    s = run(s, a("BUILDING", 2))
    assert int(v(s, "phase")[0]) == PH_SOURCE  # one of the own standing citizens
    s = run(s, a("SPACE", 0))
    assert list(v(s, "spaces")[12:15]) == [0, 1, 0] and v(s, "lying")[2, 1] == 1
    # the front citizen of that row cannot be the source (ED-28); another place in the row can
    s = turn_state(2)
    set_spaces(s, [1] * 6 + [0] * 6 + [0, 1, 0, 4, 4, 4])
    v(s, "owned")[0] = 9
    fix_supply(s)
    set_dice(s, 0, "Y", 1)
    s = run(s, a("BUILDING", 2))
    lg = legal(s)
    assert a("SPACE", 12) not in lg and a("SPACE", 14) in lg and SUPPLY in lg
    s2 = run(s, a("SPACE", 14))
    assert list(v(s2, "spaces")[12:15]) == [0, 0, 1] and v(s2, "lying").sum() == 0
    s3 = run(s, SUPPLY)  # own expulsion is legal
    assert list(v(s3, "spaces")[12:15]) == [0, 0, 1] and v(s3, "lying")[2, 0] == 1


def test_lying_citizen_as_source_lifts_protection():
    s = turn_state(2)
    set_spaces(s, [0, 4, 4, 4, 4, 4] + [1] * 12)
    v(s, "lying")[0, 0] = 1
    fix_supply(s)
    sup0 = int(v(s, "supply")[0])
    set_dice(s, 0, "R", 1)
    # supply: would expel the own citizen while one lies there (protection); SPACE 0: same place
    # (ED-28); so the lying citizen is the only source and everything is forced
    s = run(s, a("BUILDING", 0))
    assert v(s, "spaces")[0] == 0 and v(s, "lying")[0, 0] == 1 and v(s, "supply")[0] == sup0


def test_tithing_cube_for_city_hall_placement_buys_free():
    s = turn_state(2)
    set_card(s, 3, "TITHING")
    v(s, "act_cubes")[3, 0] = 1
    v(s, "cubes_out")[0] = 1
    set_spaces(s, [1] * 6 + [4] * 5 + [1] + [1, 1, 1, 4, 4, 1])
    set_dice(s, 1, "Y", 1)
    v(s, "deniers")[0] = 0
    s = run(s, a("BUILDING", 2))  # the cube is the only way to afford it: all forced
    assert v(s, "act_cubes")[3, 0] == 0 and v(s, "deniers")[0] == 0 and v(s, "deniers")[1] == 20
    assert v(s, "spaces")[12] == 0 and v(s, "lying")[2, 1] == 1


# ------------------------------------------------------------------ §4.5 agriculture, §4.6 pass


def test_agriculture():
    s = turn_state(2)
    set_dice(s, 0, "Y", 5)
    s = run(s, a("AGRICULTURE"))
    assert v(s, "deniers")[0] == 22
    s = turn_state(2)
    set_dice(s, 0, "Y", 1)
    assert a("AGRICULTURE") not in legal(s)  # ED-22: 1 // 2 = 0


def test_pass_deniers_and_lone_player_turns():
    s = turn_state(3)
    set_dice(s, 2, "Y", 5)
    set_dice(s, 2, "Y", 5)
    s = run(s, PASS)  # seat 0
    assert v(s, "dist_den")[0] == 2
    s = run(s, PASS)  # seat 1
    assert int(v(s, "cur")[0]) == 2
    s = run(s, a("AGRICULTURE"), die(0, "Y", 5))  # first die forced; two dice: confirm forced
    # seat 2 again; seats 0 and 1 each got +1 on the way
    assert int(v(s, "cur")[0]) == 2
    assert list(v(s, "dist_den")[:2]) == [3, 3]
    s = run(s, PASS)
    # all passed -> round over: district deniers become money (rules §3 phase 5)
    assert int(v(s, "round")[0]) == 2
    assert v(s, "start_player")[0] == 1


# ------------------------------------------------------------------ §5 influence


def test_influence_reroll_flip_new_citizen():
    s = turn_state(2)
    set_dice(s, 0, "Y", 2)
    set_dice(s, 0, "R", 3)
    v(s, "influence")[0] = 7
    s = run(s, a("FLIP"), die(0, "Y", 2), die(0, "R", 3))  # no die left to add: confirm forced
    assert v(s, "dice")[0, 0, 4] == 1 and v(s, "dice")[0, 2, 3] == 1
    assert v(s, "influence")[0] == 3
    s = run(s, a("REROLL", 0, 4))
    assert v(s, "influence")[0] == 2 and v(s, "dice")[0, 0].sum() == 1
    own = int(v(s, "owned")[0])
    s = run(s, a("NEW_CITIZEN"))
    assert v(s, "owned")[0] == own + 1 and v(s, "influence")[0] == 0
    v(s, "owned")[0] = 12
    v(s, "influence")[0] = 5
    fix_supply(s)
    assert a("NEW_CITIZEN") not in legal(s)


def test_influence_cap_20():
    s = turn_state(2)
    set_card(s, 6, "DIPLOMAT")
    v(s, "sup")[6, 0] = 1
    fix_supply(s)
    v(s, "influence")[0] = 20
    set_dice(s, 0, "R", 4)
    s = run(s, a("ACTIVITY", 6))
    assert v(s, "influence")[0] == 20


def test_card_positions_helper():
    assert card_pos("MERCHANT") == 0 and card_pos("CAPTAIN") == 8
    _ = np
