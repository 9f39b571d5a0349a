"""A game's spec reads what its game contract says (the sizes, the standing keys, the game id,
truncation, the offsets of the fields the compiled code reads) from its rendered contract
module."""

from __future__ import annotations

import importlib

import pytest

from core.game import CONTRACT_FIELDS
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
