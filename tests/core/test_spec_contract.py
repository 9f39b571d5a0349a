"""A game's spec reads what its game contract says (the sizes, the standing keys, the game id,
truncation, the offsets of the fields the compiled code reads) from its rendered contract module,
and a spec whose layout or action space says one of them otherwise is refused when it is built,
in one line naming both values (core.game.check_against_contract)."""

from __future__ import annotations

import dataclasses
import importlib
import types

import pytest

from core.actions import ActionSpace
from core.game import CONTRACT_FIELDS, GameSpec
from core.jit import jit
from core.layout import Layout
from core.registry import game_packages

PACKAGES = game_packages()


@pytest.mark.parametrize("name", list(PACKAGES))
def test_the_spec_takes_the_contract_s_facts(name):
    pkg = importlib.import_module(PACKAGES[name])
    spec, contract = pkg.GAME.spec, importlib.import_module(f"{PACKAGES[name]}.engine.contract")
    assert spec.contract is contract
    assert (spec.obs_size, spec.work_size, spec.n_keys) == (
        contract.OBS_SIZE,
        contract.WORK_SIZE,
        contract.N_KEYS,
    )
    assert spec.keys is contract.k_keys and spec.game_id == contract.GAME_ID
    for field, (const, _) in CONTRACT_FIELDS.items():
        assert getattr(spec.fields, field) == getattr(contract, const), field
    assert (pkg.STATE_SIZE, pkg.NUM_ACTIONS, pkg.OBS_SIZE) == (
        contract.STATE_SIZE,
        contract.NUM_ACTIONS,
        contract.OBS_SIZE,
    )


def _toss(**changes) -> GameSpec:
    """Toss's spec with its contract's names in `changes` replaced (a spec field where the name
    is one: layout, actions, field_segments)."""
    import toss_env
    from toss_env.engine import contract

    spec = toss_env.GAME.spec
    own = {
        k: changes.pop(k) for k in list(changes) if k in {f.name for f in dataclasses.fields(spec)}
    }
    fake = types.SimpleNamespace(**{**vars(contract), **changes})
    return dataclasses.replace(spec, contract=fake, **own)


def _refused(**changes) -> str:
    with pytest.raises(ValueError) as e:
        _toss(**changes)
    assert "\n" not in str(e.value)
    return str(e.value)


def test_a_consistent_copy_is_accepted():
    spec = _toss()
    assert spec.fields == importlib.import_module("toss_env").GAME.spec.fields


def test_sizes_that_disagree_are_refused():
    from toss_env.engine import contract

    size = contract.STATE_SIZE
    assert _refused(STATE_SIZE=size + 1) == (
        f"toss: the layout's size is {size} but the contract's STATE_SIZE is {size + 1}"
    )
    three = ActionSpace("toss", 1, [("keep", (), ""), ("toss", (), ""), ("more", (), "")])
    assert _refused(actions=three) == (
        "toss: the action space's size is 3 but the contract's NUM_ACTIONS is 2"
    )
    assert _refused(VERSION=7) == "toss: the layout's version is 1 but the contract's VERSION is 7"


def test_a_game_id_that_disagrees_is_refused():
    assert _refused(GAME_ID=0x123) == (
        "toss: the layout's entry at S_GAME_ID=0 is 'game_id', which holds 0x544f53, but the "
        "contract's GAME_ID is 0x123"
    )
    assert _refused(S_GAME_ID=-1) == (
        "toss: the layout's 'game_id' segment is at offset 0 but the contract's S_GAME_ID is -1"
    )
    assert _refused(S_GAME_ID=2) == (
        "toss: the layout's 'game_id' segment is at offset 0 but the contract's S_GAME_ID is 2"
    )


@jit(alloc=False)
def _capped(s):
    return s[0] > 100


def test_truncation_that_disagrees_is_refused():
    assert _refused(k_truncated=_capped) == (
        f"toss: the contract's k_truncated is the game's own ({__name__}) but its S_TRUNC is -1, "
        "so is_truncated would never report a truncation the compiled loops count; set S_TRUNC "
        "to the offset of the field k_truncated reads (core's default k_truncated reads it)"
    )
    from toss_env.layout import SEGMENTS

    capped = Layout("toss", 1, [*SEGMENTS, ("truncated", (), 0, 1, False, "a cap ended it")])
    assert _refused(layout=capped, STATE_SIZE=capped.size) == (
        f"toss: the layout's 'truncated' segment is at offset {capped.size - 1} but the "
        "contract's S_TRUNC is -1"
    )
    spec = _toss(layout=capped, STATE_SIZE=capped.size, S_TRUNC=capped.size - 1)
    assert spec.fields.truncated == capped.size - 1  # what is_truncated reads


def test_field_segments_name_layout_segments():
    assert _refused(field_segments={"turn": "actor"}) == (
        "toss: field_segments names 'turn'; allowed: actor, phase, rng, over"
    )
    assert _refused(field_segments={"actor": "cur"}).startswith(
        "toss: the layout has no segment 'cur' (the 'actor' field); name the segment in "
        "GameSpec.field_segments, one of game_id, version, n_players, rng, phase, actor,"
    )
