"""The N-Tuple Bandit Evolutionary Algorithm (NTBEA) over a discrete search space, for a noisy
objective to maximise: no game, no I/O (training.balance.tune drives it with balance studies).

After S. M. Lucas, J. Liu and D. Perez-Liebana, "The N-Tuple Bandit Evolutionary Algorithm for
Game Agent Optimisation" (IEEE CEC 2018), as used by TAG for game-parameter tuning. A point is
one value index per dimension. The model keeps, for every 1-tuple (one dimension), every 2-tuple
(a pair of dimensions) and the full tuple, the count and mean of the fitness seen for each
combination of values it covers. A point's estimate is the mean over the tuples of the tuple
mean (tuples that have not seen the combination are skipped), and its upper confidence bound
adds k * sqrt(log(evaluations) / (count + eps)) per tuple. Each step mutates the current point
into `neighbours` candidates (every dimension changes with probability `mutation`, at least one
does), evaluates the candidate with the highest bound and moves there. The recommendation is
the evaluated point with the best estimate (no exploration bonus).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from training.balance.results import Evaluation, SearchResult

EPS = 0.5  # keeps an unseen combination's bonus finite


@dataclass
class NTupleModel:
    """Fitness statistics of every 1-tuple, 2-tuple and the full tuple of a search space."""

    sizes: tuple[int, ...]
    k: float = 2.0
    tuples: list[tuple[int, ...]] = field(init=False)
    stats: list[dict[tuple[int, ...], list[float]]] = field(init=False)  # [count, sum]
    evaluations: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        d = len(self.sizes)
        tuples = [(i,) for i in range(d)]
        tuples += list(itertools.combinations(range(d), 2)) if d > 2 else []
        if d > 1:
            tuples.append(tuple(range(d)))
        self.tuples = tuples
        self.stats = [{} for _ in tuples]

    def add(self, point: tuple[int, ...], fitness: float) -> None:
        self.evaluations += 1
        for t, table in zip(self.tuples, self.stats, strict=True):
            cell = table.setdefault(tuple(point[i] for i in t), [0.0, 0.0])
            cell[0] += 1.0
            cell[1] += fitness

    def estimate(self, point: tuple[int, ...]) -> float | None:
        """The mean over the tuples that have seen the point's combination; None if none has."""
        means = []
        for t, table in zip(self.tuples, self.stats, strict=True):
            cell = table.get(tuple(point[i] for i in t))
            if cell is not None:
                means.append(cell[1] / cell[0])
        return float(np.mean(means)) if means else None

    def ucb(self, point: tuple[int, ...]) -> float:
        """The estimate (0 where nothing is known) plus the mean exploration bonus."""
        n = max(self.evaluations, 1)
        total = 0.0
        for t, table in zip(self.tuples, self.stats, strict=True):
            cell = table.get(tuple(point[i] for i in t))
            count, mean = (0.0, 0.0) if cell is None else (cell[0], cell[1] / cell[0])
            total += mean + self.k * math.sqrt(math.log(n + 1) / (count + EPS))
        return total / len(self.tuples)


def mutate(point, sizes, rng: np.random.Generator, p: float) -> tuple[int, ...]:
    """A neighbour: each dimension with more than one value takes another value with
    probability p; at least one dimension changes (when any can)."""
    free = [i for i, s in enumerate(sizes) if s > 1]
    if not free:
        return tuple(point)
    out = list(point)
    changed = False
    for i in free:
        if rng.random() < p:
            out[i] = int((out[i] + rng.integers(1, sizes[i])) % sizes[i])
            changed = True
    if not changed:
        i = free[int(rng.integers(len(free)))]
        out[i] = int((out[i] + rng.integers(1, sizes[i])) % sizes[i])
    return tuple(out)


def ntbea(
    sizes: tuple[int, ...],
    evaluate: Callable[[tuple[int, ...]], float],
    budget: int,
    seed: int = 0,
    start: tuple[int, ...] | None = None,
    k: float = 2.0,
    neighbours: int = 50,
    mutation: float | None = None,
) -> SearchResult:
    """Maximise a noisy `evaluate(point)` with `budget` evaluations: the recommended point, its
    model estimate and every evaluated point with its fitness, in order. `start`: the first point
    (default: a random one)."""
    if budget < 1:
        raise ValueError(f"budget {budget}: at least 1 evaluation")
    if not sizes or min(sizes) < 1:
        raise ValueError(f"search space sizes {sizes}: every dimension needs a value")
    rng = np.random.default_rng(seed)
    p = 1.0 / len(sizes) if mutation is None else mutation
    model = NTupleModel(tuple(sizes), k)
    point = tuple(int(rng.integers(s)) for s in sizes) if start is None else tuple(map(int, start))
    history = []
    for step in range(budget):
        if step > 0:
            cands = {mutate(point, sizes, rng, p) for _ in range(neighbours)}
            cands = sorted(cands)  # a fixed order, so ties break the same way every run
            point = max(cands, key=model.ucb)
        f = float(evaluate(point))
        model.add(point, f)
        history.append(Evaluation(point, f))
    seen = sorted({h.point for h in history})
    best = max(seen, key=lambda q: model.estimate(q))
    return SearchResult(best, model.estimate(best), history)
