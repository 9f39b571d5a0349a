"""The `search` group of benchmarks.run: the speed of the ISMCTS agent (core.search).

- engine decisions per second spent inside search (tree descent + rollouts: every k_step of an
  iteration; the greedy rollout's lookahead steps are reported beside), to compare with the same
  game's compiled B=1 random play measured in the same run;
- the median wall time of one 1,000-iteration decision at 4 players, over positions of seeded
  random games (each decision a fresh agent: no subtree reuse);
- the network-guided search (core.guided, `az`) with a network of the trained size (random
  weights: its speed does not depend on their values): network evaluations per second inside the
  search and the median wall time of one 100-simulation decision, PUCT and Gumbel roots;
- the agents as a game plays them by default, at 2 players and at the most players: `mcts` with
  the game's own search defaults, and `az` with 100 simulations and the search settings of the
  network shipped for that count (its sidecar's `search`; random weights of the trained size),
  so the cost of a bigger table is one ratio per agent;
- OpenSpiel's C++ MCTSBot (random rollouts, 1,000 simulations) on chess and backgammon, as the
  reference row (its rollouts play to the end of the game).

    python -m benchmarks.run --groups search --seconds 3
"""

from __future__ import annotations

import time

import numpy as np

from core.guided import GuidedAgent, GuidedConfig
from core.registry import get_game
from core.search import MCTSAgent, SearchConfig
from core.testing import decision_positions

SEARCH_CONFIGS = {  # row label -> agent spec parameters
    "random rollouts": "iters=1000",
    "greedy rollouts": "iters=1000,rollout=greedy,cutoff=8",
    "bot rollouts": "iters=1000,c=0.3,rollout=bot,cutoff=8,quiet=0",  # Troyes' own default
}

GUIDED_CONFIGS = {  # row label -> az agent parameters
    "puct": "sims=100",
    "gumbel": "sims=100,root=gumbel",
}
GUIDED_HIDDEN = (256, 256)  # training.alphazero's default network


def guided_network(game, hidden=GUIDED_HIDDEN, seed: int = 0) -> dict:
    """A random policy-value network of `game` (trained-actor arrays, ReLU trunk)."""
    rng = np.random.default_rng(seed)
    sizes = [game.OBS_SIZE, *hidden, game.NUM_ACTIONS + max(game.PLAYER_COUNTS)]
    out: dict = {"activations": np.array(["relu"] * len(hidden))}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False)):
        out[f"W{i}"] = (rng.standard_normal((b, a)) / np.sqrt(a)).astype(np.float32)
        out[f"b{i}"] = np.zeros(b, np.float32)
    return out


def search_positions(g: str, players: int, count: int, seed: int = 0) -> list[np.ndarray]:
    """`count` decision points with >= 2 legal actions, from seeded random games
    (core.testing.decision_positions)."""
    return decision_positions(get_game(g), players, count, seed)


def search_rate(g: str, players: int, params: str):
    """Row function: decisions (engine steps) per second inside search, and the median wall
    time of one decision, over fresh agents on a cycle of positions."""

    def run(seconds: float) -> dict:
        cfg = SearchConfig.parse(params)
        states = search_positions(g, players, 16)
        MCTSAgent(g, SearchConfig.parse("iters=20," + params.partition(",")[2]), 0).act(
            states[0]
        )  # compile or load from the cache outside the clock
        steps = look = iters = 0
        times = []
        t0 = time.perf_counter()
        i = 0
        while i < len(states) or time.perf_counter() - t0 < seconds:
            agent = MCTSAgent(g, cfg, seed=i)
            agent.act(states[i % len(states)])
            st = agent.last
            steps += st["steps"]
            look += st["lookahead_steps"]
            iters += st["iterations"]
            times.append(st["seconds"])
            i += 1
        busy = float(np.sum(times))
        return {
            "decisions_per_s": steps / busy,
            "games_per_s": None,
            "decisions": int(steps),
            "seconds": round(busy, 3),
            "median_decision_ms": float(np.median(times) * 1000.0),
            "search_decisions": len(times),
            "iterations_per_s": iters / busy,
            "lookahead_steps_per_s": look / busy,
        }

    return run


