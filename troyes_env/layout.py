"""Troyes state layout (DESIGN D1): one flat int64 array, sized for 4 players whatever the count.

Seats are absolute (0..3) in the state; observations are seat-relative. Owners of spaces, flags and
Cathedral cubes are -1 empty, 0..3 a player, 4 grey (neutral). Districts are 0..3 the players'
and 4 the neutral one. Colours 0 yellow, 1 white, 2 red. Dice values are 1..6 (index v-1).
SPACE ids: Palace 0-5 (space v-1), Bishopric 6 + 2*row + place, City Hall 12 + 3*row + place.
"""

from __future__ import annotations

from core.layout import Layout

VERSION = 2  # 2: the score_src segment (points by source)
MAXP = 4
BIG = 1 << 30
NROW = 13  # event row: Marauding + at most 6 red + 6 white/yellow (DP table)
NFLAG = 5  # most flag spaces on one event card
N_DIST = MAXP + 1  # dice districts: one per seat, then the neutral one (4)
N_COL = 3  # dice / card colours: 0 yellow, 1 white, 2 red (rules_data.Colour)
N_VAL = 6  # die values 1..6 (index v-1)
DIST_DICE = N_COL * N_VAL  # die types of one district: colour*6 + value-1
N_DIE_TYPES = N_DIST * DIST_DICE  # die types: district*18 + colour*6 + value-1
N_BLD = 3  # main buildings: Palace, Bishopric, City Hall (rules_data.Building)
BLD_SPACES = 6  # spaces of a main building (Palace 6x1, Bishopric 3x2, City Hall 2x3)
N_SPACES = N_BLD * BLD_SPACES  # SPACE ids: building*6 + place
N_ACTPOS = 9  # Activity card positions: colour*3 + level-1
N_LEVELS = 3  # Activity card levels I-III of a colour; Cathedral levels
N_CATH = N_LEVELS * N_VAL  # Cathedral places: level*6 + value-1
N_EVENTS = 17  # event cards (rules §6.2), ids 0..16, 0 = Marauding
MARAUDING = 0  # the event card that starts the row and stays in play (rules §4.3)
N_DECKS = N_COL  # event decks, one per colour: yellow, white, red
DECK_LEN = 8  # entries of one event deck in `decks` (-1 padding)
N_CHAR_SLOTS = 2  # secret Character cards of a seat (rules §2.4)

# owners: -1 empty, 0..3 a seat, GREY the neutral citizens (spaces, lying, flags, Cathedral);
# in `kept_by`, GREY means the card left the game (a grey majority)
GREY = MAXP
N_OWNERS = MAXP + 1  # owners of lying citizens: the seats, then grey
NEUTRAL = MAXP  # the neutral dice district, after the seats' districts (rules §3 phase 2)
N_GREY = 8  # grey citizens in the game (rules §1)
MAX_OWNED = 12  # citizens a player may own (rules §1)
MAX_ROLLED = 6  # dice of one colour rolled in a round, all districts together (ED-3)
MAX_GROUP = 3  # dice in one group (rules §4.0)
MAX_FLIP = 3  # dice flipped for one influence payment (rules §5)
RED_STRENGTH = 2  # a red die counts double against black dice (rules §3 phase 3)
OPPOSITE = N_VAL + 1  # a die's opposite face: OPPOSITE - v (rules §5 flip)

# colours (rules_data.Colour) and main buildings (rules_data.Building)
COL_Y, COL_W, COL_R = 0, 1, 2
B_PALACE, B_BISHOPRIC, B_CITY_HALL = 0, 1, 2
SP_BISHOPRIC = B_BISHOPRIC * BLD_SPACES  # first SPACE id of the Bishopric (3 rows of 2)
SP_CITY_HALL = B_CITY_HALL * BLD_SPACES  # first SPACE id of the City Hall (2 rows of 3)

