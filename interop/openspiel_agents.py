"""OpenSpiel's bots as agents of this library: the agent kind `openspiel:BOT[,k=v...]` (extra
`[openspiel]`), so `vtrl evaluate` and `vtrl tournament` field them against ours on common deals.

    openspiel:ismcts,sims=100          information-set MCTS (Cowling, Powley & Whitehouse 2012),
                                       open_spiel.python.algorithms.ismcts
    openspiel:mcts,sims=100            OpenSpiel's MCTS (open_spiel.python.algorithms.mcts)
    openspiel:random                   pyspiel's uniform random bot

Parameters: `sims` (simulations per decision, default 100), `c` (the UCT constant, default 2.0,
OpenSpiel's examples' value), `rollouts` (random rollouts per leaf, default 1; both searches
evaluate leaves with OpenSpiel's RandomRolloutEvaluator), `samples` (ISMCTS: the most
determinizations it keeps per decision; default 0, a new one every simulation), `fast` (1: the
random rollouts are played on the state array through the game's own API rather than through
pyspiel state objects; the same evaluation, a uniform legal action at every decision and the
returns at the end, several times faster; default 0, OpenSpiel's RandomRolloutEvaluator).

Every bot decides on the game as `interop.openspiel` presents it, from a root the acting seat
could not tell from the true position: the game's determinization for that seat (what the seat
cannot know resampled, DESIGN ED-35), so nothing hidden reaches a bot whatever it does. ISMCTS
then samples its worlds with the same determinization (`resample_from_infostate`) and keys its
nodes on the seat's observation string; OpenSpiel's MCTS, which has no handling of hidden
information, searches that one determinized root (a determinized MCTS). Each bot draws from its
own generator seeded by the agent's seed: the same seeds give the same games. A decision with one
legal action is played without asking the bot.
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from core.registry import get_game
from interop import openspiel as spiel

BOTS = ("ismcts", "mcts", "random")
USAGE = "openspiel:ismcts|mcts|random[,sims=N,c=X,rollouts=K,samples=W,fast=0|1]"
DEFAULTS = {"sims": 100, "c": 2.0, "rollouts": 1, "samples": 0, "fast": 0}


def parse(params: str) -> tuple[str, dict]:
    """(bot, settings) of a spec's parameters; ValueError naming what is allowed."""
    parts = [p.strip() for p in str(params).split(",") if p.strip()]
    if not parts or parts[0] not in BOTS:
        raise ValueError(f"the bot is one of {', '.join(BOTS)}; got {parts[0] if parts else ''!r}")
    settings = dict(DEFAULTS)
    for part in parts[1:]:
        key, sep, value = part.partition("=")
        if not sep or key not in DEFAULTS:
            raise ValueError(f"parameters are {', '.join(DEFAULTS)} (k=v); got {part!r}")
        try:
            settings[key] = type(DEFAULTS[key])(value)
        except ValueError:
            raise ValueError(f"{key} takes a number; got {value!r}") from None
    if settings["sims"] < 1 or settings["rollouts"] < 1 or settings["samples"] < 0:
        raise ValueError("sims and rollouts must be >= 1, samples >= 0")
    if settings["fast"] not in (0, 1):
        raise ValueError(f"fast is 0 or 1; got {settings['fast']}")
    return parts[0], settings


class ArrayRollouts(mcts.Evaluator):
    """Random rollouts to the end of the game, as mcts.RandomRolloutEvaluator plays them (a
    uniform legal action at every decision, the returns averaged over `n` rollouts; the prior
    uniform over the legal actions), played on the state array with the game's own API instead
    of cloned pyspiel states: the same evaluation at a fraction of the Python per step."""

    def __init__(self, module, n: int, returns_kind: str, rng: np.random.Generator):
        self.module, self.n, self.kind, self.rng = module, int(n), returns_kind, rng

    def evaluate(self, state):
        m = self.module
        total = np.zeros(state.num_players())
        for _ in range(self.n):
            s = state.array
            while not m.is_terminal(s):
                legal = np.flatnonzero(m.legal_mask(s))
                s = m.step(s, int(legal[self.rng.integers(legal.size)]))
            total += m.returns(s, self.kind)
        return total / self.n

    def prior(self, state):
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


class OpenSpielAgent:
    """One OpenSpiel bot playing one seat of one of our games (module docstring)."""

    def __init__(self, game_name: str, params: str, seed: int):
        self.bot_name, self.settings = parse(params)
        self.module = get_game(game_name)
        self.game_name = game_name
        self.seed = int(seed)
        self.rng = np.random.default_rng([self.seed, 0x05])
        self.game = None  # the OpenSpiel game, made at the first decision (its player count)
        self.bot = None
        self.name = f"openspiel:{params}"

    def _setup(self, players: int, seat: int) -> None:
        name = spiel.register(self.game_name)
        self.game = pyspiel.load_game(name, {"players": int(players)})
        s = self.settings
        state = np.random.RandomState(int(self.rng.integers(0, 2**31 - 1)))
        if self.bot_name == "random":
            self.bot = pyspiel.make_uniform_random_bot(seat, int(self.rng.integers(0, 2**31 - 1)))
            return
        if s["fast"]:
            rng = np.random.default_rng(int(self.rng.integers(0, 2**31 - 1)))
            evaluator = ArrayRollouts(self.module, s["rollouts"], self.game.returns_kind, rng)
        else:
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=s["rollouts"], random_state=state)
        if self.bot_name == "mcts":
            self.bot = mcts.MCTSBot(
                self.game, s["c"], s["sims"], evaluator, solve=False, random_state=state
            )
            return
        self.bot = ismcts.ISMCTSBot(
            self.game,
            evaluator,
            s["c"],
            s["sims"],
            max_world_samples=s["samples"] or ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
            random_state=state,
            use_observation_string=True,
            allow_inconsistent_action_sets=False,
        )
        self.bot.set_resampler(self._resample)

    def _resample(self, state, player):
        return state.resample_from_infostate(player, self.rng.random)

    def act(self, s: np.ndarray) -> int:
        m = self.module
        legal = np.flatnonzero(m.legal_mask(s))
        if legal.size == 1:
            return int(legal[0])
        me = int(m.current_player(s))
        if self.game is None:
            self._setup(int(m.num_players(s)), me)
        root = self.game.new_initial_state()
        root._s = m.determinize(s, me, int(self.rng.integers(0, 2**31 - 1)))
        return int(self.bot.step(root))


def make_openspiel_agent(game_name: str, params: str, seed: int) -> OpenSpielAgent:
    return OpenSpielAgent(game_name, params, seed)
