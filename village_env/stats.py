"""What a balance study reads from a Village game beyond its score (training.balance.game_stats).

`RESOURCES`: per-seat state entries whose rises and falls over a game count as resources gained
and spent (name, layout segment, index in the seat's row or None). `ITEMS`: every customer tile
(rules §4.5, Appendix A.8) by name; `items(final, n)` says which tiles came into play (left the
face-down pile) and who served each. `deaths(final, n)`: family members who died, per seat
(rules §3.6: chronicle, anonymous graves, or removed after the trigger).

Restricted play (training.agents.restricted_agent) forbids an item through
`item_actions(state, item)`: the action ids that take tile ITEMS[item] in `state`, i.e. serving the
stall it lies on (market day, rules §4.5); every tile can be served (`ACTION_ITEMS`)."""

from __future__ import annotations

import numpy as np

from village_env import rules_data as rd
from village_env.actions import A_SERVE
from village_env.layout import LAYOUT, LOC_CHRONICLE, LOC_GRAVE, LOC_REMOVED, N_SLOTS

RESOURCES = (
    ("coins", "coins", None),
    ("grain", "grain", None),
    *((f"cubes:{c}", "cubes", i) for i, c in enumerate(rd.COLOURS)),
    *((f"goods:{g}", "goods", i) for i, g in enumerate(rd.GOODS)),
    ("time", "time", None),
)
ITEMS = tuple(  # e.g. "customer:T8 ox+plow=6": tile T8 wants an ox and a plow, scores 6
    f"customer:T{t + 1} {'+'.join(k if n == 1 else f'{n} {k}' for k, n in dem.items())}={v}"
    for t, (dem, v) in enumerate(rd.CUSTOMERS)
)


# the items an action can take (restricted play): every customer tile, by a `serve` action
ACTION_ITEMS = tuple(range(len(ITEMS)))
_STALLS = LAYOUT.offset("stalls")  # public: the tiles on the market stalls


def item_actions(state: np.ndarray, item: int) -> np.ndarray:
    """The action ids that take customer tile `item` (an index into ITEMS) in `state`: serving
    the stall it lies on (none while it is not on a stall). Reads public entries only."""
    stalls = state[_STALLS : _STALLS + N_SLOTS]
    return A_SERVE + np.flatnonzero(stalls == item)


def items(final: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(in_play (len(ITEMS),) bool, taken (n, len(ITEMS)) bool) of a finished game."""
    pile = LAYOUT.view(final, "pile")
    owner = LAYOUT.view(final, "tile_owner")
    taken = owner[None, :] == np.arange(n)[:, None]
    return pile == 0, taken


def deaths(final: np.ndarray, n: int) -> np.ndarray:
    """Dead family members per seat (rules §3.6)."""
    m = LAYOUT.view(final, "members")[:n]  # (seat, location, generation)
    return m[:, [LOC_CHRONICLE, LOC_GRAVE, LOC_REMOVED], :].sum(axis=(1, 2))
