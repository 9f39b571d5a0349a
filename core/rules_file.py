"""Rules override files: provisional values and rules variants as one JSON format.

A file names a game and replaces values of its rules data (`<game>_env/rules_data.py`)::

    {"game": "village", "description": "...",
     "values": {"CRAFTS.office.purchase_cubes": [0, 2, 0, 0], "MASS_MAJORITY_PRESTIGE": 3}}

Keys are dotted paths (the key scheme, docs/rules_data.md): a whole rules-data name
(`MASS_MAJORITY_PRESTIGE`), then a dict key (`REFILL_PER_COLOUR.2`), a row label
(`ACTIVITY_CARDS.MERCHANT`, `CUSTOMERS.T4`) or a named field (`.hire`, `.purchase_cubes`), and
for unnamed sequences a 0-based position (`TRAVEL_SCORE.3`). Each game describes its names once
as a tree of the nodes below (`<game>_env/rules_keys.py`, a `RulesKeys`); this module parses,
validates and applies a file to a *copy* of the default rules data (the module is never mutated),
and builds the tables from it, so a shape the table layout cannot hold is refused by the game's
own `build_tables`. Every problem is one `RulesFileError` line naming the file and the key, and a
bad file changes nothing: nothing here swaps the tables in; `Game.load_rules_data(ns)` does that.

CLI (per game, `python -m <game>_env.rules_data`): `--check FILE`, `--list`;
`python -m core.rules_file --write-docs` regenerates the generated part of docs/rules_data.md.
"""

from __future__ import annotations

import copy
import difflib
import importlib
import json
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from core.registry import game_names, game_packages, get_game

FILE_FIELDS = ("game", "description", "values")
DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "rules_data.md"
DOC_MARKER = "<!-- generated below by `python -m core.rules_file --write-docs`; do not edit -->"


class RulesFileError(ValueError):
    """A rules override file that cannot be used: one line naming the file and the key."""


class _Bad(Exception):
    """A problem found inside a value (the caller adds file and key)."""


# --- the nodes a game's key tree is made of -------------------------------------------------------


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class Node:
    """One value of the rules data: how to read JSON for it, show it and address inside it."""

    def convert(self, v, old):  # JSON value -> Python value (old: the value it replaces)
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

    def convert(self, v, old):
        if not _is_int(v):
            raise _Bad(f"expected an integer, got {json.dumps(v)}")
        if v < self.lo or (self.hi is not None and v > self.hi):
            raise _Bad(f"{v} is out of range ({self.describe()})")
        return v

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
        names = ", ".join(self.options)
        raise _Bad(f"{json.dumps(v)} is not one of {names}")

    def to_json(self, pv):
        for name, opt in self.options.items():
            if opt == pv and isinstance(opt, str) == isinstance(pv, str):
                return name
        return pv if isinstance(pv, str) else int(pv)

    def describe(self) -> str:
        return "one of " + ", ".join(self.options)


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
            raise _Bad(f"expected a list of {self.length} values, got {json.dumps(v)}")
        if len(v) != self.length:
            raise _Bad(f"expected a list of {self.length} values, got {len(v)}")
        out = []
        for i, (node, x) in enumerate(zip(self._items(), v, strict=True)):
            try:
                out.append(node.convert(x, old[i] if old is not None else None))
            except _Bad as e:
                raise _Bad(f"[{self.labels()[i]}]: {e}") from None
        return list(out) if self.as_list else tuple(out)

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
    """A tuple row with named fields; `fixed` positions (None names) are kept, not addressable."""

    fields: list[tuple[str | None, Node | None]]
    check: Callable[[tuple], str | None] | None = None  # a cross-field rule; message or None

    @property
    def names(self) -> list[str]:
        return [n for n, _ in self.fields if n is not None]

    def labels(self):
        return self.names

    def child(self, label):
        for i, (n, node) in enumerate(self.fields):
            if n == label:
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
            if n is not None:
                try:
                    out[i] = node.convert(v[n], old[i])
                except _Bad as e:
                    raise _Bad(f"{n}: {e}") from None
        return tuple(out)

    def to_json(self, pv):
        return {n: node.to_json(pv[i]) for i, (n, node) in enumerate(self.fields) if n}

    def replace(self, pv, idx, new):
        out = list(pv)
        out[idx] = new
        return tuple(out)

    def describe(self) -> str:
        fields = (f"{n}: {node.describe()}" for n, node in self.fields if n is not None)
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
                raise _Bad(f"{label}: {e}") from None
        return out

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

    def convert(self, v, old):
        if not isinstance(v, list):
            raise _Bad(f"expected a list of {len(self.row_labels)} rows")
        if len(v) != len(old) and not self.resizable:
            raise _Bad(f"expected a list of {len(self.row_labels)} rows, got {len(v)}")
        out = []
        for i, x in enumerate(v):
            try:
                out.append(self.row.convert(x, old[min(i, len(old) - 1)]))
            except _Bad as e:
                label = self.row_labels[i] if i < len(self.row_labels) else f"row {i}"
                raise _Bad(f"{label}: {e}") from None
        return out if self.as_list else tuple(out)

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

    def child(self, label):
        if label not in self.items:
            raise KeyError(label)
        return label, Int(0, self.hi.get(label))

    def get(self, pv, idx):
        return pv.get(idx, 0)

    def convert(self, v, old):
        if not isinstance(v, dict):
            raise _Bad(f"expected an object of counts over {', '.join(self.items)}")
        out = {}
        for k, n in v.items():
            if k not in self.items:
                raise _Bad(f"unknown item {k!r} (items: {', '.join(self.items)})")
            try:
                n = Int(0, self.hi.get(k)).convert(n, None)
            except _Bad as e:
                raise _Bad(f"{k}: {e}") from None
            if n:
                out[k] = n
        return out

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
    """What this module needs to know about one game's rules data."""

    game: str
    default: types.ModuleType  # the rules_data module (never mutated)
    names: dict[str, Node]  # top-level rules-data names a file may set
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

    def apply(self, values: dict, where: str = "<values>") -> types.SimpleNamespace:
        """A copy of the default rules data with `values` ({key: JSON value}) applied."""
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
            # walk down, convert, rebuild the path upwards (tuples are immutable)
            name = steps[0][0]
            chain = [getattr(ns, name)]
            for idx, parent in steps[1:]:
                chain.append(parent.get(chain[-1], idx))
            try:
                new = node.convert(v, chain[-1])
            except _Bad as e:
                raise RulesFileError(f"{where}: {key}: {e}") from None
            for (idx, parent), pv in zip(reversed(steps[1:]), reversed(chain[:-1]), strict=True):
                new = parent.replace(pv, idx, new)
            setattr(ns, name, new)
        problems = self._check_rows(ns) + (self.check(ns) if self.check else [])
        for key, msg in problems[:1]:
            own = [k for k in values if k.split(".")[0] == key.split(".")[0]] or list(values)
            raise RulesFileError(f"{where}: {key}: {msg} (file keys: {', '.join(own)})")
        try:  # the layout's own shape check (and any other refusal of build_tables)
            self.build_tables(ns)
        except (ValueError, IndexError, TypeError) as e:
            keys = ", ".join(values) or "(no keys)"
            raise RulesFileError(f"{where}: {keys}: the table layout cannot hold it: {e}") from None
        return ns

    def _check_rows(self, ns) -> list[tuple[str, str]]:
        out = []
        for name, node in self.names.items():
            if isinstance(node, Rows) and isinstance(node.row, Record) and node.row.check:
                for label, row in zip(node.row_labels, getattr(ns, name), strict=False):
                    msg = node.row.check(row)
                    if msg:
                        out.append((f"{name}.{label}", msg))
        return out

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


