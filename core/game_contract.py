"""The game contract: what a game's engine provides, one list of names for every part of the
library (the step driver, the public API's entry points, the batch engine, the search, the bots
and the balance replay).

A game defines these names in its `engine/rules.py`. The kernels that look ahead through the
step driver (a game's own bot or rollout policy, a position evaluation that plays moves) cannot
sit below it, so a game may define any `k_*` name and N_KEYS, BOT_SCRATCH_I and BOT_SCRATCH_F
in `engine/kernels.py` instead; where such a name is in both, kernels.py's is used. Names marked
optional have a default in core/contract_template.py. core.codegen renders, for each game, the
step driver and entry points over these names (`<game>_env.engine.step`, `.api`) and the full
contract with the adapters every game would write the same way (`.contract`: k_init, k_step,
k_mask, k_observe, k_over, and the defaults) that the loops of the batch engine, the search,
the bots and the balance replay call.

The names below are stubs: they document the contract and give the templates a real module to
import (so they lint and import); the functions raise NotImplementedError if ever called, and
nothing compiles them.

core.game.GameSpec reads the constants (and k_keys, k_truncated) from the rendered contract,
so a game's spec restates none of them.

Arguments: `s` one game's state (int64, STATE_SIZE), `T` the game's tables, `mask` a bool
buffer of NUM_ACTIONS entries, `work` the game's int64 scratch (max(1, WORK_SIZE) entries),
`a` an action id in 0..NUM_ACTIONS-1 (the driver checks the range first), `n` the number of
players, `p` a seat. The functions are compiled with `core.jit.jit`; small adapters are best
made `inline=True`, so the driver calls the game's own code directly. None allocates unless
ALLOCATES says so.
"""

from __future__ import annotations

__all__ = [
    "STATE_SIZE",
    "NUM_ACTIONS",
    "S_VERSION",
    "VERSION",
    "S_GAME_ID",
    "GAME_ID",
    "S_NP",
    "OBS_SIZE",
    "ALLOCATES",
    "MASK_WRITES_STATE",
    "r_init",
    "r_over",
    "r_mask",
    "r_legal",
    "r_apply",
    "r_observe",
    "N_KEYS",
    "k_keys",
    "k_actor",
    "k_determinize",
    "k_evaluate",
]
# optional, with their defaults in core/contract_template.py
OPTIONAL = (
    "WORK_SIZE",
    "S_TRUNC",
    "BOT_SCRATCH_I",
    "BOT_SCRATCH_F",
    "k_truncated",
    "k_quiet",
    "k_bot_values",
    "k_own_bot_values",
)


def _stub(name: str):
    raise NotImplementedError(
        f"core.game_contract.{name} is a stub: a game's engine/rules.py (or kernels.py) "
        "implements it"
    )


# --- constants (module-level ints and bools; numba freezes them into the compiled code) -----------

STATE_SIZE = 1  # entries of a state
NUM_ACTIONS = 1  # entries of a legal mask
S_VERSION = 0  # offset of the layout version ...
VERSION = 0  # ... and the version this engine reads
S_GAME_ID = -1  # offset of a field holding GAME_ID; -1: the state has none
GAME_ID = 0
S_NP = 0  # offset of the player count
OBS_SIZE = 1  # entries of an observation (r_observe)
# optional: offset of the field a safety cap sets to 1 when it ends the game; -1 (the default):
# the game has no cap. Core's k_truncated and the Python API's is_truncated both read it
S_TRUNC = -1
# whether applying an action may allocate (compiled with numba's runtime: Village's final
# scoring builds a small array once per game); False compiles the driver with alloc=False
ALLOCATES = False
# whether r_mask writes into the state while it searches (and restores it): the `legal_mask`
# entry point then runs it on a scratch copy, so the caller's state is never written
MASK_WRITES_STATE = False


def r_init(s, T, n, a, b, c, start) -> None:
    """Write into s (zeros) a new n-player game seeded by the words (a, b, c), seat `start`
    first, up to (not through) its first decision: the driver then settles it."""
    _stub("r_init")


def r_over(s) -> bool:
    """Whether the game is over."""
    _stub("r_over")


