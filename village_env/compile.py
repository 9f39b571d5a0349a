"""Compile (or load from the cache) everything Village needs, ahead of its first use:

    python -m village_env.compile [--parts api,batch,search,bots]

The same as `python -m core.compile --game village` (core/compile.py says what each part is).
"""

from __future__ import annotations

import sys

from core import compile as _compile


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return _compile.main(["--game", "village", *args])


if __name__ == "__main__":
    sys.exit(main())
