"""Setup (rules §2): a new seeded game, then the pre-placement decisions (DP-1, rules §2.5 and
ED-10) up to the first round."""

from __future__ import annotations

from core.jit import jit, nl
from core.rng import rng_below, rng_seed
from troyes_env.actions import A_SPACE
from troyes_env.engine.board import space_row_base
from troyes_env.layout import (
    NFLAG,
    NROW,
    O_ACARD,
    O_AHID,
    O_CATH,
    O_CHARS,
    O_CLAST,
    O_CUBEPOS,
    O_CUR,
    O_DECKS,
    O_DEN,
    O_FLAGS,
    O_FLAST,
    O_GREY,
    O_INF,
    O_KEPT,
    O_NP,
    O_NROUNDS,
    O_OWNED,
    O_PHASE,
    O_RNG,
    O_ROW,
    O_SEL,
    O_SETUP,
    O_SPACES,
    O_START,
    O_SUP,
    O_TI,
    O_VERSION,
    PH_A_ROUND,
    PH_SETUP,
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
    S_CHARS,
    S_CIT,
    S_DEN,
    S_INF,
    S_ROUNDS,
    T_ACT,
    T_EV,
    T_GREY2P,
    T_MISC,
    T_ROW_LEN,
    T_SETUP,
)


@jit(alloc=False)
def init_state(s, T, n, a, b, c):
    """rules §2: a new game for n players, seeded from three 32-bit words (ED-2 draw order)."""
    s[:] = 0
    for i in range(18):
        s[O_SPACES + i] = -1
        s[O_CATH + i] = -1
    for i in range(9):
        s[O_ACARD + i] = -1
        s[O_AHID + i] = -1
    for i in range(8):
        s[O_CHARS + i] = -1
    for i in range(NROW):
        s[O_ROW + i] = -1
        for f in range(NFLAG):
            s[O_FLAGS + i * NFLAG + f] = -1
    for i in range(N_EV):
        s[O_KEPT + i] = -1
    for i in range(24):
        s[O_DECKS + i] = -1
    for i in range(3):
        s[O_SEL + i] = -1
    s[O_CLAST] = -1
    s[O_FLAST] = -1
    s[O_TI] = -1
    s[O_CUBEPOS] = -1
    s[O_VERSION] = VERSION
    s[O_NP] = n
    so = T_SETUP + n * 5
    s[O_NROUNDS] = T[so + S_ROUNDS]
    rng_seed(s, nl(O_RNG), a, b, c)
    # rules §2.2: one random card per colour and level, face down
    for col in range(3):
        for lvl in range(1, 4):
            m = 0
            for cid in range(N_ACT):
                if T[T_ACT + cid * A_W + A_COL] == col and T[T_ACT + cid * A_W + A_LVL] == lvl:
                    m += 1
            k = rng_below(s, nl(O_RNG), m)
            for cid in range(N_ACT):
                if T[T_ACT + cid * A_W + A_COL] == col and T[T_ACT + cid * A_W + A_LVL] == lvl:
                    if k == 0:
                        s[O_AHID + col * 3 + lvl - 1] = cid
                    k -= 1
    # rules §2.3: three shuffled event decks (red, white, yellow); the red one is cut to n_rounds
    # by drawing only its first n_rounds cards
    for di in range(3):
        col = 2 - di
        m = 0
        for e in range(1, N_EV):
            if T[T_EV + e * E_W + E_COL] == col:
                s[O_DECKS + col * 8 + m] = e
                m += 1
        for i in range(m - 1, 0, -1):
            j = rng_below(s, nl(O_RNG), i + 1)
            tmp = s[O_DECKS + col * 8 + i]
            s[O_DECKS + col * 8 + i] = s[O_DECKS + col * 8 + j]
            s[O_DECKS + col * 8 + j] = tmp
    # rules §2.1: characters dealt at random, in seat order (ED-2)
    perm0 = 0
    nch = T[so + S_CHARS]
    # Fisher-Yates over 6 cards, kept in the chars segment slots via a local packing
    order = 0
    for i in range(N_CHAR):
        order |= i << (4 * i)
    for i in range(N_CHAR - 1, 0, -1):
        j = rng_below(s, nl(O_RNG), i + 1)
        vi = (order >> (4 * i)) & 15
        vj = (order >> (4 * j)) & 15
        order &= ~((15 << (4 * i)) | (15 << (4 * j)))
        order |= (vj << (4 * i)) | (vi << (4 * j))
    for p in range(n):
        for k in range(nch):
            s[O_CHARS + p * 2 + k] = (order >> (4 * perm0)) & 15
            perm0 += 1
    for p in range(n):
        s[O_DEN + p] = T[so + S_DEN]
        s[O_INF + p] = T[so + S_INF]
        s[O_SUP + p] = T[so + S_CIT]
        s[O_OWNED + p] = T[so + S_CIT]
    s[O_GREY] = T[T_MISC + M_GREY]
    s[O_ROW] = 0  # Marauding, permanent at the left of the row (rules §2.3)
    if n == 2:  # rules §2.5, U-2P: grey citizens first
        for k in range(6):
            s[O_SPACES + T[T_GREY2P + k]] = 4
            s[O_GREY] -= 1
    s[O_PHASE] = PH_SETUP
    s[O_CUR] = _snake_seat(n, nl(0))
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
    b = sp // 6
    base = space_row_base(T, sp)
    rl = T[T_ROW_LEN + b]
    for i in range(base, base + rl):
        if s[O_SPACES + i] < 0:
            return i
    return -1


@jit(alloc=False)
def _setup_space_legal(s, T, sp):
    """ED-10: an empty Palace space, or the frontmost free space of a row."""
    if s[O_SPACES + sp] >= 0:
        return False
    return sp == _front_free(s, T, sp)


@jit(alloc=False)
def _apply_setup(s, T, a):
    n = s[O_NP]
    p = s[O_CUR]
    sp = a - A_SPACE
    s[O_SPACES + sp] = p
    s[O_SUP + p] -= 1
    s[O_SETUP] += 1
    if s[O_SETUP] == n * T[T_SETUP + n * 5 + S_CIT]:
        # rules §2.5: grey citizens fill every empty space (rows stay gap-free, ED-8)
        for i in range(18):
            if s[O_SPACES + i] < 0 and s[O_GREY] > 0:
                s[O_SPACES + i] = 4
                s[O_GREY] -= 1
        s[O_PHASE] = PH_A_ROUND
    else:
        s[O_CUR] = (s[O_START] + _snake_seat(n, s[O_SETUP])) % n
