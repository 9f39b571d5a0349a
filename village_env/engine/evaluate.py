"""The position evaluation of Village's `heuristic` bot (core/bots.py) and of the
compiled search (kernels.k_evaluate): each seat's projected final score, allocation-free.

A seat's projection is its prestige so far plus the final-scoring categories as they stand now
(rules §5.2: travel, council, church, chronicle, customers, coins; `final_score_parts`), plus
hand-tuned values (`EVAL_WEIGHTS`, prestige points per unit) for resources and positions that
turn into points later, minus a cost for time spent (rules §3.3: time brings deaths).
"""

from __future__ import annotations

import numpy as np

from core.jit import jit
from village_env.engine.board import count_at
from village_env.engine.rounds import N_SCORE_PARTS, final_score_parts
from village_env.layout import (
    LOC_BAG,
    LOC_CITY,
    LOC_COUNCIL,
    LOC_CRAFT,
    LOC_FARM,
    LOC_UNBORN,
    MAXP,
    N_BUILDINGS,
    N_COLOURS,
    N_GOODS,
    N_LEVELS,
    N_SLOTS,
    S_CUBES,
    S_GOODS,
    S_GRAIN,
    S_NP,
    S_PRESTIGE,
    S_STALLS,
    S_TIME,
)
from village_env.tables import (
    DEMAND_GRAIN,
    DEMAND_ROW,
    N_CITIES,
    T_CUSTOMER_DEMAND,
    T_CUSTOMER_VALUE,
)

# the one table of hand-tuned weights (prestige points per unit of a thing not yet scored),
# indexed by the W_* constants
W_CUBE = 0  # an influence cube (brown, pink, orange)
W_GREEN = 1  # a green cube: pays market fees and council steps
W_GOOD = 2  # a goods tile
W_GRAIN = 3  # a grain
W_TIME = 4  # cost of one time unit (brings the next death closer, rules §3.4)
W_FARM = 5  # a member on the farmyard (first 2), able to take jobs
W_CRAFT = 6  # first member on each craft building (produces with time only, rules §4.3)
W_COUNCIL = 7  # having a council member (privileges, rules §4.7)
W_CITY = 8  # a member on the map (first 2: can travel on, rules §4.6)
W_BAG = 9  # a member in the black bag (likely window at a Mass, rules §4.9)
W_DEMAND = 10  # share of a stall customer's value when you hold its demand (rules §4.5)
W_UNBORN_LEFT = 11  # an unborn member still to come
EVAL_WEIGHTS = np.array([0.35, 0.45, 1.1, 0.4, 0.3, 0.6, 1.0, 1.0, 0.4, 1.2, 0.35, 0.1])
EVAL_WEIGHTS.setflags(write=False)  # compiled code reads it as a constant: edit the source
N_WEIGHTS = EVAL_WEIGHTS.shape[0]


@jit(alloc=False)
def project(s, T, w, out, parts):
    """out[p] = seat p's projected final score for p < n, with weights w (EVAL_WEIGHTS' layout);
    out[n:MAXP] = 0. `parts` is int64 scratch of N_SCORE_PARTS entries.

    The terms are added in a fixed order (the bot's decisions depend on exact float values)."""
    n = s[S_NP]
    for p in range(n):
        v = float(s[S_PRESTIGE + p])
        final_score_parts(s, T, p, parts)  # rules §5.2, each category as it stands now
        for k in range(N_SCORE_PARTS):
            v += parts[k]
        c = S_CUBES + p * N_COLOURS  # colours 0-2 brown, pink, orange; 3 green
        v += (s[c] + s[c + 1] + s[c + 2]) * w[W_CUBE]
        v += s[c + 3] * w[W_GREEN]
        goods = 0
        for g in range(N_GOODS):
            goods += s[S_GOODS + p * N_GOODS + g]
        v += goods * w[W_GOOD]
        v += s[S_GRAIN + p] * w[W_GRAIN]
        v -= s[S_TIME + p] * w[W_TIME]
        v += min(count_at(s, p, LOC_FARM), 2) * w[W_FARM]
        crafts = 0
        for b in range(N_BUILDINGS):
            if count_at(s, p, LOC_CRAFT + b) > 0:
                crafts += 1
        v += crafts * w[W_CRAFT]
        council = 0
        for lv in range(N_LEVELS):
            council += count_at(s, p, LOC_COUNCIL + lv)
        v += (1.0 if council > 0 else 0.0) * w[W_COUNCIL]
        city = 0
        for c in range(N_CITIES):  # cities A..H (LOC_CITY..)
            city += count_at(s, p, LOC_CITY + c)
        v += min(city, 2) * w[W_CITY]
        v += count_at(s, p, LOC_BAG) * w[W_BAG]
        v += count_at(s, p, LOC_UNBORN) * w[W_UNBORN_LEFT]
        # stall customers whose whole demand (goods, grain) the seat holds now (rules §4.5)
        for j in range(N_SLOTS):
            t = s[S_STALLS + j]
            if t < 0:
                continue
            d = T_CUSTOMER_DEMAND + t * DEMAND_ROW
            meets = s[S_GRAIN + p] >= T[d + DEMAND_GRAIN]
            for g in range(N_GOODS):
                if s[S_GOODS + p * N_GOODS + g] < T[d + g]:
                    meets = False
            if meets:
                v += T[T_CUSTOMER_VALUE + t] * w[W_DEMAND]
        out[p] = v
    for p in range(n, MAXP):
        out[p] = 0.0


@jit(alloc=False)
def evaluate_into(s, T, out, tmp):
    """kernels.k_evaluate: `project` with EVAL_WEIGHTS, tmp[0:N_SCORE_PARTS] its scratch."""
    project(s, T, EVAL_WEIGHTS, out, tmp[:N_SCORE_PARTS])
