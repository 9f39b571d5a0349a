"""One validation of rules data for every path: `load_rules_data` (a Python object) and a rules
override file (core.rules_file) run the same checks (<game>_env/rules_keys.py) and refuse a bad
value with the same one-line message; a refusal changes nothing."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core import rules_file as rf
from core.registry import get_game

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "rules_variants"
GAMES = ("village", "troyes")


def _rules_with(game: str, **changes):
    """A copy of a game's default rules data with some names replaced."""
    ns = rf.rules_keys(game).default_namespace()
    for k, v in changes.items():
        assert hasattr(ns, k), k
        setattr(ns, k, v)
    return ns


def _default(game: str, name: str):
    return getattr(rf.rules_keys(game).default, name)


@pytest.fixture
def restore_tables():
    yield
    for game in GAMES:
        get_game(game).load_rules_data()


def _refused_by_load_rules_data(game: str, rd) -> str:
    """load_rules_data's one-line refusal of `rd`; asserts the tables in use stay as they were."""
    mod = get_game(game)
    hash_before, tables_before = mod.RULES_DATA_HASH, mod.GAME.tables
    with pytest.raises(ValueError) as err:
        mod.load_rules_data(rd)
    assert isinstance(err.value, rf.RulesDataError)
    assert mod.RULES_DATA_HASH == hash_before
    assert mod.GAME.tables is tables_before
    np.testing.assert_array_equal(
        mod.GAME.tables, mod.GAME.spec.build_tables(mod.GAME.spec.rules_data)
    )
    text = str(err.value)
    assert "\n" not in text
    return text


# (game, name, bad value, message after "KEY: "): each value was accepted by load_rules_data
FINDING_1 = [
    ("village", "LAP_LENGTH", 0, "0 is out of range (integer 1..1000000)"),
    ("village", "MASS_MAJORITY_PRESTIGE", 2.7, "2.7 is not an integer (integer 0..1000000)"),
    ("village", "STARTING_COINS", -5, "-5 is out of range (integer 0..15)"),
    ("village", "MAX_ROUNDS", 0, "0 is out of range (integer 1..1000)"),
    ("village", "GRAIN_CAP", -1, "-1 is out of range (integer 0..5)"),
    ("troyes", "PENALTY_VP", -1000, "-1000 is out of range (integer 0..10000)"),
    ("village", "STARTING_COINS", True, "true is not an integer (integer 0..15)"),
]


@pytest.mark.parametrize("game, name, value, message", FINDING_1)
def test_load_rules_data_refuses_bad_values_and_changes_nothing(
    game, name, value, message, restore_tables
):
    """Finding: load_rules_data validated nothing from Python: a lap length of 0 (a division by
    zero 12 decisions later), a truncated 2.7, negative coins, a round cap of 0, a negative grain
    cap, a Troyes penalty that adds VP were all accepted."""
    text = _refused_by_load_rules_data(game, _rules_with(game, **{name: value}))
    assert text == f"{game} rules data: {name}: {message}"


@pytest.mark.parametrize("game, name, value, message", [c for c in FINDING_1 if c[2] is not True])
def test_a_rules_file_gives_the_same_refusal_as_python(game, name, value, message, tmp_path):
    """Finding: the file path and the Python path validated differently; for the same bad value
    both now give the same line (only where it came from differs)."""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"game": game, "values": {name: value}}), encoding="utf-8")
    with pytest.raises(rf.RulesFileError) as err:
        rf.load_rules_file(path, game)
    from_python = _refused_by_load_rules_data(game, _rules_with(game, **{name: value}))
    assert str(err.value) == f"{path}: {name}: {message}"
    assert from_python == f"{game} rules data: {name}: {message}"