# supervisor codes in `sup` (rules §4.1): none, slot 1, slot 2, the art (a third supervisor)
SUP_NONE, SUP_SLOT1, SUP_SLOT2, SUP_ART = 0, 1, 2, 3
# where a citizen placed or hired comes from (ED-7): the (general) supply, standing at a SPACE,
# lying at a building, a supervisor on an Activity card
FROM_SUPPLY, FROM_SPACE, FROM_LYING, FROM_CARD = 0, 1, 2, 3

# phases (the decision the state waits for; rules §10.7 decision points)
PH_SETUP = 0  # DP-1 pre-placement: SPACE(s)
PH_EVENT = 1  # DP-2 choice inside an event effect
PH_COUNTER = 2  # DP-3 countering black dice
PH_TURN = 3  # DP-4 start of an action-phase turn
PH_CUBE = 4  # DP-5 which Activity cube to spend
PH_DICE = 5  # DP-6 the dice of the group
PH_SOURCE = 6  # DP-7 where the citizen comes from
PH_GOON = 7  # DP-8 go on / stop activating
PH_ARCHER = 8  # DP-8 event for an EVENT_CUBE cube
PH_FLIP = 9  # influence: dice to flip
PH_OVER = 10  # game over
# internal automatic stages (never seen at a decision; the driver loop runs them, no recursion)
PH_A_ROUND = 11  # start the next round (phases 0-3 up to the event effects)
PH_A_EVENTS = 12  # go on applying the event row
PH_A_COUNTER = 13  # begin the counter turn of seat `cur`
PHASE_NAMES = (
    "pre-placement",
    "event effect",
    "counter black dice",
    "turn",
    "choose cube",
    "choose dice",
    "citizen source",
    "go on or stop",
    "event for cube",
    "flip dice",
    "game over",
    "(start of round)",
    "(events)",
    "(counter turn)",
)

# pending action target kinds
TK_NONE, TK_ACT, TK_EVENT, TK_CATH, TK_BUILD, TK_AGRI = range(6)
N_TK = 6

