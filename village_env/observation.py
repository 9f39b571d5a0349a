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

from village_env.layout import (
    MAXP,
    MEM_STRIDE,
    N_BUILDINGS,
    N_COLOURS,
    N_GOODS,
    N_KINDS,
    N_LEVELS,
    N_PHASES,
    N_SECTIONS,
    N_SLOTS,
    N_SPACES,
    PK_GOODS,
)
from village_env.tables import DEMAND_ROW, N_CITIES, N_CUSTOMERS

MIN_PLAYERS = 2  # the n_players one-hot is for 2, 3, 4 players
SCALE = 10.0  # round, prestige and time are divided by this
SUPPLY_SIZE = N_KINDS + N_GOODS + 2  # cubes by kind, goods, grain, coins
TILE_SIZE = 1 + DEMAND_ROW + 1  # per stall / waiting-line slot: present, demand, value
PLAYER_SCALARS = 5  # grain, coins, prestige/SCALE, time/SCALE, time % lap
PLAYER_BLOCK = 1 + N_COLOURS + N_GOODS + PLAYER_SCALARS + MEM_STRIDE + N_CITIES + 2 + 2

OBS_SEGMENTS = [
    ("phase", N_PHASES),
    ("actor", MAXP),
    ("my_decision", 1),
    ("n_players", MAXP - MIN_PLAYERS + 1),
    ("round", 1),
    ("start_player", MAXP),
    ("ns_holder", MAXP + 1),
    ("board", N_SPACES * N_KINDS),
    ("bag", N_KINDS),
    ("supply", SUPPLY_SIZE),
    ("allowed", N_SPACES + 1),
    ("free_action", 1),
    ("reward", 1 + PK_GOODS),
    ("priv_max", N_LEVELS + 1),
    ("craft_bld", N_BUILDINGS + 1),
    ("market", 3),
    ("mkt_opener", MAXP),
    ("mkt_passed", MAXP),
    ("mkt_turn", MAXP),
    ("stalls", N_SLOTS * TILE_SIZE),
    ("queue", N_SLOTS * TILE_SIZE),
    ("pile", N_CUSTOMERS + 1),
    ("chronicle", 2 * N_SECTIONS),
    ("graves", 2),
    ("mass", 2),
    ("end", 3),
    ("trigger_player", MAXP),
    ("players", MAXP * PLAYER_BLOCK),
]
OBS_SIZE = sum(n for _, n in OBS_SEGMENTS)