def main(game: str, argv: list[str] | None = None) -> int:
    """`python -m <game>_env.rules_data --check FILE | --list`; 0 ok, 2 on a bad file/usage."""
    argv = sys.argv[1:] if argv is None else argv
    usage = f"usage: python -m {game_packages()[game]}.rules_data (--check FILE | --list)"
    try:
        if argv[:1] == ["--check"] and len(argv) == 2:
            print(check_report(argv[1], rules_keys(game)))
        elif argv == ["--list"]:
            print(list_report(rules_keys(game)))
        elif argv in (["-h"], ["--help"]):
            print(usage)
        else:
            print(usage, file=sys.stderr)
            return 2
    except RulesFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


# --- docs/rules_data.md ---------------------------------------------------------------------------


def _cell(s) -> str:
    return str(s).replace("|", "\\|")


def generated_docs() -> str:
    """The generated part of docs/rules_data.md: key reference and provisional registry."""
    out = []
    for game in games_with_rules_keys():
        rk = rules_keys(game)
        out += [
            f"## {game.capitalize()}: keys",
            "",
            f"Every name of `{game_packages()[game]}/rules_data.py` a file may set, with what "
            "lies below it "
            "(sub-keys are dot-separated).",
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
    return "\n".join(out)


def docs_text(current: str | None = None) -> str:
    """docs/rules_data.md with its generated part rebuilt (the intro above the marker kept)."""
    current = DOC_PATH.read_text(encoding="utf-8") if current is None else current
    intro = current.split(DOC_MARKER)[0].rstrip("\n")
    return f"{intro}\n\n{DOC_MARKER}\n\n{generated_docs()}"


def _cli(argv: list[str]) -> int:
    if argv == ["--write-docs"]:
        DOC_PATH.write_text(docs_text(), encoding="utf-8")
        print(f"wrote {DOC_PATH}")
        return 0
    print("usage: python -m core.rules_file --write-docs", file=sys.stderr)
    return 2


if __name__ == "__main__":  # run the imported module (its classes are the games' classes)
    from core import rules_file

    raise SystemExit(rules_file._cli(sys.argv[1:]))
