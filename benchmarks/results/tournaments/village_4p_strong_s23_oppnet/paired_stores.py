"""Paired comparison of two tournament stores on their common (deal, rotation) games: each
entrant's win share and rank, entrant k of store A matched to entrant k of store B (same order).

    python paired_stores.py STORE_A STORE_B > paired.json
"""

import json
import sqlite3
import sys

import numpy as np
from scipy.stats import binomtest

from training.balance.paired import paired_ci


def load(path):
    con = sqlite3.connect(path)
    names = dict(con.execute("select id, spec from entrants"))
    rows = {}
    for gi, rot, seed, seats, ws, rk in con.execute(
        "select game_index, rotation, seed, seats, win_shares, ranks from games"
    ):
        seats, ws, rk = json.loads(seats), json.loads(ws), json.loads(rk)
        rows[(gi, rot)] = (seed, {seats[i]: (ws[i], rk[i]) for i in range(len(seats))})
    return names, rows


na, A = load(sys.argv[1])
nb, B = load(sys.argv[2])
keys = sorted(set(A) & set(B))
assert all(A[k][0] == B[k][0] for k in keys), "deals differ"
out = {"games": len(keys)}
for ea in sorted(na):
    d = np.array([A[k][1][ea][0] - B[k][1][ea][0] for k in keys])
    r = np.array([A[k][1][ea][1] - B[k][1][ea][1] for k in keys])
    wa = np.mean([A[k][1][ea][0] for k in keys])
    wb = np.mean([B[k][1][ea][0] for k in keys])
    better, worse = int((d > 0).sum()), int((d < 0).sum())
    p = binomtest(better, better + worse).pvalue if better + worse else 1.0
    out[f"{na[ea]} | {nb[ea]}"] = {
        "win_share_a": round(wa, 4),
        "win_share_b": round(wb, 4),
        "diff": round(float(d.mean()), 4),
        "paired": paired_ci(d).to_json(),
        "sign_p": p,
        "mean_rank_diff": round(float(r.mean()), 3),
    }
print(json.dumps(out, indent=1, default=str))
