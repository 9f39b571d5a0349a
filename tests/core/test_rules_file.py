"""Rules override files (core.rules_file, <game>_env/rules_keys.py; docs/rules_data.md)."""

import ast
import json
from pathlib import Path

import numpy as np
import pytest

import troyes_env
import village_env
from core import rules_file as rf
from core.rules_file import RulesFileError
from troyes_env import rules_data as troyes_rd
from troyes_env import rules_keys as troyes_keys
from village_env import rules_data as village_rd
from village_env import rules_keys as village_keys

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "rules_variants"
GAMES = {"village": (village_env, village_keys), "troyes": (troyes_env, troyes_keys)}


def _write(tmp_path, doc, name="rules.json") -> Path:
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return p


@pytest.fixture
def restore_tables():
    yield
    village_env.load_rules_data()
    troyes_env.load_rules_data()


@pytest.mark.parametrize("game", ["village", "troyes"])
def test_example_files_are_valid_and_change_the_hash(game):
    mod, keys = GAMES[game]
    doc = json.loads((EXAMPLES / f"{game}_example.json").read_text(encoding="utf-8"))
    ns, h = rf.rules_file_data(EXAMPLES / f"{game}_example.json", keys.RULES)
    assert h != mod.RULES_DATA_HASH == keys.RULES.hash_of(keys.RULES.default)
    for key, value in doc["values"].items():
        assert keys.RULES.get(ns, key) == value != keys.RULES.get(keys.RULES.default, key)


@pytest.mark.parametrize("game", ["village", "troyes"])
def test_hash_matches_load_rules_data_and_nothing_stays_swapped(game, restore_tables):
    mod, keys = GAMES[game]
    before, tables_before = mod.RULES_DATA_HASH, mod.TABLES
    ns, h = rf.rules_file_data(EXAMPLES / f"{game}_example.json", keys.RULES)
    assert mod.RULES_DATA_HASH == before and mod.TABLES is tables_before
    assert mod.load_rules_data(ns) == h == mod.RULES_DATA_HASH
    assert mod.load_rules_data() == before


def test_village_file_reaches_new_game(tmp_path, restore_tables):
    p = _write(tmp_path, {"game": "village", "values": {"STARTING_COINS": 3}})
    ns = rf.load_rules_file(p, "village")
    assert village_rd.STARTING_COINS == 1  # the default module is never mutated
    h = village_env.load_rules_data(ns)
    assert h == village_env.RULES_DATA_HASH != village_keys.RULES.hash_of(village_rd)
    s = village_env.new_game(2, seed=0)
    assert village_env.LAYOUT.view(s, "coins")[:2].tolist() == [3, 3]
    village_env.load_rules_data()
    s = village_env.new_game(2, seed=0)
    assert village_env.LAYOUT.view(s, "coins")[:2].tolist() == [1, 1]


def test_troyes_file_reaches_new_game(tmp_path, restore_tables):
    p = _write(tmp_path, {"game": "troyes", "values": {"SETUP.2.deniers": 9}})
    ns, h = rf.rules_file_data(p, troyes_keys.RULES)
    assert troyes_rd.SETUP[2][1] == 5 and ns.SETUP[2][1] == 9 and ns.SETUP[3][1] == 5
    assert troyes_env.load_rules_data(ns) == h
    s = troyes_env.new_game(2, seed=0)
    assert troyes_env.LAYOUT.view(s, "deniers")[:2].tolist() == [9, 9]


@pytest.mark.parametrize(
    "game, values",
    [
        ("village", {}),
        ("village", {"MASS_MAJORITY_PRESTIGE": 2, "CRAFTS.office.purchase_cubes": [0, 2, 0, 0]}),
        ("village", {"CUSTOMERS.T1": {"demand": {"horse": 1, "plow": 1}, "prestige": 6}}),
        ("village", {"REFILL_PER_COLOUR": {"2": 4, "3": 5, "4": 6}, "TRAVEL_SCORE.3": 6}),
        ("troyes", {"ACTIVITY_CARDS.MERCHANT.hire": 4, "SETUP.2": [6, 5, 4, 2, 4]}),
        ("troyes", {"EVENT_CARDS.MARAUDING.next": "none", "SALARY.PALACE": 2, "PENALTY_VP": 2}),
        ("troyes", {"ACTIVITY_CARDS.PRIEST.effect": "DIE_PLUS", "DICE_PRICE.3": 6}),
    ],
)
def test_no_op_values_keep_the_hash(game, values, tmp_path):
    mod, keys = GAMES[game]
    _ns, h = rf.rules_file_data(_write(tmp_path, {"game": game, "values": values}), keys.RULES)
    assert h == mod.RULES_DATA_HASH


