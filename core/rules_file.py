"""Rules data validation and rules override files (provisional values and rules variants).

A file names a game and replaces values of its rules data (`<game>_env/rules_data.py`)::

    {"game": "village", "description": "...",
     "values": {"CRAFTS.office.purchase_cubes": [0, 2, 0, 0], "MASS_MAJORITY_PRESTIGE": 3}}

Keys are dotted paths (the key scheme, docs/rules_data.md): a whole rules-data name
(`MASS_MAJORITY_PRESTIGE`), then a dict key (`REFILL_PER_COLOUR.2`), a row label
(`ACTIVITY_CARDS.MERCHANT`, `CUSTOMERS.T4`) or a named field (`.hire`, `.purchase_cubes`), and
for unnamed sequences a 0-based position (`TRAVEL_SCORE.3`). Each game declares every name its
`build_tables` reads once, as a tree of the nodes below with their shapes and ranges, plus its
rules across keys (`<game>_env/rules_keys.py`, a `RulesKeys`). `RulesKeys.validate` is the one
validation of rules data: a file is reshaped from JSON, applied to a *copy* of the default rules
data (the module is never mutated) and validated; `Game.load_rules_data(rd)` validates a Python
object the same way before it swaps the tables in. Every problem is one line naming where the data
came from and the key (`RulesFileError` for a file, `RulesDataError`, its base and a ValueError,
for a Python object), and a refusal changes nothing.

CLI, for any game that declares rules keys: `python -m core.rules_file --game GAME --check FILE`
(validate a file, show its changes and hash), `--game GAME --list` (the provisional values), and
`python -m core.rules_file --docs` (print docs/rules_data.md as the site build completes it:
its key tables and provisional values are generated then, never kept in the file).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import difflib
import importlib
import json
import numbers
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from core.registry import GameNotAvailableError, game_names, game_packages, get_game
from core.workers import die_with_driver

FILE_FIELDS = ("game", "description", "values")
DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "rules_data.md"
# the line of docs/rules_data.md below which the site build (docs/hooks/rules_data.py) puts the
# key tables and provisional values of every registered game with rules keys
DOC_MARKER = "<!-- generated below when the site is built (docs/hooks/rules_data.py) -->"


class RulesDataError(ValueError):
    """Rules data that cannot be used: one line naming where it came from, the key, the value and
    what is allowed."""


class RulesFileError(RulesDataError):
    """A rules override file that cannot be used: one line naming the file and the key."""


class _Bad(Exception):
    """A problem inside a value: the message and the labels from the value down to the part."""

    def __init__(self, msg: str, path: tuple[str, ...] = ()):
        super().__init__(msg)
        self.msg, self.path = msg, path

    def under(self, label) -> _Bad:
        return _Bad(self.msg, (str(label), *self.path))


# --- the nodes a game's key tree is made of -------------------------------------------------------


def _is_int(v) -> bool:
    """An integer (Python or numpy); a bool is not one."""
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _show(v) -> str:
    """A value as a message shows it (as JSON where it can be: a file and Python read alike)."""
    try:
        return json.dumps(v)
    except (TypeError, ValueError):
        return repr(v)


def _what(v) -> str:
    """What a value of the wrong kind is, in a few words."""
    if isinstance(v, dict):
        return "a dict"
    if isinstance(v, (list, tuple)):
        return f"a list of {len(v)}"
    return _show(v)


class Node:
    """One value of the rules data: what is allowed (`check`), how to read JSON for it, show it and
    address inside it. `check(pv, dv)` is the one validation of a Python value `pv` (`dv`: the
    default value at the same place, None where there is none); it raises _Bad naming the part.
    `convert` only reshapes JSON into Python values (names to codes, lists to tuples) and leaves
    every judgement to `check`, so a file and a Python object are checked by the same code."""

    def convert(self, v, old):  # JSON value -> Python value (old: the value it replaces)
        return v

    def check(self, pv, dv) -> None:
        raise NotImplementedError

    def to_json(self, pv):
        raise NotImplementedError

    def labels(self) -> list[str]:  # addressable parts, in order (none for a leaf)
        return []

    def child(self, label: str) -> tuple[Any, Node]:  # (index into the Python value, node)
        raise KeyError(label)

    def get(self, pv, idx):
        return pv[idx]

    def replace(self, pv, idx, new):
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass
class Int(Node):
    """An integer in [lo, hi] (hi None: no upper bound)."""

    lo: int = 0
    hi: int | None = None

    def check(self, pv, dv=None):
        if not _is_int(pv):
            raise _Bad(f"{_show(pv)} is not an integer ({self.describe()})")
        if pv < self.lo or (self.hi is not None and pv > self.hi):
            raise _Bad(f"{int(pv)} is out of range ({self.describe()})")

    def to_json(self, pv):
        return int(pv)

    def describe(self) -> str:
        return f"integer {self.lo}..{self.hi}" if self.hi is not None else f"integer >= {self.lo}"


@dataclass
class Choice(Node):
    """One of named options: JSON gives the name (or, for integer codes, the code itself)."""

    options: dict[str, Any]

    def convert(self, v, old):
        if isinstance(v, str) and v in self.options:
            return self.options[v]
        if _is_int(v):
            for opt in self.options.values():
                if not isinstance(opt, str) and opt == v:
                    return opt
        return v

    def check(self, pv, dv=None):
        for opt in self.options.values():
            if (
                (pv == opt and isinstance(pv, str))
                if isinstance(opt, str)
                else _is_int(pv) and pv == opt
            ):
                return
        allowed = ", ".join(
            n if isinstance(o, str) or n == str(o) else f"{n} ({int(o)})"
            for n, o in self.options.items()
        )
        raise _Bad(f"{_show(pv)} is not one of {allowed}")

    def to_json(self, pv):
        for name, opt in self.options.items():
            if opt == pv and isinstance(opt, str) == isinstance(pv, str):
                return name
        return pv if isinstance(pv, str) else int(pv)

    def describe(self) -> str:
        return "one of " + ", ".join(self.options)


@dataclass
class Fixed(Node):
    """A value that must stay as the default has it: structure the compiled engine is built on
    (index names), or a card's identity inside a row (not addressable there)."""

    why: str

    def convert(self, v, old):
        return tuple(v) if isinstance(v, list) else v

    def check(self, pv, dv=None):
        seqs = isinstance(pv, (list, tuple)) and isinstance(dv, (list, tuple))
        if dv is not None and not (tuple(pv) == tuple(dv) if seqs else pv == dv):
            raise _Bad(f"{_show(pv)} cannot change: {_show(dv)} ({self.why})")

    def to_json(self, pv):
        return list(pv) if isinstance(pv, (list, tuple)) else pv

    def describe(self) -> str:
        return f"fixed ({self.why})"


