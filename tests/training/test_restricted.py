"""Restricted play (training.agents.restricted_agent, training.balance.restricted): the wrapped
agent never takes a forbidden action while an allowed one is legal, in every registered game and
for every kind of agent; it is seeded; its fingerprint is its own; bad specs are refused naming
what is allowed; the study runs end to end and finds a planted answer."""

from __future__ import annotations

import numpy as np
import pytest
from game_helpers import fewest

from core.guided import GuidedAgent
from core.registry import game_names, get_game
from training.agents import restricted_agent as rs
from training.agents.policy import PolicyAgent
from training.agents.registry import AgentSpecError, agent_fingerprint, make_agent
from training.arena.evaluate import evaluate
from training.balance import restricted as study
from training.balance.results import ClassRow

GAMES = game_names()
INNER = ["random", "heuristic", "mcts:iters=8"]


def play(game, agents: list, seed: int, check=None) -> list[int]:
    """One game through the public API (new_game, legal_mask, step); `check(seat, state,
    action)` sees every decision before it is played. Agents with notify() are told each
    action (as training.arena.evaluate.play_game does). Returns the actions."""
    s = game.new_game(len(agents), seed)
    listeners = [a for a in agents if hasattr(a, "notify")]
    actions = []
    while not game.is_terminal(s):
        p = game.current_player(s)
        a = int(agents[p].act(s))
        if check is not None:
            check(p, s, a)
        s = game.step(s, a)
        actions.append(a)
        for ag in listeners:
            ag.notify(a)
        assert len(actions) < 100_000
    return actions


def busiest_segment(game, seed: int = 0) -> str:
    """The action segment seat 0 uses most in a random game at the game's fewest players (so
    forbidding it binds often)."""
    n = fewest(game)
    agents = [make_agent("random", game.NAME, n, seed + i) for i in range(n)]
    counts: dict[str, int] = {}

    def count(p, s, a):
        if p == 0:
            name = game.ACTIONS.decode(a)[0]
            counts[name] = counts.get(name, 0) + 1

    play(game, agents, seed, count)
    return max(counts, key=counts.get)


def some_items(game_name: str) -> str | None:
    """Every other forbiddable item of the game, joined by + (None: the game has none)."""
    hook = rs.item_hook(game_name)
    if hook.actions is None or not hook.forbiddable:
        return None
    return "+".join(rs.item_key(hook, i) for i in hook.forbiddable[::2])


class Checker:
    """Checks the restricted seat's decisions: legal, and never forbidden while an allowed action
    is legal; counts binding and forced decisions."""

    def __init__(self, game, seat: int, restriction: rs.Restriction):
        self.game, self.seat, self.r = game, seat, restriction
        self.decisions = self.binding = self.forced = 0

    def __call__(self, p, s, a):
        if p != self.seat:
            return
        legal = self.game.legal_mask(s)
        forbidden = self.r.forbidden(s)
        assert legal[a], f"illegal action {a}"
        self.decisions += 1
        if (legal & forbidden).any():
            self.binding += 1
            if (legal & ~forbidden).any():
                assert not forbidden[a], (
                    f"{self.game.NAME}: took forbidden {self.game.ACTIONS.decode(a)} "
                    f"while {np.flatnonzero(legal & ~forbidden).tolist()} were allowed"
                )
            else:
                self.forced += 1


def run_restricted_games(game_name: str, spec: str, inner: str, games: int = 2) -> Checker:
    game = get_game(game_name)
    n = fewest(game)
    checker = None
    for k in range(games):
        seat = k % n
        agents = [make_agent(inner, game_name, n, 10 + k) for _ in range(n)]
        agents[seat] = make_agent(spec, game_name, n, 20 + k)
        if checker is None:
            checker = Checker(game, seat, agents[seat].restriction)
        checker.seat = seat
        play(game, agents, 100 + k, checker)
        assert agents[seat].overruled == 0  # it chose among the allowed actions itself
    return checker


