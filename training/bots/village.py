"""Village baseline bots: `heuristic`, a greedy one-step lookahead on a hand-written evaluation.

The evaluation (village_env/engine/evaluate.py, compiled; the search kernels' k_evaluate) projects
each player's final score from the rules (docs/rules/village.md §5.2: prestige so far + travel,
council, church, chronicle, customers, coins) and adds small values (its hand-tuned EVAL_WEIGHTS)
for resources that turn into points later (cubes, goods, grain, members in useful places) minus a
cost for time spent (rules §3.3: time brings deaths). The bot plays the action whose resulting
position maximises (own projection - best other projection). Before looking ahead it reseeds a
copy of the state (`determinize`), so it never peeks at future draws.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from training.bots import BotRng, register_bot


class VillageHeuristic:
    """Greedy one-step lookahead on a projected-final-score evaluation (see module docstring)."""

    name = "heuristic"

    def __init__(self, game: ModuleType, seed: int = 0):
        from village_env.engine.kernels import k_evaluate

        self.game = game
        self.rng = BotRng(seed)
        self._k_evaluate = k_evaluate
        self._tmp = np.zeros(game.STATE_SIZE + 16, dtype=np.int64)
        L = game.LAYOUT
        self.seg = {n: (L.segments[n].offset, L.segments[n].shape) for n in L.segments}

    def projected(self, S: np.ndarray) -> np.ndarray:
        """(K, 4) projected final score of every seat in each of K states (0 for seats beyond
        the player count): the compiled k_evaluate, state by state."""
        T = self.game.TABLES  # read each time: load_rules_data may replace it
        out = np.zeros((S.shape[0], 4))
        for k in range(S.shape[0]):
            self._k_evaluate(S[k], T, out[k], self._tmp)
        return out

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
