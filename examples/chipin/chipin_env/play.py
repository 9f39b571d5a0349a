"""Play and print one seeded game between random bots: `python -m chipin_env.play`.
A minimal copy of village_env/play.py, until core writes it once."""

from __future__ import annotations

from core import play as _play

TIEBREAK_LABELS = ("chips",)


def play_log(num_players: int = 4, seed: int = 0, bot_seed: int = 0, verbose: bool = True):
    """Play a seeded game with random bots; return (log lines, final state)."""
    return _play.play_log("chipin", num_players, seed, bot_seed, TIEBREAK_LABELS)


def main(argv=None):
    _play.main(argv, game="chipin", tiebreak_labels=TIEBREAK_LABELS)


if __name__ == "__main__":
    main()
