"""Setup (rules §2): a new seeded game, then the pre-placement decisions (DP-1, rules §2.5 and
ED-10) up to the first round."""

from __future__ import annotations

from core.jit import jit, nl
from core.rng import rng_below, rng_seed
from troyes_env.actions import A_SPACE
from troyes_env.engine.board import space_row_base
from troyes_env.layout import (
    BLD_SPACES,
    COL_R,
    DECK_LEN,
    GREY,
    MARAUDING,
    MAX_GROUP,
    MAXP,
    N_ACTPOS,
    N_CHAR_SLOTS,
    N_COL,
    N_DECKS,
    N_LEVELS,
    N_SPACES,
    NFLAG,
    NROW,
    PH_A_ROUND,
    PH_SETUP,
    S_ACARD,
    S_AHID,
    S_CATH,
    S_CHARS,
    S_CLAST,
    S_CUBEPOS,
    S_CUR,
    S_DECKS,
    S_DEN,
    S_FLAGS,
    S_FLAST,
    S_GREY,
    S_INF,
    S_KEPT,
    S_NP,
    S_NROUNDS,
    S_OWNED,
    S_PHASE,
    S_RNG,
    S_ROW,
    S_SEL,
    S_SETUP,
    S_SPACES,
    S_START,
    S_SUP,
    S_TI,
    S_VERSION,
    VERSION,
)
from troyes_env.tables import (
    A_COL,
    A_LVL,
    A_W,
    E_COL,
    E_W,
    M_GREY,
    N_ACT,
    N_CHAR,
    N_EV,
    N_GREY2P,
    SETUP_CHARS,
    SETUP_CIT,
    SETUP_DEN,
    SETUP_INF,
    SETUP_ROUNDS,
    SETUP_W,
    T_ACT,
    T_EV,
    T_GREY2P,
    T_MISC,
    T_ROW_LEN,
    T_SETUP,
)

NIBBLE = 4  # bits per packed Character card in init_state's shuffle (ids 0..5 < 16)
NIBBLE_MASK = (1 << NIBBLE) - 1


