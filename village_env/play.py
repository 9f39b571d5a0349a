"""Play and print one seeded game between random bots: `python -m village_env.play`.

A thin entry point over core.play (shared with `python -m troyes_env.play`)."""

from __future__ import annotations

from core import play as _play

TIEBREAK_LABELS = ("customers", "living")  # rules §5.3 tie-breakers, in order


def play_log(num_players: int = 4, seed: int = 0, bot_seed: int = 0):
    """Play a seeded game with random bots; return (log lines, final state)."""
    return _play.play_log("village", num_players, seed, bot_seed, TIEBREAK_LABELS)


def main(argv=None):
    _play.main(argv, game="village", tiebreak_labels=TIEBREAK_LABELS)


if __name__ == "__main__":
    main()
