"""Compile everything Chip In needs ahead of its first use: `python -m chipin_env.compile`.
A minimal copy of village_env/compile.py (the same as `python -m core.compile --game chipin`)."""

from __future__ import annotations

import sys

from core import compile as _compile


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return _compile.main(["--game", "chipin", *args])


if __name__ == "__main__":
    sys.exit(main())