@jit(alloc=False)
def init_state(s, T, n, a, b, c):
    """rules §2: a new game for n players, seeded from three 32-bit words (ED-2 draw order)."""
    s[:] = 0
    for i in range(N_SPACES):  # N_SPACES == N_CATH
        s[S_SPACES + i] = -1
        s[S_CATH + i] = -1
    for i in range(N_ACTPOS):
        s[S_ACARD + i] = -1
        s[S_AHID + i] = -1
    for i in range(MAXP * N_CHAR_SLOTS):
        s[S_CHARS + i] = -1
    for i in range(NROW):
        s[S_ROW + i] = -1
        for f in range(NFLAG):
            s[S_FLAGS + i * NFLAG + f] = -1
    for i in range(N_EV):
        s[S_KEPT + i] = -1
    for i in range(N_DECKS * DECK_LEN):
        s[S_DECKS + i] = -1
    for i in range(MAX_GROUP):
        s[S_SEL + i] = -1
    s[S_CLAST] = -1
    s[S_FLAST] = -1
    s[S_TI] = -1
    s[S_CUBEPOS] = -1
    s[S_VERSION] = VERSION
    s[S_NP] = n
    so = T_SETUP + n * SETUP_W
    s[S_NROUNDS] = T[so + SETUP_ROUNDS]
    rng_seed(s, nl(S_RNG), a, b, c)
    # rules §2.2: one random card per colour and level, face down
    for col in range(N_COL):
        for lvl in range(1, N_LEVELS + 1):
            m = 0
            for cid in range(N_ACT):
                if T[T_ACT + cid * A_W + A_COL] == col and T[T_ACT + cid * A_W + A_LVL] == lvl:
                    m += 1
            k = rng_below(s, nl(S_RNG), m)
            for cid in range(N_ACT):
                if T[T_ACT + cid * A_W + A_COL] == col and T[T_ACT + cid * A_W + A_LVL] == lvl:
                    if k == 0:
                        s[S_AHID + col * N_LEVELS + lvl - 1] = cid
                    k -= 1
    # rules §2.3: three shuffled event decks (red, white, yellow); the red one is cut to n_rounds
    # by drawing only its first n_rounds cards
    for di in range(N_DECKS):
        col = COL_R - di
        m = 0
        for e in range(MARAUDING + 1, N_EV):
            if T[T_EV + e * E_W + E_COL] == col:
                s[S_DECKS + col * DECK_LEN + m] = e
                m += 1
        for i in range(m - 1, 0, -1):
            j = rng_below(s, nl(S_RNG), i + 1)
            tmp = s[S_DECKS + col * DECK_LEN + i]
            s[S_DECKS + col * DECK_LEN + i] = s[S_DECKS + col * DECK_LEN + j]
            s[S_DECKS + col * DECK_LEN + j] = tmp
    # rules §2.1: characters dealt at random, in seat order (ED-2)
    perm0 = 0
    nch = T[so + SETUP_CHARS]
    # Fisher-Yates over the 6 cards, packed NIBBLE bits a card in one integer (no allocation)
    order = 0
    for i in range(N_CHAR):
        order |= i << (NIBBLE * i)
    for i in range(N_CHAR - 1, 0, -1):
        j = rng_below(s, nl(S_RNG), i + 1)
        vi = (order >> (NIBBLE * i)) & NIBBLE_MASK
        vj = (order >> (NIBBLE * j)) & NIBBLE_MASK
        order &= ~((NIBBLE_MASK << (NIBBLE * i)) | (NIBBLE_MASK << (NIBBLE * j)))
        order |= (vj << (NIBBLE * i)) | (vi << (NIBBLE * j))
    for p in range(n):
        for k in range(nch):
            s[S_CHARS + p * N_CHAR_SLOTS + k] = (order >> (NIBBLE * perm0)) & NIBBLE_MASK
            perm0 += 1
    for p in range(n):
        s[S_DEN + p] = T[so + SETUP_DEN]
        s[S_INF + p] = T[so + SETUP_INF]
        s[S_SUP + p] = T[so + SETUP_CIT]
        s[S_OWNED + p] = T[so + SETUP_CIT]
    s[S_GREY] = T[T_MISC + M_GREY]
    s[S_ROW] = MARAUDING  # permanent at the left of the row (rules §2.3)
    if n == 2:  # rules §2.5, U-2P: grey citizens first
        for k in range(N_GREY2P):
            s[S_SPACES + T[T_GREY2P + k]] = GREY
            s[S_GREY] -= 1
    s[S_PHASE] = PH_SETUP
    s[S_CUR] = _snake_seat(n, nl(0))
    return 0


@jit(alloc=False)
def _snake_seat(n, i):
    """ED-10: snake order, as an offset from the start player (seat 0 unless chosen)."""
    k = i // n
    pos = i % n
    return pos if k % 2 == 0 else n - 1 - pos


@jit(alloc=False)
def _front_free(s, T, sp):
    """The frontmost free space of the row holding SPACE sp (-1 if the row is full)."""
    b = sp // BLD_SPACES
    base = space_row_base(T, sp)
    rl = T[T_ROW_LEN + b]
    for i in range(base, base + rl):
        if s[S_SPACES + i] < 0:
            return i
    return -1


@jit(alloc=False)
def is_setup_space_legal(s, T, sp):
    """ED-10: an empty Palace space, or the frontmost free space of a row."""
    if s[S_SPACES + sp] >= 0:
        return False
    return sp == _front_free(s, T, sp)


@jit(alloc=False)
def apply_setup(s, T, a):
    n = s[S_NP]
    p = s[S_CUR]
    sp = a - A_SPACE
    s[S_SPACES + sp] = p
    s[S_SUP + p] -= 1
    s[S_SETUP] += 1
    if s[S_SETUP] == n * T[T_SETUP + n * SETUP_W + SETUP_CIT]:
        # rules §2.5: grey citizens fill every empty space (rows stay gap-free, ED-8)
        for i in range(N_SPACES):
            if s[S_SPACES + i] < 0 and s[S_GREY] > 0:
                s[S_SPACES + i] = GREY
                s[S_GREY] -= 1
        s[S_PHASE] = PH_A_ROUND
    else:
        s[S_CUR] = (s[S_START] + _snake_seat(n, s[S_SETUP])) % n