@dataclass
class Note(Node):
    """A column the engine does not read (a card's provisional tags): anything goes."""

    def check(self, pv, dv=None):
        return None

    def to_json(self, pv):
        return pv

    def describe(self) -> str:
        return "not read"


@dataclass
class Seq(Node):
    """A fixed-length tuple; parts are addressed by `names` (if given) or 0-based position."""

    item: Node | list[Node]
    length: int
    names: tuple[str, ...] | None = None
    as_list: bool = False  # the Python value is a list (else a tuple)

    def _items(self) -> list[Node]:
        return self.item if isinstance(self.item, list) else [self.item] * self.length

    def labels(self):
        return list(self.names) if self.names else [str(i) for i in range(self.length)]

    def child(self, label):
        i = self.labels().index(label)
        return i, self._items()[i]

    def convert(self, v, old):
        if isinstance(v, dict) and self.names:
            missing = [n for n in self.names if n not in v]
            extra = [k for k in v if k not in self.names]
            if missing or extra:
                raise _Bad(
                    f"expected an object with the fields {', '.join(self.names)}"
                    + (f"; missing {', '.join(missing)}" if missing else "")
                    + (f"; unknown {', '.join(extra)}" if extra else "")
                )
            v = [v[n] for n in self.names]
        if not isinstance(v, list):
            return v
        items, labels, out = self._items(), self.labels(), []
        for i, x in enumerate(v):
            if i >= self.length:
                out.append(x)
                continue
            try:
                out.append(items[i].convert(x, old[i] if old is not None else None))
            except _Bad as e:
                raise e.under(labels[i]) from None
        return list(out) if self.as_list else tuple(out)

    def check(self, pv, dv=None):
        if not isinstance(pv, (list, tuple)):
            raise _Bad(f"expected a list of {self.length} values, got {_what(pv)}")
        if len(pv) != self.length:
            raise _Bad(f"expected a list of {self.length} values, got {len(pv)}")
        for i, (node, label) in enumerate(zip(self._items(), self.labels(), strict=True)):
            try:
                node.check(pv[i], dv[i] if dv is not None else None)
            except _Bad as e:
                raise e.under(label) from None

    def to_json(self, pv):
        return [n.to_json(x) for n, x in zip(self._items(), pv, strict=True)]

    def replace(self, pv, idx, new):
        out = list(pv)
        out[idx] = new
        return out if self.as_list else tuple(out)

    def describe(self) -> str:
        items = self._items()
        kinds = {n.describe() for n in items}
        if len(kinds) > 1 and self.names:
            fields = "; ".join(
                f"{n}: {i.describe()}" for n, i in zip(self.names, items, strict=True)
            )
            return f"list of {self.length} ({fields})"
        parts = f" ({', '.join(self.names)})" if self.names else ""
        return f"list of {self.length}{parts}: {kinds.pop()}"


