"""The kernel contract of the batch engine (core.batch, DESIGN D8): what a game's
`engine/kernels.py` provides, one function per name below, with exactly these signatures.

Each game implements them as compiled functions (`core.jit.jit`); the batch loops of
`core/batch_loops_template.py` call only these, so the loops are the same for every game. The
functions here are stubs: they document the contract and give the template a real module to
import (so it lints and imports), and raise NotImplementedError if ever called. No engine
compiles or calls them.

Arguments: `s` one game's state (int64, STATE_SIZE), `T` the game's tables, `mask` the legal
mask of the player to act (NUM_ACTIONS; int8 or bool), `work` the game's scratch (int64,
max(1, WORK_SIZE)), `n` the number of players, `p` a seat.

`k_determinize`, `k_evaluate`, `k_quiet` and `k_bot_values` serve a compiled search
(information-set MCTS); `k_determinize`, `k_evaluate` and `k_own_bot_values` the compiled bots
(core/bots_template.py); the batch loops call none of them. None allocates. The kernels module
also defines BOT_SCRATCH_I and BOT_SCRATCH_F, the sizes of the int64 and float64 scratch of
k_bot_values and k_own_bot_values (the larger need of the two).
"""

from __future__ import annotations

__all__ = [
    "k_init",
    "k_step",
    "k_mask",
    "k_observe",
    "k_keys",
    "k_over",
    "k_actor",
    "k_truncated",
    "k_determinize",
    "k_evaluate",
    "k_quiet",
    "k_bot_values",
    "k_own_bot_values",
]


def _stub(name: str):
    raise NotImplementedError(
        f"core.kernels_contract.{name} is a stub: a game's engine/kernels.py implements it"
    )


def k_init(s, T, n, a, b, c, mask, work) -> None:
    """Write into s a new n-player game seeded by the words (a, b, c), exactly as
    `new_game(n, seed)` builds it for the seed with those words (core.rng.split_seed); leave
    `mask` the legal mask of the player to act."""
    _stub("k_init")


def k_step(s, T, a, mask, work) -> int:
    """The single-game compiled step of action a; returns a status code (0 = ok, else an error code
    of core.errors). `mask` holds s's legal mask on entry (the loops keep it so; a game
    may test legality by mask[a]) and, on success and while the game is not over, the new legal
    mask on exit."""
    _stub("k_step")


def k_mask(s, T, mask, work) -> int:
    """Write the legal mask of the player to act into `mask`; returns the number of legal
    actions."""
    _stub("k_mask")


def k_observe(s, T, p, out) -> None:
    """Write the observation of seat p (float32, OBS_SIZE) into `out`."""
    _stub("k_observe")


def k_keys(s, keys) -> None:
    """Standing keys per seat: keys[p, 0] the score, then the tie-breaks, for p < n (int64,
    (max players, N_KEYS)); compared lexicographically by core.batch.returns_into."""
    _stub("k_keys")


def k_over(s) -> bool:
    """Whether the game is over (terminal)."""
    _stub("k_over")


def k_actor(s) -> int:
    """The seat to act (negative once the game is over)."""
    _stub("k_actor")


def k_truncated(s) -> bool:
    """Whether the game ended by a safety cap (a truncation, not a rules end)."""
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
