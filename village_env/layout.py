"""Village state layout: one flat int64 array (DESIGN D1). Sized for 4 players at any count."""

from __future__ import annotations

from core.layout import Layout
from village_env.tables import N_CITIES, N_CUSTOMERS

GAME_ID = 0x56494C  # "VIL"
VERSION = 2  # 2: the score_src segment (prestige by source)
MAXP = 4
N_SPACES = 7
N_KINDS = 5  # 4 influence colours + plague
N_COLOURS = 4
N_GOODS = 5
N_GEN = 4
N_SECTIONS = 5
N_BUILDINGS = 4  # craft buildings (LOC_CRAFT..)
N_LEVELS = 4  # council levels (LOC_COUNCIL..)
N_WINDOWS = 4  # church windows (LOC_WINDOW..)
N_SLOTS = 5  # stalls and waiting-line places

# member locations (rules §3.5, §4): index into the `members` segment's second axis
LOC_UNBORN = 0
LOC_FARM = 1
LOC_CRAFT = 2  # 2..5: wainwright, stables, office, blacksmith
LOC_COUNCIL = 6  # 6..9: council levels 1..4
LOC_CITY = 10  # 10..17: cities A..H
LOC_BAG = 18  # black bag (church)
LOC_WINDOW = 19  # 19..22: church windows W1..W4
LOC_CHRONICLE = 23  # dead, in the village chronicle
LOC_GRAVE = 24  # dead, in an anonymous grave
LOC_REMOVED = 25  # dead after the trigger with no space left (rules §5.1 step 4)
N_LOC = 26

# phases (the decision the actor faces)
PH_TURN = 0  # take a cube or use the Well (decision point 1)
PH_CHOOSE = 1  # perform an action option or decline (2-7)
PH_CRAFT_PRODUCE = 2  # after placing a craft member: produce or not (4)
PH_PRIVILEGE = 3  # council privilege level or none (6)
PH_REWARD = 4  # one unit of a reward of choice: cube colour or good (5, 6)
PH_MARKET = 5  # market-day go: serve a stall customer or pass (8)
PH_DEATH = 6  # which lowest-generation member dies (9)
PH_MASS_PICK = 7  # pick an own member from the black bag or stop (10)
PH_MASS_ADVANCE = 8  # move a window member left or stop (11)
PH_OVER = 9
N_PHASES = 10
# pending_kind (PH_REWARD): what a reward of choice gives
PK_CUBES = 1
PK_GOODS = 2
PHASE_NAMES = (
    "turn",
    "choose action",
    "craft: produce?",
    "council privilege",
    "reward choice",
    "market day",
    "death",
    "Mass: picks",
    "Mass: advance",
    "game over",
)

# where prestige comes from: the `score_src` segment's second axis, in this order.
# Every change of a player's prestige is credited to exactly one source when it happens
# (board.add_prestige), so each seat's row sums to its prestige at every moment.
SCORE_SOURCES = (
    "travel_rewards",  # in game: a city reward of kind prestige on placing a marker (rules §4.6)
    "council_privilege",  # in game: the level-4 privilege, coins -> prestige (rules §4.7)
    "mass_majority",  # in game: the majority bonus at each Mass (rules §4.9 step 3, ED-29)
    "travel",  # final scoring: travel markers on the map (rules §5.2)
    "council",  # final scoring: living members on council levels (rules §5.2)
    "church",  # final scoring: members on the church windows (rules §5.2)
    "chronicle",  # final scoring: members in the village chronicle (rules §5.2)
    "customers",  # final scoring: printed values of the customer tiles served (rules §5.2)
    "coins",  # final scoring: coins left (rules §5.2)
)
N_SCORE_SOURCES = len(SCORE_SOURCES)
SRC_TRAVEL_REWARDS, SRC_COUNCIL_PRIVILEGE, SRC_MASS_MAJORITY = 0, 1, 2
# final scoring: source SRC_FINAL + k holds part k of engine.rounds.final_score_parts
# (travel, council, church, chronicle, customers, coins)
SRC_FINAL = SCORE_SOURCES.index("travel")
N_FINAL_SOURCES = N_SCORE_SOURCES - SRC_FINAL
assert SCORE_SOURCES[:SRC_FINAL] == ("travel_rewards", "council_privilege", "mass_majority")

