"""The baseline bots as they were written in Python before they were compiled: the reference the
compiled bots (core/bots_template.py, the games' k_own_bot_values) are tested against, decision
by decision (tests/training/test_compiled_bots.py). Not used by the library."""

from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np

from core.bots import BotRng
from troyes_env.engine.kernels import MAX_DEPTH, NODE_BUDGET
from troyes_env.engine.rules import WORK_SIZE
from troyes_env.layout import PH_TURN


class GreedyOracle:
    """core.bots.GreedyHeuristic as it was written in Python: greedy one-step lookahead, each
    successor stepped by the public API and valued by the compiled k_evaluate, a finished game by
    its real returns and scores (numpy throughout)."""

    name = "heuristic"

    def __init__(self, game: ModuleType, seed: int = 0):
        self.game = game
        self.rng = BotRng(seed)
        self._k_evaluate = importlib.import_module(f"{game.__name__}.engine.contract").k_evaluate
        self._tmp = np.zeros(game.STATE_SIZE + 16, dtype=np.int64)  # k_evaluate's scratch
        spec = game.GAME.spec
        self._max_players = max(spec.player_counts)
        f = spec.fields
        self._np_at, self._over_at, self._over_value = f.num_players, f.over, f.over_value

    def projected(self, S: np.ndarray) -> np.ndarray:
        """(K, max players) projected final score of every seat in each of K states (0 for seats
        beyond the player count): the compiled k_evaluate, state by state."""
        T = self.game.TABLES  # read each time: load_rules_data may replace it
        out = np.zeros((S.shape[0], self._max_players))
        for k in range(S.shape[0]):
            self._k_evaluate(S[k], T, out[k], self._tmp)
        return out

    def evaluate(self, S: np.ndarray, me: int) -> np.ndarray:
        """(K,) value of each state for seat `me`: own projection minus the best other one; a
        finished game is valued by its real result."""
        n = int(S[0, self._np_at])
        g = self.game
        proj = self.projected(S)[:, :n]
        others = np.delete(proj, me, axis=1).max(axis=1)
        val = proj[:, me] - others
        over = S[:, self._over_at] == self._over_value
        for k in np.flatnonzero(over):  # a finished game: the real result dominates
            val[k] = 100.0 * float(g.returns(S[k], "win_loss")[me]) + float(
                g.scores(S[k])[me] - np.delete(g.scores(S[k]), me).max()
            )
        return val

    def act(self, state: np.ndarray) -> int:
        """The legal action whose (determinized) successor position evaluates best."""
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


class TroyesOracle:
    """troyes_env.bots.TroyesHeuristic as it was written: the chain search in Python (`_search`),
    run by the compiled chain_values (without scoring finished games) except where that meets a
    finished game, which the Python search then scores. `handed_back` counts those decisions."""

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
        self._work = np.zeros(WORK_SIZE, dtype=np.int64)
        self._ph_turn = PH_TURN
        self._project = project
        self._w = EVAL_WEIGHTS
        self._tmp = np.zeros(game.STATE_SIZE + 16, dtype=np.int64)  # project's scratch
        self._t = None  # the rules tables, read once per act() (see _tables)
        self._scratch = None  # the compiled search's buffers (made on the first act)
        f = game.GAME.spec.fields  # the state word that says "over" and its value there
        self._over_at, self._over_value = f.over, f.over_value
        self.handed_back = 0

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
        """The same search compiled (troyes_env.engine.evaluate.chain_values, finished games not
        scored): fills val and returns 0, or 1 when it meets a finished game (then the Python
        search above decides)."""
        from troyes_env.engine.evaluate import ChainScratch, chain_values
        from troyes_env.layout import MAXP

        if self._scratch is None:
            g, k = self.game, MAX_DEPTH + 1
            self._scratch = ChainScratch(
                np.zeros((k, g.STATE_SIZE), dtype=np.int64),  # the state at each depth
                np.zeros((k, g.NUM_ACTIONS), dtype=np.int64),  # its legal actions
                np.zeros(k, dtype=np.int64),  # how many
                np.zeros(k, dtype=np.int64),  # the next one to try
                np.zeros(k),  # the best value so far
                np.zeros(g.NUM_ACTIONS, dtype=np.bool_),
                self._work,
                self._tmp,
                np.zeros(MAXP),
            )
        legal = np.ascontiguousarray(legal, dtype=np.int64)
        err = chain_values(
            probe,
            self._t,
            me,
            cw,
            self._w,
            legal,
            val,
            NODE_BUDGET,
            MAX_DEPTH,
            self._scratch,
            False,
        )
        if err == 2:
            raise RuntimeError("troyes heuristic: engine refused a legal action")
        return int(err)

    def search_values(self, probe: np.ndarray, me: int, cw: np.ndarray, legal) -> np.ndarray:
        """The Python search's value of each root action (no compiled search at all)."""
        self._t = self.game.TABLES
        try:
            return np.array(
                [self._search(self._step(probe, a), me, cw, 1, [NODE_BUDGET]) for a in legal]
            )
        finally:
            self._t = None

    def act(self, state: np.ndarray) -> int:
        """The legal action starting the best own decision chain (on a determinized copy)."""
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
                self.handed_back += 1
                for i, a in enumerate(legal):
                    val[i] = self._search(self._step(probe, a), me, cw, 1, [NODE_BUDGET])
        finally:
            self._t = None
        best = np.flatnonzero(val >= val.max() - 1e-9)
        return int(legal[best[self.rng.below(len(best))]])
