"""Village baseline bots: `heuristic`, a greedy one-step lookahead on a hand-written evaluation.

The evaluation projects each player's final score from the rules (docs/rules/village.md §5.2:
prestige so far + travel, council, church, chronicle, customers, coins) and adds small values for
resources that turn into points later (cubes, goods, grain, members in useful places) minus a cost
for time spent (rules §3.3: time brings deaths). The bot plays the action whose resulting position
maximises (own projection - best other projection). Before looking ahead it reseeds a copy of the
state (`determinize`), so it never peeks at future draws.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from training.bots import BotRng, register_bot

# hand-tuned values of things not yet scored (prestige points per unit)
W_CUBE = 0.35  # an influence cube (brown, pink, orange)
W_GREEN = 0.45  # green pays market fees and council steps
W_GOOD = 1.1  # a goods tile
W_GRAIN = 0.4
W_TIME = 0.3  # cost of one time unit (brings the next death closer)
W_FARM = 0.6  # a member on the farmyard (first 2), able to take jobs
W_CRAFT = 1.0  # first member on each craft building (produces with time only)
W_COUNCIL = 1.0  # having a council member (privileges)
W_CITY = 0.4  # a member on the map (can travel on)
W_BAG = 1.2  # a member in the black bag (likely window at a Mass)
W_DEMAND = 0.35  # share of a stall customer's value when you hold its demand
W_UNBORN_LEFT = 0.1  # an unborn member still to come


class VillageHeuristic:
    """Greedy one-step lookahead on a projected-final-score evaluation (see module docstring)."""

    name = "heuristic"

    def __init__(self, game: ModuleType, seed: int = 0):
        from village_env import tables as vt
        from village_env.layout import (
            LOC_BAG,
            LOC_CHRONICLE,
            LOC_CITY,
            LOC_COUNCIL,
            LOC_CRAFT,
            LOC_FARM,
            LOC_UNBORN,
            LOC_WINDOW,
        )

        self.game = game
        self.rng = BotRng(seed)
        T = game.TABLES

        def tab(name: str) -> np.ndarray:
            off, shape = vt.OFFSETS[name], vt.SHAPES[name]
            return np.asarray(T[off : off + int(np.prod(shape))]).reshape(shape).astype(np.float64)

        self.cust_value = tab("customer_value")
        self.cust_demand = tab("customer_demand")  # (24, 6): 5 goods then grain
        self.travel_score = tab("travel_score")
        self.council_score = tab("council_score")
        self.window_score = tab("window_score")
        self.chron_score = tab("chronicle_score")
        self.coin_score = float(tab("coin_score")[0])
        L = game.LAYOUT
        self.seg = {n: (L.segments[n].offset, L.segments[n].shape) for n in L.segments}
        self.loc = dict(
            farm=LOC_FARM,
            craft=LOC_CRAFT,
            council=LOC_COUNCIL,
            city=LOC_CITY,
            bag=LOC_BAG,
            window=LOC_WINDOW,
            chron=LOC_CHRONICLE,
            unborn=LOC_UNBORN,
        )

    def _v(self, S: np.ndarray, name: str) -> np.ndarray:
        off, shape = self.seg[name]
        size = int(np.prod(shape)) if shape else 1
        return S[:, off : off + size].reshape((S.shape[0],) + (shape or (1,)))

    def projected(self, S: np.ndarray) -> np.ndarray:
        """(K, 4) projected final score of every seat in each of K states."""
        lc = self.loc
        mem = self._v(S, "members").sum(axis=3).astype(np.float64)  # (K, 4, 26)
        markers = self._v(S, "markers").sum(axis=2)  # (K, 4)
        v = self._v(S, "prestige").astype(np.float64)
        v = v + self.travel_score[np.minimum(markers, 6)]
        v = v + mem[:, :, lc["council"] : lc["council"] + 4] @ self.council_score
        v = v + mem[:, :, lc["window"] : lc["window"] + 4] @ self.window_score
        v = v + self.chron_score[np.minimum(mem[:, :, lc["chron"]].astype(np.int64), 5)]
        owner = self._v(S, "tile_owner")  # (K, 24)
        for p in range(4):
            v[:, p] += ((owner == p) * self.cust_value).sum(axis=1)
        v = v + self._v(S, "coins") * self.coin_score
        # resources and positions that turn into points later
        cubes = self._v(S, "cubes").astype(np.float64)  # (K, 4, 4)
        v = v + cubes[:, :, :3].sum(axis=2) * W_CUBE + cubes[:, :, 3] * W_GREEN
        goods = self._v(S, "goods").astype(np.float64)  # (K, 4, 5)
        grain = self._v(S, "grain").astype(np.float64)  # (K, 4)
        v = v + goods.sum(axis=2) * W_GOOD + grain * W_GRAIN
        v = v - self._v(S, "time") * W_TIME
        v = v + np.minimum(mem[:, :, lc["farm"]], 2) * W_FARM
        v = v + (mem[:, :, lc["craft"] : lc["craft"] + 4] > 0).sum(axis=2) * W_CRAFT
        v = v + (mem[:, :, lc["council"] : lc["council"] + 4].sum(axis=2) > 0) * W_COUNCIL
        v = v + np.minimum(mem[:, :, lc["city"] : lc["city"] + 8].sum(axis=2), 2) * W_CITY
        v = v + mem[:, :, lc["bag"]] * W_BAG + mem[:, :, lc["unborn"]] * W_UNBORN_LEFT
        # stall customers whose demand a player can meet now
        have = np.concatenate([goods, grain[:, :, None]], axis=2)  # (K, 4, 6)
        stalls = self._v(S, "stalls")  # (K, 5)
        for j in range(stalls.shape[1]):
            t = stalls[:, j]
            ok = t >= 0
            if not ok.any():
                continue
            dem = self.cust_demand[np.maximum(t, 0)]  # (K, 6)
            meets = (have >= dem[:, None, :]).all(axis=2) & ok[:, None]
            v = v + meets * (self.cust_value[np.maximum(t, 0)] * W_DEMAND)[:, None]
        return v

    def evaluate(self, S: np.ndarray, me: int) -> np.ndarray:
        """(K,) value of each state for seat `me`: own projection minus the best other one."""
        n = int(S[0, self.seg["n_players"][0]])
        g = self.game
        proj = self.projected(S)[:, :n]
        others = np.delete(proj, me, axis=1).max(axis=1)
        val = proj[:, me] - others
        over = S[:, self.seg["game_over"][0]] == 1
        for k in np.flatnonzero(over):  # a finished game: the real result dominates
            val[k] = 100.0 * float(g.returns(S[k], "win_loss")[me]) + float(
                g.scores(S[k])[me] - np.delete(g.scores(S[k]), me).max()
            )
        return val

    def act(self, state: np.ndarray) -> int:
        """The legal action whose (reseeded) successor position evaluates best."""
        g = self.game
        legal = np.flatnonzero(g.legal_mask(state))
        if len(legal) == 1:
            return int(legal[0])
        me = g.current_player(state)
        probe = g.determinize(state, me, self.rng.seed32())
        nxt = np.stack([g.step(probe, int(a)) for a in legal])
        val = self.evaluate(nxt, me)
        best = np.flatnonzero(val >= val.max() - 1e-9)
        return int(legal[best[self.rng.below(len(best))]])


register_bot("village", "heuristic")(VillageHeuristic)