@dataclass
class Record(Node):
    """A tuple row with named fields; `Fixed` and `Note` columns (a card's identity, its tags) are
    checked where they are but not addressable: a file keeps them as they are."""

    fields: list[tuple[str, Node]]
    rule: Callable[[tuple], str | None] | None = None  # a cross-field rule; message or None

    def _addressable(self, node) -> bool:
        return not isinstance(node, (Fixed, Note))

    @property
    def names(self) -> list[str]:
        return [n for n, node in self.fields if self._addressable(node)]

    def labels(self):
        return self.names

    def child(self, label):
        for i, (n, node) in enumerate(self.fields):
            if n == label and self._addressable(node):
                return i, node
        raise KeyError(label)

    def convert(self, v, old):
        names = self.names
        if isinstance(v, list) and len(v) == len(names):
            v = dict(zip(names, v, strict=True))
        if not isinstance(v, dict) or set(v) != set(names):
            raise _Bad(f"expected an object with the fields {', '.join(names)}")
        out = list(old)
        for i, (n, node) in enumerate(self.fields):
            if self._addressable(node):
                try:
                    out[i] = node.convert(v[n], old[i])
                except _Bad as e:
                    raise e.under(n) from None
        return tuple(out)

    def check(self, pv, dv=None):
        if not isinstance(pv, (list, tuple)) or len(pv) != len(self.fields):
            got = len(pv) if isinstance(pv, (list, tuple)) else _what(pv)
            raise _Bad(f"expected a row of {len(self.fields)} values, got {got}")
        for i, (n, node) in enumerate(self.fields):
            try:
                node.check(pv[i], dv[i] if dv is not None else None)
            except _Bad as e:
                raise e.under(n) from None
        msg = self.rule(pv) if self.rule else None
        if msg:
            raise _Bad(msg)

    def to_json(self, pv):
        return {
            n: node.to_json(pv[i]) for i, (n, node) in enumerate(self.fields) if n in self.names
        }

    def replace(self, pv, idx, new):
        out = list(pv)
        out[idx] = new
        return tuple(out)

    def describe(self) -> str:
        fields = (f"{n}: {node.describe()}" for n, node in self.fields if n in self.names)
        return "row (" + "; ".join(fields) + ")"