# Points by source: every change of a player's VP and every final-scoring term is
# credited, when it happens, to exactly one of these sources in the `score_src` segment (one row
# per seat). During play a row sums to the seat's VP; once the game is over it sums to the final
# score. Not observed: VP are public (ED-35) and the final terms exist only at the end.
SCORE_SOURCES = (
    # VP gained by activating an Activity card (rules §4.1, §6.1.2), one source per card in
    # rules_data.ACTIVITY_CARDS order (card id = index), net of the VP a PAY_GAIN card makes the
    # player pay. Cards whose activation never gives VP stay at 0 (effects below as in the
    # standard rules data, docs/rules/troyes.md §6.1.1).
    "activity:ARTISAN",  # card 0, PAY_GAIN influence -> deniers: never VP
    "activity:MERCHANT",  # card 1, GAIN deniers: never VP
    "activity:MILLER",  # card 2, deniers per citizen: never VP
    "activity:INNKEEPER",  # card 3, PAY_GAIN deniers -> influence: never VP
    "activity:BLACKSMITH",  # card 4, delayed (cubes): never VP
    "activity:MILITIA",  # card 5, delayed: never VP
    "activity:JOURNEYMAN",  # card 6, PAY_GAIN deniers -> VP: the VP gained
    "activity:GOLDSMITH",  # card 7, GAIN deniers and VP: the VP part
    "activity:SCULPTOR",  # card 8, GAIN VP
    "activity:TITHING",  # card 9, delayed: never VP
    "activity:MONK",  # card 10, delayed: never VP
    "activity:PRIEST",  # card 11, delayed: never VP
    "activity:APPRENTICESHIP",  # card 12, delayed: never VP
    "activity:TEMPLAR",  # card 13, delayed: never VP
    "activity:CONFESSION",  # card 14, delayed: never VP
    "activity:PILGRIMAGE",  # card 15, GAIN VP
    "activity:GLASSMAKER",  # card 16, VP_PER own Cathedral cube
    "activity:PROCESSION",  # card 17, VP_PER own Bishopric citizen
    "activity:ARCHER",  # card 18, event cubes (a resolution they cause is "events"): never VP
    "activity:DIPLOMAT",  # card 19, GAIN influence: never VP
    "activity:KNIGHT",  # card 20, event cubes (as the Archer): never VP
    "activity:HUNT",  # card 21, GAIN influence: never VP
    "activity:MERCENARY",  # card 22, GAIN deniers: never VP
    "activity:RED_II_3",  # card 23, GAIN deniers: never VP
    "activity:CAPTAIN",  # card 24, VP_PER event with an own cube
    "activity:JOUSTS",  # card 25, VP_PER own Palace citizen
    "activity:TROUBADOUR",  # card 26, PAY_GAIN influence -> VP: the VP gained
    "events",  # R1 / R2 rewards and shares of an event card resolved (rules §4.3, ED-33)
    "cathedral",  # +1 VP per Cathedral cube placed (rules §4.2)
    # VP really lost (<= 0, after the clamp at 0, ED-4) to the flat 2 VP penalty: a salary not
    # paid in full (rules §3 phase 1), an event not carried out in full (§3 phase 3 step 2,
    # ED-15), a black die conceded (§3 phase 3 step 4, ED-18)
    "penalties",
    # the final scoring terms (rules §7), credited once, when the game ends (ED-34)
    "supervisor_slots",  # §7 item 3: VP printed on the Activity slots holding own supervisors
    "unresolved_events",  # §7 item 2: +1 per unresolved event card holding an own cube
    "cathedral_absence",  # §7 item 4: -2 per Cathedral level without an own cube (<= 0)
    "characters",  # §7 item 5, §6.3: every revealed Character card, scored for this player
    "floor",  # U-VP-FLOOR, ED-34: what the clamp of the final total at 0 adds (>= 0)
)
N_SCORE_SOURCES = len(SCORE_SOURCES)
N_ACT_CARDS = 27  # Activity cards (rules §6.1: 9 per colour), one score source each
SRC_ACT = 0  # score source of Activity card c: SRC_ACT + c
SRC_EVENTS = SCORE_SOURCES.index("events")
SRC_CATH = SCORE_SOURCES.index("cathedral")
SRC_PENALTY = SCORE_SOURCES.index("penalties")
SRC_SLOTS = SCORE_SOURCES.index("supervisor_slots")  # the first final-scoring source
SRC_UNRES = SCORE_SOURCES.index("unresolved_events")
SRC_CATH_ABS = SCORE_SOURCES.index("cathedral_absence")
SRC_CHARS = SCORE_SOURCES.index("characters")
SRC_FLOOR = SCORE_SOURCES.index("floor")

