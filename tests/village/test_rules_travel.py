"""Rules §4.6 travel and ED-23, over the placeholder map of Appendix A.7.

Edges (rules_data.TRAVEL_EDGES, direction 0 = a->b): 0 Village-A brown, 1 Village-B pink,
2 A-C orange, 3 A-D pink, 4 B-D brown, 5 B-E orange. Rewards: A 3 prestige, B 1 coin,
C 2 cubes of choice, D 2 prestige.
"""

from village.helpers import (
    CITY,
    COL,
    GOOD,
    LOC_CITY,
    LOC_FARM,
    LOC_UNBORN,
    V,
    act,
    clear_player,
    give,
    legal,
    move,
    new,
    set_board,
    v,
)

from village_env.layout import PH_REWARD, PH_TURN

A, B, C, D, E = (CITY[x] for x in "ABCDE")


def travel_turn(*, cubes=None, coins=0, wagons=1, at=(), marked=(), prep=None):
    """p0 has taken the travel cube and chooses; p0 starts with four gen-1 members at home,
    minus one gen-1 traveller per city in `at`; `marked` cities carry p0's marker."""
    s = new(3, 0)
    for p in range(3):
        clear_player(s, p)
    set_board(s, {"travel": {"orange": 1}, "harvest": {"pink": 2, "green": 1}})
    give(s, 0, cubes=cubes or {}, coins=coins, goods={"wagon": wagons})
    for c in at:
        move(s, 0, LOC_FARM, LOC_CITY + c, 1)
    for c in marked:
        v(s, "markers")[0, c] = 1
    if prep:
        prep(s)
    s = act(s, "take", 4, COL["orange"])
    return s


def opts(*travels):
    return {("done", ())} | {("travel", t) for t in travels}


def test_first_traveller_to_a_village_exit_pays_time_wagon_cubes_and_takes_reward():
    s = travel_turn(cubes={"brown": 2})
    # §4.6: no member on the map: only the two exits; only the brown one is affordable
    assert legal(s) == opts((0, 0, 0))
    sup_brown = int(v(s, "supply_cubes")[COL["brown"]])
    s = act(s, "travel", 0, 0, 0)
    assert v(s, "time")[0] == 2 and v(s, "goods")[0, GOOD["wagon"]] == 0
    assert v(s, "cubes")[0, COL["brown"]] == 0
    assert v(s, "supply_cubes")[COL["brown"]] == sup_brown + 2
    assert v(s, "supply_goods")[GOOD["wagon"]] == 8
    assert v(s, "members")[0, LOC_CITY + A].tolist() == [1, 0, 0, 0]
    assert v(s, "members")[0, LOC_FARM, 0] == 3
    assert v(s, "markers")[0].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    assert v(s, "prestige")[0] == 3  # city A: 3 prestige
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN


def test_coins_pay_path_cubes_and_city_b_gives_a_coin():
    s = travel_turn(cubes={"pink": 1}, coins=2)
    # ED-7: 2 coins can stand in for the brown path, 1 pink + 1 coin for the pink one
    assert legal(s) == opts((0, 0, 0), (1, 0, 0))
    s = act(s, "travel", 1, 0, 0)
    assert v(s, "cubes")[0, COL["pink"]] == 0 and v(s, "coins")[0] == 1 + 1  # 2 - 1 + reward
    assert v(s, "markers")[0, B] == 1 and v(s, "members")[0, LOC_CITY + B, 0] == 1


def test_with_a_traveller_move_along_an_edge_or_send_another_from_the_farmyard():
    # two travellers in A: one choice (ED-4)
    s = travel_turn(cubes={"brown": 2, "pink": 2, "orange": 1}, at=(A, A), marked=(A,))
    # from A: to C (orange) or D (pink), never back to the Village; or a new one to A or B
    assert legal(s) == opts((0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0))
    s = act(s, "travel", 3, 0, 0)  # A -> D along the pink edge
    assert v(s, "members")[0, LOC_CITY + A, 0] == 1 and v(s, "members")[0, LOC_CITY + D, 0] == 1
    assert v(s, "cubes")[0].tolist() == [2, 0, 2, 0]
    assert v(s, "markers")[0, D] == 1 and v(s, "prestige")[0] == 2  # D: 2 prestige


