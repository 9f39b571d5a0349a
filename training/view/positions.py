"""A state as the viewer draws it: a JSON dict of named, documented fields.

A game supplies its own view through its spec (`GameSpec.view`, the name of a module in the game
package, imported here on first use): `FIELDS` (every top-level field, documented),
`position(state, T, viewer)` and optionally `SCRIPT`, the file name (next to that module) of the
page's drawing of those positions. Such a module sends only what the seat `viewer` may see
(None: a spectator, who sees only public information).

A game without one gets the generic view (`GENERIC_FIELDS`): the phase, the seat to act, whether
the game is over, every seat's score and a text board. The text board is not the game's
`render(state)`: nothing in the game API promises that `render` hides anything (it is a
developer's view of the whole state), so the generic board lists the layout's segments that are
not marked hidden, one a line. The layout's hidden marks are the game's statement of what nobody
sees (DESIGN D3; the conformance checker perturbs exactly those segments), so a position built
from the other segments, the phase name and the public score is the same for every state that
differs only in what is hidden. The generic view shows no seat's secrets, even in play mode: it
cannot know which hidden values belong to which seat.
"""

from __future__ import annotations

import importlib
import re
from importlib import resources
from types import ModuleType
from typing import Any

import numpy as np

GENERIC_FIELDS = {
    "game": "the game's name",
    "phase": "the decision the state waits for (the game's phase name)",
    "to_act": "seat that must decide now; null once the game is over",
    "over": "the game is over",
    "scores": "every seat's public score (the game's `scores`), in seat order",
    "players": "per seat: seat, score, whether it is the seat to act",
    "board": "the text board: every segment of the state the layout does not mark hidden, "
    "one line each (`name: values`; a per-seat segment shows the seats at the table only)",
}

_SCRIPT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.js")


def view_module(game: ModuleType) -> ModuleType | None:
    """The game's own viewer module (`GameSpec.view`), or None: the generic view."""
    name = game.GAME.spec.view
    return None if name is None else importlib.import_module(name)


def fields(game: ModuleType) -> dict[str, str]:
    """The documented top-level fields of `game`'s positions."""
    module = view_module(game)
    return GENERIC_FIELDS if module is None else module.FIELDS


def position(game: ModuleType, state: np.ndarray, viewer: int | None = None) -> dict[str, Any]:
    """The position of `state` as a JSON-ready dict: public only (a spectator), or as seat
    `viewer` sees it (the game's own view; the generic one shows every seat the same)."""
    module = view_module(game)
    if module is None:
        return generic_position(game, state)
    return module.position(state, game.TABLES, viewer)


def script(game: ModuleType) -> bytes | None:
    """The page's drawing of `game`'s positions (the file its view module names in `SCRIPT`,
    read from the game package), or None: the page draws the generic view."""
    module = view_module(game)
    name = None if module is None else getattr(module, "SCRIPT", None)
    if name is None:
        return None
    if not _SCRIPT_NAME.fullmatch(name) or ".." in name:
        raise ValueError(f"{game.NAME}: the view SCRIPT is a .js file name, got {name!r}")
    return (resources.files(module.__package__) / name).read_bytes()


def generic_position(game: ModuleType, state: np.ndarray) -> dict[str, Any]:
    """The generic position (fields: GENERIC_FIELDS): public fields of the game API and the
    layout's non-hidden segments, for a game without its own view."""
    actor = int(game.current_player(state))
    scores = [int(x) for x in game.scores(state)]
    to_act = None if actor < 0 else actor
    return {
        "game": game.NAME,
        "phase": game.phase_name(state),
        "to_act": to_act,
        "over": bool(game.is_terminal(state)),
        "scores": scores,
        "players": [{"seat": p, "score": s, "to_act": p == to_act} for p, s in enumerate(scores)],
        "board": public_board(game, state),
    }


def public_board(game: ModuleType, state: np.ndarray) -> str:
    """Every segment the layout does not mark hidden, one line each: `name: values` (rows of a
    table separated by ` | `, tables of a 3-D segment by ` || `); a segment the layout marks
    per seat shows the seats at the table only."""
    layout = game.LAYOUT
    n = int(game.num_players(state))
    lines = []
    for seg in layout.segments.values():
        if seg.hidden:
            continue
        values = layout.view(state, seg.name)
        lines.append(f"{seg.name}: {_values(values[:n] if seg.per_seat else values)}")
    return "\n".join(lines)


def _values(a: np.ndarray) -> str:
    if a.ndim <= 1:
        return " ".join(str(int(x)) for x in a.reshape(-1))
    sep = " " + "|" * (a.ndim - 1) + " "
    return sep.join(_values(row) for row in a)
