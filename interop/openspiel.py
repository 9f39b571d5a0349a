"""Every registered game as a Python OpenSpiel game (extra `[openspiel]`: `pip install -e
".[openspiel]"`), through the game API and the registry only.

    import pyspiel
    import interop.openspiel  # registers python_<name> for every game of the registry

    game = pyspiel.load_game("python_village", {"players": 3, "seed": 7})
    rules = "docs/rules_variants/troyes_cathedral_4.json"
    game = pyspiel.load_game("python_troyes", {"players": 2, "rules": rules})

What OpenSpiel sees:

- **Game type**: sequential, `SAMPLED_STOCHASTIC` chance (the dice, decks and bags live in the
  state's own RNG, DESIGN D3: OpenSpiel never sees a chance node), imperfect information,
  general-sum, terminal rewards; the game's player counts. Parameters: `players` (default the
  smallest count), `seed` (the k-th initial state a game object deals is the deal of seed
  (`seed`, k), so a run is reproducible), `rules` (a rules override file, docs/rules_data.md;
  default the game's own rules data) and `returns` (`win_loss`: 1 to the sole winner, 0 to each
  of tied winners, -1 to the others; `rank`: 1 for first to -1 for last, ties averaged; DESIGN
  D7).
- **Game info**: the game's action count, no chance outcomes, utilities in [-1, 1],
  MAX_GAME_LENGTH decisions at most (a bound, not a game's length).
- **States**: `legal_actions`, `apply_action`, `returns`, `action_to_string` (the game's
  `describe`), `__str__` (the game's text board and the state's checksum), `clone`, OpenSpiel's
  own serialisation (the state array travels in it) and `resample_from_infostate(player,
  sampler)`: the game's determinization for that seat (what the seat cannot know resampled,
  DESIGN ED-35), seeded from the sampler.
- **Observations**: the tensor is the game's observation of the seat (`observe`: the public
  information and the seat's own private part, seat-relative), the string its non-zero entries
  (`index:value`, exact, so two strings are equal exactly when the tensors are). No information
  state: a seat's observation is its view of the present, not the history (ISMCTS keys its nodes
  on observation strings: `use_observation_string=True`).

Rules data is one per game and process (the game module's tables): a game object loads its
`rules` file when it is made, and each state refuses, in one line, to step when another rules
data has been loaded meanwhile.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from core.registry import game_names, get_game
from core.rules_file import rules_file_data
from training.arena.store import state_check

PREFIX = "python_"
MAX_GAME_LENGTH = 100_000  # decisions: a bound OpenSpiel sizes buffers by, far above any game
RETURNS = ("win_loss", "rank")


def short_name(game_name: str) -> str:
    return f"{PREFIX}{game_name}"


def game_type(game_name: str) -> pyspiel.GameType:
    module = get_game(game_name)
    counts = tuple(module.PLAYER_COUNTS)
    return pyspiel.GameType(
        short_name=short_name(game_name),
        long_name=f"{game_name} (village-troyes-rl)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(counts),
        min_num_players=min(counts),
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": min(counts),
            "seed": 0,
            "rules": "",
            "returns": RETURNS[0],
        },
    )


class SpielGame(pyspiel.Game):
    """One registered game with its parameters (module docstring). Subclassed per game by
    `register` (OpenSpiel makes a game from its class and parameters alone)."""

    game_name = ""

    def __init__(self, params=None):
        params = dict(params or {})
        module = get_game(self.game_name)
        n = int(params.get("players", min(module.PLAYER_COUNTS)))
        kind = str(params.get("returns", RETURNS[0]))
        info = pyspiel.GameInfo(
            num_distinct_actions=int(module.NUM_ACTIONS),
            max_chance_outcomes=0,
            num_players=n if n in module.PLAYER_COUNTS else min(module.PLAYER_COUNTS),
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=MAX_GAME_LENGTH,
        )
        # the C++ object first: an error raised before it exists takes the interpreter down
        # when a traceback shows the half-made object
        super().__init__(game_type(self.game_name), info, params)
        name = short_name(self.game_name)
        if n not in module.PLAYER_COUNTS:
            allowed = ", ".join(map(str, module.PLAYER_COUNTS))
            raise ValueError(f"{name}: players must be one of {allowed}; got {n}")
        if kind not in RETURNS:
            raise ValueError(f"{name}: returns must be one of {', '.join(RETURNS)}; got {kind!r}")
        rules = str(params.get("rules", ""))
        if rules:
            rd, _hash = rules_file_data(rules, self.game_name)
            module.load_rules_data(rd)
        self.module = module
        self.players = n
        self.seed = int(params.get("seed", 0))
        self.returns_kind = kind
        self.rules_hash = str(module.RULES_DATA_HASH)
        self.deals = 0  # initial states dealt so far (a clone deals none)

    def new_initial_state(self):
        return SpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(
                f"{short_name(self.game_name)}: observer parameters are not supported; got {params}"
            )
        if iig_obs_type is not None and (
            iig_obs_type.perfect_recall
            or not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                f"{short_name(self.game_name)}: the observation is a seat's view of the present "
                "(public and its own private information, no perfect recall); other observation "
                "types are not available"
            )
        return Observer(self.module)

    def deal(self) -> np.ndarray:
        """The next initial state of this game object: the deal of seed (seed, k)."""
        k, self.deals = self.deals, self.deals + 1
        seed = int(np.random.default_rng([self.seed, k]).integers(0, 2**31 - 1))
        return self.module.new_game(self.players, seed)


class SpielState(pyspiel.State):
    """A game state for OpenSpiel: the state array (`_s`, dealt on first use; a clone gets its
    original's) and nothing else, as OpenSpiel clones and serialises a Python state by copying
    its attributes."""

    def __init__(self, game: SpielGame):
        super().__init__(game)

    @property
    def array(self) -> np.ndarray:
        s = self.__dict__.get("_s")
        if s is None:
            s = self._s = self.get_game().deal()
        return s

    def _module(self):
        game = self.get_game()
        if game.module.RULES_DATA_HASH != game.rules_hash:
            raise ValueError(
                f"{short_name(game.game_name)}: this game was made under rules data "
                f"{game.rules_hash}, but {game.module.RULES_DATA_HASH} is loaded now (one rules "
                "data per game and process)"
            )
        return game.module

    def current_player(self):
        m, s = self._module(), self.array
        return pyspiel.PlayerId.TERMINAL if m.is_terminal(s) else int(m.current_player(s))

    def _legal_actions(self, player):
        m, s = self._module(), self.array
        if m.is_terminal(s) or player != int(m.current_player(s)):
            return []
        return [int(a) for a in np.flatnonzero(m.legal_mask(s))]

    def _apply_action(self, action):
        self._s = self._module().step(self.array, int(action))

    def _action_to_string(self, player, action):
        return self._module().describe(int(action))

    def is_terminal(self):
        return bool(self._module().is_terminal(self.array))

    def returns(self):
        m = self._module()
        return [float(x) for x in m.returns(self.array, self.get_game().returns_kind)]

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state the seat `player_id` cannot tell from this one: the game's determinization,
        seeded from the sampler (e.g. pyspiel.UniformProbabilitySampler)."""
        seed = int(float(probability_sampler()) * (2**31 - 1))
        out = self.clone()
        out._s = self._module().determinize(self.array, int(player_id), seed)
        return out

    def __str__(self):
        m, s = self._module(), self.array
        return f"{m.render(s)}\nstate check {state_check(s):08x}"


class Observer:
    """OpenSpiel's Python observer over the game's observation (module docstring)."""

    def __init__(self, module):
        self.module = module
        self.tensor = np.zeros(int(module.OBS_SIZE), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        self.tensor[:] = self.module.observe(state.array, int(player))

    def string_from(self, state, player):
        obs = self.module.observe(state.array, int(player))
        nz = np.flatnonzero(obs)
        return f"p{int(player)} " + " ".join(f"{i}:{float(obs[i]):g}" for i in nz)


def register(game_name: str) -> str:
    """Register `game_name` as python_<name> (once); its short name."""
    name = short_name(game_name)
    if name not in pyspiel.registered_names():
        cls = type(f"Spiel_{game_name}", (SpielGame,), {"game_name": game_name})
        pyspiel.register_game(game_type(game_name), cls)
    return name


def register_all() -> list[str]:
    """Register every game of the registry; their short names."""
    return [register(name) for name in game_names()]


register_all()
