"""End-of-game returns from final scores and tie-break keys (DESIGN D7)."""

from __future__ import annotations

import numpy as np

RETURN_KINDS = ("win_loss", "rank", "margin")


def standing_keys(scores: np.ndarray, tiebreaks: np.ndarray) -> list[tuple]:
    """Per player a tuple compared lexicographically: (score, tie-break 1, tie-break 2, ...)."""
    return [(int(scores[p]),) + tuple(int(x) for x in tiebreaks[p]) for p in range(len(scores))]


def standing_ranks(scores: np.ndarray, tiebreaks: np.ndarray) -> list[int]:
    """Per player the finishing place, 1 = first: one plus the number of players whose standing
    key (score, then tie-breaks) is strictly better, so tied players share a place (1, 2, 2, 4)."""
    keys = standing_keys(scores, tiebreaks)
    return [1 + sum(k > keys[p] for k in keys) for p in range(len(keys))]


def compute_returns(
    scores: np.ndarray, tiebreaks: np.ndarray, kind: str, margin_scale: float
) -> np.ndarray:
    """Returns per player: "win_loss", "rank" or "margin" (see DESIGN D7)."""
    n = len(scores)
    keys = standing_keys(scores, tiebreaks)
    out = np.zeros(n, dtype=np.float32)
    if kind == "win_loss":
        best = max(keys)
        winners = [p for p in range(n) if keys[p] == best]
        for p in range(n):
            if p in winners:
                out[p] = 1.0 if len(winners) == 1 else 0.0
            else:
                out[p] = -1.0
        return out
    if kind == "rank":
        order = sorted(range(n), key=lambda p: keys[p], reverse=True)
        values = [1.0 - 2.0 * i / (n - 1) for i in range(n)] if n > 1 else [0.0]
        i = 0
        while i < n:
            j = i
            while j + 1 < n and keys[order[j + 1]] == keys[order[i]]:
                j += 1
            avg = sum(values[i : j + 1]) / (j - i + 1)
            for k in range(i, j + 1):
                out[order[k]] = avg
            i = j + 1
        return out
    if kind == "margin":
        for p in range(n):
            others = [int(scores[q]) for q in range(n) if q != p]
            out[p] = (int(scores[p]) - max(others)) / margin_scale
        return out
    raise ValueError(f"unknown returns kind {kind!r}; allowed: {', '.join(RETURN_KINDS)}")
