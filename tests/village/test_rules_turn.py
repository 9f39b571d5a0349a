"""Rules §3.2 (a turn), §4.1 harvest: a first scenario to show the helpers at work."""

from village.helpers import (
    COL, GOOD, V, act, clear_player, give, legal, legal_names, new, set_board, v,
)


def test_take_harvest_cube_then_harvest_with_horse_and_plow():
    s = new(3, 0)
    clear_player(s, 0)
    set_board(s, {"harvest": {"brown": 1}, "church": {"pink": 2, "orange": 1}})
    give(s, 0, goods={"horse": 1, "plow": 1}, grain=1)
    s = act(s, "take", 0, COL["brown"])
    assert v(s, "cubes")[0, COL["brown"]] == 1
    assert legal(s) == {("done", ()), ("harvest", ())}
    s = act(s, "harvest")
    assert v(s, "grain")[0] == 4  # 1 + 3 (horse + plow), rules §4.1
    assert V.current_player(s) == 1 and "take" in legal_names(s)
    assert v(s, "goods")[0, GOOD["horse"]] == 1  # goods are not used up