BAD = [
    ("village", "{not json", "not JSON"),
    ("village", "[1, 2]", "a rules file is a JSON object"),
    ("village", {"values": {}}, "game: missing"),
    ("village", {"game": "troyes", "values": {}}, 'game: the file is for "troyes"'),
    ("village", {"game": "village", "valeus": {}}, "valeus: unknown field"),
    ("village", {"game": "village", "values": {"CRAFT.office": 1}}, "CRAFT.office: unknown key"),
    (
        "village",
        {"game": "village", "values": {"MASS_MAJORITY_PRESTIGE": "3"}},
        '"3" is not an integer',
    ),
    ("village", {"game": "village", "values": {"MASS_MAJORITY_PRESTIGE": 2.5}}, "2.5 is not an"),
    ("village", {"game": "village", "values": {"MASS_MAJORITY_PRESTIGE": True}}, "true is not an"),
    ("village", {"game": "village", "values": {"MASS_MAJORITY_PRESTIGE": -1}}, "out of range"),
    ("village", {"game": "village", "values": {"REFILL_PER_COLOUR.5": 3}}, "REFILL_PER_COLOUR.5"),
    ("village", {"game": "village", "values": {"GRAIN_CAP": 6}}, "GRAIN_CAP: 6 is out of range"),
    (
        "village",
        {"game": "village", "values": {"CRAFTS.office.purchase_cubes": [0, 2]}},
        "CRAFTS.office.purchase_cubes: expected a list of 4 values, got 2",
    ),
    (
        "village",
        {"game": "village", "values": {"TRAVEL_EDGES.A-C.colour": "blue"}},
        'TRAVEL_EDGES.A-C.colour: "blue" is not one of',
    ),
    (
        "village",
        {"game": "village", "values": {"CUSTOMERS": [[{"grain": 1}, 1]] * 25}},
        "CUSTOMERS: the table layout cannot hold it: rules data 'customer_demand' has shape",
    ),
    (
        "village",
        {"game": "village", "values": {"CRAFTS.office": [2, 2, [0, 2, 0, 0], 0], "CRAFTS": {}}},
        "overlaps key",
    ),
    ("troyes", {"game": "village", "values": {}}, 'game: the file is for "village"'),
    ("troyes", {"game": "troyes", "values": {"SETUP.5.deniers": 1}}, "SETUP.5.deniers: unknown"),
    ("troyes", {"game": "troyes", "values": {"SETUP.2.rounds": 7}}, "SETUP.2.rounds: 7 is out"),
    ("troyes", {"game": "troyes", "values": {"PENALTY_VP": "x"}}, 'PENALTY_VP: "x" is not'),
    (
        "troyes",
        {"game": "troyes", "values": {"ACTIVITY_CARDS.MERCHENT.hire": 5}},
        "did you mean ACTIVITY_CARDS.MERCHANT.hire",
    ),
    (
        "troyes",
        {"game": "troyes", "values": {"CHARACTER_CARDS.HENRI_I.vp": [1, 2]}},
        "CHARACTER_CARDS.HENRI_I.vp: expected a list of 3 values, got 2",
    ),
    (
        "troyes",
        {"game": "troyes", "values": {"ACTIVITY_CARDS.MERCHANT.div": 0}},
        "ACTIVITY_CARDS.MERCHANT.div: 0 is out of range",
    ),
    (
        "troyes",
        {"game": "troyes", "values": {"ACTIVITY_CARDS.MERCHANT.level": 2}},
        "each colour needs 3 cards of each level",
    ),
    (
        "troyes",
        {"game": "troyes", "values": {"ACTIVITY_CARDS.PRIEST.params": [7, 3, 0, 0]}},
        "ACTIVITY_CARDS.PRIEST: params.p0 of DIE_PLUS is a colour",
    ),
    (
        "troyes",
        {"game": "troyes", "values": {"GREY_2P_SPACES.0": 99}},
        "GREY_2P_SPACES.0: 99 is out of range",
    ),
    ("troyes", '{"game": "troyes", "game": "troyes"}', "appears twice"),
]


@pytest.mark.parametrize("game, doc, message", BAD)
def test_bad_files_are_refused_and_change_nothing(game, doc, message, tmp_path):
    mod, keys = GAMES[game]
    before, tables_before = mod.RULES_DATA_HASH, mod.TABLES.copy()
    p = _write(tmp_path, doc, "bad.json")
    with pytest.raises(RulesFileError) as err:
        rf.rules_file_data(p, keys.RULES)
    text = str(err.value)
    assert text.startswith(f"{p}: ") and message in text and "\n" not in text
    assert isinstance(err.value, ValueError)
    assert mod.RULES_DATA_HASH == before
    np.testing.assert_array_equal(mod.TABLES, tables_before)
    assert keys.RULES.hash_of(keys.RULES.default) == before


def test_game_by_name_and_missing_file(tmp_path):
    ns, h = rf.rules_file_data(EXAMPLES / "troyes_example.json", "troyes")
    _ns, h_by_keys = rf.rules_file_data(EXAMPLES / "troyes_example.json", troyes_keys.RULES)
    assert ns.PENALTY_VP == 3 and h == h_by_keys
    with pytest.raises(RulesFileError, match="cannot read the file"):
        rf.load_rules_file(tmp_path / "absent.json", "village")
    with pytest.raises(RulesFileError, match="unknown game"):
        rf.load_rules_file(EXAMPLES / "troyes_example.json", "chess")


