"""Play and print one seeded game between built-in bots: `python -m village_env.play`."""

from __future__ import annotations

import argparse

import village_env as V
from core.agents import RandomAgent


def play_log(num_players: int = 4, seed: int = 0, bot_seed: int = 0, verbose: bool = True):
    """Play a seeded game with random bots; return (log lines, final state)."""
    s = V.new_game(num_players, seed)
    bots = [RandomAgent(bot_seed + p) for p in range(num_players)]
    lines = [f"Village, {num_players} players, seed {seed}, rules data {V.RULES_DATA_HASH}"]
    k = 0
    while not V.is_terminal(s):
        p = V.current_player(s)
        a = bots[p].act(V, s)
        lines.append(
            f"{k:4d} r{int(V.LAYOUT.view(s, 'round')[0]):<2d} player_{p} "
            f"[{V.phase_name(s)}] {V.describe(a, s)}"
        )
        s = V.step(s, a)
        k += 1
    lines.append(V.render(s))
    sc, tb = V.scores(s), V.tiebreaks(s)
    lines.append(
        "final scores: "
        + ", ".join(
            f"player_{p} {sc[p]} (customers {tb[p, 0]}, living {tb[p, 1]})" for p in range(len(sc))
        )
    )
    lines.append(f"returns (win_loss): {V.returns(s).tolist()}; truncated: {V.is_truncated(s)}")
    return lines, s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--players", type=int, default=4, choices=V.PLAYER_COUNTS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bot-seed", type=int, default=0)
    args = ap.parse_args(argv)
    lines, _ = play_log(args.players, args.seed, args.bot_seed)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
