"""Expert iteration (training.alphazero): self-play examples are the game that was played, network
checkpoints are checked before use, the `az` agent spec plays everywhere agents are named, and a
short run trains, saves, evaluates and resumes."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

from core.guided import GuidedConfig
from core.registry import game_names, get_game
from training.agents.az_agent import NETWORK, SIDECAR, TORCH_STATE, load_network, write_network
from training.agents.checkpoint import CheckpointError
from training.agents.registry import agent_fingerprint, make_agent
from training.alphazero.loop import AZConfig, ReplayBuffer, losses, main, resume_point, train
from training.alphazero.net import for_game
from training.alphazero.selfplay import Examples, SelfPlayer
from training.arena.store import GameStore

GAMES = game_names()


def small_net(game, seed: int = 0):
    torch.manual_seed(seed)
    return for_game(game, hidden=(32,))


@pytest.mark.parametrize("root", ["puct", "gumbel"])
@pytest.mark.parametrize("name", GAMES)
def test_self_play_examples_are_the_game_that_was_played(name, root):
    """Replaying the recorded actions (the forced moves in between) rebuilds the game: each
    example's observation and mask are the acting seat's at that decision, its policy target is
    a distribution over legal actions with the played action among them, and the value targets
    are the final returns seen from that seat."""
    game = get_game(name)
    n = min(game.PLAYER_COUNTS)
    net = small_net(game)
    cfg = GuidedConfig(sims=6, mix=0.5, root=root, m=4)
    player = SelfPlayer(name, n, net.arrays(), cfg, explore=5, seed=1)
    ex, final = player.play(seed=3)
    acts = player.actions
    assert len(ex) == len(acts) > 0
    s = game.new_game(n, 3)
    k = 0
    while not game.is_terminal(s):
        mask = game.legal_mask(s)
        if mask.sum() == 1:
            s = game.step(s, int(np.flatnonzero(mask)[0]))
            continue
        me = game.current_player(s)
        np.testing.assert_array_equal(ex.obs[k], game.observe(s, me))
        np.testing.assert_array_equal(ex.mask[k], mask)
        assert abs(ex.pi[k].sum() - 1.0) < 1e-5 and not ex.pi[k][~mask].any()
        assert ex.pi[k][acts[k]] > 0
        ret = game.returns(final, "rank")
        np.testing.assert_allclose(ex.z[k, :n], [ret[(me + j) % n] for j in range(n)])
        assert ex.zmask[k, :n].all() and not ex.zmask[k, n:].any()
        s = game.step(s, int(acts[k]))
        k += 1
    assert k == len(ex)
    np.testing.assert_array_equal(s, final)


@pytest.mark.parametrize("name", GAMES)
def test_games_against_an_opponent_are_the_game_that_was_played(name):
    """The search at one seat, the opponent (seeded per seat as the player seeds it) at the
    others: replaying the search's recorded actions and the opponent's own choices rebuilds the
    game; examples only at the search's decisions, each with that seat's observation and mask, a
    policy target over the legal actions holding the action played, the final returns as the
    value target."""
    game = get_game(name)
    n = min(game.PLAYER_COUNTS)
    player = SelfPlayer(name, n, small_net(game).arrays(), GuidedConfig(sims=6), explore=2, seed=1)
    for seat in range(n):
        ex, final = player.play_against(5, "heuristic", seat)
        acts = player.actions
        assert len(ex) == len(acts) > 0
        bots = {p: make_agent("heuristic", name, n, 5 * 7919 + p) for p in range(n) if p != seat}
        ret = game.returns(final, "rank")
        s, k = game.new_game(n, 5), 0
        while not game.is_terminal(s):
            mask = game.legal_mask(s)
            me = game.current_player(s)
            if mask.sum() == 1:
                a = int(np.flatnonzero(mask)[0])
            elif me != seat:
                a = bots[me].act(s)
            else:
                np.testing.assert_array_equal(ex.obs[k], game.observe(s, me))
                np.testing.assert_array_equal(ex.mask[k], mask)
                assert abs(ex.pi[k].sum() - 1.0) < 1e-5 and not ex.pi[k][~mask].any()
                assert ex.pi[k][acts[k]] > 0
                np.testing.assert_allclose(ex.z[k, :n], [ret[(me + j) % n] for j in range(n)])
                a = int(acts[k])
                k += 1
            s = game.step(s, a)
        assert k == len(ex)
        np.testing.assert_array_equal(s, final)
    with pytest.raises(ValueError, match="seat"):
        player.play_against(5, "heuristic", n)


def test_self_play_is_seeded():
    game = get_game(GAMES[0])
    arrays = small_net(game).arrays()
    cfg = GuidedConfig(sims=5)
    a = SelfPlayer(game.NAME, 2, arrays, cfg, seed=4).play(seed=8)[0]
    b = SelfPlayer(game.NAME, 2, arrays, cfg, seed=4).play(seed=8)[0]
    for f in ("obs", "mask", "pi", "z"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))


def test_the_value_target_mixes_in_the_root_values_with_qmix():
    """The same game with qmix 0, 1 and 0.25 (qmix changes no decision): 0 gives the final
    returns, 1 the search's root values (with the position evaluation alone at the leaves, a
    2-player rank game is zero-sum: the two seats' root values sum to 0, each in [-1, 1]), 0.25
    their mix."""
    game = get_game(GAMES[0])
    arrays = small_net(game).arrays()
    cfg = GuidedConfig(sims=6, mix=1.0)
    ex = {
        q: SelfPlayer(game.NAME, 2, arrays, cfg, seed=4, qmix=q).play(seed=8)[0]
        for q in (0.0, 1.0, 0.25)
    }
    np.testing.assert_array_equal(ex[0.0].pi, ex[1.0].pi)
    final, root = ex[0.0].z[:, :2], ex[1.0].z[:, :2]
    assert set(np.unique(final)) <= {-1.0, 0.0, 1.0} and not np.array_equal(root, final)
    assert np.abs(root).max() <= 1.0 + 1e-6
    np.testing.assert_allclose(root.sum(axis=1), 0.0, atol=1e-5)
    np.testing.assert_allclose(ex[0.25].z, 0.75 * ex[0.0].z + 0.25 * ex[1.0].z, atol=1e-6)
    with pytest.raises(ValueError, match="qmix"):
        SelfPlayer(game.NAME, 2, arrays, cfg, qmix=1.5)


def test_the_losses_are_cross_entropy_and_masked_squared_error():
    game = get_game(GAMES[0])
    net = small_net(game)
    rng = np.random.default_rng(0)
    b = 5
    obs = rng.random((b, game.OBS_SIZE), dtype=np.float32)
    mask = np.zeros((b, game.NUM_ACTIONS), bool)
    mask[:, :3] = True
    pi = np.zeros((b, game.NUM_ACTIONS), np.float32)
    pi[:, 0], pi[:, 2] = 0.25, 0.75
    z = rng.uniform(-1, 1, (b, net.seats)).astype(np.float32)
    zmask = np.zeros((b, net.seats), bool)
    zmask[:, :2] = True
    p, v = losses(net, (obs, mask, pi, z, zmask), torch)
    with torch.no_grad():
        logits, values = net(torch.from_numpy(obs))
    lg = logits.numpy()[:, :3].astype(np.float64)
    logp = lg - np.log(np.exp(lg).sum(axis=1, keepdims=True))
    want_p = -(0.25 * logp[:, 0] + 0.75 * logp[:, 2]).mean()
    want_v = ((values.numpy()[:, :2] - z[:, :2]) ** 2).mean()
    assert p.item() == pytest.approx(want_p, rel=1e-5)
    assert v.item() == pytest.approx(want_v, rel=1e-5)


def test_the_replay_buffer_keeps_the_latest_examples():
    game = get_game(GAMES[0])
    net = small_net(game)
    player = SelfPlayer(game.NAME, 2, net.arrays(), GuidedConfig(sims=3), seed=0)
    ex = player.play(seed=1)[0]
    buf = ReplayBuffer(len(ex) - 3, game, net.seats)
    buf.add(ex)
    assert buf.size == len(ex) - 3
    kept = {buf.obs[i].tobytes() for i in range(buf.size)}
    assert kept == {ex.obs[i].tobytes() for i in range(3, len(ex))}


def _written(tmp_path, game, players=2):
    net = small_net(game)
    folder = write_network(tmp_path / "net", net.arrays(), game, players, net.settings(), "rank")
    return net, folder


def test_the_az_spec_plays_everywhere_agents_are_named(tmp_path):
    game = get_game(GAMES[0])
    net, folder = _written(tmp_path, game)
    s = game.new_game(2, 0)
    while game.legal_mask(s).sum() < 2:
        s = game.step(s, int(np.flatnonzero(game.legal_mask(s))[0]))
    alone = make_agent(f"az:{folder},sims=0", game.NAME, 2, 0)
    searched = make_agent(f"az:{folder},sims=8", game.NAME, 2, 0)
    assert game.legal_mask(s)[alone.act(s)] and game.legal_mask(s)[searched.act(s)]
    assert searched.last["simulations"] == 9
    fp = agent_fingerprint(f"az:{folder},sims=8", game.NAME)
    assert "sha256:" in fp and fp != agent_fingerprint(f"az:{folder},sims=9", game.NAME)
    with pytest.raises((ValueError, CheckpointError), match="sims"):
        make_agent(f"az:{folder},sims=-1", game.NAME, 2, 0)


def test_a_changed_or_foreign_network_is_refused(tmp_path):
    game = get_game(GAMES[0])
    _net, folder = _written(tmp_path, game)
    load_network(folder, game, 2)  # intact: loads
    side = json.loads((folder / SIDECAR).read_text())
    data = (folder / NETWORK).read_bytes()
    (folder / NETWORK).write_bytes(data[:-10])
    with pytest.raises(CheckpointError, match="SHA-256"):
        load_network(folder, game, 2)
    (folder / NETWORK).write_bytes(data)
    (folder / SIDECAR).write_text(json.dumps({**side, "rules_data_hash": "0" * 16}))
    with pytest.raises(CheckpointError, match="rules_data_hash"):
        load_network(folder, game, 2)
    (folder / SIDECAR).write_text("{not json")
    with pytest.raises(CheckpointError, match="corrupt"):
        load_network(folder, game, 2)
    with pytest.raises(CheckpointError, match="no such network"):
        load_network(tmp_path / "missing", game, 2)
    if len(GAMES) > 1:
        (folder / SIDECAR).write_text(json.dumps(side))
        with pytest.raises(CheckpointError, match="does not match"):
            load_network(folder, get_game(GAMES[1]), 2)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--hours", "0"], "--hours"),
        (["--players", "7"], "players"),
        (["--games", "0"], "--games"),
        (["--eval-games", "3"], "multiple"),
        (["--mix", "2"], "mix"),
        (["--device", "tpu"], "--device"),
        (["--root", "uct"], "root"),
        (["--opp", "paranoid"], "opp"),
        (["--warm-mcts", "iters=-3"], "iters"),
        (["--qmix", "1.5"], "--qmix"),
        (["--opponent-share", "-0.5"], "--opponent-share"),
        (["--opponent", "nobody"], "nobody"),
        (["--warm-agent", "nobody"], "nobody"),
        (["--warm-agent", "heuristic", "--warm-mcts", "iters=10"], "one of them"),
        (["--init", "az:/nowhere"], "--init az:/nowhere"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(tmp_path, capsys, args, needle):
    with pytest.raises(SystemExit) as e:
        main(["--game", GAMES[0], "--out", str(tmp_path / "run"), *args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
    assert not (tmp_path / "run").exists()


@pytest.mark.slow  # a training run with its ladder evaluation
def test_a_short_run_trains_saves_evaluates_and_resumes(tmp_path):
    game = get_game(GAMES[0])
    cfg = AZConfig(
        game=game.NAME, out=str(tmp_path / "run"), iterations=2, games=2, sims=4, hidden=(32,),
        buffer=2000, batch=32, steps=3, workers=1, eval_every=2, eval_games=2, eval_sims=4,
        ladder=("random",),
    )  # fmt: skip
    summary = train(cfg, out=lambda line: None)
    assert summary["iterations"] == 2 and summary["games"] == 4
    progress = json.loads((tmp_path / "run" / "progress.json").read_text())
    assert [r["iteration"] for r in progress] == [1, 2]
    ev = progress[1]["eval"]
    assert set(ev) == {"sims=4 vs random", "sims=0 vs random"}
    assert all(r["games"] == 2 and len(r["win_rate_ci95"]) == 2 for r in ev.values())
    assert all(-800 <= r["elo"] <= 800 and len(r["elo_ci95"]) == 2 for r in ev.values())
    assert (tmp_path / "run" / "curve.png").stat().st_size > 0
    with GameStore(tmp_path / "run" / "ladder.sqlite", game.NAME, create=False) as store:
        assert len(list(store.games())) == 4  # 2 games with the search, 2 without
    arrays, meta = load_network(tmp_path / "run", game, 2)
    assert meta["iteration"] == 2 and meta["rules_data_hash"] == game.RULES_DATA_HASH
    cfg.iterations = 3
    summary = train(cfg, resume=True, out=lambda line: None)
    assert summary["iterations"] == 3 and summary["games"] == 6
    # a part stopped before its end leaves checkpoints newer than final/: resume goes on from them
    run = tmp_path / "run"
    later = run / "checkpoints" / "iter_00004"
    shutil.copytree(run / "checkpoints" / "iter_00003", later)
    meta = json.loads((later / SIDECAR).read_text())
    meta["iteration"] = 4
    (later / SIDECAR).write_text(json.dumps(meta))
    assert resume_point(run) == later
    said = []
    cfg.iterations, cfg.lr = 5, 2.5e-4  # a resumed part may change the learning rate
    summary = train(cfg, resume=True, out=said.append)
    assert said[0].startswith("resuming after iteration 4 ") and summary["iterations"] == 5
    opt = torch.load(run / "final" / TORCH_STATE, weights_only=True)["opt"]
    assert {g["lr"] for g in opt["param_groups"]} == {2.5e-4}


def test_a_shipped_network_is_found_by_count_and_keeps_its_checks(tmp_path, monkeypatch):
    """ship() writes the network without its torch state and with the command that trained
    it; `az` with no path plays the network shipped for the player count played and refuses a
    count with none, naming the shipped ones; a shipped network is not refused for its sidecar's
    library version (it is part of the installed library), a copy of it elsewhere is, and a
    changed file is refused either way."""
    from training.agents import az_agent
    from training.alphazero.ship import ship

    game = get_game(GAMES[0])
    net = small_net(game)
    training = {"game": game.NAME, "players": 2, "hours": 0.5, "hidden": [32], "out": "x"}
    folder = write_network(
        tmp_path / "net", net.arrays(), game, 2, net.settings(), "rank",
        torch_state={"net": net.state_dict()}, extra={"training": training},
    )  # fmt: skip
    assert (folder / TORCH_STATE).is_file()
    networks = tmp_path / "package" / "networks"
    with pytest.raises(ValueError, match="mix"):
        ship(folder, networks / "az-2p", search="mix=3")
    out = ship(folder, networks / "az-2p", search="mix=0.5,root=gumbel")
    assert {p.name for p in out.iterdir()} == {NETWORK, SIDECAR}
    meta = json.loads((out / SIDECAR).read_text())
    assert meta["trained_from"]["command"] == (
        f"python -m training.alphazero --game {game.NAME} --players 2 --hours 0.5 --hidden 32 "
        "--out RUN"
    )
    with pytest.raises(CheckpointError, match="--replace"):
        ship(folder, networks / "az-2p")
    again = ship(out, tmp_path / "again", search="mix=0.25,opp=prior")  # over the source's
    second = json.loads((again / SIDECAR).read_text())
    assert second["trained_from"] == meta["trained_from"] and second["search"] == (
        "root=gumbel,mix=0.25,opp=prior"
    )
    assert (again / NETWORK).read_bytes() == (out / NETWORK).read_bytes()
    monkeypatch.setattr(az_agent, "shipped_folder", lambda g: networks)
    s = game.new_game(2, 0)
    while game.legal_mask(s).sum() < 2:
        s = game.step(s, int(np.flatnonzero(game.legal_mask(s))[0]))
    agent = make_agent("az:sims=4", game.NAME, 2, 0)
    assert (agent.config.sims, agent.config.root, agent.config.mix) == (4, "gumbel", 0.5)
    assert make_agent("az:sims=4,mix=0", game.NAME, 2, 0).config.mix == 0.0
    assert game.legal_mask(s)[agent.act(s)]
    assert make_agent("az", game.NAME, 2, 0).name == "az:root=gumbel,mix=0.5"
    assert "sha256:" in agent_fingerprint("az", game.NAME, 2)
    three = [n for n in game.PLAYER_COUNTS if n != 2]
    if three:
        with pytest.raises(CheckpointError, match="shipped: 2 players"):
            make_agent("az", game.NAME, three[0], 0)
    (out / SIDECAR).write_text(json.dumps({**meta, "library_version": "0.0.0-other"}))
    az_agent._CACHE.clear()
    make_agent("az", game.NAME, 2, 0)  # shipped: its version is not held against it
    elsewhere = shutil.copytree(out, tmp_path / "copy")
    with pytest.raises(CheckpointError, match="library_version"):
        load_network(elsewhere, game, 2)
    (out / NETWORK).write_bytes((out / NETWORK).read_bytes()[:-8])
    az_agent._CACHE.clear()
    with pytest.raises(CheckpointError, match="SHA-256"):
        make_agent("az", game.NAME, 2, 0)


@pytest.mark.parametrize("name", GAMES)
def test_every_shipped_network_loads_and_plays(name):
    """The networks shipped in the game packages fit the game as it is now (RULES_DATA_HASH,
    sizes, layouts): a change of the rules data that they no longer fit fails here."""
    from training.agents.az_agent import shipped_networks

    game = get_game(name)
    shipped = shipped_networks(game)
    if not shipped:
        pytest.skip(f"{name} ships no network")
    for n in shipped:
        s = game.new_game(n, 0)
        for spec in ("az:sims=0", "az:sims=8,root=gumbel"):
            agent = make_agent(spec, name, n, 0)
            assert game.legal_mask(s)[agent.act(s)]


@pytest.mark.parametrize("name", GAMES)
def test_expert_examples_are_the_mcts_game_that_was_played(name):
    """The warm-start games of plain mcts: replaying the recorded actions rebuilds the game;
    each example is the acting seat's observation and mask, a policy target that is a
    distribution over the legal actions whose most visited action is the one mcts plays there
    (after the explored decisions), and the final returns from that seat; seeded."""
    from training.alphazero.expert import expert_game

    game = get_game(name)
    n = min(game.PLAYER_COUNTS)
    ex, acts = expert_game(name, n, "iters=30", seed=4, explore=3)
    again, acts2 = expert_game(name, n, "iters=30", seed=4, explore=3)
    np.testing.assert_array_equal(ex.pi, again.pi)
    np.testing.assert_array_equal(acts, acts2)
    s = game.new_game(n, 4)
    seats = []
    while not game.is_terminal(s):
        mask = game.legal_mask(s)
        if mask.sum() == 1:
            s = game.step(s, int(np.flatnonzero(mask)[0]))
            continue
        k = len(seats)
        seats.append(game.current_player(s))
        np.testing.assert_array_equal(ex.obs[k], game.observe(s, seats[-1]))
        np.testing.assert_array_equal(ex.mask[k], mask)
        assert abs(ex.pi[k].sum() - 1.0) < 1e-5 and not ex.pi[k][~mask].any()
        if k >= 3:
            assert ex.pi[k][acts[k]] == ex.pi[k].max()
        s = game.step(s, int(acts[k]))
    assert len(seats) == len(ex)
    ret = game.returns(s, "rank")
    for k, me in enumerate(seats):
        np.testing.assert_allclose(ex.z[k, :n], [ret[(me + j) % n] for j in range(n)])


@pytest.mark.parametrize("name", GAMES)
def test_expert_examples_of_an_agent_are_its_choices(name):
    """Warm-start games played by an agent spec (the game's heuristic): the recorded actions are
    the ones that agent, seeded per seat as the expert seeds it, plays in that game, and each
    policy target is one-hot on the action played."""
    from training.alphazero.expert import expert_game

    game = get_game(name)
    n = min(game.PLAYER_COUNTS)
    ex, acts = expert_game(name, n, "", seed=4, explore=0, agent="heuristic")
    assert len(ex) == len(acts) > 0
    np.testing.assert_array_equal(ex.pi.argmax(axis=1), acts)
    np.testing.assert_array_equal(ex.pi.max(axis=1), 1.0)
    np.testing.assert_array_equal(ex.pi.sum(axis=1), 1.0)
    bots = [make_agent("heuristic", name, n, 4 * 7919 + p) for p in range(n)]
    s, played = game.new_game(n, 4), []
    while not game.is_terminal(s):
        mask = game.legal_mask(s)
        a = int(np.flatnonzero(mask)[0]) if mask.sum() == 1 else bots[game.current_player(s)].act(s)
        if mask.sum() > 1:
            played.append(a)
        s = game.step(s, a)
    np.testing.assert_array_equal(played, acts)


@pytest.mark.slow  # self-play and training until the loss falls
def test_a_tiny_self_play_and_training_run_lowers_its_loss():
    """Examples of two Gumbel self-play games; 300 AdamW minibatches on them: over all of them,
    the policy loss's excess over the targets' own entropy (the KL divergence from the target)
    and the value loss fall below half the fresh network's."""
    game = get_game(GAMES[0])
    net = small_net(game, seed=3)
    player = SelfPlayer(game.NAME, 2, net.arrays(), GuidedConfig(sims=8, root="gumbel"), seed=2)
    ex = Examples.concat([player.play(seed=k)[0] for k in range(2)])
    buf = ReplayBuffer(len(ex), game, net.seats)
    buf.add(ex)
    every = tuple(getattr(buf, f)[: buf.size] for f in ("obs", "mask", "pi", "z", "zmask"))
    with torch.no_grad():
        before = [x.item() for x in losses(net, every, torch)]
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    for _ in range(300):
        p_loss, v_loss = losses(net, buf.sample(rng, 64), torch)
        opt.zero_grad()
        (p_loss + v_loss).backward()
        opt.step()
    with torch.no_grad():
        after = [x.item() for x in losses(net, every, torch)]
    pi = every[2].astype(np.float64)
    entropy = float(-(pi * np.log(np.where(pi > 0, pi, 1.0))).sum(axis=1).mean())
    kl_before, kl_after = before[0] - entropy, after[0] - entropy
    assert kl_after < 0.5 * kl_before and after[1] < 0.5 * before[1], (entropy, before, after)


@pytest.mark.slow  # worker processes or many games: CI runs it, the fast loop skips it
def test_a_run_can_start_from_plain_mcts(tmp_path):
    game = get_game(GAMES[0])
    cfg = AZConfig(
        game=game.NAME, out=str(tmp_path / "run"), iterations=1, games=2, sims=4, hidden=(32,),
        buffer=5000, batch=32, steps=3, workers=1, eval_every=0, warm_games=2,
        warm_mcts="iters=10", warm_steps=5,
    )  # fmt: skip
    summary = train(cfg, out=lambda line: None)
    assert summary["games"] == 4
    rows = json.loads((tmp_path / "run" / "progress.json").read_text())
    assert [r["iteration"] for r in rows] == [0, 1]
    assert rows[0]["warm"] == "mcts:iters=10" and rows[0]["examples"] > 0
    assert rows[1]["buffer"] == rows[0]["examples"] + rows[1]["examples"]
    load_network(tmp_path / "run" / "checkpoints" / "iter_00000", game, 2)


def test_a_run_can_play_part_of_its_games_against_an_opponent(tmp_path):
    """Half of each iteration's games against `random`, from a start on the heuristic's games:
    the search's decisions in them are about half as many examples as in self-play games."""
    game = get_game(GAMES[0])
    cfg = AZConfig(
        game=game.NAME, out=str(tmp_path / "run"), iterations=1, games=4, sims=4, hidden=(32,),
        buffer=5000, batch=32, steps=3, workers=1, eval_every=0, warm_games=2,
        warm_agent="heuristic", warm_steps=5, opponent="random", opponent_share=0.5, qmix=0.5,
    )  # fmt: skip
    summary = train(cfg, out=lambda line: None)
    assert summary["games"] == 6
    rows = json.loads((tmp_path / "run" / "progress.json").read_text())
    assert rows[0]["warm"] == "heuristic" and rows[1]["examples"] > 0
    settings = load_network(tmp_path / "run", game, 2)[1]["training"]
    assert settings["opponent"] == "random" and settings["qmix"] == 0.5


@pytest.mark.parametrize("adapt", [True, False])
def test_the_training_threads_follow_the_cores_left_free(tmp_path, monkeypatch, adapt):
    """On the CPU an iteration's minibatches run on as many torch threads as other processes
    left cores free during the previous iteration's (the first on one); --fixed-threads keeps
    two. Each row of progress.json records the count, and the run gives torch's count back."""
    import torch

    import training.alphazero.loop as az_train

    left = iter([2.0, 0.4, 1.6])

    class Cores:  # what other processes leave free, as measured at the end of each fit
        cores = 2

        def __init__(self):
            self.calls = 0

        def update(self):
            self.calls += 1
            return None if self.calls % 2 else next(left)

    monkeypatch.setattr(az_train, "FreeCores", Cores)
    before = torch.get_num_threads()
    game = get_game(GAMES[0])
    cfg = AZConfig(
        game=game.NAME, out=str(tmp_path / "run"), iterations=3, games=2, sims=2, hidden=(16,),
        buffer=2000, batch=8, steps=1, workers=1, eval_every=0, device="cpu",
        adapt_threads=adapt,
    )  # fmt: skip
    train(cfg, out=lambda line: None)
    rows = json.loads((tmp_path / "run" / "progress.json").read_text())
    want = [1, 2, 1] if adapt else [2, 2, 2]
    assert [r["threads"] for r in rows] == want
    assert torch.get_num_threads() == before


@pytest.mark.slow  # a short run and a ladder under a rules variant (about 5 s)
def test_a_fine_tune_under_a_rules_variant_records_both_rules_and_plays_there(tmp_path):
    """--rules FILE --init PARENT: the run plays and trains under the variant (its ladder's games
    are stored under the variant's hash); its sidecar's rules data is the variant's, beside the
    parent's hash and digest and the file's values; the game's own rules data is back after it.
    The result plays under the variant as its own and under the game's rules only with
    rules=any."""
    from core.rules_file import load_rules_file, rules_file_data
    from training.agents.checkpoint import file_sha256

    name = "village"  # a variant file needs the game's rules keys
    game = get_game(name)
    base = game.RULES_DATA_HASH
    torch.manual_seed(1)
    net = for_game(game, hidden=(16,))
    parent = write_network(tmp_path / "parent", net.arrays(), game, 2, net.settings(), "rank")
    variant = tmp_path / "variant.json"
    variant.write_text(json.dumps({"game": name, "values": {"STARTING_COINS": 3}}))
    _ns, vhash = rules_file_data(variant, name)
    run = tmp_path / "run"
    cfg = AZConfig(
        game=name, out=str(run), iterations=1, games=2, sims=2, buffer=2000, batch=8, steps=1,
        workers=1, eval_every=1, eval_games=2, eval_sims=2, ladder=("random",),
        init=str(parent), hidden=(16,), rules=str(variant),
    )  # fmt: skip
    train(cfg, out=lambda line: None)
    assert game.RULES_DATA_HASH == base
    meta = json.loads((run / "final" / SIDECAR).read_text())
    assert meta["rules_data_hash"] == vhash != base
    assert meta["init"]["rules_data_hash"] == base
    assert meta["init"]["sha256"] == file_sha256(parent / NETWORK)
    assert meta["rules_file"]["values"] == {"STARTING_COINS": 3}
    assert meta["rules_file"]["base_rules_data_hash"] == base
    with GameStore(run / "ladder.sqlite", name) as st:
        assert {g.rules_data_hash for g in st.games()} == {vhash}
    with game.GAME.using_rules_data(load_rules_file(variant, name)):
        make_agent(f"az:{run},sims=0", name, 2)
    with pytest.raises(CheckpointError, match="rules=any"):
        make_agent(f"az:{run},sims=0", name, 2)
    make_agent(f"az:{run},sims=0,rules=any", name, 2)
    no_variant = AZConfig(game=name, out=str(tmp_path / "r2"), init=str(run), hidden=(16,))
    with pytest.raises(ValueError, match="rules=any"):
        no_variant.validate()  # a parent of other rules data: --rules, or said out loud
    AZConfig(game=name, out=str(tmp_path / "r2"), init=f"{run},rules=any", hidden=(16,)).validate()


def test_the_ladder_rating_is_the_elo_of_the_score_share():
    from training.alphazero.ladder import ELO_CAP, elo

    assert elo(0.5) == 0.0
    assert abs(elo(1 / (1 + 10 ** (-200 / 400))) - 200.0) < 1e-9
    assert abs(elo(1 / (1 + 10 ** (300 / 400))) + 300.0) < 1e-9
    assert elo(1.0) == ELO_CAP and elo(0.0) == -ELO_CAP


def test_a_run_can_start_from_a_network_and_records_it(tmp_path):
    """--init: the run starts from the network's weights and shape (a different --hidden is
    refused), at another player count than the parent's; every checkpoint records the parent's
    folder, SHA-256, player count and rules hash; a network of another game is refused."""
    game = get_game(GAMES[0])
    parent_net, parent = _written(tmp_path, game, players=2)
    n = max(game.PLAYER_COUNTS)
    cfg = AZConfig(
        game=game.NAME, out=str(tmp_path / "run"), players=n, iterations=1, games=n, sims=4,
        hidden=tuple(parent_net.hidden), buffer=5000, batch=32, steps=1, workers=1,
        eval_every=0, init=f"az:{parent}", lr=1e-12,
    )  # fmt: skip
    train(cfg, out=lambda line: None)
    arrays, meta = load_network(tmp_path / "run", game, n)
    start = parent_net.arrays()
    for key in ("W0", "b0", "W1"):  # one step at a negligible learning rate: still the parent's
        np.testing.assert_allclose(arrays[key], start[key], atol=1e-6)
    assert meta["players"] == n and meta["init"]["players"] == 2
    assert meta["init"]["sha256"] == json.loads((parent / SIDECAR).read_text())["files"][NETWORK]
    assert meta["init"]["rules_data_hash"] == game.RULES_DATA_HASH
    from training.alphazero.ship import ship

    shipped = ship(tmp_path / "run", tmp_path / "shipped")
    assert json.loads((shipped / SIDECAR).read_text())["trained_from"]["init"] == meta["init"]
    with pytest.raises(ValueError, match="keeps its shape"):
        AZConfig(game=game.NAME, out="x", init=str(parent), hidden=(7,)).validate()
    with pytest.raises(ValueError, match="--init .*no such network"):
        AZConfig(game=game.NAME, out="x", init=str(tmp_path / "none")).validate()
    if len(GAMES) > 1:
        with pytest.raises(ValueError, match="--init .*does not match"):
            AZConfig(game=GAMES[1], out="x", init=str(parent)).validate()


def test_a_network_of_another_count_says_so_when_it_plays(tmp_path, capsys):
    """A 2-player network played by its path at another count plays, with one note naming both
    counts, and the result records the count it was trained at."""
    from training.arena.evaluate import evaluate

    game = get_game(GAMES[0])
    others = [n for n in game.PLAYER_COUNTS if n != 2]
    if not others:
        pytest.skip(f"{game.NAME} has no player count but 2")
    n = others[0]
    _net, folder = _written(tmp_path, game, players=2)
    spec = f"az:{folder},sims=0"
    res = evaluate(game.NAME, n, [spec] + ["random"] * (n - 1), games=n)
    assert res["agents"][0]["trained_players"] == 2
    notes = [x for x in capsys.readouterr().err.splitlines() if x.startswith("note:")]
    assert notes == [
        f"note: {spec} was trained at 2 players and plays at {n} here (observation and action "
        "sizes do not depend on the player count)"
    ]


@pytest.mark.parametrize("adapt", [True, False])
def test_a_shipped_network_s_training_command_parses_back_to_its_settings(adapt):
    """The `trained_from.command` a shipped network records (ship.training_command) is a
    command line the trainer takes, with the run's settings."""
    import shlex
    from dataclasses import asdict

    from training.alphazero.loop import build_parser
    from training.alphazero.ship import training_command

    cfg = AZConfig(
        game=GAMES[0], out="x", opponent="heuristic", opponent_share=0.8, lr=1e-4,
        ladder=("heuristic", "mcts"), hidden=(64, 32), adapt_threads=adapt,
    )  # fmt: skip
    argv = shlex.split(training_command(asdict(cfg)))[3:]
    a = build_parser().parse_args(argv)
    assert a.out == "RUN" and a.fixed_threads == (not adapt)
    assert (a.opponent, a.opponent_share, a.lr) == ("heuristic", 0.8, 1e-4)
    assert tuple(a.ladder) == ("heuristic", "mcts") and a.hidden == "64,32"
    assert not a.conditioned and a.counts == ""
    cond = AZConfig(game=GAMES[0], out="x", conditioned=True, counts=(2, 3), eval_every=0)
    b = build_parser().parse_args(shlex.split(training_command(asdict(cond)))[3:])
    assert b.conditioned and b.counts == "2,3" and b.eval_every == 0
