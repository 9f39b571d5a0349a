"""The network-guided search agent (core.guided): configuration, the network's shape, legality,
the root's visit counts, determinism, hidden information, what the priors and the values do, and
allocation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.bots import BotRng
from core.guided import MAX_SIMS, GuidedAgent, GuidedConfig
from core.registry import game_names, get_game
from core.search_tree import policy_action
from core.testing import decision_positions
from training.agents.policy import masked_probs

GAMES = game_names()
ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"


def network(game, seed: int = 0, scale: float = 0.1, hidden: int = 16) -> dict:
    """A small random policy-value network for `game` in the trained-actor format."""
    rng = np.random.default_rng(seed)
    outs = game.NUM_ACTIONS + max(game.PLAYER_COUNTS)
    return {
        "W0": (rng.standard_normal((hidden, game.OBS_SIZE)) * scale).astype(np.float32),
        "b0": np.zeros(hidden, np.float32),
        "W1": (rng.standard_normal((outs, hidden)) * scale).astype(np.float32),
        "b1": np.zeros(outs, np.float32),
        "activations": np.array(["relu"]),
    }


def positions(game, n: int, count: int, seed: int) -> list[np.ndarray]:
    return decision_positions(game, n, count, seed, max_moves=120)


@pytest.mark.parametrize(
    "text, needle",
    [
        (f"sims={MAX_SIMS + 1}", "sims"),
        ("sims=-1", "sims"),
        ("c=-0.5", "c="),
        ("mix=1.5", "mix"),
        ("returns=points", "returns"),
        ("spread=-1", "spread"),
        ("root=uct", "root"),
        ("m=0", "m="),
        ("cscale=0", "cscale"),
        ("opp=paranoid", "opp=.*one of tree, net, netmax"),
        ("m=2.5", "not a valid"),
        ("depth=3", "key among"),
        ("sims=ten", "not a valid"),
    ],
)
def test_bad_config_is_refused_with_the_allowed_values(text, needle):
    with pytest.raises(ValueError, match=needle):
        GuidedConfig.parse(text)


def test_config_round_trip():
    cfg = GuidedConfig.parse("sims=64,c=2.0,mix=0.25,root=gumbel,m=8")
    assert (cfg.sims, cfg.c, cfg.mix, cfg.root, cfg.m) == (64, 2.0, 0.25, "gumbel", 8)
    assert GuidedConfig.parse(cfg.spec()) == cfg and GuidedConfig().spec() == ""


def test_a_network_of_another_shape_is_refused():
    game = get_game(GAMES[0])
    net = network(game)
    net["W1"] = net["W1"][:-1]
    net["b1"] = net["b1"][:-1]
    with pytest.raises(ValueError, match="outputs"):
        GuidedAgent(game, net)
    other = network(game)
    other["W0"] = other["W0"][:, :-1]
    with pytest.raises(ValueError, match="inputs"):
        GuidedAgent(game, other)


@pytest.mark.parametrize("name", GAMES)
def test_legal_choices_and_the_root_visits_add_up(name):
    """Every decision is legal; the first simulation scores the root and each of the `sims`
    others passes through exactly one root child, so the visits sum to `sims`, all on legal
    actions, and the choice is the most visited."""
    game = get_game(name)
    for n in (min(game.PLAYER_COUNTS), max(game.PLAYER_COUNTS)):
        agent = GuidedAgent(game, network(game, seed=n), GuidedConfig(sims=30), seed=n)
        for s in positions(game, n, 8, seed=n):
            a = agent.act(s)
            mask = game.legal_mask(s)
            assert mask[a], (name, n, a)
            assert agent.visits.sum() == 30 and not agent.visits[~mask].any()
            assert agent.visits[a] == agent.visits.max()
            assert agent.last["simulations"] == 31


@pytest.mark.parametrize("root, opp", [("puct", "tree"), ("gumbel", "tree"), ("puct", "net"),
                                       ("gumbel", "netmax"), ("gumbel", "prior"),
                                       ("puct", "priormax")])  # fmt: skip
@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_decisions(name, root, opp):
    game = get_game(name)
    net = network(game, seed=1)
    cfg = GuidedConfig(sims=25, mix=0.5, root=root, opp=opp)

    def run(agent, states):
        return [(agent.act(s), agent.visits.copy()) for s in states]

    for n in game.PLAYER_COUNTS:
        states = positions(game, n, 6, seed=5 + n)
        first, again = (
            run(GuidedAgent(game, net, cfg, seed=3), states),
            run(GuidedAgent(game, net, cfg, seed=3), states),
        )
        for (a, v), (b, w) in zip(first, again, strict=True):
            assert a == b and np.array_equal(v, w), (name, n)


@pytest.mark.parametrize("name", GAMES)
def test_network_modelled_opponents_get_no_nodes(name):
    """With opp=net the other seats' decisions are the network's, not nodes: at the most players
    a simulation calls the network for them too (more calls than simulations), and the tree
    holds fewer nodes than with opp=tree on the same budget."""
    game = get_game(name)
    n = max(game.PLAYER_COUNTS)
    net = network(game, seed=4)
    calls, nodes = {}, {}
    for opp in ("tree", "net"):
        agent = GuidedAgent(game, net, GuidedConfig(sims=60, opp=opp), seed=1)
        calls[opp] = nodes[opp] = 0
        for s in positions(game, n, 6, seed=9):
            agent.act(s)
            if agent.last.get("forced"):
                continue
            calls[opp] += agent.last["network_calls"]
            nodes[opp] += agent.last["nodes"]
    assert calls["tree"] <= nodes["tree"] + 6 * 61  # one call per new node or visited end
    assert calls["net"] > calls["tree"]  # the opponents' decisions asked the network
    assert nodes["net"] <= nodes["tree"]


@pytest.mark.parametrize("name", GAMES)
def test_policy_modelled_opponents_cost_one_call_per_simulation(name):
    """With opp=prior / priormax the other seats get nodes as with opp=tree, but their moves come
    from the policy stored in those nodes: at the most players the network is called once per
    new node or visited end, as with `tree` (far fewer calls than with `net`), and each decision
    adds one node per simulation (the tree is not limited to the searcher's decisions)."""
    game = get_game(name)
    n = max(game.PLAYER_COUNTS)
    net = network(game, seed=4)
    calls = {}
    for opp in ("net", "prior", "priormax"):
        agent = GuidedAgent(game, net, GuidedConfig(sims=60, opp=opp), seed=1)
        calls[opp] = 0
        for s in positions(game, n, 6, seed=9):
            agent.act(s)
            if agent.last.get("forced"):
                continue
            calls[opp] += agent.last["network_calls"]
            if opp != "net":  # one call per new node or visited end, at most one a simulation
                assert agent.last["network_calls"] <= agent.last["simulations"]
    assert calls["prior"] < calls["net"] and calls["priormax"] < calls["net"], calls


def test_a_stored_policy_plays_its_most_likely_or_a_softmax_draw():
    """core.search_tree.policy_action: the most likely legal action (the first of equals) when
    greedy; else one 32-bit draw of the seat's stream into the softmax over the legal actions,
    the same action as that draw's place in the cumulative distribution; -1 if none is legal."""
    rng = np.random.default_rng(3)
    for t in range(500):
        logits = (rng.normal(size=40) * 3).astype(np.float32)
        mask = rng.random(40) < 0.3
        mask[rng.integers(40)] = True
        assert policy_action(logits, mask, True, BotRng(t).words) == int(
            np.argmax(np.where(mask, logits, -np.inf))
        )
        ours, theirs = BotRng(t), BotRng(t)
        got = policy_action(logits, mask, False, ours.words)
        c = np.cumsum(masked_probs(logits, mask))
        u = theirs.seed32() / 2.0**32 * c[-1]
        want = int(np.searchsorted(c, u, side="right"))
        assert got == want and mask[got]
        assert np.array_equal(ours.words, theirs.words)  # exactly one draw
    tie = np.zeros(40, np.float32)
    mask = np.zeros(40, bool)
    mask[[7, 3, 30]] = True
    assert policy_action(tie, mask, True, BotRng(0).words) == 3
    assert policy_action(tie, np.zeros(40, bool), False, BotRng(0).words) == -1


@pytest.mark.parametrize("root, opp", [("puct", "tree"), ("gumbel", "tree"), ("puct", "net"),
                                       ("puct", "netmax"), ("puct", "prior"),
                                       ("gumbel", "prior"), ("gumbel", "priormax")])  # fmt: skip
@pytest.mark.parametrize("name", GAMES)
def test_decisions_never_depend_on_hidden_information(name, root, opp):
    """Copies of a state that differ only in what the player to act cannot see (perturb_hidden:
    deck and bag order, face-down cards, the chance stream; determinize: other players' secret
    cards) get the same visits and the same decision."""
    game = get_game(name)
    net = network(game, seed=2)
    cfg = GuidedConfig(sims=20, mix=0.5, root=root, opp=opp)
    changed = 0
    for n in game.PLAYER_COUNTS:
        for i, s in enumerate(positions(game, n, 6, seed=30 + n)):
            agent = GuidedAgent(game, net, cfg, seed=i)
            want = agent.act(s), agent.visits.copy()
            me = game.current_player(s)
            for j in range(4):
                t = game.perturb_hidden(s, 1000 + j)
                if j % 2:
                    t = game.determinize(t, me, 2000 + j)
                changed += not np.array_equal(t, s)
                other = GuidedAgent(game, net, cfg, seed=i)
                assert other.act(t) == want[0] and np.array_equal(other.visits, want[1])
    assert changed > 0


@pytest.mark.parametrize("name", GAMES)
def test_the_priors_steer_the_search(name):
    """A network that is indifferent in value (all zero) and sure of one legal action: with
    equal Q everywhere, PUCT follows the prior, and a prior of ~1 - 1e-13 never lets another
    action's term exceed it within 40 simulations, so every simulation goes to that action."""
    game = get_game(name)
    for s in positions(game, min(game.PLAYER_COUNTS), 6, seed=9):
        legal = np.flatnonzero(game.legal_mask(s))
        target = int(legal[-1])  # not the first legal action, which ties would pick
        if game.is_terminal(game.step(s, target)):  # a real result is not indifferent
            continue
        net = network(game, scale=0.0)
        net["b1"][target] = 30.0
        agent = GuidedAgent(game, net, GuidedConfig(sims=40), seed=0)
        assert agent.act(s) == target and agent.visits[target] == 40


@pytest.mark.parametrize("name", GAMES)
def test_a_gumbel_root_halves_its_candidates(name):
    """m=4 considered actions (fewer if fewer are legal), 16 simulations: with 4, two phases of
    sequential halving, the first gives each two simulations, the second the rest (8) to the
    better 2: visits 6, 6, 2, 2; with 3, 2 each then 5 more each to the better 2: 7, 7, 2; with
    2, one phase of 8 each. The visits sum to the budget, the chosen action is among the most
    visited, and the improved policy is a distribution over all the legal actions."""
    want = {4: [2, 2, 6, 6], 3: [2, 7, 7], 2: [8, 8]}
    game = get_game(name)
    if game.NUM_ACTIONS < 3:
        pytest.skip(f"{name} has {game.NUM_ACTIONS} actions: a root never halves past two")
    agent = GuidedAgent(game, network(game, seed=6), GuidedConfig(sims=16, root="gumbel", m=4))
    seen = set()
    for s in positions(game, min(game.PLAYER_COUNTS), 12, seed=13):
        mask = game.legal_mask(s)
        a = agent.act(s)
        k = min(4, int(mask.sum()))
        seen.add(k)
        assert mask[a] and agent.visits[a] == agent.visits.max()
        assert sorted(agent.visits[agent.visits > 0]) == want[k], (k, agent.visits)
        assert abs(agent.policy.sum() - 1.0) < 1e-9 and not agent.policy[~mask].any()
        assert (agent.policy[mask] > 0).all()
    assert seen & {3, 4}, seen


def test_completed_q_and_the_improved_policy_follow_the_paper():
    """A root with 4 legal actions (one illegal), two visited: completed Q is the visited
    children's mean values and, for the unvisited, v_mix = (v_root + N x sum(p q) / sum(p)) /
    (1 + N) over the visited; rescaled by min and max; the improved policy is softmax(logits +
    (50 + max visits) x c_scale x q), here c_scale = 1 (Danihelka et al. 2022, eq. 11 and
    appendix D)."""
    from core.search_tree import (
        F_ACTION,
        F_FIRST,
        F_NEXT,
        F_VISITS,
        completed_q,
        improved_policy,
        new_tree,
    )

    tree, vals, hdr = new_tree(8)
    logits = np.array([0.5, -1.0, 2.0, 0.0, 9.0], np.float32)  # action 4 illegal
    mask = np.array([True, True, True, True, False])
    plog = np.zeros((9, 5), np.float32)
    plog[0] = logits
    visits = {0: (3, 1.5), 2: (1, -0.25)}  # action: (visits, sum of seat 1's returns)
    prev = -1
    for i, (a, (nv, total)) in enumerate(visits.items(), start=1):
        tree[i, F_ACTION], tree[i, F_VISITS], tree[i, F_NEXT] = a, nv, prev
        vals[i, 1] = total
        prev = i
    tree[0, F_FIRST], tree[0, F_VISITS], hdr[0] = prev, 5, 3
    q = np.zeros(5)
    child_of = np.full(5, -1, np.int64)
    v_root = 0.2
    most = completed_q(tree, vals, plog, mask, 1, v_root, child_of, q)
    lg = logits[:4].astype(np.float64)
    p = np.exp(lg - lg.max())
    p /= p.sum()
    v_mix = (v_root + 4 * (p[0] * 0.5 + p[2] * -0.25) / (p[0] + p[2])) / 5
    raw = np.array([0.5, v_mix, -0.25, v_mix])
    want = (raw - raw.min()) / (raw.max() - raw.min())
    assert most == 3 and (child_of == -1).all()
    np.testing.assert_allclose(q[:4], want, rtol=1e-12)
    assert q[4] == 0.0
    pi = np.zeros(5)
    improved_policy(plog, mask, q, most, 1.0, pi)
    e = np.exp(lg + 53 * want - (lg + 53 * want).max())
    np.testing.assert_allclose(pi[:4], e / e.sum(), rtol=1e-9)
    assert pi[4] == 0.0


@pytest.mark.parametrize("name", GAMES)
def test_the_network_alone_plays_its_most_likely_legal_action(name):
    game = get_game(name)
    net = network(game, seed=4, scale=0.5)
    agent = GuidedAgent(game, net, GuidedConfig(sims=0))
    for s in positions(game, max(game.PLAYER_COUNTS), 8, seed=11):
        obs = game.observe(s, game.current_player(s)).astype(np.float64)
        h = np.maximum(net["W0"].astype(np.float64) @ obs + net["b0"], 0.0)
        logits = (net["W1"].astype(np.float64) @ h + net["b1"])[: game.NUM_ACTIONS]
        logits[~game.legal_mask(s)] = -np.inf
        assert agent.act(s) == int(np.argmax(logits))


# the sure-win positions of test_search.py (their claims are checked there): the actor wins alone
# by any of `winning`, which end the game; a move of `losing` lets it go on
SURE_WINS = [
    ("village", "village_sure_win.state", {39, 108, 109, 113}),
    ("troyes", "troyes_pass_while_ahead.state", {166}),
    ("troyes", "troyes_sure_win_source.state", {2, 4, 11, 24, 170}),
]


@pytest.mark.parametrize("name, fname, winning", SURE_WINS)
def test_a_network_that_knows_nothing_finds_the_winning_move(name, fname, winning):
    """Uniform priors and a value of 0 for every open position: the real results of the states
    that end the game are the only signal, and 60 simulations find a move that wins."""
    game = get_game(name)
    s = game.from_bytes((DATA / fname).read_bytes())
    for seed in range(4):
        agent = GuidedAgent(game, network(game, scale=0.0), GuidedConfig(sims=60), seed=seed)
        assert agent.act(s) in winning, seed


def test_a_simulation_allocates_nothing():
    """numba's runtime counts every allocation (NUMBA_NRT_STATS=1, in a fresh process): a search
    of 10 simulations and one of 400 allocate exactly alike."""
    code = """
import numpy as np
from numba.core.runtime import rtsys
from core.guided import GuidedAgent, GuidedConfig
from core.registry import game_names, get_game
from core.testing import decision_positions
def network(g, hidden=16):
    rng = np.random.default_rng(0)
    outs = g.NUM_ACTIONS + max(g.PLAYER_COUNTS)
    return {"W0": (rng.standard_normal((hidden, g.OBS_SIZE)) * 0.1).astype(np.float32),
            "b0": np.zeros(hidden, np.float32),
            "W1": (rng.standard_normal((outs, hidden)) * 0.1).astype(np.float32),
            "b1": np.zeros(outs, np.float32), "activations": np.array(["relu"])}
for name in game_names():
    g = get_game(name)
    n = max(g.PLAYER_COUNTS)
    s = decision_positions(g, n, 1, seed=3, max_moves=30)[0]
    me = g.current_player(s)
    agent = GuidedAgent(g, network(g), GuidedConfig(sims=400, mix=0.5), seed=0)
    agent.act(s)
    s, mask = agent._root, agent._root_mask  # the argument types act passes
    counts = []
    for sims in (10, 400):
        agent.reset()
        before = rtsys.get_allocation_stats().alloc
        agent._loops.pv_search(
            s, mask, g.TABLES, n, me, sims, -1, agent._P, agent._rng, agent._tr, agent._sc,
            agent._net,
        )
        counts.append(rtsys.get_allocation_stats().alloc - before)
    print(name, counts[1] - counts[0])
"""
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, NUMBA_NRT_STATS="1", PYTHONPATH=os.pathsep.join(p for p in paths if p))
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [x.split() for x in out.stdout.split("\n") if x]
    assert len(lines) == len(GAMES), out.stdout
    for name, extra in lines:
        assert extra == "0", (name, extra)