# --- the wrapper never takes a forbidden action ----------------------------------------------
@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("inner", INNER)
def test_a_forbidden_segment_is_never_taken(game_name, inner):
    segment = busiest_segment(get_game(game_name))
    spec = rs.restricted_spec(inner, segment)
    agent = make_agent(spec, game_name, fewest(get_game(game_name)), 0)
    assert agent.rule == rs.RULE_MASK  # the library's agents choose under the allowed mask
    checker = run_restricted_games(game_name, spec, inner)
    assert checker.binding > 0, f"forbidding {segment} never bound: the test shows nothing"


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("inner", ["random", "heuristic"])
def test_forbidden_items_are_never_taken(game_name, inner):
    items = some_items(game_name)
    if items is None:
        pytest.skip(f"{game_name} names no actions that take its items")
    checker = run_restricted_games(game_name, rs.restricted_spec(inner, items), inner, games=3)
    assert checker.decisions > 0


def test_a_user_agent_is_handed_the_allowed_actions_as_its_mask():
    # first_legal plays the lowest legal id; restricted from `take` (id 0 in Chip In) it pays
    spec = rs.restricted_spec("py:tournament_agents:first_legal", "take")
    agent = make_agent(spec, "chipin", 2, 5)
    assert agent.rule == rs.RULE_MASK
    assert agent.inner.inner.resets == [5]  # reset with its seed, as tournaments do
    checker = run_restricted_games("chipin", spec, "random", games=2)
    assert checker.binding > 0


def random_actor(game, outputs: int, seed: int) -> dict[str, np.ndarray]:
    """A random Linear-tanh-Linear network in the trained-actor format (W0, b0, W1, b1,
    activations) mapping the observation to `outputs` values."""
    rng = np.random.default_rng(seed)
    h = 16
    return {
        "W0": rng.normal(size=(h, game.OBS_SIZE)).astype(np.float32),
        "b0": np.zeros(h, np.float32),
        "W1": rng.normal(size=(outputs, h)).astype(np.float32),
        "b1": rng.normal(size=outputs).astype(np.float32),
        "activations": np.array(["tanh"]),
    }


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("kind", ["policy", "policy-sampled", "guided", "network-alone"])
def test_trained_agents_choose_under_the_allowed_mask(game_name, kind):
    game = get_game(game_name)
    segment = busiest_segment(game, seed=3)
    restriction = rs.parse_forbid(game_name, segment)
    seats = max(game.PLAYER_COUNTS)

    def inner(seed):
        if kind.startswith("policy"):
            arrays = random_actor(game, game.NUM_ACTIONS, 0)
            return PolicyAgent(game, arrays, seed, deterministic=kind == "policy")
        arrays = random_actor(game, game.NUM_ACTIONS + seats, 1)
        return GuidedAgent(game, arrays, "sims=0" if kind == "network-alone" else "sims=8", seed)

    n = fewest(game)
    checker = Checker(game, 0, restriction)
    for k in range(2):
        checker.seat = k % n
        agents = [make_agent("random", game_name, n, k) for _ in range(n)]
        agents[k % n] = rs.RestrictedAgent(game, inner(k), restriction, seed=k)
        assert agents[k % n].rule == rs.RULE_MASK
        play(game, agents, 200 + k, checker)
        assert agents[k % n].overruled == 0
    assert checker.binding > 0


class OwnMind:
    """An agent of no kind the library knows: plays the highest legal id, reading the real legal
    mask itself (so only the `ask` fallback can restrict it)."""

    name = "own-mind"

    def __init__(self, game, scores: bool = False):
        self._game = game
        if scores:  # expose scores: the fallback then takes the best-scored allowed action
            self.logits = lambda state: -np.arange(game.NUM_ACTIONS, dtype=np.float64)

    def act(self, state):
        return int(np.flatnonzero(self._game.legal_mask(state))[-1])