def guided_rate(g: str, players: int, params: str, hidden: tuple[int, ...] = GUIDED_HIDDEN):
    """Row function: engine steps and network evaluations per second inside the guided search
    and the median wall time of one decision (`params`: az parameters; `hidden`: the random
    network's hidden sizes), over a cycle of positions, one agent (its tree is cleared for every
    decision)."""

    def run(seconds: float) -> dict:
        game = get_game(g)
        net = guided_network(game, hidden)
        agent = GuidedAgent(game, net, GuidedConfig.parse(params), seed=0)
        states = search_positions(g, players, 16)
        agent.act(states[0])  # compile or load from the cache outside the clock
        calls = sims = steps = 0
        times = []
        t0 = time.perf_counter()
        i = 0
        while i < len(states) or time.perf_counter() - t0 < seconds:
            c0 = time.perf_counter()
            agent.act(states[i % len(states)])
            times.append(time.perf_counter() - c0)
            calls += agent.last["network_calls"]
            sims += agent.last["simulations"]
            steps += agent.last["steps"]
            i += 1
        busy = float(np.sum(times))
        return {
            "decisions_per_s": steps / busy,
            "games_per_s": None,
            "decisions": int(steps),
            "seconds": round(busy, 3),
            "median_decision_ms": float(np.median(times) * 1000.0),
            "search_decisions": len(times),
            "network_evals_per_s": calls / busy,
            "network_calls_per_decision": calls / len(times),
            "simulations_per_s": sims / busy,
        }

    return run


def default_mcts_rate(g: str, players: int):
    """Row function: search_rate with the game's own `mcts` defaults (SearchConfig.for_game)."""
    cfg = SearchConfig.for_game(get_game(g), "")
    rest = cfg.spec().partition(":")[2]
    return search_rate(g, players, f"iters={cfg.iters}" + (f",{rest}" if rest else ""))


def shipped_search(g: str, players: int) -> str:
    """The guided search parameters `az` plays at `players` (the shipped network's sidecar
    `search`, '' if none is shipped), with 100 simulations."""
    from training.agents.az_agent import read_shipped_search

    found = read_shipped_search(get_game(g), players)
    return ",".join(p for p in (found, "sims=100") if p)


def conditioned_pair(g: str, players: int):
    """Row function: the shipped conditioned network's `az` (`az`, 100 simulations, its search
    settings for the count) and the network shipped for that count (`az:az-<N>p`), each as
    make_agent builds it, deciding in turn at the same positions (the order alternating): the
    median of their per-position time ratios (conditioned / per-count) and each one's median
    milliseconds. The conditioned network folds its rules features into the first layer once,
    so a decision should cost what the per-count network's does."""

    def run(seconds: float) -> dict:
        from training.agents.registry import make_agent

        ours = make_agent("az", g, players, 0)
        theirs = make_agent(f"az:az-{players}p", g, players, 0)
        states = search_positions(g, players, 16)
        ours.act(states[0]), theirs.act(states[0])  # compile or load outside the clock
        ta, tb = [], []
        t0 = time.perf_counter()
        i = 0
        while i < 2 * len(states) or time.perf_counter() - t0 < seconds:
            s = states[i % len(states)]
            for agent, out in ((ours, ta), (theirs, tb))[:: 1 if i % 2 == 0 else -1]:
                c0 = time.perf_counter()
                agent.act(s)
                out.append(time.perf_counter() - c0)
            i += 1
        ratios = np.asarray(ta) / np.asarray(tb)
        return {
            "decisions_per_s": len(ta) / float(np.sum(ta)),
            "games_per_s": None,
            "decisions": len(ta),
            "seconds": round(float(np.sum(ta) + np.sum(tb)), 3),
            "median_decision_ms": float(np.median(ta) * 1000.0),
            "per_count_median_ms": float(np.median(tb) * 1000.0),
            "paired_ratio": float(np.median(ratios)),
            "pairs": len(ratios),
        }

    return run


def spiel_mcts(name: str, sims: int = 1000):
    """Row function: OpenSpiel's C++ MCTSBot (pyspiel.MCTSBot, RandomRolloutEvaluator with one
    rollout, UCT c = 2, `sims` simulations) deciding at positions of seeded random games."""

    def run(seconds: float) -> dict:
        import pyspiel

        game = pyspiel.load_game(name)
        rng = np.random.default_rng(0)
        times = []
        t0 = time.perf_counter()
        k = 0
        while len(times) < 3 or time.perf_counter() - t0 < seconds:
            state = game.new_initial_state()
            for _ in range(int(rng.integers(0, 40))):
                if state.is_terminal():
                    break
                if state.is_chance_node():
                    outs, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(int(rng.choice(outs, p=probs)))
                else:
                    state.apply_action(int(rng.choice(state.legal_actions())))
            while state.is_chance_node():
                outs, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outs, p=probs)))
            if state.is_terminal():
                continue
            ev = pyspiel.RandomRolloutEvaluator(1, k)
            bot = pyspiel.MCTSBot(game, ev, 2.0, sims, 1000, False, k, False)
            c0 = time.perf_counter()
            bot.step(state)
            times.append(time.perf_counter() - c0)
            k += 1
        return {
            "decisions_per_s": None,
            "games_per_s": None,
            "seconds": round(float(np.sum(times)), 3),
            "median_decision_ms": float(np.median(times) * 1000.0),
            "search_decisions": len(times),
        }

    return run