@dataclass
class Map(Node):
    """A dict with fixed keys: label -> (Python key, node)."""

    entries: dict[str, tuple[Any, Node]]

    def labels(self):
        return list(self.entries)

    def child(self, label):
        return self.entries[label]

    def convert(self, v, old):
        if not isinstance(v, dict) or set(v) != set(self.entries):
            raise _Bad(f"expected an object with the keys {', '.join(self.entries)}")
        out = dict(old)
        for label, (k, node) in self.entries.items():
            try:
                out[k] = node.convert(v[label], old[k])
            except _Bad as e:
                raise e.under(label) from None
        return out

    def check(self, pv, dv=None):
        want = f"expected a dict with the keys {', '.join(self.entries)}"
        if not isinstance(pv, dict):
            raise _Bad(f"{want}, got {_what(pv)}")
        keys = [k for k, _ in self.entries.values()]
        missing = [label for label, (k, _) in self.entries.items() if k not in pv]
        extra = [_show(k) for k in pv if k not in keys]
        if missing or extra:
            raise _Bad(
                want
                + (f"; missing {', '.join(missing)}" if missing else "")
                + (f"; unknown {', '.join(extra)}" if extra else "")
            )
        for label, (k, node) in self.entries.items():
            try:
                node.check(pv[k], dv.get(k) if isinstance(dv, dict) else None)
            except _Bad as e:
                raise e.under(label) from None

    def to_json(self, pv):
        return {label: node.to_json(pv[k]) for label, (k, node) in self.entries.items()}

    def replace(self, pv, idx, new):
        out = dict(pv)
        out[idx] = new
        return out

    def describe(self) -> str:
        kinds = {n.describe() for _, n in self.entries.values()}
        what = kinds.pop() if len(kinds) == 1 else "mixed"
        return f"keys {', '.join(self.entries)}: {what}"


@dataclass
class Rows(Node):
    """A list of rows, each addressed by a label; `resizable`: a whole list may change length
    (the game's build_tables then decides whether its table layout holds it)."""

    row_labels: list[str]
    row: Node
    resizable: bool = False
    as_list: bool = False

    def labels(self):
        return self.row_labels

    def child(self, label):
        return self.row_labels.index(label), self.row

    def _label(self, i: int) -> str:
        return self.row_labels[i] if i < len(self.row_labels) else f"row {i}"

    def convert(self, v, old):
        if not isinstance(v, list):
            return v
        out = []
        for i, x in enumerate(v):
            try:
                out.append(self.row.convert(x, old[min(i, len(old) - 1)]))
            except _Bad as e:
                raise e.under(self._label(i)) from None
        return out if self.as_list else tuple(out)

    def check(self, pv, dv=None):
        n = len(self.row_labels)
        if not isinstance(pv, (list, tuple)):
            raise _Bad(f"expected a list of {n} rows, got {_what(pv)}")
        if len(pv) != n and not self.resizable:
            raise _Bad(f"expected a list of {n} rows, got {len(pv)}")
        for i, row in enumerate(pv):
            try:  # a row beyond the default's is checked against the last default row
                self.row.check(row, dv[min(i, len(dv) - 1)] if dv else None)
            except _Bad as e:
                raise e.under(self._label(i)) from None

    def to_json(self, pv):
        return [self.row.to_json(r) for r in pv]

    def replace(self, pv, idx, new):
        out = list(pv)
        out[idx] = new
        return out if self.as_list else tuple(out)

    def describe(self) -> str:
        return f"{len(self.row_labels)} rows, each a {self.row.describe()}"


@dataclass
class Counts(Node):
    """A dict {item: count} over known items (absent = 0); JSON an object of counts."""

    items: tuple[str, ...]
    hi: dict[str, int] = field(default_factory=dict)  # largest count per item (default none)

    def labels(self):
        return list(self.items)

    def _int(self, item: str) -> Int:
        return Int(0, self.hi.get(item))

    def child(self, label):
        if label not in self.items:
            raise KeyError(label)
        return label, self._int(label)

    def get(self, pv, idx):
        return pv.get(idx, 0)

    def convert(self, v, old):
        if not isinstance(v, dict):
            return v
        return {k: n for k, n in v.items() if not (_is_int(n) and n == 0)}

    def check(self, pv, dv=None):
        if not isinstance(pv, dict):
            raise _Bad(f"expected a dict of counts over {', '.join(self.items)}, got {_what(pv)}")
        for k, n in pv.items():
            if k not in self.items:
                raise _Bad(f"unknown item {_show(k)} (items: {', '.join(self.items)})")
            try:
                self._int(k).check(n)
            except _Bad as e:
                raise e.under(k) from None

    def to_json(self, pv):
        return {k: int(n) for k, n in pv.items()}

    def replace(self, pv, idx, new):
        out = dict(pv)
        out.pop(idx, None)
        if new:
            out[idx] = new
        return out

    def describe(self) -> str:
        return "counts of " + ", ".join(self.items)


