"""The engine's copies of rules_data enums and of the layout's shapes agree with their sources:
every engine code derived from an enum must equal that enum member."""

from __future__ import annotations

import pytest

from troyes_env import layout, rules_data, tables
from troyes_env.engine import board, groups, rounds

ENUM_COPIES = [
    (board, "CNT_EV_CUBE", rules_data.Count.EVENTS_WITH_OWN_CUBE),
    (board, "CNT_CATH", rules_data.Count.OWN_CATHEDRAL_CUBES),
    (board, "CNT_BISH", rules_data.Count.OWN_BISHOPRIC_CITIZENS),
    (board, "CNT_PAL", rules_data.Count.OWN_PALACE_CITIZENS),
    (board, "CNT_KEPT", rules_data.Count.EVENTS_KEPT),
    (board, "CNT_INF", rules_data.Count.INFLUENCE),
    (board, "CNT_DEN", rules_data.Count.DENIERS),
    (board, "CNT_BLD", rules_data.Count.OWN_BUILDING_CITIZENS),
    (board, "CNT_ACT", rules_data.Count.OWN_ACTIVITY_CITIZENS),
    (groups, "EF_GAIN", rules_data.Effect.GAIN),
    (groups, "EF_PAY_GAIN", rules_data.Effect.PAY_GAIN),
    (groups, "EF_MILLER", rules_data.Effect.MILLER),
    (groups, "EF_VP_PER", rules_data.Effect.VP_PER),
    (groups, "EF_EVENT_CUBE", rules_data.Effect.EVENT_CUBE),
    (groups, "EF_DIE_PLUS", rules_data.Effect.DIE_PLUS),
    (groups, "EF_GROUP_PLUS", rules_data.Effect.GROUP_PLUS),
    (groups, "EF_RECOLOUR", rules_data.Effect.RECOLOUR),
    (groups, "EF_SPLIT", rules_data.Effect.SPLIT),
    (groups, "EF_ALL_FIVES", rules_data.Effect.ALL_FIVES),
    (groups, "EF_FREE_DICE", rules_data.Effect.FREE_DICE),
    (layout, "COL_Y", rules_data.Colour.Y),
    (layout, "COL_W", rules_data.Colour.W),
    (layout, "COL_R", rules_data.Colour.R),
    (layout, "B_PALACE", rules_data.Building.PALACE),
    (layout, "B_BISHOPRIC", rules_data.Building.BISHOPRIC),
    (layout, "B_CITY_HALL", rules_data.Building.CITY_HALL),
    (groups, "RES_DEN", rules_data.Res.DENIERS),
    (groups, "RES_INF", rules_data.Res.INFLUENCE),
    (groups, "RES_VP", rules_data.Res.VP),
    (rounds, "EV_NONE", rules_data.EventEffect.NONE),
    (rounds, "EV_PAY", rules_data.EventEffect.PAY),
    (rounds, "EV_LOSE_INF", rules_data.EventEffect.LOSE_INFLUENCE),
    (rounds, "EV_LOSE_ACUBE", rules_data.EventEffect.LOSE_ACTIVITY_CUBE),
    (rounds, "EV_LOSE_ECUBE", rules_data.EventEffect.LOSE_EVENT_CUBE),
    (rounds, "EV_LOSE_CATH", rules_data.EventEffect.LOSE_CATHEDRAL_CUBE),
    (rounds, "EV_LOSE_CH", rules_data.EventEffect.LOSE_CITY_HALL_CITIZEN),
    (rounds, "EV_GREY", rules_data.EventEffect.GREY_CITIZEN),
    (groups, "TIMING_IMMEDIATE", rules_data.Timing.IMMEDIATE),
    (groups, "TIMING_DELAYED", rules_data.Timing.DELAYED),
]


@pytest.mark.parametrize(
    ("module", "name", "member"),
    ENUM_COPIES,
    ids=[f"{m.__name__.rsplit('.', 1)[-1]}.{n}" for m, n, _ in ENUM_COPIES],
)
def test_engine_code_matches_its_enum(module, name, member):
    value = getattr(module, name)
    assert type(value) is int, f"{name} must be a plain int (numba freezes it as a constant)"
    assert value == int(member), f"{module.__name__}.{name} = {value}, {member!r} = {int(member)}"


def test_every_enum_member_has_its_engine_code():
    """No member of a copied enum is missing from the engine's copies (a new card effect...)."""
    copied = {(type(m), int(m)) for _, _, m in ENUM_COPIES}
    for enum in (
        rules_data.Count,
        rules_data.Effect,
        rules_data.Colour,
        rules_data.Building,
        rules_data.Res,
        rules_data.EventEffect,
        rules_data.Timing,
    ):
        for member in enum:
            assert (enum, int(member)) in copied, f"{member!r} has no engine constant"


def test_layout_dimensions_match_the_rules():
    assert layout.N_COL == len(rules_data.Colour)
    assert layout.N_BLD == len(rules_data.Building)
    assert layout.N_DIST == layout.MAXP + 1  # the seats' districts and the neutral one
    assert layout.DIST_DICE == layout.N_COL * layout.N_VAL
    assert layout.N_DIE_TYPES == layout.N_DIST * layout.DIST_DICE
    assert layout.N_SPACES == sum(
        rules_data.ROW_LENGTH[b] * len(set(rules_data.ROW_OF_VALUE[b])) for b in range(layout.N_BLD)
    )
    assert layout.N_ACTPOS == layout.N_COL * 3  # one Activity card per colour and level 1..3
    L = layout.LAYOUT
    assert L.segments["dice"].shape == (layout.N_DIST, layout.N_COL, layout.N_VAL)
    assert L.segments["spaces"].shape == (layout.N_SPACES,)
    assert L.segments["sup"].shape == (layout.N_ACTPOS, layout.MAXP)
    assert tables.N_CHAR == len(rules_data.CHARACTER_CARDS)
    assert tables.N_EV == len(rules_data.EVENT_CARDS)
    assert tables.N_ACT == len(rules_data.ACTIVITY_CARDS)
    assert layout.N_EVENTS == tables.N_EV
    assert layout.N_CHAR_SLOTS == L.segments["chars"].shape[1]
    assert layout.N_GREY == rules_data.GREY_CITIZENS
    assert layout.MAX_OWNED == rules_data.MAX_CITIZENS
    assert L.segments["decks"].shape == (layout.N_DECKS, layout.DECK_LEN)
    assert L.segments["cath"].shape == (layout.N_LEVELS, layout.N_VAL)
    assert L.segments["lying"].shape == (layout.N_BLD, layout.N_OWNERS)
    assert layout.GREY == layout.NEUTRAL == layout.MAXP  # the owner / district after the seats
    for b in range(layout.N_BLD):  # a building's colour (rules §4.4): COL_R - b
        assert rules_data.BUILDING_COLOUR[rules_data.Building(b)] == layout.COL_R - b
