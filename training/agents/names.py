"""Short display names for agents in leaderboards, tables and reports.

An agent spec may name files by path (`runs/ppo-village/model`, `az:/home/me/runs/x/final`); a
report shows the folder's name instead of the machine's path (`model` is generic, so its folder
goes with it: `ppo-village/model`), while the store and the result files keep the spec itself
(and each entrant's fingerprint), so nothing is lost. Every other part of a spec is kept as
written.
"""

from __future__ import annotations

import re
from pathlib import PurePath

# the last part of a path that says nothing by itself: its folder is named with it
_GENERIC = re.compile(r"(final|best|latest|model|network|checkpoint|iter_\d+|step_\d+)", re.I)
_PATH = re.compile(r"[^:,=]*[/\\][^:,=]*")  # a spec's part that names a file or folder


def short_path(path: str) -> str:
    """The folder's name of `path` (with its parent where the name is generic)."""
    parts = [p for p in PurePath(path.replace("\\", "/")).parts if p not in ("/", ".", "")]
    if not parts:
        return path
    if len(parts) > 1 and _GENERIC.fullmatch(parts[-1]):
        return f"{parts[-2]}/{parts[-1]}"
    return parts[-1]


def display_name(spec: str) -> str:
    """`spec` with every path it names shortened (short_path)."""
    return _PATH.sub(lambda m: short_path(m.group(0)), str(spec))


def entrant_labels(specs: list[str]) -> list[str]:
    """One distinct label per entrant, in order: its display name; a spec given twice gets
    `#k` (its k-th copy); where two different specs shorten to one name, both keep their
    spec."""
    short = {s: display_name(s) for s in specs}
    clash = {s for s in short if sum(short[t] == short[s] for t in short) > 1}
    names = {s: s if s in clash else short[s] for s in short}
    return [
        names[s] if specs.count(s) == 1 else f"{names[s]}#{specs[: i + 1].count(s)}"
        for i, s in enumerate(specs)
    ]
