"""The compiled invariant check (engine/checks.py check_invariants_code, what
troyes_env.check_invariants and validate run) agrees with its readable oracle
(invariants_oracle.py invariant_errors): both pass on every state of seeded random games, and
both flag each deliberately corrupted state, one corruption per invariant, with the expected code.
"""

import numpy as np
import pytest

import troyes_env as T
from troyes_env.engine import checks as C
from troyes_env.layout import LAYOUT, NFLAG, NROW, PH_COUNTER, PH_FLIP, PH_OVER, PH_TURN
from troyes_env.tables import A_TIMING, A_W, E_FLAGS, E_W, T_ACT, T_EV

from . import invariants_oracle as inv


def v(s, name):
    return LAYOUT.view(s, name)


def code(s, T_=None, hi=None):
    t = T.TABLES if T_ is None else T_
    return int(C.check_invariants_code(s, t, C.LO, C.HI if hi is None else hi))


def play(n, seed, every=1):
    """States of one seeded random game through the public API (every `every`-th, and the end)."""
    rng = np.random.default_rng(seed)
    s = T.new_game(n, seed)
    out = [s]
    k = 0
    while not T.is_terminal(s):
        legal = np.flatnonzero(T.legal_mask(s))
        s = T.step(s, int(rng.choice(legal)))
        k += 1
        if k % every == 0 or T.is_terminal(s):
            out.append(s)
    return out


@pytest.fixture(scope="module")
def pool():
    return [s for n in (2, 3, 4) for seed in (11, 12) for s in play(n, seed, every=3)]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_clean_states_pass_both(n):
    for seed in range(3):
        for s in play(n, 300 + seed):
            assert code(s) == 0, C.INVARIANT_MESSAGES[code(s)]
            assert inv.invariant_errors(s, T.TABLES) == []
            assert T.check_invariants(s) == []


# --- one corruption per invariant: each returns a corrupted copy, or None where it does not apply


def _seat_with_supply(s):
    n = int(s[LAYOUT.offset("n_players")])
    return next((p for p in range(n) if v(s, "supply")[p] > 0), None)


def size(s):
    return s[:-1].copy()


def out_of_range(s):
    s = s.copy()
    v(s, "influence")[0] = 21
    return s


def absent_seat(s):
    if v(s, "n_players")[0] == 4:
        return None
    s = s.copy()
    v(s, "deniers")[3] = 1
    return s


def citizen_removed(s):
    p = _seat_with_supply(s)
    if p is None:
        return None
    s = s.copy()
    v(s, "supply")[p] -= 1
    return s


def too_few_owned(s):
    # give up a citizen and its ownership: consistent, but fewer than a player starts with
    p = _seat_with_supply(s)
    if p is None or v(s, "round")[0] != 0:
        return None
    s = s.copy()
    v(s, "supply")[p] -= 1
    v(s, "owned")[p] -= 1
    return s


def ninth_grey(s):
    if v(s, "grey_supply")[0] >= 8:
        return None
    s = s.copy()
    v(s, "grey_supply")[0] += 1
    return s


def two_lying(s):
    # reachable only with relaxed bounds (lying is 0..1 in the layout)
    p = _seat_with_supply(s)
    if p is None or v(s, "lying")[0, p] != 1:
        return None
    s = s.copy()
    v(s, "lying")[0, p] = 2
    v(s, "supply")[p] -= 1
    return s


def space_gap(s):
    sp = v(s, "spaces")
    for base in (6, 8, 10):
        if sp[base] >= 0 and sp[base + 1] >= 0:
            s = s.copy()
            sp = v(s, "spaces")
            owner = int(sp[base])
            sp[base] = -1
            if owner == 4:
                v(s, "grey_supply")[0] += 1
            else:
                v(s, "supply")[owner] += 1
            return s
    return None


def empty_after_preplacement(s):
    if v(s, "round")[0] != 0 or not (v(s, "spaces") < 0).any() or code(s) != 0:
        return None
    s = s.copy()
    v(s, "phase")[0] = PH_TURN
    return s


def two_in_slot(s):
    sup = v(s, "sup")
    for pos in range(9):
        if (sup[pos] == 1).sum() == 1:
            for q in range(int(v(s, "n_players")[0])):
                if sup[pos, q] == 0 and v(s, "supply")[q] > 0:
                    s = s.copy()
                    v(s, "sup")[pos, q] = 1
                    v(s, "supply")[q] -= 1
                    return s
    return None


