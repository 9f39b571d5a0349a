"""Rules §4.10 the Well, ED-12 (pay, then any action with a legal option, or decline), ED-10."""

from village.helpers import (
    COL,
    GOOD,
    LOC_BAG,
    V,
    act,
    clear_player,
    give,
    legal,
    new,
    set_board,
    set_market,
    v,
)

from village_env.layout import PH_CHOOSE, PH_MARKET, PH_TURN


def well_state(cubes=None, coins=0, board=None):
    s = new(3, 0)
    for p in range(3):
        clear_player(s, p)
    set_board(s, board or {"harvest": {"pink": 1}, "family": {"plague": 1}})
    give(s, 0, cubes=cubes or {}, coins=coins)
    return s


def test_well_is_offered_per_colour_with_three_cubes_or_coin_jokers():
    s = well_state(cubes={"brown": 3, "pink": 2, "orange": 1}, coins=1)
    assert legal(s) == {
        ("take", (0, COL["pink"])),
        ("take", (1, 4)),
        ("well", (COL["brown"],)),
        ("well", (COL["pink"],)),
    }
    s = well_state(cubes={"green": 1}, coins=2)
    assert ("well", (COL["green"],)) in legal(s) and ("well", (COL["brown"],)) not in legal(s)
    s = act(s, "well", COL["green"])  # 1 green + 2 coins
    assert v(s, "cubes")[0, COL["green"]] == 0 and v(s, "coins")[0] == 0


def test_well_pays_three_cubes_then_any_action_even_one_whose_space_is_empty():
    s = well_state(cubes={"brown": 3})
    sup = int(v(s, "supply_cubes")[COL["brown"]])
    board = v(s, "board").copy()
    s = act(s, "well", COL["brown"])
    assert v(s, "supply_cubes")[COL["brown"]] == sup + 3 and v(s, "cubes")[0].sum() == 0
    assert (v(s, "board") == board).all()  # no cube taken
    assert v(s, "phase")[0] == PH_CHOOSE and v(s, "allowed")[0] == -1
    # four gen-1 members at home, nothing else: harvest, birth, place on a building, market,
    # church for 3 time (the church space has no cube)
    assert legal(s) == {
        ("done", ()),
        ("harvest", ()),
        ("birth", ()),
        ("market", ()),
        ("church", (0, 1)),
    } | {("craft_place", (b, 0)) for b in range(4)}
    s = act(s, "church", 0, 1)
    assert v(s, "members")[0, LOC_BAG, 0] == 1 and v(s, "time")[0] == 3
    assert V.current_player(s) == 1


def test_well_declining_keeps_the_payment_and_never_ends_the_round():
    s = well_state(cubes={"orange": 3}, board={"harvest": {"pink": 1}})
    s = act(s, "well", COL["orange"])
    s = act(s, "done")
    assert v(s, "cubes")[0, COL["orange"]] == 0
    # ED-10: the single cube is still there: p1's turn, same round (p1's only option is
    # to take it, applied at once)
    assert v(s, "round")[0] == 1 and v(s, "turn_player")[0] == 1
    assert v(s, "cubes")[1, COL["pink"]] == 1


def test_well_then_market_opens_a_market_day_with_a_free_first_sale():
    s = well_state(cubes={"pink": 3})
    set_market(s, [4, 5, 6], [7, 8, 9, 10, 11])
    give(s, 0, goods={"horse": 1})
    s = act(s, "well", COL["pink"])
    s = act(s, "market")
    assert v(s, "phase")[0] == PH_MARKET and v(s, "mkt_opener")[0] == 0
    assert legal(s) == {("done", ()), ("serve", (0,))}
    s = act(s, "serve", 0)
    assert v(s, "goods")[0, GOOD["horse"]] == 0 and v(s, "time")[0] == 0
    assert v(s, "phase")[0] == PH_TURN and V.current_player(s) == 1
