"""Play and print one seeded game between random bots: `python -m troyes_env.play`.

A thin entry point over core.play (shared with `python -m village_env.play`). Troyes has no
tie-breaker (ED-34: a shared win), so the final line shows the scores only."""

from __future__ import annotations

from core import play as _play


def play_log(num_players: int = 4, seed: int = 0, bot_seed: int = 0):
    """Play a seeded game with random bots; return (log lines, final state)."""
    return _play.play_log("troyes", num_players, seed, bot_seed)


def main(argv=None):
    _play.main(argv, game="troyes")


if __name__ == "__main__":
    main()