def test_the_docs_page_is_completed_when_the_site_is_built(capsys):
    """docs/rules_data.md keeps nothing below its marker; the site build's hook completes it with
    every registered game that declares rules keys, as `--docs` prints it."""
    import importlib.util
    import types

    text = rf.DOC_PATH.read_text(encoding="utf-8")
    assert text.rstrip("\n").endswith(rf.DOC_MARKER), "generated tables are not kept in the file"
    done = rf.docs_text()
    assert done.startswith(text.rstrip("\n")) and len(done) > len(text)
    for game in rf.games_with_rules_keys():
        assert f"## {game.capitalize()}: keys" in done
        assert f"## {game.capitalize()}: provisional values" in done
    path = rf.DOC_PATH.parent / "hooks" / "rules_data.py"
    spec = importlib.util.spec_from_file_location("rules_data_hook", path)
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = types.SimpleNamespace(file=types.SimpleNamespace(src_uri="rules_data.md"))
    assert hook.on_page_markdown(text, page, None, None) == done
    other = types.SimpleNamespace(file=types.SimpleNamespace(src_uri="index.md"))
    assert hook.on_page_markdown("# x\n", other, None, None) == "# x\n"
    assert rf.main(["--docs"]) == 0
    assert capsys.readouterr().out == done
    with pytest.raises(SystemExit):
        rf.main(["--docs", "--game", "village"])


def _tagged_names(module, tag: str) -> set[str]:
    """Top-level names whose assignment (or the comment lines right above it) carries `tag`."""
    src = Path(module.__file__).read_text(encoding="utf-8")
    lines = src.splitlines()
    out = set()
    for node in ast.parse(src).body:
        if isinstance(node, ast.Assign):
            first = node.lineno - 1
            while first > 0 and lines[first - 1].lstrip().startswith("#"):
                first -= 1
            if any(tag in line for line in lines[first : node.end_lineno]):
                out |= {t.id for tgt in node.targets for t in ast.walk(tgt) if hasattr(t, "id")}
    return out


@pytest.mark.parametrize("game", ["village", "troyes"])
def test_registry_keys_resolve(game):
    rk = GAMES[game][1].RULES
    keys = [p.key for p in rk.provisional]
    assert len(keys) == len(set(keys))
    for k in keys:
        rk.get(rk.default, k)  # every registry key addresses a value


def test_village_registry_covers_every_provisional_tag():
    tagged = _tagged_names(village_rd, "[U]")
    registered = {p.key.split(".")[0] for p in village_keys.RULES.provisional}
    assert tagged == registered


def test_troyes_registry_covers_every_provisional_column():
    registered = {
        p.key.rsplit(".", 1)[0].split(".thresholds")[0] for p in troyes_keys.RULES.provisional
    }
    for table in ("ACTIVITY_CARDS", "EVENT_CARDS", "CHARACTER_CARDS"):
        for row in getattr(troyes_rd, table):
            if row[-1]:
                assert f"{table}.{row[1]}" in registered
    fields = {p.key.split(".")[2] for p in troyes_keys.RULES.provisional if "_CARDS." in p.key}
    spec_tags = {
        t
        for table in (troyes_rd.ACTIVITY_CARDS, troyes_rd.EVENT_CARDS)
        for r in table
        for t in r[-1]
    }
    assert spec_tags <= fields


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_rules_value_is_addressable(game):
    """Each game's tables are built only from names the key scheme covers."""
    rk = GAMES[game][1].RULES
    ns = rk.default_namespace()
    for name in list(vars(ns)):
        if name not in rk.names:
            delattr(ns, name)
    for name in rk.names:
        getattr(ns, name)
    assert rk.hash_of(ns) == GAMES[game][0].RULES_DATA_HASH


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_every_variant_file_in_the_docs_is_valid(path):
    game = json.loads(path.read_text(encoding="utf-8"))["game"]
    mod, keys = GAMES[game]
    _ns, h = rf.rules_file_data(path, keys.RULES)
    assert h != mod.RULES_DATA_HASH


def test_a_game_without_rules_keys_is_refused_in_one_line(monkeypatch, tmp_path):
    """Rules override keys are optional in a game's spec: a game without them refuses a rules
    file with one line naming the games that take them, and the docs list only those."""
    import dataclasses

    from core.registry import game_names, get_game

    name = game_names()[0]
    game = get_game(name)
    monkeypatch.setattr(game.GAME, "spec", dataclasses.replace(game.GAME.spec, rules_keys=None))
    f = _write(tmp_path, {"game": name, "values": {}})
    with pytest.raises(RulesFileError, match=f"game {name!r} takes no rules override files") as e:
        rf.load_rules_file(f, name)
    assert "\n" not in str(e.value)
    assert name not in rf.games_with_rules_keys()
    assert f"## {name.capitalize()}: keys" not in rf.generated_docs()
    with pytest.raises(RulesFileError, match="unknown game 'nogame'"):
        rf.rules_keys("nogame")
