"""Examples from games of an agent that needs no network, to start a network from: the first step
of expert iteration (Anthony et al. 2017), where the expert is plain tree search (`mcts`) or,
with `agent`, any agent spec (e.g. the game's `heuristic`), whose choice is the policy target.

Every seat plays the agent the spec names (one agent per seat, told every action so it keeps its
subtree); each decision with more than one legal action leaves the same example as guided
self-play does (training.alphazero.selfplay): the seat's observation, its legal mask, the
agent's root visit shares (the policy target) and the final returns seen from that seat. The
first `explore` such decisions of a game play an action drawn in proportion to the visits (from
a stream seeded by the game's seed), the later ones the agent's own choice.
"""

from __future__ import annotations

import numpy as np

from core.registry import get_game
from core.search import MCTSAgent, SearchConfig
from core.search_tree import F_ACTION, F_FIRST, F_NEXT, F_VISITS
from training.agents.registry import make_agent
from training.alphazero.selfplay import Examples


def root_visits(agent: MCTSAgent, out: np.ndarray) -> np.ndarray:
    """The visits of each root action of the agent's last search, into out (NUM_ACTIONS)."""
    out[:] = 0.0
    tree = agent.tree
    ch = int(tree[0, F_FIRST])
    while ch >= 0:
        out[tree[ch, F_ACTION]] = tree[ch, F_VISITS]
        ch = int(tree[ch, F_NEXT])
    return out


def expert_game(game_name: str, players: int, params: str, seed: int, explore: int,
                returns: str = "rank", agent: str = "") -> tuple[Examples, np.ndarray]:  # fmt: skip
    """(the examples, the actions played at them) of one game from new_game(players, seed),
    every seat `mcts:params` (the game's search defaults under `params`), seeded by `seed`; with
    `agent`, every seat that agent spec instead, its chosen action the policy target (one-hot)."""
    g = get_game(game_name)
    if agent:
        agents = [make_agent(agent, g.NAME, players, seed * 7919 + p) for p in range(players)]
    else:
        cfg = SearchConfig.for_game(g, params)
        agents = [MCTSAgent(g, cfg, seed=seed * 7919 + p) for p in range(players)]
    rng = np.random.default_rng([seed, 17])
    seats = max(g.PLAYER_COUNTS)
    visits = np.zeros(g.NUM_ACTIONS, dtype=np.float64)
    obs, masks, pis, actors, played = [], [], [], [], []
    s = np.array(g.new_game(players, int(seed)), dtype=np.int64)
    while not g.is_terminal(s):
        mask = g.legal_mask(s)
        me = int(g.current_player(s))
        if mask.sum() == 1:
            a = int(np.flatnonzero(mask)[0])
        else:
            a = agents[me].act(s)
            if isinstance(agents[me], MCTSAgent):
                root_visits(agents[me], visits)
                visits[~mask] = 0.0  # a reused subtree holds actions of other determinizations
            else:
                visits[:] = 0.0
                visits[a] = 1.0
            total = visits.sum()
            pi = visits / total if total > 0 else mask / mask.sum()
            if len(obs) < explore:
                a = int(rng.choice(len(pi), p=pi))
            obs.append(g.observe(s, me).astype(np.float32))
            masks.append(mask.copy())
            pis.append(pi.astype(np.float32))
            actors.append(me)
            played.append(a)
        for seat_agent in agents:
            if hasattr(seat_agent, "notify"):
                seat_agent.notify(a)
        s = g.step(s, a)
    final = np.asarray(g.returns(s, returns), dtype=np.float32)
    rows = len(obs)
    act = np.asarray(actors, dtype=np.int64)
    z = np.zeros((rows, seats), dtype=np.float32)
    zmask = np.zeros((rows, seats), dtype=np.bool_)
    for j in range(players):
        z[:, j] = final[(act + j) % players]
        zmask[:, j] = True
    ex = Examples(
        np.asarray(obs, dtype=np.float32).reshape(rows, g.OBS_SIZE),
        np.asarray(masks, dtype=np.bool_).reshape(rows, g.NUM_ACTIONS),
        np.asarray(pis, dtype=np.float32).reshape(rows, g.NUM_ACTIONS),
        z,
        zmask,
    )
    return ex, np.asarray(played, dtype=np.int64)
