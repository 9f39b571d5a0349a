"""Template of a game's full contract (core/game_contract.py) as the loops of the batch engine,
the search, the bots and the balance replay call it: the adapters every game would write the
same way, over its rules and step driver, and a default for each optional name. It also
exposes the contract's constants (sizes, version, game id, offsets), which core.game.GameSpec
reads from the rendered module.

Not used at run time (beyond giving the loop templates a real module to import). core.codegen
renders it for each game, imported as `<game>_env.engine.contract`: the marked imports below
point at the game's modules (each contract name at the module that defines it, engine/kernels.py
before engine/rules.py), and every default below the DEFAULTS line whose name the game defines
is replaced by an import of the game's own.
"""

from __future__ import annotations

# GAME: core.codegen points this import at the game's modules, name by name.
from core.game_contract import (
    ALLOCATES,
    GAME_ID,
    N_KEYS,
    NUM_ACTIONS,
    OBS_SIZE,
    S_GAME_ID,
    S_NP,
    S_VERSION,
    STATE_SIZE,
    VERSION,
    k_actor,
    k_determinize,
    k_evaluate,
    k_keys,
    r_init,
    r_mask,
    r_observe,
    r_over,
)
from core.jit import jit

# STEP: core.codegen points this one at the game's rendered step driver.
from core.step_template import (
    settle,
    step_trusted,
)

__all__ = [
    "STATE_SIZE",
    "NUM_ACTIONS",
    "VERSION",
    "OBS_SIZE",
    "GAME_ID",
    "S_GAME_ID",
    "S_NP",
    "S_VERSION",
    "N_KEYS",
    "k_actor",
    "k_determinize",
    "k_evaluate",
    "k_keys",
    "k_init",
    "k_step",
    "k_mask",
    "k_observe",
    "k_over",
    "WORK_SIZE",
    "S_TRUNC",
    "BOT_SCRATCH_I",
    "BOT_SCRATCH_F",
    "k_truncated",
    "k_quiet",
    "k_bot_values",
    "k_own_bot_values",
]


@jit(alloc=ALLOCATES, inline=True)
def k_init(s, T, n, a, b, c, mask, work):
    """`new_game(n, seed)` with seed words (a, b, c), seat 0 first; leaves `mask` the legal mask
    of the player to act."""
    r_init(s, T, n, a, b, c, 0)
    settle(s, T, mask, work)
    r_mask(s, T, mask, work)


@jit(alloc=ALLOCATES, inline=True)
def k_step(s, T, a, mask, work):
    """The step of action a; `mask` holds s's legal mask on entry (the loops keep it so, and
    the trusted step reads mask[a]) and the new state's on exit. Returns a core.errors code."""
    return step_trusted(s, T, a, mask, work)


@jit(alloc=ALLOCATES, inline=True)
def k_mask(s, T, mask, work):
    """The legal mask of the player to act into `mask`; the number of legal actions."""
    return r_mask(s, T, mask, work)


@jit(alloc=ALLOCATES, inline=True)
def k_observe(s, T, p, out):
    """Seat p's observation (float32, OBS_SIZE) into `out`."""
    r_observe(s, T, p, out)


@jit(alloc=ALLOCATES)
def k_over(s):
    """Whether the game is over."""
    return r_over(s)


# DEFAULTS: each replaced by the game's own where the game defines the name.
WORK_SIZE = 0  # int64 scratch of the step and the mask: none beyond the mask
BOT_SCRATCH_I = 1  # int64 scratch of k_bot_values and k_own_bot_values
BOT_SCRATCH_F = 1  # float64 scratch of the same
S_TRUNC = -1  # the field a safety cap sets to 1 when it ends the game; -1: no cap


@jit(alloc=False)
def k_truncated(s):
    """Whether a safety cap ended the game: the S_TRUNC field is set (never where S_TRUNC is
    -1). The Python API's is_truncated reads the same field."""
    return S_TRUNC >= 0 and s[S_TRUNC] != 0


@jit(alloc=False)
def k_quiet(s):
    """Every decision is quiet: the position evaluation is meaningful anywhere."""
    return True


@jit(alloc=False)
def k_bot_values(s, T, legal, val, bi, bf, bmask, work):
    """No lookahead of the game's own: `rollout=bot` plays the greedy policy."""
    return 1


@jit(alloc=False)
def k_own_bot_values(bot, s, probe, T, me, legal, val, bi, bf, bmask, work):
    """No compiled bot of the game's own (its `heuristic` is core.bots' generic greedy one)."""
    return 1
