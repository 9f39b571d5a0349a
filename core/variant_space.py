"""A game's variant space: the rules-data keys a study may vary, each over a declared range, and
the features a conditioned network reads of any rules data inside it.

A game declares its space in its own package (the module its spec's `variant_space` names, with
a `SPACE`), beside its rules keys (core.rules_file): one `Axis` per varied key, a dotted key of the
rules keys that holds one integer, with its lowest and highest value. Rules data is *in the
space* when every key it changes from the game's own rules data is an axis and every axis value
lies in its range; the game's own rules data is always in it. A game that declares no space has
the empty one: only its own rules data is in it, and its features are empty (a conditioned
network of such a game reads the observation alone, as today).

Features: one float per axis, `(value - default) / (hi - lo)`, so the game's own rules data is
the zero vector and every feature lies in [-1, 1]. The space's `digest` covers the game, the
space's version, every axis (key, range, default) and the RULES_DATA_HASH of the game's own
rules data, the point the features are measured from: a network trained on one space is refused
on another, or when the game's own rules data changed under it.

`sample` draws the values of a variant (a rules override's `values`) from a seeded generator:
one to three axes changed, each either near its default (within a quarter of its range) or
anywhere in its range, redrawn until the game's own validation (the rules across keys) accepts
the whole (a bounded number of tries).
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.rules_file import Int, RulesDataError, RulesKeys

SAMPLE_TRIES = 200  # draws per variant before sample gives up (ValueError)
NEAR = 0.25  # a "near" draw stays within this share of the axis's range of its default


class OutsideSpaceError(ValueError):
    """Rules data outside a game's variant space (one line naming the key and the range)."""


@dataclass(frozen=True)
class Axis:
    """One varied key: a dotted rules key holding one integer, its range and its default."""

    key: str
    lo: int
    hi: int
    default: int

    def feature(self, value: int) -> float:
        return (value - self.default) / (self.hi - self.lo)