def _cube_on_card(s, want):
    for pos in range(9):
        if want(int(v(s, "act_card")[pos])):
            s = s.copy()
            v(s, "act_cubes")[pos, 0] += 1
            v(s, "cubes_out")[0] += 1
            return s
    return None


def cube_face_down(s):
    return _cube_on_card(s, lambda c: c < 0)


def cube_immediate(s):
    return _cube_on_card(s, lambda c: c >= 0 and T.TABLES[T_ACT + c * A_W + A_TIMING] == 0)


def both_faces(s):
    pos = np.flatnonzero(v(s, "act_card") >= 0)
    if not len(pos):
        return None
    s = s.copy()
    v(s, "act_hidden")[pos[0]] = v(s, "act_card")[pos[0]]
    return s


def cube_counter_off(s):
    s = s.copy()
    v(s, "cubes_out")[1] += 1
    return s


def cathedral_floating(s):
    cath = v(s, "cath")
    for val in range(6):
        if cath[0, val] < 0:
            s = s.copy()
            v(s, "cath")[1, val] = 0
            v(s, "cubes_out")[0] += 1
            return s
    return None


def marauding_moved(s):
    s = s.copy()
    v(s, "row_card")[0] = 1
    return s


def _row_len(s):
    return int((v(s, "row_card") >= 0).sum())


def flag_on_empty(s):
    i = _row_len(s)
    if i >= NROW:
        return None
    s = s.copy()
    v(s, "row_flags")[i, 0] = 0
    v(s, "cubes_out")[0] += 1
    return s


def row_gap(s):
    i = _row_len(s) - 1
    if i < 1 or i + 1 >= NROW:
        return None
    s = s.copy()
    rc, fl = v(s, "row_card"), v(s, "row_flags")
    rc[i + 1], rc[i] = rc[i], -1
    fl[i + 1], fl[i] = fl[i].copy(), -1
    return s


def _flags(c):
    return int(T.TABLES[T_EV + c * E_W + E_FLAGS])


def flag_beyond_card(s):
    rc = v(s, "row_card")
    for i in range(_row_len(s)):
        nf = _flags(int(rc[i]))
        if nf < NFLAG:
            s = s.copy()
            v(s, "row_flags")[i, nf] = 0
            v(s, "cubes_out")[0] += 1
            return s
    return None


def full_card(s):
    rc = v(s, "row_card")
    for i in range(_row_len(s)):
        nf = _flags(int(rc[i]))
        if nf:
            s = s.copy()
            fl = v(s, "row_flags")
            empty = fl[i, :nf] < 0
            fl[i, :nf][empty] = 0
            v(s, "cubes_out")[0] += int(empty.sum())
            return s
    return None


def row_and_kept(s):
    if _row_len(s) < 2:
        return None
    s = s.copy()
    v(s, "kept_by")[v(s, "row_card")[1]] = 0
    return s


def drawn_lost(s):
    decks, drawn = v(s, "decks"), v(s, "deck_drawn")
    for col in range(3):
        if drawn[col] < 8 and decks[col, drawn[col]] >= 0:
            s = s.copy()
            v(s, "deck_drawn")[col] += 1
            return s
    return None


def drawn_past_deck(s):
    decks = v(s, "decks")
    for col in range(3):
        if decks[col, 7] < 0:
            s = s.copy()
            v(s, "deck_drawn")[col] = 8
            return s
    return None


def too_many_dice(s):
    dice, rolled = v(s, "dice"), v(s, "rolled")
    for d in range(5):
        for c in range(3):
            if dice[d, c].sum() == rolled[d, c] and dice[d, c, 0] < 6:
                s = s.copy()
                v(s, "dice")[d, c, 0] += 1
                return s
    return None


def too_many_rolled(s):
    rolled = v(s, "rolled")
    col = rolled.sum(axis=0)
    for c in range(3):
        room = 6 - rolled[:, c]
        if col[c] <= 6 and room.sum() >= 7 - col[c]:
            s = s.copy()
            r = v(s, "rolled")
            need = 7 - col[c]
            for d in range(5):
                add = min(need, 6 - r[d, c])
                r[d, c] += add
                need -= add
            return s
    return None


def black_outside_counter(s):
    if v(s, "phase")[0] in (PH_COUNTER, PH_FLIP, PH_OVER):
        return None
    s = s.copy()
    v(s, "black")[2] = 1
    return s