def _village_relations():
    crafts = dict(_default("village", "CRAFTS"))
    crafts["office"] = (2, 2, (0, -1, 0, 0), 0)
    rewards = list(_default("village", "CITY_REWARDS"))
    rewards[2] = ("cubes", 200)
    return [
        (
            {"CRAFTS": crafts},
            "CRAFTS.office.purchase_cubes.pink: -1 is out of range (integer 0..18)",
        ),
        (
            {"STARTING_COINS": 4},
            "STARTING_COINS: 4 coins for each of 4 players exceed SUPPLY_COINS 15 "
            "(allowed: at most 3)",
        ),
        (
            {"CITY_REWARDS": tuple(rewards)},
            "CITY_REWARDS.C.amount: 200 is out of range (integer 0..100)",
        ),
        (  # a Well turn buying the cube privilege back would never end the game
            {"WELL_CUBES": 3, "PRIVILEGE_CUBES": 3},
            "WELL_CUBES: a Well turn costing 3 cubes would buy PRIVILEGE_CUBES 3 back without "
            "end (allowed: more than 3)",
        ),
        (  # coins stand in for the Well's cubes: the coin privilege alike
            {"PRIVILEGE_COIN_PRESTIGE": (3, 3)},
            "WELL_CUBES: a Well turn costing 3 cubes would buy PRIVILEGE_COIN_PRESTIGE.coins 3 "
            "back without end (allowed: more than 3)",
        ),
        (  # a mill that costs no time and pays the Well's price
            {"MILL": (0, 0, 6)},
            "WELL_CUBES: a Well turn costing 3 cubes would buy MILL.coins 6 back without end "
            "(allowed: more than 6)",
        ),
        (
            {"REFILL_PER_COLOUR": {2: 4, 3: 5, 4: 9}, "SUPPLY_CUBES_EACH": 8},
            "REFILL_PER_COLOUR.4: 9 cubes of each colour per round exceed SUPPLY_CUBES_EACH 8 "
            "(allowed: at most 8)",
        ),
        (
            {"COLOURS": ("pink", "brown", "orange", "green")},
            'COLOURS: ["pink", "brown", "orange", "green"] cannot change: '
            '["brown", "pink", "orange", "green"] (index names the compiled engine is built on)',
        ),
        (
            {"CRAFTS": [1, 2]},
            "CRAFTS: expected a dict with the keys wainwright, stables, office, blacksmith, "
            "got a list of 2",
        ),
    ]


def _troyes_relations():
    setup = dict(_default("troyes", "SETUP"))
    too_many = {**setup, 2: (7, 5, 4, 2, 4)}
    none_placed = {**setup, 3: (0, 5, 4, 1, 5)}
    over_cap = {**setup, 4: (4, 5, 15, 1, 6)}
    cards = list(_default("troyes", "ACTIVITY_CARDS"))
    cards[0] = (5, *cards[0][1:])
    hire = list(_default("troyes", "ACTIVITY_CARDS"))
    hire[1] = (*hire[1][:4], 2.5, *hire[1][5:])
    return [
        ({"GREY_CITIZENS": 7}, "GREY_CITIZENS: 7 is out of range (integer 8..8)"),
        (
            {"SETUP": too_many},
            "SETUP.2.citizens: 2 players x 7 citizens + 6 grey placed first need 20 spaces, "
            "the buildings have 18 (allowed: at most 6)",
        ),
        ({"SETUP": none_placed}, "SETUP.3.citizens: 0 is out of range (integer 1..12)"),
        (
            {"SETUP": over_cap, "INFLUENCE_MAX": 10},
            "SETUP.4.influence: 15 exceeds INFLUENCE_MAX 10 (allowed: at most 10)",
        ),
        ({"REROLL_COST": 0}, "REROLL_COST: 0 makes it free to repeat without end (allowed: 1..20)"),
        ({"FLIP_COST": 0}, "FLIP_COST: 0 makes it free to repeat without end (allowed: 1..20)"),
        (
            {"GREY_2P_SPACES": (0, 1, 7, 8, 12, 15)},
            "GREY_2P_SPACES: space 7 leaves a gap in front of it in its row (rows fill from the "
            "front: spaces 6..7)",
        ),
        (
            {"GREY_2P_SPACES": (0, 0, 6, 8, 12, 15)},
            "GREY_2P_SPACES: space 0 appears twice (one grey citizen per space)",
        ),
        (
            {"ACTIVITY_CARDS": cards},
            "ACTIVITY_CARDS.ARTISAN.id: 5 cannot change: 0 (the card's identity)",
        ),
        (
            {"ACTIVITY_CARDS": hire},
            "ACTIVITY_CARDS.MERCHANT.hire: 2.5 is not an integer (integer 0..10000)",
        ),
    ]


@pytest.mark.parametrize(
    "game, changes, message",
    [("village", c, m) for c, m in _village_relations()]
    + [("troyes", c, m) for c, m in _troyes_relations()],
    ids=lambda x: x if isinstance(x, str) and len(x) < 10 else "",
)
def test_load_rules_data_checks_shapes_and_relations(game, changes, message, restore_tables):
    """Finding: load_rules_data validated nothing from Python, nor the relations the engines rely
    on: Troyes setups that leave pre-placement without an empty space (no legal action), grey
    counts that break the state's invariants, a Village reward that overflows its segment."""
    text = _refused_by_load_rules_data(game, _rules_with(game, **changes))
    assert text == f"{game} rules data: {message}"


@pytest.mark.parametrize(
    "game, changes",
    [
        ("village", {"HARVEST_BASE": 1}),
        ("village", {"STARTING_COINS": np.int64(2), "SUPPLY_COINS": 15}),
        ("troyes", {"PENALTY_VP": 3}),
        ("troyes", {"SETUP": {**_default("troyes", "SETUP"), 2: (5, 9, 4, 2, 4)}}),
    ],
)
def test_valid_modified_rules_data_is_accepted(game, changes, restore_tables):
    """Guard for the load_rules_data finding: the check refuses bad data only; valid variants
    (a numpy integer included) load and change the hash."""
    mod = get_game(game)
    default_hash = mod.RULES_DATA_HASH
    h = mod.load_rules_data(_rules_with(game, **changes))
    assert h == mod.RULES_DATA_HASH != default_hash
    assert mod.load_rules_data() == default_hash