@pytest.mark.parametrize("scores", [False, True])
def test_an_unknown_agent_falls_back_to_the_documented_rule(scores):
    game = get_game("chipin")
    restriction = rs.parse_forbid("chipin", "bury")  # the highest id: OwnMind's favourite

    fallback_choices = []

    def one_game(seed):
        agent = rs.RestrictedAgent(game, OwnMind(game, scores), restriction, seed=seed)
        checker = Checker(game, 0, restriction)

        def check(p, s, a):
            checker(p, s, a)
            legal = game.legal_mask(s)
            if p == 0 and (legal & restriction.forbidden(s)).any():
                fallback_choices.append((a, np.flatnonzero(legal & ~restriction.forbidden(s))))

        actions = play(game, [agent, make_agent("random", "chipin", 2, 1)], 7, check)
        return agent, checker, actions

    agent, checker, actions = one_game(3)
    assert agent.rule == rs.RULE_ASK
    assert "ask" in agent.description and "seeded uniform" in agent.description
    # OwnMind always wants bury when it is legal: every binding decision is overruled
    assert checker.binding > 0 and agent.overruled == checker.binding - checker.forced
    if scores:  # the best-scored allowed action: logits prefer low ids
        assert all(a == allowed.min() for a, allowed in fallback_choices)
    else:  # seeded uniform: both allowed actions come up, and the draws replay
        assert len({a for a, _ in fallback_choices}) > 1
        assert one_game(3)[2] == actions


# --- seeds, fingerprints, specs --------------------------------------------------------------
@pytest.mark.parametrize("inner", ["random", "heuristic", "mcts:iters=8"])
def test_the_same_seed_gives_the_same_decisions(inner):
    spec = rs.restricted_spec(inner, "pay")
    game = get_game("chipin")

    def actions(seed):
        agents = [make_agent(spec, "chipin", 2, seed), make_agent(inner, "chipin", 2, 99)]
        return play(game, agents, 4)

    assert actions(1) == actions(1)
    if inner == "random":
        assert any(actions(1) != actions(s) for s in range(2, 6))


def test_an_unbinding_restriction_plays_as_the_inner_agent():
    # a card taken by nobody: forbidding it never binds, so the same seed plays the same game
    game = get_game("chipin")
    base = play(game, [make_agent("heuristic", "chipin", 2, s) for s in (1, 2)], 9)
    hook = rs.item_hook("chipin")
    s = game.new_game(2, 9)
    offered = set()  # items some action could take at some decision of the game
    for a in base:
        offered |= {i for i in hook.forbiddable if len(hook.actions(s, i))}
        s = game.step(s, a)
    never = next(i for i in hook.forbiddable if i not in offered)
    spec = rs.restricted_spec("heuristic", rs.item_key(hook, never))
    agents = [make_agent(spec, "chipin", 2, 1), make_agent("heuristic", "chipin", 2, 2)]
    assert play(game, agents, 9) == base
    assert agents[0].binding == 0


def test_the_fingerprint_is_the_restrictions_own():
    inner = agent_fingerprint("heuristic", "chipin", 2)
    pay = agent_fingerprint(rs.restricted_spec("heuristic", "pay"), "chipin", 2)
    bury = agent_fingerprint(rs.restricted_spec("heuristic", "bury"), "chipin", 2)
    assert pay != inner and bury != inner and pay != bury
    assert inner in pay  # the inner agent's contents are part of it
    both = agent_fingerprint(rs.restricted_spec("heuristic", "pay+bury"), "chipin", 2)
    assert both == agent_fingerprint(rs.restricted_spec("heuristic", "bury+pay"), "chipin", 2)
    other = agent_fingerprint(rs.restricted_spec("random", "pay"), "chipin", 2)
    assert other != pay


@pytest.mark.parametrize(
    "spec, words",
    [
        ("restrict:heuristic", ["forbid=NAME", "agent=SPEC"]),
        ("restrict:forbid=take", ["forbid=NAME", "agent=SPEC"]),
        ("restrict:agent=heuristic", ["forbid=NAME"]),
        ("restrict:forbid=,agent=heuristic", ["action segments: take, pay, bury"]),
        ("restrict:forbid=steal,agent=heuristic", ["'steal'", "action segments: take, pay, bury"]),
        ("restrict:forbid=card:99,agent=heuristic", ["'card:99'", "items: card:3, card:4"]),
        ("restrict:forbid=take,agent=nobody", ["'nobody'", "heuristic", "random"]),
    ],
)
def test_a_bad_spec_is_refused_naming_what_is_allowed(spec, words):
    with pytest.raises(ValueError) as e:
        make_agent(spec, "chipin", 2, 0)
    text = str(e.value)
    assert "\n" not in text
    for w in words:
        assert w in text, text