@dataclass(frozen=True)
class VariantSpace:
    """A game's variant space (module docstring). `left_out`: scalar keys of the rules keys that
    are not axes, each with the reason (a test holds every scalar key to one or the other)."""

    game: str
    version: int
    axes: tuple[Axis, ...]
    base_hash: str  # RULES_DATA_HASH of the game's own rules data
    rules: RulesKeys | None = field(default=None, compare=False, repr=False)
    left_out: dict[str, str] = field(default_factory=dict, compare=False)

    @staticmethod
    def build(
        rules: RulesKeys,
        keys: list[str],
        version: int,
        ranges: dict[str, tuple[int, int]] | None = None,
        left_out: dict[str, str] | None = None,
    ) -> VariantSpace:
        """The space of `keys` of `rules`: each from its lowest legal value to three times its
        default (0..3 for a default of 0), capped at its highest legal value, unless `ranges`
        gives it (a range outside the legal values is refused: ValueError)."""
        ranges = ranges or {}
        axes = []
        for key in keys:
            _steps, node = rules.node(key)
            if not isinstance(node, Int):
                raise ValueError(f"{rules.game} variant space: {key} is not one integer")
            default = int(rules.get(rules.default, key))
            lo, hi = ranges.get(key, (node.lo, min(node.hi, 3 * max(default, 1))))
            if not node.lo <= lo <= default <= hi <= node.hi or lo == hi:
                raise ValueError(
                    f"{rules.game} variant space: {key} range {lo}..{hi} must hold its default "
                    f"{default}, lie in its legal {node.lo}..{node.hi} and not be a point"
                )
            axes.append(Axis(key, int(lo), int(hi), default))
        if len({a.key for a in axes}) != len(axes):
            raise ValueError(f"{rules.game} variant space: a key is named twice")
        base = str(rules.hash_of(rules.default))
        return VariantSpace(
            rules.game, int(version), tuple(axes), base, rules, dict(left_out or {})
        )

    # --- what it is -------------------------------------------------------------------------

    @property
    def n_features(self) -> int:
        return len(self.axes)

    def record(self) -> dict[str, Any]:
        """What a network trained on this space records of it (its sidecar's `variant_space`)."""
        return {
            "game": self.game,
            "version": self.version,
            "digest": self.digest(),
            "base_rules_data_hash": self.base_hash,
            "keys": [a.key for a in self.axes],
        }

    def digest(self) -> str:
        doc = [
            self.game,
            self.version,
            self.base_hash,
            [[a.key, a.lo, a.hi, a.default] for a in self.axes],
        ]
        return hashlib.sha256(json.dumps(doc).encode()).hexdigest()[:16]

    def axis(self, key: str) -> Axis | None:
        return next((a for a in self.axes if a.key == key), None)

    # --- rules data in it -------------------------------------------------------------------

    def changed_keys(self, rd) -> dict[str, Any]:
        """{key: value} of every key whose value in rules data `rd` differs from the game's own
        (leaf keys; a name whose shape changed, e.g. rows added, as the name itself)."""
        rk = self.rules
        if rk is None:
            return {}
        out: dict[str, Any] = {}
        all_keys = None
        for name in rk.names:
            if getattr(rd, name) == getattr(rk.default, name):
                continue
            all_keys = all_keys if all_keys is not None else rk.all_keys()
            found = False
            for key in all_keys:
                if not key.startswith(name + ".") or rk.node(key)[1].labels():
                    continue
                try:
                    new, old = rk.get(rd, key), rk.get(rk.default, key)
                except (KeyError, IndexError, TypeError, ValueError):
                    break  # the shape changed: the name itself differs
                if new != old:
                    out[key], found = new, True
            if not found:
                out[name] = rk.get(rd, name)
        return out

    def outside(self, rd, rules_hash: str | None = None) -> str | None:
        """Why rules data `rd` lies outside the space (one line), None when it is inside. With
        `rules_hash` equal to the base hash the data is the game's own: inside, unread (a game
        without rules keys is told apart by its hash alone)."""
        if rules_hash is not None and rules_hash == self.base_hash:
            return None
        if self.rules is None:  # a game without rules keys: its hash alone tells
            return (
                f"{self.game} rules data {rules_hash} is not the game's own ({self.base_hash}) "
                f"and {self.game} declares no variant space: fine-tune with --adapt or --init"
            )
        for key, value in self.changed_keys(rd).items():
            a = self.axis(key)
            if a is None:
                return (
                    f"{key}={json.dumps(value)} is outside the trained space ({self.game} does not "
                    "vary that key): fine-tune with --adapt or --init"
                )
            if not a.lo <= value <= a.hi:
                return (
                    f"{key}={value} is outside the trained range {a.lo}..{a.hi}: fine-tune with "
                    "--adapt or --init"
                )
        return None

    def check(self, rd, rules_hash: str | None = None) -> None:
        """Refuse rules data outside the space: OutsideSpaceError, one line (`outside`)."""
        why = self.outside(rd, rules_hash)
        if why is not None:
            raise OutsideSpaceError(why)

    def values(self, rd) -> dict[str, int]:
        """{axis key: value} of rules data `rd` (every axis, changed or not)."""
        if self.rules is None:
            return {}
        return {a.key: int(self.rules.get(rd, a.key)) for a in self.axes}

    def features(self, rd, rules_hash: str | None = None) -> np.ndarray:
        """The feature vector (float32, one per axis) of rules data `rd`, checked first."""
        self.check(rd, rules_hash)
        if rules_hash is not None and rules_hash == self.base_hash:
            return np.zeros(self.n_features, dtype=np.float32)
        return self.features_of(self.values(rd))

    def features_of(self, values: dict[str, int]) -> np.ndarray:
        """The feature vector of the variant `values` ({axis key: value}; axes left out keep
        their default)."""
        unknown = sorted(set(values) - {a.key for a in self.axes})
        if unknown:
            raise OutsideSpaceError(f"{unknown[0]} is not a key of the {self.game} variant space")
        return np.array(
            [a.feature(int(values.get(a.key, a.default))) for a in self.axes], dtype=np.float32
        )

    def rules_data(self, values: dict[str, int], where: str = "variant"):
        """The rules data of the variant `values` (the game's own with them applied, validated):
        a namespace for `Game.load_rules_data`; RulesDataError if the game refuses it."""
        if self.rules is None:
            if values:
                raise OutsideSpaceError(f"{self.game} declares no variant space")
            return None
        for key, v in values.items():
            a = self.axis(key)
            if a is None or not a.lo <= int(v) <= a.hi:
                raise OutsideSpaceError(
                    f"{key}={v} is outside the {self.game} variant space"
                    + (f" (range {a.lo}..{a.hi})" if a else "")
                )
        return self.rules.apply(dict(values), where)

    # --- drawing variants -------------------------------------------------------------------

    def sample(self, rng: np.random.Generator, near: bool, changes: int | None = None):
        """A variant drawn from the space (module docstring): {axis key: value}, 1-3 axes (or
        `changes`) moved off their default, `near` ones within NEAR of their range; redrawn until
        the game accepts it. ValueError after SAMPLE_TRIES refusals or for an empty space."""
        if not self.axes:
            raise ValueError(f"{self.game} declares no variant space to draw from")
        for _ in range(SAMPLE_TRIES):
            k = int(changes) if changes else int(rng.integers(1, 4))
            picked = rng.choice(len(self.axes), size=min(k, len(self.axes)), replace=False)
            values = {}
            for i in sorted(int(j) for j in picked):
                a = self.axes[i]
                lo, hi = a.lo, a.hi
                if near:
                    span = max(1, int(round(NEAR * (a.hi - a.lo))))
                    lo, hi = max(a.lo, a.default - span), min(a.hi, a.default + span)
                choices = [v for v in range(lo, hi + 1) if v != a.default]
                values[a.key] = int(choices[int(rng.integers(0, len(choices)))])
            try:
                self.rules_data(values)
            except RulesDataError:
                continue
            return values
        raise ValueError(f"{self.game} variant space: no valid variant in {SAMPLE_TRIES} draws")


def space_of(game) -> VariantSpace:
    """The variant space a game (a core.game.Game or its package module) declares (its spec's
    `variant_space` module's SPACE); the empty space of its own rules data when it declares
    none."""
    g = getattr(game, "GAME", game)
    module = g.spec.variant_space
    if module is not None:
        space = importlib.import_module(module).SPACE
        if space.game != g.name:
            raise ValueError(f"{module}.SPACE is {space.game}'s space, not {g.name}'s")
        return space
    if g.spec.rules_keys is not None:  # every change is outside the empty space
        return VariantSpace.build(importlib.import_module(g.spec.rules_keys).RULES, [], 0)
    T = g.spec.build_tables(g.spec.rules_data)
    return VariantSpace(g.name, 0, (), str(g.spec.tables_hash(T)))