@pytest.mark.parametrize("game", rf.games_with_rules_keys())
def test_the_default_rules_data_of_every_game_passes(game):
    """Guard for the load_rules_data finding: each game's own rules data passes the check and
    gives the tables in use."""
    rk = rf.rules_keys(game)
    mod = get_game(game)
    tables = rk.validate(rk.default)
    np.testing.assert_array_equal(tables, mod.GAME.tables)
    assert rk.tables_hash(tables) == mod.RULES_DATA_HASH


class _Recorder:
    """Rules data that records which names are read."""

    def __init__(self, rd):
        self._rd, self.read = rd, set()

    def __getattr__(self, name):
        self.read.add(name)
        return getattr(self._rd, name)


@pytest.mark.parametrize("game", rf.games_with_rules_keys())
def test_every_name_the_tables_are_built_from_is_declared_once(game):
    """Every top-level rules-data name the engines read (through build_tables) has one
    declaration with its range, and nothing is declared that the engines do not read."""
    rk = rf.rules_keys(game)
    rec = _Recorder(rk.default)
    rk.build_tables(rec)
    assert rec.read == set(rk.names)


def _int_leaves(node):
    if isinstance(node, rf.Int):
        yield node
    elif isinstance(node, rf.Seq):
        for item in node.item if isinstance(node.item, list) else [node.item]:
            yield from _int_leaves(item)
    elif isinstance(node, rf.Record):
        for _name, child in node.fields:
            if child is not None:
                yield from _int_leaves(child)
    elif isinstance(node, rf.Map):
        for _k, child in node.entries.values():
            yield from _int_leaves(child)
    elif isinstance(node, rf.Rows):
        yield from _int_leaves(node.row)
    elif isinstance(node, rf.Counts):
        assert set(node.hi) == set(node.items)
        yield from (rf.Int(0, hi) for hi in node.hi.values())


@pytest.mark.parametrize("game", rf.games_with_rules_keys())
def test_every_integer_has_a_bounded_range(game):
    """No declared integer is unbounded: an int64 table entry cannot overflow and sums over a
    game stay inside the state's segments."""
    for name, node in rf.rules_keys(game).names.items():
        for leaf in _int_leaves(node):
            assert leaf.hi is not None and 0 <= leaf.lo <= leaf.hi <= 10**6, name


def _run_module(module, *args):
    """`python -W error -m module args` in the repository root."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-W", "error", "-m", module, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )


def _cli(*args):
    return _run_module("core.rules_file", *args)


def test_the_rules_data_cli_works_for_any_game_without_warnings(tmp_path):
    """Finding: `python -m village_env.rules_data --check FILE` printed runpy's RuntimeWarning
    every time; the generic command prints none (run with -W error, stderr stays empty)."""
    r = _cli("--game", "village", "--check", str(EXAMPLES / "village_example.json"))
    assert (r.returncode, r.stderr) == (0, "")
    assert "MASS_MAJORITY_PRESTIGE: 2 -> 3" in r.stdout
    r = _cli("--game", "troyes", "--list")
    assert (r.returncode, r.stderr) == (0, "")
    assert "ACTIVITY_CARDS.ARTISAN.hire = 6  # Activity card" in r.stdout
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"game": "troyes", "values": {"PENALTY_VP": -2}}), encoding="utf-8")
    r = _cli("--game", "troyes", "--check", str(bad))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == f"error: {bad}: PENALTY_VP: -2 is out of range (integer 0..10000)\n"
    r = _cli("--game", "chess", "--list")
    assert r.returncode == 2 and r.stderr.startswith("error: unknown game 'chess'")
    assert r.stderr.count("\n") == 1


def _documented_commands() -> list[str]:
    """Every rules-data command README.md and docs/ show in a code block (`python -m ...`)."""
    out = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for line in doc.read_text(encoding="utf-8").splitlines():
            m = re.match(r"\s*(python -m \S*rules_(?:data|file)\b.*?)\s*(?:#.*)?$", line)
            if m and "--docs" not in m.group(1):
                out.append(m.group(1))
    return sorted(set(out))


@pytest.mark.slow
@pytest.mark.parametrize("command", _documented_commands())
def test_documented_rules_data_commands_run_without_warnings(command):
    """Finding: the README's rules-data command printed a RuntimeWarning the user did nothing
    to cause; every documented one now runs cleanly under -W error."""
    r = _run_module(*command.split()[2:])
    assert (r.returncode, r.stderr) == (0, ""), command
