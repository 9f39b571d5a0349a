"""A single-seat gymnasium env over any of our games (DESIGN D9).

The learner takes a random seat each episode; the other seats are played inside `step` by
opponent agents drawn from a weighted pool (bot names or checkpoint paths). Rewards are paid at
the end of the game, in the learner's frame: `game.returns(state, reward_kind)[seat]`, also when
an opponent's move ends the game. A game stopped by the engine's safety cap ends the episode as
truncated (and still pays the returns of the scored position). `action_masks()` serves
sb3-contrib's MaskablePPO, with DummyVecEnv or SubprocVecEnv.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from core.bots import Agent
from core.registry import check_players, default_game, game_names, get_game
from core.returns import RETURN_KINDS
from training.agents.registry import make_agent
from training.arena.evaluate import win_shares

OpponentPool = Sequence[tuple[str, float]]
ILLEGAL_MODES = ("forfeit", "raise")
GYM_NAMESPACE = "village_troyes_rl"


def parse_pool(text: str) -> list[tuple[str, float]]:
    """Parse "random:1,heuristic:0.5" (weights optional, default 1) into [(spec, weight)].

    An agent spec with parameters keeps its commas: in "mcts:iters=100,c=0.5:2,random" a part
    of the form key=value continues the spec before it, and ":2" is that spec's weight."""
    parts: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key = part.partition("=")[0]
        if "=" in part and ":" not in key:  # key=value: a parameter of the spec before
            if not parts or ":" not in parts[-1]:
                raise ValueError(f"opponent pool {text!r}: {part!r} follows no agent spec")
            parts[-1] += "," + part
        else:
            parts.append(part)
    pool = []
    for part in parts:
        spec, sep, w = part.rpartition(":")
        if not sep or not _is_number(w):
            spec, w = part, "1"
        weight = float(w)
        if not weight >= 0:
            raise ValueError(f"opponent weight must be >= 0 in {part!r}")
        pool.append((spec, weight))
    if not pool or sum(w for _s, w in pool) <= 0:
        raise ValueError(f"opponent pool {text!r} is empty or has zero total weight")
    return pool


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


