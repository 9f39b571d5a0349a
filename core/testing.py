"""The conformance checker every game's tests run (DESIGN §4).

`check_game(game, num_players, seeds)` plays seeded random games through the public API and
asserts: the mask is never empty before the end; every chosen (masked-in) action is accepted;
sampled masked-out actions raise IllegalActionError and leave the state unchanged; sampled
masked-in alternatives are accepted and keep the accounting invariants; every game ends, none by
a safety cap; the game's own invariants (`game.check_invariants`) hold after every step;
replays from the same seed and actions are identical; `from_bytes(to_bytes(s))` round-trips;
observations do not change when only hidden segments change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.errors import IllegalActionError


@dataclass
class ConformanceReport:
    games: int = 0
    decisions: int = 0
    illegal_checked: int = 0
    alternatives_checked: int = 0
    hidden_checked: int = 0
    lengths: list[int] = field(default_factory=list)


def decision_positions(
    game, num_players: int, count: int, seed: int = 0, max_moves: int = 200
) -> list[np.ndarray]:
    """`count` decision points where the player to act has >= 2 legal actions, from seeded
    uniform random games (game k seeded seed * 100,000 + k; one position per game, after a
    uniformly drawn number of moves below max_moves). Used by the search tests and benchmarks.
    ValueError if 100 * count + 100 games give fewer (a game that ends before its draw)."""
    rng = np.random.default_rng(seed)
    out = []
    k = 0
    while len(out) < count:
        if k >= 100 * count + 100:
            raise ValueError(f"{game.NAME}: {len(out)} of {count} decision points in {k} games")
        s = game.new_game(num_players, seed * 100_000 + k)
        k += 1
        for _ in range(int(rng.integers(0, max_moves))):
            if game.is_terminal(s):
                break
            s = game.step(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))
        if not game.is_terminal(s) and game.legal_mask(s).sum() >= 2:
            out.append(s)
    return out


def _perturb_hidden(game, state: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A copy with every hidden segment replaced by other in-range values (where it has any)."""
    new = state.copy()
    for seg in game.LAYOUT.hidden_segments():
        block = new[seg.offset : seg.offset + seg.size]
        hi = min(seg.hi, 2**31 - 1)
        block[:] = rng.integers(seg.lo, hi + 1, size=seg.size)
    if hasattr(game, "perturb_hidden"):  # a game may know better (e.g. permute a deck)
        new = game.perturb_hidden(state, int(rng.integers(2**31)))
    return new


def check_game(
    game,
    num_players: int,
    seeds,
    *,
    max_decisions: int = 20000,
    sample_every: int = 7,
    replay_every: int = 10,
    allow_truncation: bool = False,
) -> ConformanceReport:
    """Run the conformance checks on one seeded random game per seed; raise AssertionError."""
    rep = ConformanceReport()
    n_act = game.NUM_ACTIONS
    for seed in seeds:
        rng = np.random.default_rng(seed + 7919)
        s = game.new_game(num_players, seed)
        actions: list[int] = []
        k = 0
        while not game.is_terminal(s):
            assert k < max_decisions, f"seed {seed}: no end after {max_decisions} decisions"
            mask = game.legal_mask(s)
            legal = np.flatnonzero(mask)
            assert len(legal) > 0, f"seed {seed}: empty mask before the end at decision {k}"
            p = game.current_player(s)
            assert 0 <= p < num_players, f"seed {seed}: current player {p} out of range"
            if k % sample_every == 0:
                before = s.copy()
                illegal = np.flatnonzero(~mask)
                for a in rng.choice(illegal, size=min(3, len(illegal)), replace=False):
                    try:
                        game.step(s, int(a))
                    except IllegalActionError:
                        pass
                    else:
                        raise AssertionError(f"seed {seed}: masked-out action {a} accepted")
                    assert np.array_equal(s, before), f"seed {seed}: rejected action changed state"
                    rep.illegal_checked += 1
                for a in legal:
                    alt = game.step(s, int(a))
                    bad = game.check_invariants(alt)
                    assert not bad, f"seed {seed}: legal action {a} broke invariants: {bad}"
                    rep.alternatives_checked += 1
                rt = game.from_bytes(game.to_bytes(s))
                assert np.array_equal(rt, s), f"seed {seed}: bytes round trip differs"
                pert = _perturb_hidden(game, s, rng)
                for q in range(num_players):
                    assert np.array_equal(game.observe(s, q), game.observe(pert, q)), (
                        f"seed {seed}: observation of player {q} depends on hidden information"
                    )
                rep.hidden_checked += 1
            a = int(legal[rng.integers(len(legal))])
            s2 = game.step(s, a)
            bad = game.check_invariants(s2)
            assert not bad, f"seed {seed}: after {game.describe(a, s)}: {bad}"
            s = s2
            actions.append(a)
            k += 1
        assert game.current_player(s) == -1
        assert not game.legal_mask(s).any(), f"seed {seed}: legal actions after the end"
        if not allow_truncation:
            assert not game.is_truncated(s), f"seed {seed}: game ended by the safety cap"
        r = game.returns(s)
        assert r.shape == (num_players,) and np.all(np.abs(r) <= 1.0)
        if replay_every and rep.games % replay_every == 0:
            t = game.new_game(num_players, seed)
            for a in actions:
                t = game.step(t, a)
            assert np.array_equal(t, s), f"seed {seed}: replay differs"
        assert mask.shape == (n_act,)
        rep.games += 1
        rep.decisions += k
        rep.lengths.append(k)
    return rep