def test_generation_is_a_choice_and_no_skipping_cities():
    # a traveller in C (A is not adjacent to the farmyard), a gen-2 member at home
    s = travel_turn(cubes={"brown": 2}, at=(C,), prep=lambda s: move(s, 0, LOC_UNBORN, LOC_FARM, 2))
    # C-F is brown (edge 6, C -> F direction 0); C-A is orange (unaffordable); exits: brown only
    assert legal(s) == opts((0, 0, 0), (0, 0, 1), (6, 0, 0))


def test_cubes_of_choice_reward_is_chosen_one_unit_at_a_time():
    s = travel_turn(cubes={"orange": 1}, at=(A,), marked=(A,))
    s = act(s, "travel", 2, 0, 0)  # A -> C: 2 cubes of choice
    assert v(s, "phase")[0] == PH_REWARD and V.current_player(s) == 0
    assert legal(s) == {("choose_cube", (c,)) for c in range(4)}
    s = act(s, "choose_cube", COL["green"])
    assert v(s, "pending_units")[0] == 1 and v(s, "phase")[0] == PH_REWARD
    s = act(s, "choose_cube", COL["brown"])
    assert v(s, "cubes")[0].tolist() == [1, 0, 0, 1]  # any mix of colours
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN


def test_revisiting_a_marked_city_gives_nothing():
    s = travel_turn(cubes={"pink": 2}, at=(D,), marked=(A, D))
    s = act(s, "travel", 3, 1, 0)  # D -> A, A already marked
    assert v(s, "members")[0, LOC_CITY + A, 0] == 1
    assert v(s, "prestige")[0] == 0 and v(s, "markers")[0].sum() == 2
    assert v(s, "time")[0] == 2 and v(s, "goods")[0, GOOD["wagon"]] == 0


def test_ed23_travel_stays_legal_with_all_six_markers_but_gives_no_marker_or_reward():
    s = travel_turn(cubes={"brown": 2}, marked=(B, C, D, E, CITY["F"], CITY["G"]))
    assert legal(s) == opts((0, 0, 0))
    s = act(s, "travel", 0, 0, 0)  # to A: a new city, but no marker is left
    assert v(s, "members")[0, LOC_CITY + A, 0] == 1
    assert v(s, "markers")[0, A] == 0 and v(s, "markers")[0].sum() == 6
    assert v(s, "prestige")[0] == 0 and v(s, "time")[0] == 2


def test_no_wagon_no_travel_and_rewards_cannot_pay_the_trip():
    # ED-5: B's coin reward cannot pay B's path; without the wagon nothing is possible
    s = travel_turn(cubes={"pink": 1}, wagons=1)
    # declining is the only option, so it was applied at once (ED-3): p1's turn
    assert V.current_player(s) == 1 and v(s, "phase")[0] == PH_TURN
    assert v(s, "goods")[0, GOOD["wagon"]] == 1 and v(s, "markers")[0].sum() == 0
    s = travel_turn(cubes={"brown": 5}, wagons=0)
    assert V.current_player(s) == 1 and v(s, "cubes")[0, COL["brown"]] == 5


def test_coin_reward_capped_by_the_supply_trip_still_legal():
    def drain(s):
        k = int(v(s, "supply_coins")[0])
        give(s, 2, coins=k)  # p2 holds every coin left in the supply

    s = travel_turn(cubes={"pink": 2}, prep=drain)
    assert ("travel", (1, 0, 0)) in legal(s)  # ED-6: legal though the coin cannot be had
    s = act(s, "travel", 1, 0, 0)
    assert v(s, "markers")[0, B] == 1 and v(s, "coins")[0] == 0
    assert v(s, "supply_coins")[0] == 0
