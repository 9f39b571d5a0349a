"""DESIGN D2 (rules data is one replaceable table passed to the compiled engine) and the
Appendix A values the engine reads for the sections covered here (A.1-A.3, A.6)."""

import numpy as np
import pytest
from village.helpers import (
    COL,
    LOC_CRAFT,
    SPACE,
    V,
    act,
    aid,
    clear_player,
    give,
    new,
    set_board,
    v,
)

from village_env import rules_data as rd
from village_env import tables
from village_env.engine.setup import init_state
from village_env.engine.step import settle, step_inplace


def _table(name):
    off, shape = tables.OFFSETS[name], tables.SHAPES[name]
    return tables.TABLES[off : off + int(np.prod(shape))].reshape(shape).tolist()


def test_default_table_holds_appendix_a_values():
    """A.1-A.3, A.6 as the engine sees them."""
    assert _table("harvest") == [2, 3, 4]
    assert _table("lap") == [10] and _table("plague_time") == [2]
    assert _table("grain_cap") == [5] and _table("starting_coins") == [1]
    assert _table("members_by_gen") == [4, 3, 2, 2]
    assert _table("refill") == [0, 0, 4, 5, 6]
    assert _table("space_cubes")[2:] == [[3, 3, 3, 3, 2, 2, 2], [3] * 7, [4, 4, 4, 3, 3, 3, 3]]
    assert _table("stalls") == [0, 0, 3, 4, 5] and _table("waiting_line") == [5]
    # wainwright, stables, office, blacksmith
    assert _table("craft_place") == [2, 3, 2, 2] and _table("craft_produce") == [2, 3, 2, 2]
    assert _table("craft_buy_cubes") == [[0, 1, 1, 0], [0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0]]
    assert _table("craft_buy_grain") == [0, 3, 0, 0]
    assert _table("mill") == [1, 2, 2]
    assert _table("chronicle") == [[2, 1, 1]] * 5 and _table("graves") == [4, 2, 2]
    assert _table("well_cubes") == [3] and _table("family_time") == [0]
    assert _table("harvest_time") == [0]


@pytest.mark.slow  # compiles an engine from a changed table
def test_changed_table_reaches_the_compiled_engine_d2():
    """D2: a modified copy of the rules data (HARVEST_BASE=1) is built into a table and passed to
    the compiled functions; the engine follows it without recompiling, the default stays."""
    t2 = tables.build_tables(
        tables.rules_with(
            HARVEST_BASE=1, CRAFTS={**rd.CRAFTS, "wainwright": (5, 4, (0, 1, 1, 0), 0)}
        )
    )
    assert tables.tables_hash(t2) != tables.RULES_DATA_HASH
    s = new(2, 0)
    clear_player(s, 0)
    set_board(s, {"harvest": {"brown": 2}, "crafts": {"brown": 2}})
    mask = np.zeros(V.NUM_ACTIONS, dtype=np.bool_)
    work = np.zeros(1, dtype=np.int64)  # Village needs no scratch (WORK_SIZE 0)
    for T, grain in ((t2, 1), (tables.TABLES, 2)):
        x = s.copy()
        assert step_inplace(x, T, aid("take", SPACE["harvest"], COL["brown"]), mask, work) == 0
        assert step_inplace(x, T, aid("harvest"), mask, work) == 0
        assert v(x, "grain")[0] == grain
    x = s.copy()
    step_inplace(x, t2, aid("take", SPACE["crafts"], COL["brown"]), mask, work)
    step_inplace(x, t2, aid("craft_place", 0, 0), mask, work)
    step_inplace(x, t2, aid("craft_produce", 4), mask, work)
    assert v(x, "time")[0] == 9 and v(x, "members")[0, LOC_CRAFT, 0] == 1


def test_changed_setup_data_via_init_state_d2():
    """D2: setup reads the table too: STARTING_COINS=3 and a 4-player split of 6 x 3 + 6."""
    t2 = tables.build_tables(
        tables.rules_with(
            STARTING_COINS=3, CUBES_PER_SPACE={**rd.CUBES_PER_SPACE, 4: (6, 3, 3, 3, 3, 3, 3)}
        )
    )
    s = np.zeros(V.LAYOUT.size, dtype=np.int64)
    init_state(s, t2, 4, 1, 2, 3, 0)
    settle(s, t2, np.zeros(V.NUM_ACTIONS, dtype=np.bool_), np.zeros(1, dtype=np.int64))
    assert list(v(s, "coins")) == [3, 3, 3, 3] and v(s, "supply_coins")[0] == 3
    assert list(v(s, "board").sum(axis=1)) == [6, 3, 3, 3, 3, 3, 3]


def test_public_api_follows_load_rules_data_and_restores():
    """D2 via the public API: load_rules_data swaps the table (hash changes), the default comes
    back afterwards."""
    default_hash = V.RULES_DATA_HASH
    try:
        h = V.load_rules_data(tables.rules_with(HARVEST_HORSE_PLOW=5))
        assert h != default_hash and V.RULES_DATA_HASH == h
        s = new(3, 0)
        clear_player(s, 0)
        give(s, 0, goods={"horse": 1, "plow": 1})
        set_board(s, {"harvest": {"brown": 2}, "church": {"pink": 1}})
        s = act(s, "take", SPACE["harvest"], COL["brown"])
        s = act(s, "harvest")
        assert v(s, "grain")[0] == 5
    finally:
        V.load_rules_data()
    assert V.RULES_DATA_HASH == default_hash


def test_shape_changes_and_unknown_names_are_refused():
    """tables.build_tables refuses data of another shape; rules_with refuses unknown names."""
    with pytest.raises(ValueError, match="layout version bump"):
        tables.build_tables(tables.rules_with(MEMBERS_BY_GENERATION=(4, 3, 2, 1, 1)))
    with pytest.raises(ValueError, match="unknown rules-data name"):
        tables.rules_with(HARVEST_BOOST=3)
