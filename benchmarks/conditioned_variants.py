"""The rules variants a conditioned network is measured under, drawn before it is measured: a fixed,
seeded procedure, the same for every game that declares a variant space.

    python -m benchmarks.conditioned_variants --game village --out DIR

For game G it draws `--count` variants (default 6) from G's variant space (core.variant_space,
`VariantSpace.sample`): one to three keys moved, each anywhere in its range (`near=False`), the
variants the game refuses drawn again, from `numpy.random.default_rng([SEED, crc32(G), k])` for the
k-th variant. SEED is not a seed any training run draws its variants from (those are
`[run seed, iteration, 31]`). It writes each as a rules override file `DIR/G-drawn-K.json` and
`DIR/G-drawn.json`: the files, their values and RULES_DATA_HASH, the space's version and digest,
the game's own hash and the command. The draws depend only on the game's space: a changed space
(another version) draws other variants, and its digest in the index says which space they came from.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import zlib
from pathlib import Path

import numpy as np

from core.registry import get_game
from core.rules_file import rules_file_data
from core.variant_space import space_of

SEED = 20261207


def draw(game_name: str, count: int) -> list[dict[str, int]]:
    """The `count` variants of `game_name` (module docstring), in order."""
    space = space_of(get_game(game_name))
    tag = zlib.crc32(game_name.encode())
    return [space.sample(np.random.default_rng([SEED, tag, k]), near=False) for k in range(count)]


def write(game_name: str, count: int, out: Path) -> dict:
    """Write the variants' files and index under `out`; the index."""
    game = get_game(game_name)
    space = space_of(game)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for k, values in enumerate(draw(game_name, count), start=1):
        path = out / f"{game_name}-drawn-{k}.json"
        doc = {
            "game": game_name,
            "description": f"drawn variant {k} of {count} (benchmarks.conditioned_variants)",
            "values": values,
        }
        path.write_text(json.dumps(doc, indent=1) + "\n")
        rows.append(
            {
                "file": path.name,
                "values": values,
                "rules_data_hash": rules_file_data(path, game_name)[1],
            }
        )
    index = {
        "game": game_name,
        "command": (
            f"python -m benchmarks.conditioned_variants --game {game_name} --count {count} "
            "--out DIR"
        ),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "seed": SEED,
        "variant_space": space.record(),
        "rules_data_hash": str(game.RULES_DATA_HASH),
        "variants": rows,
    }
    (out / f"{game_name}-drawn.json").write_text(json.dumps(index, indent=1) + "\n")
    return index


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.conditioned_variants", description=__doc__
    )
    p.add_argument("--game", required=True)
    p.add_argument("--count", type=int, default=6)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    if a.count < 1:
        p.error("--count must be >= 1")
    index = write(a.game, a.count, Path(a.out))
    for row in index["variants"]:
        print(row["file"], json.dumps(row["values"]), row["rules_data_hash"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