LAYOUT = Layout(
    "troyes",
    VERSION,
    [
        # name, shape, lo, hi, hidden, doc
        ("version", (), VERSION, VERSION, False, "layout version"),
        ("n_players", (), 2, 4, False, "player count"),
        ("n_rounds", (), 4, 6, False, "rounds = red event cards kept (rules §2.1)"),
        ("round", (), 0, 6, False, "current round 1..n_rounds, 0 during pre-placement"),
        ("start_player", (), 0, 3, False, "seat holding the start player card"),
        ("phase", (), 0, 13, False, "PH_* decision the state waits for"),
        ("cur", (), -1, 3, False, "seat to act, -1 when the game is over"),
        ("setup_idx", (), 0, 18, False, "pre-placement turns made"),
        ("rng", (4,), 0, 0xFFFFFFFF, True, "xoshiro128** words (core.rng)"),
        ("deniers", (MAXP,), 0, BIG, False, "money per seat"),
        ("influence", (MAXP,), 0, 20, False, "influence track per seat, 0..20"),
        ("vp", (MAXP,), 0, BIG, False, "VP tokens per seat (public, ED-35)"),
        ("supply", (MAXP,), 0, 12, False, "citizens in personal supply"),
        ("owned", (MAXP,), 0, 12, False, "citizens owned in all (<= 12)"),
        ("passed", (MAXP,), 0, 1, False, "passed this round"),
        ("dist_den", (MAXP,), 0, BIG, False, "deniers lying on each district (pass marker)"),
        (
            "chars",
            (MAXP, N_CHAR_SLOTS),
            -1,
            5,
            True,
            "secret Character cards per seat (-1 none); owner sees own",
        ),
        ("final", (MAXP,), 0, BIG, False, "final score (set at game end)"),
        ("cubes_out", (MAXP,), 0, BIG, False, "cubes each seat has on cards, events, Cathedral"),
        ("grey_supply", (), 0, 8, False, "grey citizens in the general supply"),
        ("spaces", (N_SPACES,), -1, 4, False, "owner of each building space (-1 empty, 4 grey)"),
        (
            "lying",
            (N_BLD, N_OWNERS),
            0,
            1,
            False,
            "citizens lying at each building, per owner (4 grey)",
        ),
        (
            "act_card",
            (N_ACTPOS,),
            -1,
            26,
            False,
            "revealed Activity card per position colour*3+level-1",
        ),
        (
            "act_hidden",
            (N_ACTPOS,),
            -1,
            26,
            True,
            "face-down Activity card per position (-1 revealed)",
        ),
        (
            "sup",
            (N_ACTPOS, MAXP),
            0,
            3,
            False,
            "supervisor of a seat on a card: 0 none, 1/2 slot, 3 art",
        ),
        ("act_cubes", (N_ACTPOS, MAXP), 0, BIG, False, "Activity cubes per card per seat"),
        ("cath", (N_LEVELS, N_VAL), -1, 3, False, "Cathedral [level][value-1] owner"),
        ("row_card", (NROW,), -1, 16, False, "event row, position 0 = Marauding (-1 empty)"),
        ("row_flags", (NROW, NFLAG), -1, 4, False, "owner of each flag space of a row card"),
        ("kept_by", (N_EVENTS,), -1, 4, False, "who kept an event card (-1 not; 4 left the game)"),
        (
            "decks",
            (N_DECKS, DECK_LEN),
            -1,
            16,
            True,
            "event decks Y, W, R in draw order (-1 padding)",
        ),
        ("deck_drawn", (3,), 0, 8, False, "cards drawn from each deck"),
        ("dice", (N_DIST, N_COL, N_VAL), 0, 6, False, "dice per district, colour, value-1"),
        ("rolled", (N_DIST, N_COL), 0, 6, False, "dice rolled this round per district and colour"),
        ("black", (N_VAL,), 0, BIG, False, "black dice to counter, per value-1"),
        ("black_n", (), 0, BIG, False, "black dice collected before the roll"),
        ("ev_pos", (), 0, NROW, False, "event row position being applied"),
        ("ev_k", (), 0, 4, False, "player offset from the start player in an event effect"),
        ("ev_left", (), 0, 10, False, "items still to give up for this player and card"),
        ("ev_short", (), 0, 1, False, "this player could not comply with this card"),
        ("cnt_blk", (N_VAL,), 0, BIG, False, "black dice chosen in this counter turn, per value-1"),
        ("cnt_sel", (N_COL, N_VAL), 0, 6, False, "own dice chosen in this counter turn"),
        ("cnt_last", (), -1, 17, False, "last own die id chosen (non-decreasing order)"),
        ("cnt_lastb", (), 0, 6, False, "last extra black value chosen (non-decreasing)"),
        ("cnt_open", (), 0, 1, False, "1 while influence may still be spent this counter turn"),
        ("tgt_kind", (), 0, 5, False, "pending action target TK_*"),
        ("tgt_idx", (), -1, 12, False, "card position / row position / building"),
        ("cube_pos", (), -1, 8, False, "card whose cube is spent (-1 none)"),
        ("sel", (MAX_GROUP,), -1, 89, False, "chosen dice, abs district*18 + colour*6 + value-1"),
        ("sel_n", (), 0, 3, False, "dice chosen"),
        ("pend_val", (), 0, 6, False, "placement die value after confirm"),
        ("hiring", (), 0, 1, False, "the pending activation hires a supervisor"),
        ("act_n", (), 0, BIG, False, "activations N of the pending activation"),
        ("act_k", (), 0, BIG, False, "activations made"),
        ("flip_sel", (N_COL, N_VAL), 0, 6, False, "own dice chosen to flip"),
        ("flip_last", (), -1, 17, False, "last die id chosen to flip"),
        ("flip_ret", (), 0, 13, False, "phase to return to after a flip"),
        (
            "score_src",
            (MAXP, N_SCORE_SOURCES),
            -BIG,
            BIG,
            False,
            "VP credited per seat and source (SCORE_SOURCES); not observed",
        ),
    ],
)

