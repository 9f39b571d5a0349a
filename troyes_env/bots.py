"""Troyes' own `heuristic` bot (GameSpec.bots; core.bots has the generic ones): a greedy
lookahead over the acting player's own decisions.

The evaluation (troyes_env/engine/evaluate.py, compiled, with its hand-tuned EVAL_WEIGHTS; the
search kernels' k_evaluate) projects each player's final score from the rules (docs/rules/troyes.md
§7: VP tokens + 1 per unresolved event holding an own cube + printed VP of own supervisor slots - 2
per Cathedral level without an own cube + Character cards) and adds values for resources that turn
into points later (deniers, influence, Activity cubes, standing citizens, citizens in supply, own
dice not yet used), scaled down as the game nears its end. Character cards count only as far as
the bot knows them: its own cards fully, every card it cannot see with the probability that some
other player holds it (rules §6.3: every revealed card scores for every player).

One decision of the rules (§10.7) is often only part of an action (target, then cube, then dice,
then citizen source...), so the bot searches the chain of its own consecutive decisions up to the
next turn boundary (depth-first, max over its choices, with a node budget) and plays the first
decision of the best chain. It searches on a `determinize`d copy of the state (other players'
characters, deck orders, face-down cards and the RNG resampled), so it never peeks at hidden
information; its randomness (tie breaks, the determinization seed) comes from its own BotRng.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from core.bots import BotRng

NODE_BUDGET = 24  # search nodes per first decision
MAX_DEPTH = 6


class TroyesHeuristic:
    """Greedy search over the bot's own decision chain on a projected-score evaluation."""

    name = "heuristic"

    def __init__(self, game: ModuleType, seed: int = 0):
        from troyes_env.engine import legal_mask_into, step_inplace
        from troyes_env.engine.evaluate import EVAL_WEIGHTS, project

        self.game = game
        self.rng = BotRng(seed)
        self._legal_into = legal_mask_into
        self._step_inplace = step_inplace
        L = game.LAYOUT
        self.o = {n: L.offset(n) for n in L.segments}
        self._mask = np.zeros(game.NUM_ACTIONS, dtype=np.bool_)
        self._work = None
        self._project = project
        self._w = EVAL_WEIGHTS
        self._tmp = np.zeros(game.STATE_SIZE + 16, dtype=np.int64)  # project's scratch
        self._t = None  # the rules tables, read once per act() (see _tables)
        self._scratch = None  # the compiled search's buffers (made on the first act)
        f = game.GAME.spec.fields  # the state word that says "over" and its value there
        self._over_at, self._over_value = f.over, f.over_value

    # -- engine access (the compiled kernels the public API wraps; states are never modified) --
    def _tables(self):
        # read once per act(): load_rules_data may replace the tables between decisions
        return self.game.TABLES if self._t is None else self._t

    def _over(self, s: np.ndarray) -> bool:
        """is_terminal on a state this bot made itself (no format check needed)."""
        return s.item(self._over_at) == self._over_value

    def _legal(self, s: np.ndarray) -> np.ndarray:
        self._mask[:] = False
        self._legal_into(s.copy(), self._tables(), self._mask, self._work)
        return np.flatnonzero(self._mask)

    def _step(self, s: np.ndarray, a: int) -> np.ndarray:
        t = s.copy()
        if self._step_inplace(t, self._tables(), int(a), self._mask, self._work) != 0:
            raise RuntimeError(f"troyes heuristic: engine refused legal action {a}")
        return t

    # -- evaluation --------------------------------------------------------------------------
    def char_weights(self, state: np.ndarray, me: int) -> np.ndarray:
        """Weight of each of the 6 Character cards in `me`'s projection: 1 for own cards, the
        chance another player holds it for a card `me` cannot see (it will be revealed)."""
        o, n = self.o, int(state[self.o["n_players"]])
        own = [int(c) for c in state[o["chars"] + 2 * me : o["chars"] + 2 * me + 2] if c >= 0]
        held = int((state[o["chars"] : o["chars"] + 2 * n] >= 0).sum())
        w = np.full(6, (held - len(own)) / max(6 - len(own), 1))
        w[own] = 1.0
        return w

    def projected(self, s: np.ndarray, cw: np.ndarray) -> np.ndarray:
        """(n,) projected final score of every seat in state `s` (see the module docstring)."""
        n = int(s[self.o["n_players"]])
        out = np.zeros(n)
        self._project(s, self._tables(), cw, self._w, out, self._tmp)
        return out

    def evaluate(self, s: np.ndarray, me: int, cw: np.ndarray) -> float:
        """Value of state `s` for seat `me`: own projection minus the best other one; a finished
        game is scored by its real result."""
        g = self.game
        if self._over(s):
            sc = g.scores(s).astype(np.float64)
            return 100.0 * float(g.returns(s, "win_loss")[me]) + sc[me] - np.delete(sc, me).max()
        v = self.projected(s, cw)
        mine = float(v[me])
        v[me] = -np.inf
        return mine - float(v.max())

    # -- search --------------------------------------------------------------------------------
    def _search(self, s: np.ndarray, me: int, cw: np.ndarray, depth: int, budget: list) -> float:
        """Max over `me`'s own continuation of the current action, static value at its end."""
        o = self.o
        if (
            depth >= MAX_DEPTH
            or budget[0] <= 0
            or s[o["cur"]] != me
            or s[o["phase"]] == self._ph_turn
            or self._over(s)
        ):
            return self.evaluate(s, me, cw)
        best = -np.inf
        for a in self._legal(s):
            budget[0] -= 1
            best = max(best, self._search(self._step(s, a), me, cw, depth + 1, budget))
            if budget[0] <= 0:
                break
        return best

    def _compiled(self, probe, me, cw, legal, val) -> int:
        """The same search compiled (troyes_env.engine.evaluate.chain_values): fills val and
        returns 0, or 1 when it meets a finished game (then the Python search above decides)."""
        from troyes_env.engine.evaluate import chain_values
        from troyes_env.layout import MAXP

        if self._scratch is None:
            from troyes_env.engine import WORK_SIZE
            from troyes_env.layout import PH_TURN

            if self._work is None:
                self._work = np.zeros(WORK_SIZE, dtype=np.int64)
                self._ph_turn = PH_TURN
            g, k = self.game, MAX_DEPTH + 1
            self._scratch = (
                np.zeros((k, g.STATE_SIZE), dtype=np.int64),  # the state at each depth
                np.zeros((k, g.NUM_ACTIONS), dtype=np.int64),  # its legal actions
                np.zeros(k, dtype=np.int64),  # how many
                np.zeros(k, dtype=np.int64),  # the next one to try
                np.zeros(k),  # the best value so far
                np.zeros(g.NUM_ACTIONS, dtype=np.bool_),
                self._work,
                self._tmp,
                np.zeros(MAXP),
                np.zeros(g.STATE_SIZE, dtype=np.int64),
            )
        legal = np.ascontiguousarray(legal, dtype=np.int64)
        err = chain_values(
            probe, self._t, me, cw, self._w, legal, val, NODE_BUDGET, MAX_DEPTH, *self._scratch
        )
        if err == 2:
            raise RuntimeError("troyes heuristic: engine refused a legal action")
        return int(err)

    def act(self, state: np.ndarray) -> int:
        """The legal action starting the best own decision chain (on a determinized copy)."""
        from troyes_env.engine import WORK_SIZE
        from troyes_env.layout import PH_TURN

        if self._work is None:
            self._work = np.zeros(WORK_SIZE, dtype=np.int64)
            self._ph_turn = PH_TURN
        g = self.game
        legal = np.flatnonzero(g.legal_mask(state))
        if len(legal) == 1:
            return int(legal[0])
        me = g.current_player(state)
        probe = g.determinize(state, me, self.rng.seed32())
        cw = self.char_weights(state, me)
        val = np.empty(len(legal))
        self._t = g.TABLES
        try:
            if self._compiled(probe, me, cw, legal, val) != 0:  # a finished game in reach
                for i, a in enumerate(legal):
                    val[i] = self._search(self._step(probe, a), me, cw, 1, [NODE_BUDGET])
        finally:
            self._t = None
        best = np.flatnonzero(val >= val.max() - 1e-9)
        return int(legal[best[self.rng.below(len(best))]])
