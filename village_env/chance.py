"""What chance decided in a step, in words (GameSpec.chance): public outcomes only.

Village's chance (docs/rules/village.md ED-35): the cubes drawn from the bag onto the action
spaces when a round is seeded (ED-9), the customer tiles drawn from the face-down pile when the
waiting line refills (ED-20), and the figures the Mass draws from the black bag after the seats'
picks (ED-27). The order of the bag and of the pile stays hidden: only what was drawn is named.
"""

from __future__ import annotations

import numpy as np

from village_env import rules_data as rd
from village_env.actions import A_PICK
from village_env.layout import LAYOUT, LOC_BAG, LOC_WINDOW, N_GEN, PH_MASS_ADVANCE, PH_MASS_PICK
from village_env.render import tile_words


def _v(state, name):
    return LAYOUT.view(state, name)


def _seeded(before, after) -> list[str]:
    """A round's seeding: cubes reach a space only then, onto a board emptied by the last take
    (ED-10), so every cube on the board after it was drawn in this step."""
    b0, b1 = _v(before, "board"), _v(after, "board")
    if int(b1.sum()) <= int(b0.sum()):
        return []
    spaces = []
    for sp, name in enumerate(rd.SPACES):
        got = [f"{int(b1[sp, k])} {kind}" for k, kind in enumerate(rd.CUBE_KINDS) if b1[sp, k]]
        if got:
            spaces.append(f"{name} {', '.join(got)}")
    return ["cubes drawn from the bag: " + "; ".join(spaces)]


def _customers(before, after, T) -> list[str]:
    drawn = np.flatnonzero((_v(before, "pile") == 1) & (_v(after, "pile") == 0))
    return [f"customer {tile_words(int(t), T)} drawn from the pile" for t in drawn]


def _mass_drew(before, after) -> bool:
    """Whether the Mass's random draws ran in the step: they follow its picking phase (ED-27),
    and every round ends with a Mass (the game's end too, after the final one), so a step that
    leaves the picks behind, or starts and ends a Mass, ran them."""
    ph0, ph1 = int(_v(before, "phase")[0]), int(_v(after, "phase")[0])
    if ph1 == PH_MASS_PICK or ph0 == PH_MASS_ADVANCE:
        return False
    if ph0 == PH_MASS_PICK:
        return True
    return (
        ph1 == PH_MASS_ADVANCE
        or int(_v(after, "round")[0]) > int(_v(before, "round")[0])
        or bool(_v(after, "game_over")[0])
    )


def _mass(before, action, after) -> list[str]:
    """The Mass's random draws, after the seats' picks (ED-27). Picked and drawn members leave the
    black bag for the first window, so the members that did so in the step, less the one the
    action picked, were drawn; drawn monks go back to the bag at once, so they are the rest of
    the figures the Mass counts out in the step."""
    if not _mass_drew(before, after):
        return []
    picking = int(_v(before, "phase")[0]) == PH_MASS_PICK
    pick = picking and A_PICK <= action < A_PICK + N_GEN
    base = int(_v(before, "mass_picked")[0]) if picking else 0
    drawn = int(_v(after, "mass_picked")[0]) - base - int(pick)
    m0, m1 = _v(before, "members"), _v(after, "members")
    # each count misses at most what the action itself did: a member put into the bag (church)
    # or recalled from the first window (family); no action does both, so the larger is exact
    came = np.maximum(
        m0[:, LOC_BAG, :] - m1[:, LOC_BAG, :], m1[:, LOC_WINDOW, :] - m0[:, LOC_WINDOW, :]
    )
    if pick:
        came[int(_v(before, "actor")[0]), action - A_PICK] -= 1
    parts = [
        f"{int(k)} generation-{g + 1} member{'s' * (int(k) > 1)} of player_{p}"
        for p in range(came.shape[0])
        for g, k in enumerate(came[p])
        if k > 0
    ]
    monks = drawn - int(np.maximum(came, 0).sum())
    if monks > 0:
        parts.insert(0, f"{monks} monk{'s' * (monks > 1)}")
    return ["the Mass drew " + ", ".join(parts)] if parts else []


def chance(before: np.ndarray, action: int, after: np.ndarray, T: np.ndarray) -> list[str]:
    """Words for what chance decided in the step `action` made (module docstring)."""
    return _mass(before, action, after) + _seeded(before, after) + _customers(before, after, T)