_L = LAYOUT
S_VERSION = _L.offset("version")
S_NP = _L.offset("n_players")
S_NROUNDS = _L.offset("n_rounds")
S_ROUND = _L.offset("round")
S_START = _L.offset("start_player")
S_PHASE = _L.offset("phase")
S_CUR = _L.offset("cur")
S_SETUP = _L.offset("setup_idx")
S_RNG = _L.offset("rng")
S_DEN = _L.offset("deniers")
S_INF = _L.offset("influence")
S_VP = _L.offset("vp")
S_SUP = _L.offset("supply")
S_OWNED = _L.offset("owned")
S_PASSED = _L.offset("passed")
S_DDEN = _L.offset("dist_den")
S_CHARS = _L.offset("chars")
S_FINAL = _L.offset("final")
S_CUBES = _L.offset("cubes_out")
S_GREY = _L.offset("grey_supply")
S_SPACES = _L.offset("spaces")
S_LYING = _L.offset("lying")
S_ACARD = _L.offset("act_card")
S_AHID = _L.offset("act_hidden")
S_ASUP = _L.offset("sup")
S_ACUBE = _L.offset("act_cubes")
S_CATH = _L.offset("cath")
S_ROW = _L.offset("row_card")
S_FLAGS = _L.offset("row_flags")
S_KEPT = _L.offset("kept_by")
S_DECKS = _L.offset("decks")
S_DRAWN = _L.offset("deck_drawn")
S_DICE = _L.offset("dice")
S_ROLLED = _L.offset("rolled")
S_BLACK = _L.offset("black")
S_BLACKN = _L.offset("black_n")
S_EVPOS = _L.offset("ev_pos")
S_EVK = _L.offset("ev_k")
S_EVLEFT = _L.offset("ev_left")
S_EVSHORT = _L.offset("ev_short")
S_CBLK = _L.offset("cnt_blk")
S_CSEL = _L.offset("cnt_sel")
S_CLAST = _L.offset("cnt_last")
S_CLASTB = _L.offset("cnt_lastb")
S_COPEN = _L.offset("cnt_open")
S_TK = _L.offset("tgt_kind")
S_TI = _L.offset("tgt_idx")
S_CUBEPOS = _L.offset("cube_pos")
S_SEL = _L.offset("sel")
S_SELN = _L.offset("sel_n")
S_PVAL = _L.offset("pend_val")
S_HIRING = _L.offset("hiring")
S_ACTN = _L.offset("act_n")
S_ACTK = _L.offset("act_k")
S_FSEL = _L.offset("flip_sel")
S_FLAST = _L.offset("flip_last")
S_FRET = _L.offset("flip_ret")
S_SCORE_SRC = _L.offset("score_src")
STATE_SIZE = _L.size
