"""Play and print one seeded game between random bots, for any registered game.

    python -m core.play --game village --players 4 --seed 0
    python -m core.play --game troyes --players 3 --seed 1

Lines `chance: ...` say what chance decided in a step (the game's `GameSpec.chance`). The final
line labels the tie-break columns with the game's `GameSpec.tiebreak_labels`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from core.agents import RandomAgent
from core.registry import game_names, get_game


def play_log(
    game,
    num_players: int = 4,
    seed: int = 0,
    bot_seed: int = 0,
    tiebreak_labels: Sequence[str] | None = None,
) -> tuple[list[str], object]:
    """Play a seeded game of `game` (a registered name or a game module) with random bots;
    return (log lines, final state). `tiebreak_labels` names the first tie-break columns in the
    final scores line (default: the game's GameSpec.tiebreak_labels)."""
    g = get_game(game) if isinstance(game, str) else game
    if tiebreak_labels is None:
        tiebreak_labels = g.GAME.spec.tiebreak_labels
    s = g.new_game(num_players, seed)
    bots = [RandomAgent(bot_seed + p) for p in range(num_players)]
    title = g.NAME.capitalize()
    lines = [f"{title}, {num_players} players, seed {seed}, rules data {g.RULES_DATA_HASH}"]
    k = 0
    has_round = "round" in g.LAYOUT.segments  # a layout segment named "round" is shown
    while not g.is_terminal(s):
        p = g.current_player(s)
        a = bots[p].act(g, s)
        rnd = f"r{int(g.LAYOUT.view(s, 'round')[0]):<2d} " if has_round else ""
        lines.append(f"{k:4d} {rnd}player_{p} [{g.phase_name(s)}] {g.describe(a, s)}")
        before, s = s, g.step(s, a)
        lines += [f"     chance: {w}" for w in g.chance_words(before, a, s)]
        k += 1
    lines.append(g.render(s))
    sc, tb = g.scores(s), g.tiebreaks(s)

    def seat(p: int) -> str:
        text = f"player_{p} {sc[p]}"
        if tiebreak_labels:
            text += " (" + ", ".join(f"{n} {tb[p, i]}" for i, n in enumerate(tiebreak_labels)) + ")"
        return text

    lines.append("final scores: " + ", ".join(seat(p) for p in range(len(sc))))
    lines.append(f"returns (win_loss): {g.returns(s).tolist()}; truncated: {g.is_truncated(s)}")
    return lines, s


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: `--game`, `--players`, `--seed`, `--bot-seed`."""
    ap = argparse.ArgumentParser(
        prog="python -m core.play",
        description="Play and print one seeded game between random bots.",
    )
    ap.add_argument("--game", required=True, choices=game_names())
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bot-seed", type=int, default=0)
    args = ap.parse_args(argv)
    g = get_game(args.game)
    if args.players not in g.PLAYER_COUNTS:
        ap.error(f"--players must be one of {g.PLAYER_COUNTS} for {g.NAME}")
    lines, _ = play_log(g, args.players, args.seed, args.bot_seed)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
