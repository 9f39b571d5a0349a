"""Variant spaces (core.variant_space): every game's declaration, the features of rules data, the
refusal of rules data outside the space, and the draws of variants."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.registry import game_names, get_game
from core.rules_file import Fixed, Int, load_rules_file, rules_keys
from core.variant_space import Axis, OutsideSpaceError, VariantSpace, space_of

ROOT = Path(__file__).resolve().parents[2]
GAMES = game_names()
WITH_SPACE = [g for g in GAMES if space_of(get_game(g)).axes]


@pytest.mark.parametrize("name", GAMES)
def test_the_game_s_own_rules_data_is_the_zero_vector(name):
    game = get_game(name)
    space = space_of(game)
    assert space.base_hash == game.RULES_DATA_HASH
    feat = space.features(game.GAME.rules_data, game.RULES_DATA_HASH)
    assert feat.dtype == np.float32 and feat.shape == (space.n_features,) and not feat.any()
    assert space.outside(game.GAME.rules_data, game.RULES_DATA_HASH) is None
    if space.rules is not None:  # told apart by its keys, not its hash alone
        assert space.outside(game.GAME.rules_data) is None


@pytest.mark.parametrize("name", WITH_SPACE)
def test_every_scalar_key_is_varied_or_left_out_with_a_reason(name):
    space = space_of(get_game(name))
    rk = space.rules
    for key, node in rk.names.items():
        if isinstance(node, Int):
            assert space.axis(key) is not None or space.left_out.get(key), key
        elif not isinstance(node, Fixed) and space.left_out.get(key) is None:  # part by part
            assert any(a.key.startswith(key + ".") for a in space.axes), key
    for a in space.axes:
        node = rk.node(a.key)[1]
        assert node.lo <= a.lo <= a.default <= a.hi <= node.hi and a.lo < a.hi
        # the lowest legal value up to three times the default, or all it may be
        assert a.lo == node.lo and a.hi >= min(node.hi, 3 * a.default), a


@pytest.mark.parametrize("path", sorted((ROOT / "docs" / "rules_variants").glob("*.json")))
def test_every_worked_variant_lies_in_its_game_s_space(path):
    game = json.loads(path.read_text())["game"]
    space = space_of(get_game(game))
    rd = load_rules_file(path, game)
    assert space.outside(rd) is None
    assert np.count_nonzero(space.features(rd)) >= 1


def test_the_features_of_a_constructed_rules_file(tmp_path):
    rk = rules_keys("village")
    space = VariantSpace.build(
        rk,
        ["MASS_MAJORITY_PRESTIGE", "COIN_SCORE", "WINDOW_SCORE.w2"],
        version=7,
        ranges={"MASS_MAJORITY_PRESTIGE": (0, 12)},
    )
    assert space.axes == (
        Axis("MASS_MAJORITY_PRESTIGE", 0, 12, 2),
        Axis("COIN_SCORE", 0, 3, 1),
        Axis("WINDOW_SCORE.w2", 0, 9, 3),
    )
    path = tmp_path / "v.json"
    values = {"MASS_MAJORITY_PRESTIGE": 8, "WINDOW_SCORE": [2, 0, 4, 6]}
    path.write_text(json.dumps({"game": "village", "values": values}))
    rd = load_rules_file(path, "village")
    # (value - default) / (hi - lo): (8 - 2) / 12, (1 - 1) / 3, (0 - 3) / 9
    np.testing.assert_array_equal(
        space.features(rd), np.array([0.5, 0.0, -1 / 3], dtype=np.float32)
    )
    assert space.values(rd) == {"MASS_MAJORITY_PRESTIGE": 8, "COIN_SCORE": 1, "WINDOW_SCORE.w2": 0}
    assert space.changed_keys(rd) == {"MASS_MAJORITY_PRESTIGE": 8, "WINDOW_SCORE.w2": 0}


def test_rules_outside_the_space_are_refused_in_one_line_naming_the_key_and_the_range():
    space = space_of(get_game("village"))
    over = space.rules.apply({"MASS_MAJORITY_PRESTIGE": 13})
    with pytest.raises(OutsideSpaceError) as e:
        space.features(over)
    assert str(e.value) == (
        "MASS_MAJORITY_PRESTIGE=13 is outside the trained range 0..12: fine-tune with --adapt "
        "or --init"
    )
    other = space.rules.apply({"CUSTOMERS.T1.prestige": 9})
    with pytest.raises(OutsideSpaceError, match=r"^CUSTOMERS.T1.prestige=9 is outside the "):
        space.check(other)
    assert "\n" not in space.outside(other)
    with pytest.raises(OutsideSpaceError, match="outside the village variant space"):
        space.rules_data({"MASS_MAJORITY_PRESTIGE": 13})
    with pytest.raises(OutsideSpaceError, match="not a key of the village variant space"):
        space.features_of({"CUSTOMERS.T1.prestige": 9})


@pytest.mark.parametrize("name", GAMES)
def test_a_game_without_a_space_takes_only_its_own_rules(name):
    game = get_game(name)
    declared = space_of(game)
    empty = VariantSpace(name, 0, (), declared.base_hash)
    assert empty.outside(game.GAME.rules_data, game.RULES_DATA_HASH) is None
    why = empty.outside(None, "0" * 16)
    assert why is not None and "declares no variant space" in why
    if declared.rules is not None:  # with rules keys: any changed key is named
        keyed = VariantSpace.build(declared.rules, [], 0)
        if declared.axes:
            values = declared.sample(np.random.default_rng(0), near=True, changes=1)
            (key,) = values
            assert keyed.outside(declared.rules_data(values)).startswith(f"{key}=")
    with pytest.raises(ValueError, match="no variant space to draw from"):
        empty.sample(np.random.default_rng(0), near=True)


@pytest.mark.parametrize("name", WITH_SPACE)
def test_drawn_variants_are_valid_in_the_space_and_depend_on_the_seed_only(name):
    game = get_game(name)
    space = space_of(game)
    draws = []
    for near in (True, False):
        rng = np.random.default_rng([3, int(near)])
        for _ in range(20):
            values = space.sample(rng, near)
            assert 1 <= len(values) <= 3
            rd = space.rules_data(values)  # the game's own validation accepted it
            assert space.changed_keys(rd) == values
            for key, v in values.items():
                a = space.axis(key)
                assert a.lo <= v <= a.hi and v != a.default
                if near:
                    assert abs(v - a.default) <= max(1, round(0.25 * (a.hi - a.lo)))
            draws.append(values)
    again = [space.sample(np.random.default_rng([3, int(n)]), n) for n in (True, False)]
    assert again == [draws[0], draws[20]]


def test_the_digest_changes_with_the_version_the_ranges_and_the_game():
    rk = rules_keys("village")
    a = VariantSpace.build(rk, ["COIN_SCORE"], 1)
    assert a.digest() == VariantSpace.build(rk, ["COIN_SCORE"], 1).digest()
    assert a.digest() != VariantSpace.build(rk, ["COIN_SCORE"], 2).digest()
    assert a.digest() != VariantSpace.build(rk, ["COIN_SCORE"], 1, {"COIN_SCORE": (0, 4)}).digest()
    t = VariantSpace.build(rules_keys("troyes"), ["PENALTY_VP"], 1)
    assert t.digest() != a.digest() and t.record()["game"] == "troyes"


def test_a_range_that_does_not_hold_the_default_or_leaves_the_legal_values_is_refused():
    rk = rules_keys("village")
    for bad in ((3, 9), (0, 10**7), (2, 2)):
        with pytest.raises(ValueError, match="MASS_MAJORITY_PRESTIGE range"):
            VariantSpace.build(rk, ["MASS_MAJORITY_PRESTIGE"], 1, {"MASS_MAJORITY_PRESTIGE": bad})
    with pytest.raises(ValueError, match="is not one integer"):
        VariantSpace.build(rk, ["WINDOW_SCORE"], 1)


def test_the_docs_list_every_axis_of_every_declared_space():
    from core.rules_file import docs_text

    text = docs_text()
    for name in WITH_SPACE:
        space = space_of(get_game(name))
        assert f"## {name.capitalize()}: variant space (version {space.version})" in text
        for a in space.axes:
            assert f"| `{a.key}` | {a.lo}..{a.hi} | {a.default} |" in text