def dice_after_game(s):
    if v(s, "phase")[0] != PH_OVER:
        return None
    rolled = v(s, "rolled")
    for d in range(5):
        for c in range(3):
            if rolled[d, c] > 0:  # a die left of a colour rolled this round (no dice check hit)
                s = s.copy()
                v(s, "dice")[d, c, 0] = 1
                return s
    p = _seat_with_supply(s)
    if p is None:
        return None
    s = s.copy()
    v(s, "lying")[0, p] = 1
    v(s, "supply")[p] -= 1
    return s


def score_src_off(s):
    """A VP credited to no source (the sources must sum to the VP, then to the final score)."""
    s = s.copy()
    v(s, "score_src")[0, 0] += 1
    return s


CORRUPTIONS = [
    (size, C.F_SIZE),
    (out_of_range, C.F_RANGE),
    (absent_seat, C.F_ABSENT_SEAT),
    (citizen_removed, C.F_CITIZENS),
    (too_few_owned, C.F_OWNED),
    (ninth_grey, C.F_GREY),
    (two_lying, C.F_LYING),
    (space_gap, C.F_SPACE_GAP),
    (empty_after_preplacement, C.F_PREPLACE),
    (two_in_slot, C.F_SLOT),
    (cube_face_down, C.F_FACE_DOWN),
    (cube_immediate, C.F_IMMEDIATE),
    (both_faces, C.F_BOTH_FACES),
    (cube_counter_off, C.F_CUBES),
    (cathedral_floating, C.F_CATH),
    (marauding_moved, C.F_MARAUDING),
    (flag_on_empty, C.F_ROW_FLAGS_EMPTY),
    (row_gap, C.F_ROW_GAP),
    (flag_beyond_card, C.F_ROW_BEYOND),
    (full_card, C.F_ROW_FULL),
    (row_and_kept, C.F_ROW_KEPT),
    (drawn_lost, C.F_DRAWN),
    (drawn_past_deck, C.F_DRAWN),
    (too_many_dice, C.F_DICE),
    (too_many_rolled, C.F_ROLLED),
    (black_outside_counter, C.F_BLACK),
    (dice_after_game, C.F_OVER),
    (score_src_off, C.F_SCORE_SRC),
]


def test_every_code_has_a_corruption():
    assert {c for _, c in CORRUPTIONS} == set(range(1, len(C.INVARIANT_MESSAGES)))


@pytest.mark.parametrize("corrupt,expected", CORRUPTIONS, ids=[f.__name__ for f, _ in CORRUPTIONS])
def test_corruption_flagged_by_both(pool, corrupt, expected):
    hi = C.HI
    if expected == C.F_LYING:  # out of the layout's range: relax it to reach the check itself
        hi = C.HI.copy()
        hi[LAYOUT.offset("lying") : LAYOUT.offset("lying") + 15] = 2
        hi.setflags(write=False)  # same array type as C.HI: no second compilation
    hits = 0
    for s in pool:
        bad = corrupt(s)
        if bad is None:
            continue
        got = code(bad, hi=hi)
        assert got == expected, (corrupt.__name__, C.INVARIANT_MESSAGES[got])
        assert inv.invariant_errors(bad, T.TABLES), corrupt.__name__
        assert T.check_invariants(bad), corrupt.__name__
        hits += 1
        if hits == 5:
            break
    assert hits, f"no state in the pool to apply {corrupt.__name__} to"


def test_check_invariants_words_the_compiled_code():
    s = cube_counter_off(T.new_game(3, 5))
    assert T.check_invariants(s) == [C.INVARIANT_MESSAGES[C.F_CUBES]]


def test_odd_arrays():
    s = T.new_game(2, 1)
    assert T.check_invariants(s.astype(np.int32))  # wrong dtype: Layout.validate's message
    assert T.check_invariants(s[:-1])
    wide = np.zeros(2 * s.size, dtype=np.int64)
    wide[::2] = s
    assert T.check_invariants(wide[::2]) == []  # a strided view of a good state is good


def test_tables_are_arguments(pool):
    """D2: the compiled check reads the table it is given (an edited timing reaches it)."""
    for s in pool:
        ac, cubes = v(s, "act_card"), v(s, "act_cubes")
        for pos in range(9):
            c = int(ac[pos])
            if c >= 0 and cubes[pos].any():
                assert code(s) == 0
                T2 = T.TABLES.copy()
                T2[T_ACT + c * A_W + A_TIMING] = 0
                T2.setflags(write=False)
                assert code(s, T_=T2) == C.F_IMMEDIATE
                return
    pytest.fail("no state with cubes on a revealed card")
