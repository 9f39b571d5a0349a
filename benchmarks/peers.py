"""Peer-library loops measured side by side with ours (extra [bench]); each is skipped with a
reason when its library is not installed. A decision (DESIGN §5) is an agent-chosen step:
chance outcomes (dice) and single-option choices are not counted."""

from __future__ import annotations

import importlib.util
import random

from core.agents import RandomAgent


def available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def versions() -> dict:
    return {
        d: _version(d)
        for d in (
            "open_spiel",
            "catanatron",
            "pettingzoo",
            "chess",
            "pygame-ce",
            "stable-baselines3",
            "sb3-contrib",
            "torch",
        )
    }


# --- OpenSpiel (pyspiel), driven from Python -----------------------------------------------
def spiel_rollout_fn(game_name: str, observe: bool = False, seed: int = 0, params=None):
    """One random game per call: uniform legal actions, chance sampled by its probabilities;
    with observe, observation_tensor of the player to act before each decision. `params`: the
    game's parameters (e.g. our games through interop.openspiel: {"players": 4})."""
    import pyspiel

    if str(game_name).startswith("python_"):  # one of ours: registered by the adapter
        import interop.openspiel  # noqa: F401

    game = pyspiel.load_game(game_name, dict(params or {}))
    rng = random.Random(seed)

    def one():
        s = game.new_initial_state()
        k = 0
        while not s.is_terminal():
            if s.is_chance_node():
                outs, probs = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(rng.choices(outs, probs)[0])
                continue
            la = s.legal_actions()
            if observe:
                s.observation_tensor(s.current_player())
            s.apply_action(la[rng.randrange(len(la))])
            k += len(la) > 1
        return k, 1

    return one


def spiel_midgame_states(
    game_name: str, n: int, count: int | None = None, plies: int = 20, seed: int = 0
) -> list:
    """`count` (default n) clones of a state after `plies` random plies."""
    import pyspiel

    rng = random.Random(seed)
    s = pyspiel.load_game(game_name).new_initial_state()
    for _ in range(plies):
        if s.is_terminal():
            break
        if s.is_chance_node():
            outs, probs = zip(*s.chance_outcomes(), strict=True)
            s.apply_action(rng.choices(outs, probs)[0])
        else:
            s.apply_action(rng.choice(s.legal_actions()))
    return [s.clone() for _ in range(n if count is None else count)]


# --- Catanatron ------------------------------------------------------------------------------
def catan_game_fn(players: int = 4, seed: int = 0):
    """One random 4-player Catanatron game per call (its RandomPlayer); decisions counted where
    the player had more than one playable action."""
    from catanatron import Color, Game, RandomPlayer

    colors = [Color.RED, Color.BLUE, Color.ORANGE, Color.WHITE][:players]
    counter = [0]

    class CountingRandom(RandomPlayer):
        def decide(self, game, playable_actions):
            counter[0] += len(playable_actions) > 1
            return super().decide(game, playable_actions)

    random.seed(seed)
    k = [seed]

    def one():
        k[0] += 1
        counter[0] = 0
        Game([CountingRandom(c) for c in colors], seed=k[0]).play()
        return counter[0], 1

    return one


def catan_midgame_states(n: int, count: int | None = None) -> list:
    """`count` (default n) copies of a 4-player game after 100 random ticks."""
    from catanatron import Color, Game, RandomPlayer

    g = Game([RandomPlayer(c) for c in (Color.RED, Color.BLUE, Color.ORANGE, Color.WHITE)], seed=1)
    for _ in range(100):
        g.play_tick()
    return [g.copy() for _ in range(n if count is None else count)]


# --- PettingZoo classic AEC env() ------------------------------------------------------------
def pz_env(name: str):
    mod = importlib.import_module(f"pettingzoo.classic.{name}")
    return mod.env()


def aec_game_fn(env, seed: int = 0):
    """One game per call through env(): the same RandomAgent over obs["action_mask"] for every
    library; decisions counted where the mask has more than one legal action."""
    bot = RandomAgent(seed)
    k = [seed]

    def one():
        k[0] += 1
        env.reset(seed=k[0])
        d = 0
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            m = obs["action_mask"]
            d += int(m.sum()) > 1
            env.step(bot.act_mask(m))
        return d, 1

    return one