def test_an_item_no_action_takes_is_refused():
    hook = rs.item_hook("troyes")
    dealt = next(n for i, n in enumerate(hook.names) if i not in hook.forbiddable)  # a character
    with pytest.raises(ValueError, match="cannot be forbidden.*action segments: "):
        rs.parse_forbid("troyes", dealt)


def test_a_game_without_the_item_hook_forbids_segments_only(monkeypatch):
    monkeypatch.delattr(rs.stats_module("chipin"), "item_actions")
    with pytest.raises(ValueError, match="names no actions that take its items") as e:
        make_agent(rs.restricted_spec("heuristic", "card:10"), "chipin", 2, 0)
    assert "action segments: take, pay, bury" in str(e.value)
    assert make_agent(rs.restricted_spec("heuristic", "take"), "chipin", 2, 0).rule == "mask"


def test_item_names_short_keys_and_full_names_are_one_restriction():
    hook = rs.item_hook("village")
    full = hook.names[hook.forbiddable[0]]
    assert " " in full and "+" in full  # e.g. "customer:T1 horse+plow=6"
    a = rs.parse_forbid("village", f"serve+{full}")
    b = rs.parse_forbid("village", f"{rs.short_key(full)}+serve")
    assert a.label == b.label == f"serve+{rs.short_key(full)}"
    assert a.items == b.items and a.segments == b.segments == ("serve",)


def test_the_spec_plays_in_evaluate():
    res = evaluate("chipin", 2, [rs.restricted_spec("heuristic", "pay+bury"), "heuristic"], 4)
    assert res is not None


# --- the study --------------------------------------------------------------------------------
def test_the_planted_case_has_share_exactly_zero(tmp_path):
    """Chip In (docs/games/chipin.md): score = chips - the lowest card of each run held,
    cards 3..35. Forbidden `pay` and `bury`, an agent can only take, and a taker decides again,
    so from its first decision on it takes every card left. The unrestricted greedy heuristic
    values each action by its projected score, which in Chip In is the score itself (its
    k_evaluate): at its first decision, holding no card over an empty pot, take costs at least
    3 points, pay 1, bury 0, so it buries (or never decides, when the restricted agent starts).
    It ends with its 11 chips and no card (score 11); the restricted agent with its own 11 chips
    and 23 or 24 cards (score <= 11 - 3). So the restricted agent loses every game: share 0."""
    res = study.run_study(
        "chipin", 2, "heuristic", ["pay+bury"], 8, tmp_path / "c.sqlite", progress=False
    )
    (row,) = res.rows
    assert row.games == 8 and row.wins == 0.0 and row.win_share == 0.0
    assert row.lo == 0.0 and 0.0 < row.hi < 0.5
    assert row.significant and row.p_adj < 0.01 and row.adj_hi < 0.5
    assert row.binding == row.decisions > 0 and row.forced == row.violations == 0
    assert row.mean_score_unrestricted == 11.0


def test_the_study_cli_runs_end_to_end(tmp_path, capsys):
    out = tmp_path / "out"
    argv = [
        "--game", "chipin", "--players", "2", "--agent", "random", "--forbid", "take",
        "all-segments", "card:10", "--games", "4", "--db", str(tmp_path / "r.sqlite"),
        "--out", str(out), "--no-progress", "--seed", "3",
    ]  # fmt: skip
    assert study.main(argv) == 0
    printed = capsys.readouterr().out
    assert "forbid pay:" in printed and "report:" in printed
    for name in ("report.md", "restricted.csv", "restricted.png", "result.json"):
        assert (out / name).stat().st_size > 0
    report = (out / "report.md").read_text()
    rules = str(get_game("chipin").RULES_DATA_HASH)
    assert "N = 4 games per forbidden class" in report and rules in report
    rows = (out / "restricted.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["take", "pay", "bury", "card:10"]
    # the same command again plays nothing new: the games are in the store
    assert study.main(argv) == 0


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--forbid", "steal"], ["'steal'", "action segments: take, pay, bury"]),
        (["--forbid", "take", "--agent", "nobody"], ["'nobody'"]),
        (["--forbid", "take", "--games", "3"], ["multiple of --players"]),
    ],
)
def test_the_study_cli_refuses_in_one_line(tmp_path, capsys, extra, words):
    argv = ["--game", "chipin", "--players", "2", "--games", "4"]
    argv += ["--db", str(tmp_path / "r.sqlite"), "--out", str(tmp_path / "o"), "--no-progress"]
    with pytest.raises(SystemExit) as e:
        study.main(argv + extra)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    for w in words:
        assert w in err, err