def r_mask(s, T, mask, work) -> int:
    """Write the legal mask of the player to act into `mask` (all of it); return the number of
    legal actions (0 once the game is over)."""
    _stub("r_mask")


def r_legal(s, T, a, mask, work) -> bool:
    """Whether action a is legal in s, which is not over (a game may test the one action in
    costly phases instead of building the whole mask); `mask` may be overwritten."""
    _stub("r_legal")


def r_apply(s, T, a, work) -> None:
    """Apply the legal action a, then every automatic stage that follows (none that needs a
    decision): s then waits for a decision, or is over."""
    _stub("r_apply")


def r_observe(s, T, p, out) -> None:
    """Write the observation of seat p (float32, OBS_SIZE) into `out`."""
    _stub("r_observe")


# --- kernels: the batch engine, the search, the bots and the balance replay --------------------
N_KEYS = 1  # standing keys per seat: the score, then the tie-breaks (k_keys)


def k_keys(s, keys) -> None:
    """Standing keys per seat: keys[p, 0] the score, then the tie-breaks, for p < n (int64,
    (max players, N_KEYS)); compared lexicographically by core.batch.returns_into."""
    _stub("k_keys")


def k_actor(s) -> int:
    """The seat to act (negative once the game is over)."""
    _stub("k_actor")


def k_truncated(s) -> bool:
    """Whether the game ended by a safety cap (a truncation, not a rules end). Core's default
    reads the S_TRUNC field; a game that defines its own also sets S_TRUNC (the field
    `is_truncated` reads), or registering it is refused (core.game.check_against_contract)."""
    _stub("k_truncated")


def k_determinize(s, T, observer, a, b, c, work) -> None:
    """In place: redraw everything seat `observer` cannot see, consistently with what they know,
    from the seed words (a, b, c) (ED-35). The result depends only on what `observer` sees and on
    (observer, a, b, c): two states that differ only in hidden content give identical states.
    Observer -1 keeps every private card with its owner (only what nobody sees is redrawn).
    `work` is overwritten."""
    _stub("k_determinize")


def k_evaluate(s, T, out, tmp) -> None:
    """Write each seat's projected final score into `out` (float64, max players; entries for seats
    >= n may be left 0): the position evaluation of the game's `heuristic` bot. `tmp` is an int64
    scratch of at least STATE_SIZE + 16 entries, overwritten."""
    _stub("k_evaluate")


def k_quiet(s) -> bool:
    """Whether k_evaluate's projection is meaningful in s: a decision between turns (not in the
    middle of one player's multi-decision action), or the end. The search cuts a rollout off only
    at a quiet state."""
    _stub("k_quiet")


def k_bot_values(s, T, legal, val, bi, bf, bmask, work) -> int:
    """The game's own lookahead for the search's `rollout=bot` policy: val[i] = how good action
    legal[i] is for the player to act in s, as the game's heuristic bot values it (Troyes: its
    chain search over the player's own decisions to the end of the turn, on a small budget).
    `bi` / `bf`: int64 / float64 scratch of the module's BOT_SCRATCH_I / BOT_SCRATCH_F entries;
    `bmask` a bool scratch mask; `work` the game's scratch. Returns 0, or nonzero when it cannot
    value s (the search then uses the greedy policy): a game without such a lookahead returns 1."""
    _stub("k_bot_values")


def k_own_bot_values(bot, s, probe, T, me, legal, val, bi, bf, bmask, work) -> int:
    """The game's own compiled bot number `bot` (>= 1: the `batch_code` of its Python bot class,
    a core.bots.CompiledBot): val[i] = how good action legal[i] (ascending) is for seat `me`, the
    seat to act in s, as that bot values it, looking ahead on `probe` (s determinized for `me`
    from the bot's own seed); of s it reads only what `me` can see. Finished games in the
    lookahead are valued here too. `bi` / `bf`: int64 / float64 scratch of the
    module's BOT_SCRATCH_I / BOT_SCRATCH_F entries; `bmask` a bool scratch mask; `work` the
    game's scratch. Returns 0; 2 when the engine refuses an action; 1 when the game has no
    compiled bot `bot` (a game without bots of its own always returns 1)."""
    _stub("k_own_bot_values")