BIG = 1 << 40
P, S = MAXP, N_SPACES
SEGMENTS = [
    # name, shape, lo, hi, hidden, encoding
    ("game_id", (), GAME_ID, GAME_ID, False, "constant tag of a Village state"),
    ("version", (), VERSION, VERSION, False, "layout version"),
    ("n_players", (), 2, 4, False, "number of players"),
    ("rng", (4,), 0, 0xFFFFFFFF, True, "xoshiro128** words (core.rng)"),
    ("round", (), 1, 1000, False, "current round, 1-based"),
    ("start_player", (), 0, 3, False, "seat holding the start player marker"),
    ("ns_holder", (), -1, 3, False, "seat holding the next start player marker; -1 in chamber"),
    ("turn_player", (), 0, 3, False, "seat whose turn it is (or was, during the Mass)"),
    ("phase", (), 0, N_PHASES - 1, False, "PH_* code"),
    ("actor", (), -1, 3, False, "seat that must decide now; -1 when over"),
    ("allowed", (), -1, 6, False, "PH_CHOOSE: the one action allowed (space A..G), -1 any"),
    ("pending_units", (), 0, 100, False, "PH_REWARD: units of a reward of choice left"),
    ("pending_kind", (), 0, 2, False, "PH_REWARD: 1 cubes of choice, 2 goods of choice"),
    ("priv_max", (), 0, 4, False, "PH_PRIVILEGE: highest privilege level allowed"),
    ("craft_bld", (), -1, 3, False, "PH_CRAFT_PRODUCE: building a member was just placed on"),
    ("mkt_active", (), 0, 1, False, "a market day is running"),
    ("mkt_opener", (), -1, 3, False, "seat that opened the market day"),
    ("mkt_turn", (), -1, 3, False, "seat whose market go it is"),
    ("mkt_free", (), 0, 1, False, "the opener's first (free) go is still to come"),
    ("mkt_served", (), 0, 1, False, "any customer served this market day"),
    ("mkt_passed", (P,), 0, 1, False, "passed this market day, per seat"),
    ("deaths_now", (P,), 0, 100, False, "bridge crossings to resolve now (market day), per seat"),
    ("deaths_end", (P,), 0, 100, False, "bridge crossings to resolve at end of turn, per seat"),
    ("death_player", (), -1, 3, False, "PH_DEATH: seat choosing who dies"),
    ("board", (S, N_KINDS), 0, 18, False, "cubes on spaces A..G by kind (4 colours, plague)"),
    ("bag", (N_KINDS,), 0, 18, False, "cubes in the green bag by kind"),
    ("supply_cubes", (N_KINDS,), 0, 18, False, "cubes in the supply by kind"),
    ("supply_goods", (N_GOODS,), 0, 8, False, "goods tiles in the supply"),
    ("supply_grain", (), 0, 20, False, "grain in the supply"),
    ("supply_coins", (), 0, 15, False, "coins in the supply"),
    ("cubes", (P, N_COLOURS), 0, 18, False, "influence cubes held, per seat and colour"),
    ("goods", (P, N_GOODS), 0, 8, False, "goods held (scroll, horse, plow, ox, wagon)"),
    ("grain", (P,), 0, 5, False, "grain on each farmyard, 0..5"),
    ("coins", (P,), 0, 15, False, "coins held"),
    ("prestige", (P,), 0, BIG, False, "prestige (final score once over)"),
    ("time", (P,), 0, BIG, False, "total time spent (life track: time % lap)"),
    ("members", (P, N_LOC, N_GEN), 0, 4, False, "family members by seat, LOC_*, generation"),
    ("markers", (P, N_CITIES), 0, 1, False, "travel marker on a city, per seat"),
    ("stalls", (N_SLOTS,), -1, N_CUSTOMERS - 1, False, "customer tile on each stall, -1 empty"),
    ("queue", (N_SLOTS,), -1, N_CUSTOMERS - 1, False, "waiting line, front first, -1 empty"),
    ("pile", (N_CUSTOMERS,), 0, 1, False, "1 if the tile is in the face-down draw pile"),
    ("tile_owner", (N_CUSTOMERS,), -1, 3, False, "seat that served the tile, -1 none"),
    ("chron_used", (N_SECTIONS,), 0, 100, False, "occupied chronicle spaces per section"),
    ("graves_used", (), 0, 100, False, "occupied anonymous graves"),
    ("monks_bag", (), 0, 4, False, "monks in the black bag"),
    ("mass_picked", (), 0, 4, False, "figures out of the bag so far this Mass"),
    ("mass_seat", (), 0, 4, False, "Mass: how many seats (from the start player) have had a go"),
    ("triggered", (), 0, 1, False, "end of game triggered (rules §5.1)"),
    ("trigger_player", (), -1, 3, False, "seat whose dead member filled the last space"),
    ("trigger_in_market", (), 0, 1, False, "the trigger happened during a market day"),
    ("trigger_opener", (), -1, 3, False, "opener of that market day"),
    ("in_final", (), 0, 1, False, "final turns are being played"),
    ("final_order", (P,), -1, 3, False, "seats taking a final turn, in order (ED-30)"),
    ("final_n", (), 0, 4, False, "number of final turns"),
    ("final_idx", (), 0, 4, False, "final turns completed"),
    ("free_action", (), 0, 1, False, "current turn is a free final action (ED-13)"),
    ("game_over", (), 0, 1, False, "terminal"),
    ("truncated", (), 0, 1, False, "ended by the round cap (ED-34)"),
    ("n_turns", (), 0, BIG, False, "turns started (statistics)"),
    # not observed (the observation has prestige); rows sum to `prestige` (engine.checks)
    ("score_src", (P, N_SCORE_SOURCES), 0, BIG, False, "prestige by SCORE_SOURCES, per seat"),
]
LAYOUT = Layout("village", VERSION, SEGMENTS)
STATE_SIZE = LAYOUT.size
_o = LAYOUT.offset
S_GAME_ID, S_VERSION, S_NP, S_RNG = _o("game_id"), _o("version"), _o("n_players"), _o("rng")
S_ROUND, S_START, S_NS = _o("round"), _o("start_player"), _o("ns_holder")
S_TURN, S_PHASE, S_ACTOR, S_ALLOWED = _o("turn_player"), _o("phase"), _o("actor"), _o("allowed")
S_PUNITS, S_PKIND, S_PRIVMAX, S_CRAFTB = (
    _o("pending_units"),
    _o("pending_kind"),
    _o("priv_max"),
    _o("craft_bld"),
)
S_MKT, S_MOPEN, S_MFREE, S_MSERVED, S_MPASSED = (
    _o("mkt_active"),
    _o("mkt_opener"),
    _o("mkt_free"),
    _o("mkt_served"),
    _o("mkt_passed"),
)
S_MTURN = _o("mkt_turn")
S_DNOW, S_DEND, S_DPLAYER = _o("deaths_now"), _o("deaths_end"), _o("death_player")
S_BOARD, S_BAG, S_SCUBES, S_SGOODS = _o("board"), _o("bag"), _o("supply_cubes"), _o("supply_goods")
S_SGRAIN, S_SCOINS = _o("supply_grain"), _o("supply_coins")
S_CUBES, S_GOODS, S_GRAIN, S_COINS = _o("cubes"), _o("goods"), _o("grain"), _o("coins")
S_PRESTIGE, S_TIME, S_MEM, S_MARK = _o("prestige"), _o("time"), _o("members"), _o("markers")
S_STALLS, S_QUEUE, S_PILE, S_OWNER = _o("stalls"), _o("queue"), _o("pile"), _o("tile_owner")
S_CHRON, S_GRAVES, S_MONKS = _o("chron_used"), _o("graves_used"), _o("monks_bag")
S_MPICKED, S_MSEAT = _o("mass_picked"), _o("mass_seat")
S_TRIG, S_TRIGP, S_TRIGM, S_TRIGO = (
    _o("triggered"),
    _o("trigger_player"),
    _o("trigger_in_market"),
    _o("trigger_opener"),
)
S_INFINAL, S_FORDER, S_FN, S_FIDX = (
    _o("in_final"),
    _o("final_order"),
    _o("final_n"),
    _o("final_idx"),
)
S_FREE, S_OVER, S_TRUNC, S_NTURNS = (
    _o("free_action"),
    _o("game_over"),
    _o("truncated"),
    _o("n_turns"),
)
S_SCORE_SRC = _o("score_src")  # score_src[p, k] at S_SCORE_SRC + p*N_SCORE_SOURCES + k
MEM_STRIDE = N_LOC * N_GEN  # members[p, loc, g] at S_MEM + p*MEM_STRIDE + loc*N_GEN + g
