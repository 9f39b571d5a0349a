"""The arrays the compiled searches and self-play take travel as the named tuples of core.bundles,
read by field name: no module of the library keeps integer positions into them (SC_ for a search
scratch, G_ for a self-play game's rows, H_ for the games' shared scratch) or reads a bundle (the
example records, the network, a scratch) by position."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from core import bundles
from core.registry import get_game

ROOT = Path(__file__).resolve().parents[2]
CORE = ["core", "training"]
GAMES = ["village_env", "troyes_env", "examples/chipin/chipin_env", "tests/games/toss/toss_env"]
# a module-level constant (or several unpacked from a range) named as a bundle position
POSITION = re.compile(r"^(?:(?:SC|G|H)_[A-Z_]+\s*,\s*)*(?:SC|G|H)_[A-Z_]+\s*=", re.M)
# the game packages have constants of their own with these prefixes (Village's goods: G_OX):
# there only names of the bundles' fields count
FIELD_NAMES = {
    f"{prefix}_{field.upper()}"
    for prefix, types in (
        ("SC", (bundles.MCTSScratch, bundles.GuidedScratch)),
        ("G", (bundles.GameRows,)),
        ("H", (bundles.SharedScratch,)),
    )
    for t in types
    for field in t._fields
}
BY_POSITION = re.compile(r"\b(?:records|_?net|_?sc|gs|sh)\[-?\d")
# the modules that take the bundles (elsewhere `records` or `sc` is other data: game records,
# scores)
TAKES_BUNDLES = re.compile(r"\bcore\.bundles\b|\bfrom core\.bundles import\b|pv_selfplay")


def library_files(folders: list[str]) -> list[Path]:
    """The source files under `folders` (not the modules rendered into the compile caches)."""
    return [
        p
        for d in folders
        for p in sorted((ROOT / d).rglob("*.py"))
        if "__pycache__" not in p.relative_to(ROOT).parts
    ]


def positions(text: str, only_fields: bool) -> list[str]:
    """The bundle positions defined at module level in `text` (`only_fields`: those named after
    a bundle's field)."""
    out = []
    for m in POSITION.finditer(text):
        names = re.findall(r"(?:SC|G|H)_[A-Z_]+", m.group(0))
        if not only_fields or FIELD_NAMES & set(names):
            out.append(m.group(0))
    return out


def test_the_library_has_no_positions_into_the_bundles():
    core = library_files(CORE)
    assert any(p.name == "selfplay_template.py" for p in core)  # the scan reaches the loops
    found = []
    for p in core + library_files(GAMES):
        text = p.read_text(encoding="utf-8")
        rel = p.relative_to(ROOT)
        found += [f"{rel}: {d}" for d in positions(text, only_fields=p not in core)]
        if TAKES_BUNDLES.search(text):
            for i, line in enumerate(text.splitlines(), 1):
                if BY_POSITION.search(line):
                    found.append(f"{rel}:{i}: {line.strip()}")
    assert not found, "integer positions into a bundle (read its fields by name):\n" + "\n".join(
        found
    )


def test_the_scan_finds_positions():
    assert POSITION.search("SC_S, SC_MASK = range(2)\n")
    assert POSITION.search("H_MULT = 13\n")
    assert not POSITION.search("PH_SIM = 1\nP_C = 0\n")
    assert positions("SC_PI = 16\n", only_fields=True)
    assert not positions("G_SCROLL, G_OX = range(2)\n", only_fields=True)
    assert BY_POSITION.search("fill = records[-1]")
    assert BY_POSITION.search("w = net[0]") and BY_POSITION.search("self._net[4]")
    assert not BY_POSITION.search("cnet[0] + subnet[1]")


def test_both_search_scratches_begin_with_the_walk_fields():
    """The walk's steps read the same fields by name from either search's scratch."""
    n = len(bundles.WALK_FIELDS)
    assert bundles.MCTSScratch._fields[:n] == bundles.WALK_FIELDS
    assert bundles.GuidedScratch._fields[:n] == bundles.WALK_FIELDS
    assert set(bundles.SharedScratch._fields) >= set(bundles.WALK_FIELDS) - {"s", "path"}
    assert bundles.ExampleRecords._fields[: len(bundles.EXAMPLE_FIELDS)] == bundles.EXAMPLE_FIELDS


def test_the_factories_fill_every_field_with_an_array():
    game = get_game("toss").GAME
    made = [
        bundles.mcts_scratch(game, 5, 1, 1),
        bundles.guided_scratch(game, 5),
        bundles.game_rows(game, 2, 5, 8, 3),
        bundles.shared_scratch(game, 5),
        bundles.example_records(game, 4),
        bundles.network(game, np.zeros(3, np.float32), np.zeros((1, 3), np.int64), 4),
        bundles.batch_network(game, 2, np.zeros(3, np.float32), np.zeros((1, 3), np.int64), 4),
    ]
    for b in made:
        for f in b._fields:
            assert isinstance(getattr(b, f), np.ndarray), (type(b).__name__, f)
    assert (made[0].child_of == -1).all() and (made[3].child_of == -1).all()
    assert (made[3].mult % 2 == 1).all()
