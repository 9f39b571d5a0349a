"""A checkpoint trained under other rules data plays only when its spec says `rules=any`: the
refusal names that option, the flagged spec plays, and what it was trained under stays in its
fingerprint (the store's entrant) beside the hash the games are played under."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from game_helpers import fewest
from training_helpers import tiny_policy_checkpoint

from core.registry import game_names, get_game
from training.agents.az_agent import SIDECAR, write_network
from training.agents.checkpoint import CheckpointError, split_any_rules
from training.agents.registry import agent_fingerprint, make_agent, relocated
from training.alphazero.net import for_game
from training.balance import study as balance

OTHER_HASH = "0123456789abcdef"  # rules data no game here has


def _network(folder: Path, game) -> Path:
    """A small network of random weights, as if trained at the game's fewest players."""
    torch.manual_seed(1)
    net = for_game(game, hidden=(16,))
    return write_network(folder, net.arrays(), game, fewest(game), net.settings(), "rank")


def _trained_elsewhere(sidecar: Path) -> None:
    """The checkpoint as if trained under other rules data (the sidecar's hash only)."""
    meta = json.loads(sidecar.read_text())
    meta["rules_data_hash"] = OTHER_HASH
    sidecar.write_text(json.dumps(meta))


@pytest.mark.parametrize("name", game_names())
def test_a_network_of_other_rules_data_plays_only_with_rules_any(name, tmp_path):
    game = get_game(name)
    n = fewest(game)
    folder = _network(tmp_path / "net", game)
    _trained_elsewhere(folder / SIDECAR)
    with pytest.raises(CheckpointError) as e:
        make_agent(f"az:{folder},sims=0", name, n)
    assert "rules_data_hash" in str(e.value) and "rules=any" in str(e.value)
    assert len(str(e.value).splitlines()) == 1
    agent = make_agent(f"az:{folder},sims=0,rules=any", name, n)
    assert agent.name.endswith(",rules=any")
    s = game.new_game(n, 0)
    assert game.legal_mask(s)[agent.act(s)]
    fp = agent_fingerprint(f"az:{folder},sims=0,rules=any", name, n)
    assert f"rules:{OTHER_HASH}" in fp  # what it was trained under
    with pytest.raises(CheckpointError):  # the fingerprint checks as the agent does
        agent_fingerprint(f"az:{folder},sims=0", name, n)


@pytest.mark.parametrize("name", game_names())
def test_a_policy_checkpoint_of_other_rules_data_plays_only_with_rules_any(name, tmp_path):
    game = get_game(name)
    n = fewest(game)
    base = tiny_policy_checkpoint(tmp_path / "ppo", game, n)
    make_agent(str(base), name, n)  # loaded (and cached) while its rules data matched
    _trained_elsewhere(Path(f"{base}.json"))
    with pytest.raises(CheckpointError) as e:  # the cache does not hide the change
        make_agent(str(base), name, n)
    assert "rules=any" in str(e.value)
    agent = make_agent(f"{base},rules=any", name, n)
    s = game.new_game(n, 0)
    assert game.legal_mask(s)[agent.act(s)]
    assert f"rules:{OTHER_HASH}" in agent_fingerprint(f"{base},rules=any", name, n)
    assert relocated(f"{base},rules=any", tmp_path / "copy") == f"{tmp_path / 'copy'},rules=any"


def test_a_tournament_records_what_each_entrant_was_trained_under(tmp_path):
    from training.arena.store import GameStore
    from training.arena.tournament import run_tournament

    name = game_names()[0]
    game = get_game(name)
    folder = _network(tmp_path / "net", game)
    _trained_elsewhere(folder / SIDECAR)
    spec = f"az:{folder},sims=0,rules=any"
    db = tmp_path / "t.sqlite"
    t = run_tournament(name, 2, [spec, "random"], 2, db, progress=False, rate=False)
    trained = {e["spec"]: e["trained_rules_data_hash"] for e in t["entrants"]}
    assert trained == {spec: OTHER_HASH, "random": None}
    assert t["rules_data_hash"] == game.RULES_DATA_HASH  # beside the rules data played
    with GameStore(db, name) as store:
        (config,) = [json.loads(c) for (c,) in store.db.execute("SELECT config FROM tournaments")]
    assert config["trained_rules_data_hash"] == {spec: OTHER_HASH, "random": None}


def test_rules_takes_only_any():
    assert split_any_rules("sims=0,rules=any,c=1") == ("sims=0,c=1", True)
    assert split_any_rules("sims=0") == ("sims=0", False)
    with pytest.raises(ValueError, match="only value is 'any'"):
        split_any_rules("rules=mine")


@pytest.mark.slow  # two balance studies (about 4 s)
def test_a_balance_study_refuses_an_unflagged_network_before_playing(tmp_path, capsys):
    """Under a variant the network's rules data differs: the study stops before any game is
    stored, naming the option; with rules=any it plays both studies."""
    name = "village"  # a variant file needs the game's rules keys
    folder = _network(tmp_path / "net", get_game(name))
    variant = tmp_path / "variant.json"
    variant.write_text(json.dumps({"game": name, "values": {"STARTING_COINS": 3}}))
    db, out = tmp_path / "b.sqlite", tmp_path / "r"
    args = ["--game", name, "--players", "2", "--games", "2", "--db", str(db), "--out", str(out)]
    args += ["--rules", str(variant), "--no-progress", "--agents", "random"]
    with pytest.raises(SystemExit) as e:
        balance.main([*args, f"az:{folder},sims=0"])
    assert e.value.code == 2 and "rules=any" in capsys.readouterr().err
    assert not db.exists() and not out.exists()
    assert balance.main([*args, f"az:{folder},sims=0,rules=any"]) == 0