class SingleSeatEnv(gym.Env):
    """One learner seat against opponents played inside `step` (see module docstring).

    `on_illegal="forfeit"` (default) ends the episode at an illegal learner action with reward
    `illegal_reward` and `info["illegal_action"] = True` (so gymnasium's checker, which samples
    unmasked actions, can run); `"raise"` raises the engine's IllegalActionError instead.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str | None = None,
        players: int = 2,
        opponents: OpponentPool | str = "random",
        reward_kind: str = "win_loss",
        on_illegal: str = "forfeit",
        illegal_reward: float = -1.0,
        opponent_deterministic: bool = False,
        render_mode: str | None = None,
    ):
        super().__init__()
        self.game_name = game = game or default_game()
        self.game = get_game(game)
        self.players = check_players(self.game, players)
        if reward_kind not in RETURN_KINDS:
            raise ValueError(f"reward_kind must be one of {RETURN_KINDS}, got {reward_kind!r}")
        if on_illegal not in ILLEGAL_MODES:
            raise ValueError(f"on_illegal must be one of {ILLEGAL_MODES}, got {on_illegal!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        self.reward_kind = reward_kind
        self.on_illegal = on_illegal
        self.illegal_reward = float(illegal_reward)
        self.opponent_deterministic = opponent_deterministic
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-np.inf, np.inf, (self.game.OBS_SIZE,), np.float32)
        self.action_space = spaces.Discrete(self.game.NUM_ACTIONS)
        self.set_opponents(opponents)
        self.state: np.ndarray | None = None
        self._opponent_moves = 0
        self.seat = 0
        self.opponents: list[Agent | None] = []

    # --- opponents -------------------------------------------------------------------------
    def set_opponents(self, opponents: OpponentPool | str) -> None:
        """Replace the opponent pool (takes effect at the next reset); checks every spec."""
        pool = parse_pool(opponents) if isinstance(opponents, str) else list(opponents)
        if not pool:
            raise ValueError("opponent pool is empty")
        for spec, _w in pool:  # fail now, not mid-episode
            make_agent(spec, self.game_name, self.players, 0, self.opponent_deterministic)
        w = np.array([float(w) for _s, w in pool])
        if (w < 0).any() or w.sum() <= 0:
            raise ValueError("opponent weights must be >= 0 with a positive total")
        self.pool = [(str(s), float(x)) for s, x in pool]
        self._pool_p = w / w.sum()

    def _draw_opponents(self) -> list[Agent | None]:
        ops: list[Agent | None] = []
        for p in range(self.players):
            if p == self.seat:
                ops.append(None)
                continue
            spec = self.pool[int(self.np_random.choice(len(self.pool), p=self._pool_p))][0]
            seed = int(self.np_random.integers(2**63 - 1))
            ops.append(
                make_agent(spec, self.game_name, self.players, seed, self.opponent_deterministic)
            )
        return ops

    # --- gymnasium API ---------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        """New game: random learner seat, fresh opponents; plays until the learner decides."""
        super().reset(seed=seed)
        while True:
            self.seat = int(self.np_random.integers(self.players))
            opponents = self._draw_opponents()
            if self.start(self.seat, opponents, int(self.np_random.integers(2**62))):
                break
        return self._obs(), self._info()

    def start(self, seat: int, opponents: Sequence[Agent | None], game_seed: int) -> bool:
        """Begin the game `new_game(players, game_seed)` with the learner at `seat` and
        opponents[p] playing seat p (None at the learner's seat), and play it until the learner
        must decide. Returns False when the game ended first (then call `reset` or `start`
        again). `reset` draws all three; `start` replays a given episode (e.g. one of
        BatchVecEnv's: its seats, `engine.game_seed(i)` and opponents)."""
        if not 0 <= int(seat) < self.players:
            raise ValueError(f"seat must be in 0..{self.players - 1}, got {seat!r}")
        ops = list(opponents)
        if len(ops) != self.players or any((o is None) != (p == seat) for p, o in enumerate(ops)):
            raise ValueError(
                f"opponents must name an agent for each of the {self.players} seats but the "
                f"learner's ({seat}), and None there"
            )
        self.seat, self.opponents = int(seat), ops
        self.state = self.game.new_game(self.players, int(game_seed))
        self._play_opponents()
        return not self.game.is_terminal(self.state)

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Apply the learner's action, then the opponents' moves until the learner's next turn."""
        g = self.game
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if g.is_terminal(self.state):
            raise RuntimeError("episode is over; call reset()")
        a = int(action)
        mask = g.legal_mask(self.state)
        if not (0 <= a < len(mask) and mask[a]):
            if self.on_illegal == "raise":
                g.step(self.state, a)  # raises IllegalActionError naming the action and phase
                raise RuntimeError(f"action {a} masked out but accepted by the engine")
            self._opponent_moves = 0
            info = self._info()
            info["illegal_action"] = True
            return self._obs(), self.illegal_reward, True, False, info
        self.state = g.step(self.state, a)
        self._tell_opponents(a)
        self._play_opponents()
        if not g.is_terminal(self.state):
            return self._obs(), 0.0, False, False, self._info()
        reward = float(g.returns(self.state, self.reward_kind)[self.seat])
        truncated = bool(g.is_truncated(self.state))
        return self._obs(), reward, not truncated, truncated, self._info(final=True)

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (all True once the game is over, for safety)."""
        if self.state is None or self.game.is_terminal(self.state):
            return np.ones(self.game.NUM_ACTIONS, dtype=bool)
        return self.game.legal_mask(self.state)

    def render(self) -> str | None:
        """The game's text board (render_mode "ansi")."""
        if self.state is None:
            return None
        return self.game.render(self.state)

    # --- helpers ---------------------------------------------------------------------------
    def _tell_opponents(self, action: int) -> None:
        """Opponents that track the game (the search agent's `notify`) hear every action."""
        for op in self.opponents:
            if op is not None and hasattr(op, "notify"):
                op.notify(action)

    def _play_opponents(self) -> None:
        g = self.game
        self._opponent_moves = 0
        while not g.is_terminal(self.state):
            p = g.current_player(self.state)
            if p == self.seat:
                return
            a = self.opponents[p].act(self.state)
            self.state = g.step(self.state, a)
            self._tell_opponents(a)
            self._opponent_moves += 1

    def _obs(self) -> np.ndarray:
        return self.game.observe(self.state, self.seat)

    def _info(self, final: bool = False) -> dict:
        info: dict[str, Any] = {"seat": self.seat, "opponent_moves": self._opponent_moves}
        if final:
            g = self.game
            info["outcome"] = {
                "win_loss": float(g.returns(self.state, "win_loss")[self.seat]),
                "win_share": float(win_shares(g, self.state)[self.seat]),
                "scores": [int(x) for x in g.scores(self.state)],
                "seat": self.seat,
                "opponents": [o.name for o in self.opponents if o is not None],
                "truncated": bool(g.is_truncated(self.state)),
            }
        return info


def gym_id(game: str) -> str:
    """The gymnasium id of a game's single-seat env: "village" -> "village_troyes_rl/Village-v0"."""
    return f"{GYM_NAMESPACE}/{game.capitalize()}-v0"


def register_gymnasium() -> None:
    """Register every game's SingleSeatEnv with gymnasium (once), as `gym_id(game)`.

    Gymnasium 1.x loads no plugins (its `gymnasium.envs` entry points went with 1.0), so this
    runs when training.learn.env is imported; `gymnasium.make("training.learn.env:village_troyes_rl/
    Village-v0", players=2)` imports it first in a fresh interpreter."""
    for game in game_names():
        env_id = gym_id(game)
        if env_id not in gym.registry:
            gym.register(
                env_id, entry_point="training.learn.env:SingleSeatEnv", kwargs={"game": game}
            )


register_gymnasium()
