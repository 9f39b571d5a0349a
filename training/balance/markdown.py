"""Number, interval, p-value and table formatting shared by the balance reports (Markdown)."""

from __future__ import annotations

import numpy as np


def num(x, fmt=".3f") -> str:
    """A number, or n/a for None or nan."""
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else format(x, fmt)


def interval(lo, hi, fmt=".3f") -> str:
    """[lo, hi], or n/a when a bound is missing."""
    return "n/a" if lo is None or hi is None else f"[{format(lo, fmt)}, {format(hi, fmt)}]"


def pval(x) -> str:
    """A p-value to three places (<0.001 below that), or n/a."""
    return "n/a" if x is None else ("<0.001" if x < 0.001 else f"{x:.3f}")


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of a Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out
