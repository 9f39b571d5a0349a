"""Compiled setup of a new seeded game (rules §2): components to the supply, starting members
and coins, customer tiles, then the first round's bag and spaces (`fill_bag_and_seed`, also used
at the start of every later round, §3.1) and the first turn."""

from __future__ import annotations

from core.jit import jit
from core.rng import rng_below, rng_seed
from village_env.engine.board import (
    C_PLAGUE,
    draw_tile,
    mi,
    start_turn,
)
from village_env.layout import (
    GAME_ID,
    LOC_FARM,
    LOC_UNBORN,
    MAXP,
    N_COLOURS,
    N_GEN,
    N_GOODS,
    N_KINDS,
    N_SLOTS,
    N_SPACES,
    S_ALLOWED,
    S_BAG,
    S_BOARD,
    S_COINS,
    S_CRAFTB,
    S_DPLAYER,
    S_FORDER,
    S_GAME_ID,
    S_MONKS,
    S_MOPEN,
    S_MTURN,
    S_NP,
    S_NS,
    S_OWNER,
    S_PILE,
    S_QUEUE,
    S_RNG,
    S_ROUND,
    S_SCOINS,
    S_SCUBES,
    S_SGOODS,
    S_SGRAIN,
    S_STALLS,
    S_START,
    S_TRIGO,
    S_TRIGP,
    S_VERSION,
    VERSION,
)
from village_env.tables import (
    N_CUSTOMERS,
    SPACE_CUBES_ROW,
    T_MEMBERS_BY_GEN,
    T_MONKS,
    T_PLAGUE_CUBES,
    T_REFILL,
    T_SPACE_CUBES,
    T_STALLS,
    T_STARTING_COINS,
    T_SUPPLY_COINS,
    T_SUPPLY_CUBES_EACH,
    T_SUPPLY_GOODS_EACH,
    T_SUPPLY_GRAIN,
    T_WAITING_LINE,
)


# --- setup (rules §2) -----------------------------------------------------------------------
@jit
def init_state(s, T, n, a, b, c, first):
    """Set up a new n-player game in s, seeded by the words (a, b, c); `first` starts (ED-1)."""
    s[:] = 0
    s[S_GAME_ID] = GAME_ID
    s[S_VERSION] = VERSION
    s[S_NP] = n
    rng_seed(s, S_RNG, a, b, c)
    s[S_ROUND] = 1
    s[S_START] = first  # ED-1: seat 0 by default stands in for the oldest player
    s[S_NS] = -1
    s[S_ALLOWED] = -1
    s[S_CRAFTB] = -1
    s[S_MOPEN] = -1
    s[S_MTURN] = -1
    s[S_DPLAYER] = -1
    s[S_TRIGP] = -1
    s[S_TRIGO] = -1
    for i in range(MAXP):
        s[S_FORDER + i] = -1
    for k in range(N_COLOURS):  # influence cubes (18 each) and plague (6) to the supply (§2 step 9)
        s[S_SCUBES + k] = T[T_SUPPLY_CUBES_EACH]
    s[S_SCUBES + C_PLAGUE] = T[T_PLAGUE_CUBES]
    for g in range(N_GOODS):
        s[S_SGOODS + g] = T[T_SUPPLY_GOODS_EACH]
    s[S_SGRAIN] = T[T_SUPPLY_GRAIN]
    s[S_SCOINS] = T[T_SUPPLY_COINS]
    for p in range(n):  # §2 steps 3-5
        for g in range(N_GEN):
            s[mi(p, LOC_UNBORN, g)] = T[T_MEMBERS_BY_GEN + g]
        s[mi(p, LOC_FARM, 0)] = s[mi(p, LOC_UNBORN, 0)]  # the generation-1 members start out
        s[mi(p, LOC_UNBORN, 0)] = 0
        k = min(T[T_STARTING_COINS], s[S_SCOINS])
        s[S_COINS + p] = k
        s[S_SCOINS] -= k
    s[S_MONKS] = T[T_MONKS]  # §2 step 10
    for t in range(N_CUSTOMERS):  # §2 step 6: stalls in play, then the waiting line
        s[S_PILE + t] = 1
        s[S_OWNER + t] = -1
    for k in range(N_SLOTS):
        s[S_STALLS + k] = -1
        s[S_QUEUE + k] = -1
    for k in range(T[T_STALLS + n]):
        s[S_STALLS + k] = draw_tile(s)
    for k in range(T[T_WAITING_LINE]):
        s[S_QUEUE + k] = draw_tile(s)
    fill_bag_and_seed(s, T)
    start_turn(s, T, s[S_START])


@jit
def fill_bag_and_seed(s, T):
    """§3.1 steps 2-3, ED-9: add the refill of each colour and every plague cube in the supply,
    then draw each space's count uniformly without replacement, spaces A..G in order."""
    n = s[S_NP]
    refill = T[T_REFILL + n]
    for c in range(N_COLOURS):
        k = min(refill, s[S_SCUBES + c])
        s[S_SCUBES + c] -= k
        s[S_BAG + c] += k
    s[S_BAG + C_PLAGUE] += s[S_SCUBES + C_PLAGUE]
    s[S_SCUBES + C_PLAGUE] = 0
    for sp in range(N_SPACES):
        for _ in range(T[T_SPACE_CUBES + SPACE_CUBES_ROW * n + sp]):
            total = 0
            for k in range(N_KINDS):
                total += s[S_BAG + k]
            if total == 0:
                return  # §3.1 fallback: the bag ran dry
            r = rng_below(s, S_RNG, total)
            for k in range(N_KINDS):
                if r < s[S_BAG + k]:
                    s[S_BAG + k] -= 1
                    s[S_BOARD + N_KINDS * sp + k] += 1
                    break
                r -= s[S_BAG + k]