def class_row(wins: float, games: int, p: float | None) -> ClassRow:
    """A class's row with its wins, games and score-test p (the rest as a study leaves it)."""
    return ClassRow(
        forbid="take", kind="segment", spec="restrict:forbid=take,agent=random", games=games,
        wins=wins, win_share=wins / games, lo=None, hi=None, null_share=0.5, z=None, p=p,
        mean_score_restricted=None, mean_score_unrestricted=None, decisions=0, binding=0,
        forced=0, violations=0, binding_share=None, rule="", description="", tournament_games=0,
        played_now=0,
    )  # fmt: skip


@pytest.mark.parametrize("correction", ["holm", "bh"])
def test_adjusted_intervals_exclude_the_null_exactly_when_significant(correction):
    rng = np.random.default_rng(5)
    for _ in range(200):
        m = int(rng.integers(1, 8))
        n = int(rng.integers(4, 200))
        rows = []
        for share in rng.uniform(0.1, 0.6, size=m):
            wins = float(rng.binomial(n, share))
            z, p = study.score_test(wins, n, 0.5)
            rows.append(class_row(wins, n, p))
        for r in study.adjust_rows(rows, 0.05, correction):
            excludes = r.adj_lo > 0.5 or r.adj_hi < 0.5
            assert excludes == r.significant, (correction, r)


def test_holm_adjusted_p_values_match_the_definition():
    p_adj, level = study.adjust([0.01, None, 0.04, 0.03, 0.5], 0.05, "holm")
    # sorted 0.01, 0.03, 0.04, 0.5 (m = 4): 0.04, 0.09, 0.09 (max with 0.08), 0.5
    assert p_adj[1] is None and level[1] is None
    assert p_adj[0] == pytest.approx(0.04)
    assert p_adj[3] == pytest.approx(0.09)
    assert p_adj[2] == pytest.approx(0.09)
    assert p_adj[4] == pytest.approx(0.5)
    # the first step rejects (0.01 <= 0.05 / 4), the second does not (0.03 > 0.05 / 3)
    assert level[0] == pytest.approx(0.05 / 4)
    assert level[3] == level[2] == level[4] == pytest.approx(0.05 / 3)


def test_all_segments_and_all_items_expand():
    seg = study.forbid_classes("chipin", ["all-segments", "take"])
    assert [label for label, _ in seg] == ["take", "pay", "bury"]
    items = study.forbid_classes("chipin", ["all-items"])
    assert len(items) == len(rs.item_hook("chipin").forbiddable)
    with pytest.raises(ValueError, match="action segments"):
        study.forbid_classes("chipin", [])


def test_restricted_spec_errors_are_agent_spec_errors():
    with pytest.raises(AgentSpecError):
        make_agent("restrict:forbid=steal,agent=heuristic", "chipin", 2, 0)


def test_all_items_of_a_game_without_items_is_refused_in_one_plain_line(monkeypatch):
    monkeypatch.delattr(rs.stats_module("chipin"), "item_actions")
    with pytest.raises(ValueError) as e:
        study.forbid_classes("chipin", ["all-items"])
    msg = str(e.value)
    assert msg == (
        "--forbid all-items: no item to forbid; action segments: take, pay, bury; chipin names "
        "no actions that take its items"
    )
    assert msg.count("names no actions") == 1 and "\n" not in msg
