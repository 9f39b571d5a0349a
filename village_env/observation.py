"""Village observation layout (DESIGN D6): a float32 vector, seat-relative (observer first, then
clockwise). The compiled builder is `village_env.engine.observe.observe_into`.

Everything in Village is public except the order of future draws (ED-35): the observation holds
no RNG word. Layout (OBS_SEGMENTS below lists names and sizes in order):
  global: phase one-hot, actor relative seat one-hot, is-my-decision, player count one-hot,
  round/10, start player and next-start-marker holder (relative one-hot), board cubes (7x5), bag
  (5), supply cubes/goods/grain/coins, choose context (allowed one-hot 8, free action), reward
  context, privilege max one-hot, craft building one-hot, market (active, free go, served,
  opener one-hot, passed per relative seat, whose go), stall and waiting-line tiles (per slot:
  present, 6 demand counts, value), draw-pile composition (24) and size, chronicle use and
  capacity per section, graves use/capacity, monks in bag, Mass picks so far, end-game flags
  and final turns left; then per relative seat (4 blocks, zero for absent seats): present,
  cubes (4), goods (5), grain, coins, prestige/10, time, time % lap, members by location and
  generation (26x4), travel markers (8), customers served, customer value, pending deaths.
"""

from __future__ import annotations

import numpy as np

from village_env.layout import MEM_STRIDE, N_PHASES
from village_env.tables import N_CITIES

OBS_SEGMENTS = [
    ("phase", N_PHASES), ("actor", 4), ("my_decision", 1), ("n_players", 3), ("round", 1),
    ("start_player", 4), ("ns_holder", 5), ("board", 35), ("bag", 5), ("supply", 12),
    ("allowed", 8), ("free_action", 1), ("reward", 3), ("priv_max", 5), ("craft_bld", 5),
    ("market", 3), ("mkt_opener", 4), ("mkt_passed", 4), ("mkt_turn", 4),
    ("stalls", 40), ("queue", 40), ("pile", 25), ("chronicle", 10), ("graves", 2),
    ("mass", 2), ("end", 3), ("trigger_player", 4),
    ("players", 4 * (1 + 4 + 5 + 1 + 1 + 1 + 1 + 1 + MEM_STRIDE + N_CITIES + 2 + 2)),
]
OBS_SIZE = sum(n for _, n in OBS_SEGMENTS)
PLAYER_BLOCK = OBS_SEGMENTS[-1][1] // 4


def empty_obs() -> np.ndarray:
    return np.zeros(OBS_SIZE, dtype=np.float32)