# --- a game's description -------------------------------------------------------------------------


@dataclass(frozen=True)
class Provisional:
    """One provisional value: its key, where it is printed on the physical game, a note."""

    key: str
    where: str
    note: str = ""


@dataclass
class RulesKeys:
    """What this module needs to know about one game's rules data. `names` declares, once, every
    top-level rules-data name the game's `build_tables` reads, with its shape and range (`Fixed`
    for structure that cannot change); `check` adds the rules across keys. `validate` is the one
    validation every path runs: a rules file (`apply`) and `Game.load_rules_data(rd)`."""

    game: str
    default: types.ModuleType  # the rules_data module (never mutated)
    names: dict[str, Node]  # every top-level rules-data name build_tables reads
    build_tables: Callable  # rules data -> flat table (refuses shapes the layout cannot hold)
    tables_hash: Callable
    provisional: list[Provisional]
    check: Callable[[Any], list[tuple[str, str]]] | None = None  # cross-key rules: (key, msg)

    def node(self, key: str) -> tuple[list[tuple[Any, Node]], Node]:
        """The (index, node) steps of a dotted key and its node; KeyError(the bad part)."""
        parts = key.split(".")
        if parts[0] not in self.names:
            raise KeyError(parts[0])
        node, steps = self.names[parts[0]], [(parts[0], None)]
        for p in parts[1:]:
            try:
                idx, child = node.child(p)
            except (KeyError, ValueError):
                raise KeyError(p) from None
            steps.append((idx, node))
            node = child
        return steps, node

    def all_keys(self) -> list[str]:
        out = []

        def walk(prefix, node):
            out.append(prefix)
            for label in node.labels():
                walk(f"{prefix}.{label}", node.child(label)[1])

        for name, node in self.names.items():
            walk(name, node)
        return out

    def get(self, rd, key: str):
        """The value at `key` in rules data `rd`, as JSON would write it."""
        steps, node = self.node(key)
        pv = getattr(rd, steps[0][0])
        for idx, parent in steps[1:]:
            pv = parent.get(pv, idx)
        return node.to_json(pv)

    def default_namespace(self) -> types.SimpleNamespace:
        d = self.default
        return types.SimpleNamespace(
            **{k: copy.deepcopy(getattr(d, k)) for k in dir(d) if k.isupper()}
        )

    def validate(self, rd, where: str | None = None, error: type = RulesDataError):
        """The tables of rules data `rd` (a module or any object with its names), after the
        whole check: every declared name's type, shape and range, each row's rule, the game's
        rules across keys, then build_tables (the shapes its layout holds). The first problem
        raises `error` in one line: `where: KEY: what is wrong (what is allowed)`; nothing is
        changed (`rd` is only read). `where` defaults to "<game> rules data"."""
        where = where or f"{self.game} rules data"
        for name, node in self.names.items():
            if not hasattr(rd, name):
                raise error(f"{where}: {name}: missing (the tables are built from it)")
            try:
                node.check(getattr(rd, name), getattr(self.default, name))
            except _Bad as e:
                raise error(f"{where}: {'.'.join((name, *e.path))}: {e.msg}") from None
        for key, msg in (self.check(rd) if self.check else [])[:1]:
            raise error(f"{where}: {key}: {msg}")
        try:  # the layout's own shape check (and any other refusal of build_tables)
            return self.build_tables(rd)
        except (ValueError, IndexError, TypeError, KeyError, OverflowError) as e:
            changed = [n for n in self.names if getattr(rd, n) != getattr(self.default, n)]
            keys = ", ".join(changed) or "(no name changed)"
            raise error(f"{where}: {keys}: the table layout cannot hold it: {e}") from None

    def apply(self, values: dict, where: str = "<values>") -> types.SimpleNamespace:
        """A copy of the default rules data with `values` ({key: JSON value}) applied and
        validated (`validate`); RulesFileError naming `where` and the key on any problem."""
        ns = self.default_namespace()
        seen: list[str] = []
        for key, v in values.items():
            for k in seen:
                if key.startswith(k + ".") or k.startswith(key + "."):
                    raise RulesFileError(f"{where}: {key}: overlaps key {k} in the same file")
            seen.append(key)
            try:
                steps, node = self.node(key)
            except KeyError as e:
                raise RulesFileError(f"{where}: {key}: {self._unknown(key, e.args[0])}") from None
            # walk down, reshape the JSON value, rebuild the path upwards (tuples are immutable)
            name = steps[0][0]
            chain = [getattr(ns, name)]
            for idx, parent in steps[1:]:
                chain.append(parent.get(chain[-1], idx))
            try:
                new = node.convert(v, chain[-1])
            except _Bad as e:
                raise RulesFileError(f"{where}: {'.'.join((key, *e.path))}: {e.msg}") from None
            for (idx, parent), pv in zip(reversed(steps[1:]), reversed(chain[:-1]), strict=True):
                new = parent.replace(pv, idx, new)
            setattr(ns, name, new)
        self.validate(ns, where, RulesFileError)
        return ns

    def _unknown(self, key: str, part: str) -> str:
        close = difflib.get_close_matches(key, self.all_keys(), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        return f"unknown key (no {part!r} there){hint}"

    def hash_of(self, rd) -> str:
        return self.tables_hash(self.build_tables(rd))


# --- files ----------------------------------------------------------------------------------------


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise _Bad(f"key {k!r} appears twice")
        out[k] = v
    return out


def read_rules_file(path, game: str) -> dict:
    """The parsed, shape-checked file (`game` must match); RulesFileError else."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise RulesFileError(f"{where}: cannot read the file: {e.strerror or e}") from None
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise RulesFileError(f"{where}: not JSON: {e}") from None
    except _Bad as e:
        raise RulesFileError(f"{where}: {e}") from None
    if not isinstance(doc, dict):
        raise RulesFileError(f"{where}: a rules file is a JSON object, got {type(doc).__name__}")
    for k in doc:
        if k not in FILE_FIELDS:
            close = difflib.get_close_matches(k, FILE_FIELDS, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise RulesFileError(
                f"{where}: {k}: unknown field (a file has {', '.join(FILE_FIELDS)}){hint}"
            )
    if "game" not in doc:
        raise RulesFileError(f'{where}: game: missing (add "game": "{game}")')
    if doc["game"] != game:
        raise RulesFileError(
            f"{where}: game: the file is for {json.dumps(doc['game'])}, not {json.dumps(game)}"
        )
    if not isinstance(doc.get("description", ""), str):
        raise RulesFileError(f"{where}: description: expected a string")
    values = doc.get("values", {})
    if not isinstance(values, dict):
        raise RulesFileError(f"{where}: values: expected an object {{key: value}}")
    return doc


def rules_keys_module(game: str) -> str | None:
    """The module holding a game's RulesKeys (its spec's `rules_keys`), None if the game takes no
    rules override files; RulesFileError for an unknown game."""
    if game not in game_packages():
        raise RulesFileError(f"unknown game {game!r} (games: {', '.join(game_packages())})")
    return get_game(game).GAME.spec.rules_keys


def games_with_rules_keys() -> list[str]:
    """The registered games that take rules override files."""
    return [g for g in game_names() if rules_keys_module(g) is not None]


def rules_keys(game: str) -> RulesKeys:
    """The RulesKeys of a game (`RULES` of the module its spec names); RulesFileError, in one
    line, for an unknown game or one that takes no rules override files."""
    module = rules_keys_module(game)
    if module is None:
        with_keys = ", ".join(games_with_rules_keys()) or "none"
        raise RulesFileError(
            f"game {game!r} takes no rules override files (its spec names no rules_keys "
            f"module); games that do: {with_keys}"
        )
    return importlib.import_module(module).RULES


def load_rules_file(path, game: str | RulesKeys) -> types.SimpleNamespace:
    """Rules data for the file at `path`: a copy of the game's defaults with the file applied,
    ready for `<game>_env.load_rules_data(ns)`. RulesFileError on any problem."""
    rk = rules_keys(game) if isinstance(game, str) else game
    doc = read_rules_file(path, rk.game)
    return rk.apply(doc.get("values", {}), where=str(path))


def rules_file_data(path, game: str | RulesKeys) -> tuple[types.SimpleNamespace, str]:
    """(rules data, RULES_DATA_HASH) of the file at `path`, the tables in use untouched (the hash
    is computed from a table built aside, the one `load_rules_data(ns)` would return)."""
    rk = rules_keys(game) if isinstance(game, str) else game
    ns = load_rules_file(path, rk)
    return ns, rk.hash_of(ns)


@contextlib.contextmanager
def rules_file_loaded(path, game: str):
    """For a `with` block: the game plays under the rules override file `path` and the block
    gets its RULES_DATA_HASH; afterwards the rules data in use before is back. None or '': the
    block runs as it is, nothing loaded, and gets None."""
    if not path:
        yield None
        return
    with get_game(game).GAME.using_rules_data(load_rules_file(path, game)) as h:
        yield h


def variant_record(path, game: str) -> dict:
    """What a checkpoint trained under a rules variant records of it: the file, its values and
    the hash of the rules data in use before it is loaded (the game's own), beside the variant's
    own hash in the sidecar's RULES_DATA_HASH. Taken before the variant is loaded."""
    return {
        "path": str(path),
        "values": read_rules_file(path, game).get("values", {}),
        "base_rules_data_hash": str(get_game(game).RULES_DATA_HASH),
    }


def worker_under_rules(driver: int, game: str, path: str | None) -> None:
    """A process-pool worker's initializer: end with the driver (core.workers.die_with_driver)
    and play under the rules override file `path` (None: the game's own rules data), as the
    driver that started it does."""
    die_with_driver(driver)
    if path:
        get_game(game).GAME.load_rules_data(load_rules_file(path, game))


# --- CLI -----------------------------------------------------------------------------------------


def _fmt(v) -> str:
    return json.dumps(v, separators=(", ", ": "))


def check_report(path, rk: RulesKeys) -> str:
    """What `--check` prints for a good file."""
    doc = read_rules_file(path, rk.game)
    values = doc.get("values", {})
    ns = rk.apply(values, where=str(path))
    new_hash, old_hash = rk.hash_of(ns), rk.hash_of(rk.default)
    lines = [f"{path}: valid {rk.game} rules file"]
    if doc.get("description"):
        lines.append(f"  description: {doc['description']}")
    lines.append(f"  {len(values)} key(s):")
    for key in values:
        old, new = rk.get(rk.default, key), rk.get(ns, key)
        same = "  (unchanged)" if old == new else ""
        lines.append(f"    {key}: {_fmt(old)} -> {_fmt(new)}{same}")
    same = " (same as the default)" if new_hash == old_hash else ""
    lines.append(f"  RULES_DATA_HASH {new_hash}{same}; default {old_hash}")
    return "\n".join(lines)


def list_report(rk: RulesKeys) -> str:
    """What `--list` prints: every provisional key with its current value."""
    lines = [f"{len(rk.provisional)} provisional {rk.game} values (key = current value  # where):"]
    for p in rk.provisional:
        lines.append(f"{p.key} = {_fmt(rk.get(rk.default, p.key))}  # {p.where}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`python -m core.rules_file --game GAME (--check FILE | --list)` or `--docs`; 0 ok,
    2 on a bad file, an unknown game or bad usage (one line on stderr)."""
    parser = argparse.ArgumentParser(
        prog="python -m core.rules_file",
        description="Check a rules override file, list a game's provisional values, or print "
        "docs/rules_data.md as the site build completes it (docs/rules_data.md).",
    )
    parser.add_argument("--game", help=f"the game ({', '.join(game_names())})")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--check", metavar="FILE", help="validate FILE; print its changes and hash")
    what.add_argument("--list", action="store_true", help="every provisional key and its value")
    what.add_argument(
        "--docs", action="store_true", help="print docs/rules_data.md completed (every game)"
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.docs:
        if args.game is not None:
            parser.error("--docs covers every game: leave out --game")
        if not DOC_PATH.is_file():
            parser.error(f"--docs needs a source checkout ({DOC_PATH} is not there)")
        print(docs_text(), end="")
        return 0
    if args.game is None:
        parser.error("--check and --list need --game GAME")
    try:
        rk = rules_keys(args.game)
        print(check_report(args.check, rk) if args.check else list_report(rk))
    except (RulesDataError, GameNotAvailableError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


# --- docs/rules_data.md ---------------------------------------------------------------------------


def _cell(s) -> str:
    return str(s).replace("|", "\\|")


def generated_docs() -> str:
    """The generated part of docs/rules_data.md: key reference, provisional registry and variant
    space of every game with rules keys."""
    out = []
    for game in games_with_rules_keys():
        rk = rules_keys(game)
        out += [
            f"## {game.capitalize()}: keys",
            "",
            f"Every name of `{game_packages()[game]}/rules_data.py` the tables are built from, "
            "with what lies below it (sub-keys are dot-separated) and what is allowed; a file "
            "and `load_rules_data` are checked against the same table. A `fixed` name cannot "
            "change.",
            "",
            "| key | parts | value |",
            "|---|---|---|",
        ]
        for name, node in rk.names.items():
            parts = node.labels()
            sub = ", ".join(parts)
            if isinstance(node, Rows):
                fields = node.row.labels()
                sub += f"; then {', '.join(fields)}" if fields else ""
            out.append(f"| `{name}` | {_cell(sub or '-')} | {_cell(node.describe())} |")
        out += [
            "",
            f"## {game.capitalize()}: provisional values ({len(rk.provisional)})",
            "",
            "| key | current value | where it is printed | note |",
            "|---|---|---|---|",
        ]
        for p in rk.provisional:
            value = _fmt(rk.get(rk.default, p.key))
            out.append(f"| `{p.key}` | `{_cell(value)}` | {_cell(p.where)} | {_cell(p.note)} |")
        out.append("")
        out += _variant_space_docs(game)
    return "\n".join(out)


def _variant_space_docs(game: str) -> list[str]:
    """The lines of a game's variant space (core.variant_space; the module its spec names):
    every key with its range and default, and what is left out and why."""
    module = get_game(game).GAME.spec.variant_space
    if module is None:
        return []
    space = importlib.import_module(module).SPACE
    if not space.axes:
        return []
    left_out = "; ".join(f"`{k}` ({_cell(why)})" for k, why in space.left_out.items())
    return [
        f"## {game.capitalize()}: variant space (version {space.version})",
        "",
        f"The {len(space.axes)} keys a network that reads the rules is trained over "
        f"(`{module}`), with their ranges; the game's own validation also applies.",
        "",
        "| key | range | default |",
        "|---|---|---|",
        *(f"| `{a.key}` | {a.lo}..{a.hi} | {a.default} |" for a in space.axes),
        "",
        *([f"Left out: {left_out}.", ""] if left_out else []),
    ]


def docs_text(current: str | None = None) -> str:
    """docs/rules_data.md (or its text `current`) completed: the text above the marker kept, the
    key tables and provisional values of every registered game with rules keys below it."""
    current = DOC_PATH.read_text(encoding="utf-8") if current is None else current
    intro = current.split(DOC_MARKER)[0].rstrip("\n")
    return f"{intro}\n\n{DOC_MARKER}\n\n{generated_docs()}"


if __name__ == "__main__":  # run the imported module (its classes are the games' classes)
    from core import rules_file

    raise SystemExit(rules_file.main())
