"""This library's agents as OpenSpiel bots (extra `[openspiel]`), for OpenSpiel's
`evaluate_bots` and its tournaments on the games `interop.openspiel` registers.

    import numpy as np, pyspiel
    from open_spiel.python.algorithms import evaluate_bots
    from interop.openspiel_bots import agent_bot

    game = pyspiel.load_game("python_village", {"players": 2})
    bots = [agent_bot("az", game, 0, seed=1), agent_bot("mcts", game, 1, seed=2)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random)

Any agent spec plays (`heuristic`, `mcts:iters=N`, `az`, a checkpoint, `py:...`,
docs/agents.md). A bot makes a fresh agent for each game (`restart_at`, with the seed it was
given), tells it every action played (its own and, through `inform_action`, the others'), and
decides on the state array of the OpenSpiel state, as our arena gives it: an agent reads only its
seat's view of it (the agents' contract, docs/agents.md).
"""

from __future__ import annotations

import pyspiel

from interop.openspiel import SpielGame  # importing it registers the games
from training.agents.registry import make_agent


class AgentBot(pyspiel.Bot):
    """One of our agents playing seat `player_id` of an `interop.openspiel` game."""

    def __init__(self, spec: str, game, player_id: int, seed: int = 0):
        pyspiel.Bot.__init__(self)
        self.spec, self.game, self.player_id, self.seed = str(spec), game, int(player_id), int(seed)
        self.agent = self._fresh()

    def _fresh(self):
        return make_agent(self.spec, self.game.game_name, self.game.players, self.seed)

    def _tell(self, action: int) -> None:
        notify = getattr(self.agent, "notify", None)
        if notify is not None:
            notify(int(action))

    def restart_at(self, state) -> None:
        self.agent = self._fresh()

    def step(self, state) -> int:
        action = int(self.agent.act(state.array))
        self._tell(action)
        return action

    def inform_action(self, state, player_id, action) -> None:
        if int(player_id) != self.player_id:
            self._tell(action)

    def provides_policy(self) -> bool:
        return False


def agent_bot(spec: str, game, player_id: int, seed: int = 0) -> AgentBot:
    """A bot for `game` (a game of interop.openspiel) playing seat `player_id` with our agent
    `spec`, seeded by `seed`."""
    if not isinstance(game, SpielGame):
        raise ValueError(
            f"agent_bot plays the games interop.openspiel registers (python_<name>); got {game}"
        )
    return AgentBot(spec, game, player_id, seed)
