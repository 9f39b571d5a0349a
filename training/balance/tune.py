"""Rules tuning toward a target: search a space of rules-data values for the setting that best
meets an objective, then confirm it with a significance-gated check on fresh deals.

    python -m training.balance.tune --game troyes --players 2 --agents heuristic \\
        --space space.json --objective seat-fairness --games 200 --budget 30 \\
        --check-games 600 --db runs/balance/troyes.sqlite --out runs/balance/tune_seats

The space file names override keys and the values each may take:

    {"game": "troyes", "keys": {"PASS_DENIERS": [1, 2, 3], "PENALTY_VP": "0:3:1"}}

(a list of JSON values, or a `LO:HI:STEP` range; the starting value of each key is added when it
is missing, so "leave it as it is" is always a choice). The starting rules are the default ones,
or with `--base FILE` the default ones with that override file (say, a variant with an imbalance
to remove): every point's rules are the base file's values with the point's on top. Objectives,
each a loss to bring to 0:

- `seat-fairness`: the largest gap between a seat's win share and 1 / players;
- `margin:T`: the gap between the mean winner's margin and T points;
- `rounds:T`: the gap between the mean game length in rounds and T;
- `item-lift:NAME`: the absolute win-share lift of the players who took item NAME (a Village
  customer tile, a Troyes card or character; its full name or short key, e.g. `customer:T5`)
  over the players of games where it was in play who did not.

Search: NTBEA (training.balance.ntbea) with `--budget` evaluations; each evaluation is a balance
study of `--games` games under the point's rules data, every point on the same tournament seed,
so every point is played on the same deals (common random numbers) and a point seen again is
read back from the store. Check: the recommendation and each one-parameter deviation from it
(each key moved to each of its other values) are played on `--check-games` fresh deals (seed + 1,
the same deals for all); each deviation's loss minus the recommendation's is a paired bootstrap
over those deals, its p-value Holm-adjusted over the deviations. A deviation that is
significantly better replaces the recommendation and the check is repeated (at most
`--check-rounds` times); then every changed key whose return to its starting value is not
significantly worse goes back (fewer changes preferred). Output under --out: tuned.json (the
override file of the tuned rules: the base file's values and the tuned keys), report.md,
tune.png, result.json, points/*.json.

A conditioned `az` agent (its network reads the rules, training.balance.adapt) plays every
candidate reading its rules, so the search is made with players who respond to each candidate;
every value of the space must lie in the network's variant space (checked before any game). The
report then gives the tuned rules' loss with the conditioned agents beside the same agents blind
to the rules, and the strategic response, as `--adapt` does.

`--adapt MINUTES`: the search plays every `az` agent unadapted (`rules=any`); then the tuned rules
are played on the check's deals with those agents fine-tuned to them (training.balance.adapt),
and the report gives the loss with adapted agents beside fixed ones and the strategic response
(training.balance.response).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from core.registry import game_names, get_game
from core.rules_file import (
    load_rules_file,
    read_rules_file,
    rules_file_data,
    rules_keys,
)
from core.variant_space import space_of
from training.arena.cli import OneLineParser
from training.arena.leaderboard import figure
from training.arena.tournament import json_default
from training.balance import adapt as ad
from training.balance import ntbea as nt
from training.balance import paired
from training.balance.cli import add_run_arguments, backend_session, guarded
from training.balance.game_stats import GameStats, StatsError, stats_modules
from training.balance.markdown import interval, num, pval, table
from training.balance.play import run_study
from training.balance.report import stamp
from training.balance.response import adapted_variant, adapted_word, relabel
from training.balance.response import section as response_section
from training.balance.results import (
    AdaptedTuning,
    CheckRound,
    Deviation,
    LossDifference,
    Reversion,
    TuneResult,
)
from training.balance.sweep import REFERENCE_RESPONSE, parse_values

UNDEFINED_LOSS = 1e3  # the search's loss where the objective is undefined (no taker seen)
MAX_BUDGET = 500
MAX_DEVIATIONS = 64
N_BOOT = 2000
OBJECTIVES = ("seat-fairness", "margin:T", "rounds:T", "item-lift:NAME")


# --- objectives -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Objective:
    """A loss computed from per-game columns: `columns(st)` gives a (G, k) array whose column
    means determine the loss (`loss(means)`), so the loss of any resample of games is the loss
    of its column means."""

    kind: str
    target: float | None = None
    item: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "seat-fairness":
            return "largest seat win-share gap from 1/players"
        if self.kind == "item-lift":
            return f"|win-share lift of the takers of {self.item}|"
        return f"|mean {self.kind} - {self.target:g}|"

    def columns(self, st: GameStats) -> np.ndarray:
        if self.kind == "seat-fairness":
            return st.win_shares.astype(np.float64)
        if self.kind == "margin":
            return st.margin.astype(np.float64)[:, None]
        if self.kind == "rounds":
            return st.rounds.astype(np.float64)[:, None]
        i = st.items.index(self.item)
        took = st.taken[:, :, i]
        other = st.in_play[:, i][:, None] & ~took
        ws = st.win_shares
        return np.stack(
            [(ws * took).sum(1), took.sum(1), (ws * other).sum(1), other.sum(1)], axis=1
        ).astype(np.float64)

    def loss(self, means: np.ndarray) -> float:
        """The loss of column means (one row) or of many resamples (rows), nan where undefined."""
        m = np.atleast_2d(means)
        if self.kind == "seat-fairness":
            out = np.abs(m - 1.0 / m.shape[1]).max(axis=1)
        elif self.kind in ("margin", "rounds"):
            out = np.abs(m[:, 0] - self.target)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                out = np.abs(m[:, 0] / m[:, 1] - m[:, 2] / m[:, 3])
        return out if np.ndim(means) == 2 else float(out[0])


def parse_objective(text: str, items: tuple[str, ...] = ()) -> Objective:
    """An Objective from `seat-fairness`, `margin:T`, `rounds:T` or `item-lift:NAME`; ValueError
    naming what is allowed otherwise."""
    kind, _, arg = text.partition(":")
    if kind == "seat-fairness" and not arg:
        return Objective("seat-fairness")
    if kind in ("margin", "rounds") and arg:
        try:
            t = float(arg)
        except ValueError:
            t = math.nan
        if not math.isfinite(t) or t < 0:
            raise ValueError(f"--objective {text}: the target must be a number >= 0")
        return Objective(kind, target=t)
    if kind == "item-lift" and arg:
        named = [i for i in items if arg in (i, i.split(" ")[0])]  # full name or short key
        if not named:
            raise ValueError(
                f"--objective {text}: no item {arg!r} (items: {', '.join(items) or 'none'})"
            )
        return Objective("item-lift", item=named[0])
    raise ValueError(f"--objective {text}: use one of {', '.join(OBJECTIVES)}")


# --- the search space -------------------------------------------------------------------------
def read_space(path: str | Path, game: str, base: dict | None = None) -> dict[str, list[Any]]:
    """{key: values} from a space file, each key's starting value (in `base`, the values of the
    starting override file, else the default) included (first when added).
    ValueError (one line) for a malformed file; RulesFileError for a key or value the game
    refuses (checked when the points are written)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"{path}: cannot read the space file: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON: {e}") from None
    if not isinstance(doc, dict) or set(doc) - {"game", "keys", "description"}:
        raise ValueError(f'{path}: a space file is {{"game": ..., "keys": {{KEY: VALUES}}}}')
    if doc.get("game") != game:
        raise ValueError(f"{path}: game: the file is for {doc.get('game')!r}, not {game!r}")
    keys = doc.get("keys")
    if not isinstance(keys, dict) or not keys:
        raise ValueError(f"{path}: keys: give at least one KEY: [values] or KEY: LO:HI:STEP")
    rk = rules_keys(game)
    space = {}
    for key, vals in keys.items():
        if isinstance(vals, str):
            vals = parse_values([vals])
        if not isinstance(vals, list) or not vals:
            raise ValueError(f"{path}: {key}: expected a list of values or LO:HI:STEP")
        try:
            current = rk.get(rk.default, key)
        except KeyError as e:
            raise ValueError(f"{path}: {key}: {rk._unknown(key, e.args[0])}") from None
        current = (base or {}).get(key, current)
        if current not in vals:
            vals = [current, *vals]
        space[key] = vals
    return space


def current_point(
    space: dict[str, list[Any]], game: str, base: dict | None = None
) -> tuple[int, ...]:
    """The point of the starting rules (the base file's values, else the defaults)."""
    rk = rules_keys(game)
    return tuple(
        vals.index((base or {}).get(key, rk.get(rk.default, key))) for key, vals in space.items()
    )


class Evaluator:
    """Plays (or reads back) the balance study of a point of the space and caches its stats."""

    def __init__(self, game, players, agents, db, space, folder: Path, base=None, **kw):
        self.game, self.players, self.agents, self.db = game, players, agents, db
        self.keys = list(space)
        self.space = space
        self.folder = folder
        self.base = dict(base or {})  # the starting override values ({}: the default rules)
        self.base_file: str | None = None  # where they came from (for the report)
        self.kw = kw
        self.default_hash = str(get_game(game).RULES_DATA_HASH)
        self.cache: dict[tuple, GameStats] = {}
        folder.mkdir(parents=True, exist_ok=True)
        self.base_hash = self.file(current_point(space, game, self.base))[1]

    def values(self, point) -> dict[str, Any]:
        return {k: self.space[k][i] for k, i in zip(self.keys, point, strict=True)}

    def changes(self, point) -> dict[str, Any]:
        """The point's values that differ from the starting rules."""
        rk = rules_keys(self.game)
        return {
            k: v
            for k, v in self.values(point).items()
            if v != self.base.get(k, rk.get(rk.default, k))
        }

    def overrides(self, point) -> dict[str, Any]:
        """The override values of the point's rules: the base file's, then the point's, less
        those equal to the default."""
        rk = rules_keys(self.game)
        merged = {**self.base, **self.values(point)}
        return {k: v for k, v in merged.items() if v != rk.get(rk.default, k)}

    def file(self, point) -> tuple[Path | None, str]:
        """The point's override file (None for the default rules) and its RULES_DATA_HASH."""
        values = self.overrides(point)
        if not values:
            return None, self.default_hash
        name = "_".join(str(i) for i in point)
        path = self.folder / f"point_{name}.json"
        doc = {"game": self.game, "description": f"tuning point {values}", "values": values}
        path.write_text(json.dumps(doc, indent=1) + "\n")
        return path, rules_file_data(path, self.game)[1]

    def stats(self, point, games: int, seed: int) -> GameStats:
        key = (tuple(point), games, seed)
        if key not in self.cache:
            path, _ = self.file(point)
            res = run_study(
                self.game, self.players, self.agents, games, self.db, path, seed=seed, **self.kw
            )
            self.cache[key] = res.stats
        return self.cache[key]


# --- the check ------------------------------------------------------------------------------
def paired_loss_difference(
    obj: Objective, a: np.ndarray, b: np.ndarray, n_boot: int = N_BOOT, seed: int = 0
) -> LossDifference:
    """loss(b) - loss(a) over paired games (row g of `a` and `b`: the same deal) with a paired
    percentile bootstrap 95% interval and a two-sided bootstrap p-value (twice the smaller tail
    share of resampled differences on either side of 0, at most 1)."""
    n = a.shape[0]
    d = obj.loss(b.mean(0)) - obj.loss(a.mean(0))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    ma, mb = a[idx].mean(axis=1), b[idx].mean(axis=1)
    diffs = obj.loss(mb) - obj.loss(ma)
    diffs = diffs[~np.isnan(diffs)]
    if diffs.size == 0 or math.isnan(d):
        return LossDifference(None, None, None, None, n)
    lo, hi = np.quantile(diffs, [0.025, 0.975])
    tail = min((diffs <= 0).mean(), (diffs >= 0).mean())
    return LossDifference(float(d), float(lo), float(hi), min(1.0, 2 * tail), n)


def holm(p: list[float | None]) -> list[float | None]:
    """Holm step-down adjusted p-values (None stays None)."""
    idx = sorted((v, i) for i, v in enumerate(p) if v is not None)
    out: list[float | None] = [None] * len(p)
    m, run = len(idx), 0.0
    for rank, (v, i) in enumerate(idx):
        run = max(run, min(1.0, (m - rank) * v))
        out[i] = run
    return out


def deviations(point: tuple[int, ...], sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every point that differs from `point` in exactly one dimension."""
    out = []
    for d, s in enumerate(sizes):
        for v in range(s):
            if v != point[d]:
                out.append(point[:d] + (v,) + point[d + 1 :])
    return out


def check(
    obj: Objective,
    columns,
    point: tuple[int, ...],
    sizes: tuple[int, ...],
    alpha: float = 0.05,
    seed: int = 0,
) -> CheckRound:
    """The one-step-deviation check of `point`: `columns(q)` gives the (G, k) objective columns
    of point q on the check's deals (row g the same deal for every point). A row per deviation
    (its loss minus the point's, bootstrap interval, p, Holm-adjusted p) and "better": the
    deviation with the lowest loss among those significantly better, or None."""
    base = columns(point)
    rows = []
    for q in deviations(point, sizes):
        r = paired_loss_difference(obj, base, columns(q), seed=seed)
        loss = obj.loss(columns(q).mean(0))
        rows.append(Deviation(q, loss, r.diff, r.lo, r.hi, r.p, r.n))
    rows = [replace(r, p_holm=v) for r, v in zip(rows, holm([r.p for r in rows]), strict=True)]
    better = [r for r in rows if r.diff is not None and r.diff < 0 and r.p_holm < alpha]
    best = min(better, key=lambda r: r.diff).point if better else None
    return CheckRound(point, obj.loss(base.mean(0)), rows, best)


def simplify(
    obj: Objective,
    columns,
    point: tuple[int, ...],
    current: tuple[int, ...],
    alpha: float = 0.05,
    seed: int = 0,
) -> tuple[tuple[int, ...], list[Reversion]]:
    """Fewer changes preferred: each changed dimension, in order, goes back to its starting value
    when that is not significantly worse (the paired bootstrap's p >= alpha, or better). Returns
    the simplified point and a row per tested return."""
    point = tuple(point)
    log = []
    for d in range(len(point)):
        if point[d] == current[d]:
            continue
        q = point[:d] + (current[d],) + point[d + 1 :]
        r = paired_loss_difference(obj, columns(point), columns(q), seed=seed)
        keep = r.diff is not None and r.diff > 0 and r.p < alpha
        log.append(Reversion(d, q, r.diff, r.lo, r.hi, r.p, r.n, not keep))
        if not keep:
            point = q
    return point, log


# --- the whole run ----------------------------------------------------------------------------
def tune(
    ev: Evaluator,
    obj: Objective,
    games: int,
    budget: int,
    check_games: int,
    seed: int = 0,
    check_rounds: int = 3,
) -> TuneResult:
    """Search the space (NTBEA on `games` games per point), check the recommendation on
    `check_games` fresh deals (module docstring) and prefer fewer changes."""
    space = ev.space
    sizes = tuple(len(v) for v in space.values())
    current = current_point(space, ev.game, ev.base)

    def fitness(point):
        loss = obj.loss(obj.columns(ev.stats(point, games, seed)).mean(0))
        return -UNDEFINED_LOSS if math.isnan(loss) else -loss  # an item never taken or missed

    search = nt.ntbea(sizes, fitness, budget, seed=seed, start=current)
    check_seed = seed + 1

    def columns(point):
        st = ev.stats(point, check_games, check_seed)
        ref = ev.stats(current, check_games, check_seed)
        ib, iv = paired.match_pairs(ref, st)
        if ib.size != len(ref):
            raise StatsError("the check's games do not pair up across points (the same deals)")
        return obj.columns(st)[iv]

    point = search.best
    rounds = []
    for _ in range(check_rounds):
        c = check(obj, columns, point, sizes, seed=check_seed)
        rounds.append(c)
        if c.better is None:
            break
        point = c.better
    confirmed = rounds[-1].better is None
    final, reverted = simplify(obj, columns, point, current, seed=check_seed)
    vs_current = paired_loss_difference(obj, columns(current), columns(final), seed=check_seed)
    return TuneResult(
        sizes=sizes,
        current=current,
        search=search,
        check_rounds=rounds,
        confirmed=confirmed,
        simplified=reverted,
        final=final,
        final_changes=ev.changes(final),
        final_overrides=ev.overrides(final),
        final_loss=obj.loss(columns(final).mean(0)),
        current_loss=obj.loss(columns(current).mean(0)),
        vs_current=vs_current,
    )


def outside_space(game: str, space: dict, base: dict, conditioned: list[str]) -> None:
    """Refuse, before anything is written, a space with a value outside the variant space the
    `conditioned` agents read (they would refuse that point in the middle of the search)."""
    if not conditioned:
        return
    rk, vs = rules_keys(game), space_of(get_game(game))
    for key, vals in space.items():
        for v in vals:
            why = vs.outside(rk.apply({**base, key: v}, where=f"{key}={json.dumps(v)}"))
            if why is not None:
                raise ValueError(f"{conditioned[0]} reads the rules of its variant space: {why}")


def adapted_check(
    ev: Evaluator, obj: Objective, res: TuneResult, agents, minutes, cache, games, seed
) -> AdaptedTuning | None:
    """The tuned rules with the learned agents adapted to them (training.balance.response): the
    strategic response against the starting rules on the check's deals, and the objective's loss
    with adapted agents minus with fixed agents (paired bootstrap). None when the tuned rules
    are the default rules (the agents' own: nothing to adapt)."""
    path, _ = ev.file(res.final)
    if path is None:
        return None
    spec_of = {ad.fixed_spec(a): a for a in agents if ad.is_az(a)}
    start = relabel(ev.stats(res.current, games, seed), spec_of)
    both = adapted_variant(
        ev.game, ev.players, list(agents), games, ev.db, path, start, minutes, cache,
        seed=seed, **ev.kw,
    )  # fmt: skip
    fst, ast = both.fixed.stats, both.adapted.stats
    i_f, i_a = paired.match_pairs(fst, ast)
    cf, ca = obj.columns(fst)[i_f], obj.columns(ast)[i_a]
    return AdaptedTuning(
        rules_file=str(path),
        loss_fixed=obj.loss(cf.mean(0)),
        loss_adapted=obj.loss(ca.mean(0)),
        adapted_minus_fixed=paired_loss_difference(obj, cf, ca, seed=seed),
        response=both.response,
    )


def adapted_lines(ad_res: AdaptedTuning | None, obj: Objective) -> list[str]:
    if ad_res is None:
        return ["## With adapted agents", "", REFERENCE_RESPONSE, ""]
    d = ad_res.adapted_minus_fixed
    word = adapted_word(ad_res.response)
    how = "reading them (conditioned networks)" if word == "conditioned" else "fine-tuned to them"
    lines = [
        f"## With {word} agents",
        "",
        f"Under the tuned rules the loss ({obj.label}) is {num(ad_res.loss_fixed)} with the "
        f"agents unadapted and {num(ad_res.loss_adapted)} with the learned agents {how}: "
        f"{word} - fixed {num(d.diff)} {interval(d.lo, d.hi)} (paired bootstrap "
        f"95%), p = {pval(d.p)}, on the check's deals. A tuning that holds only for players "
        "who ignore the change shows here.",
    ]
    return lines + response_section(ad_res.response, "### Strategic response") + [""]


def _pt(ev: Evaluator, point) -> str:
    ch = ev.changes(point)
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in ch.items()) or "(the starting rules)"


def write_tune_report(ev, obj, res, args_text: str, out: Path, games: int, check_games: int):
    out.mkdir(parents=True, exist_ok=True)
    tuned = {
        "game": ev.game,
        "description": f"tuned toward {obj.label} by python -m training.balance.tune",
        "values": res.final_overrides,
    }
    (out / "tuned.json").write_text(json.dumps(tuned, indent=1, default=json_default) + "\n")
    _plot_search(ev, obj, res, out / "tune.png", games, check_games)
    lines = _summary_lines(ev, obj, res, args_text, check_games)
    lines += _search_lines(ev, res, games)
    for k, c in enumerate(res.check_rounds):
        lines += _check_lines(ev, k, c)
    if res.simplified:
        lines += _simplified_lines(ev, res.simplified)
    if res.adapted_checked:
        lines += adapted_lines(res.adapted, obj)
    (out / "report.md").write_text("\n".join(lines))
    (out / "result.json").write_text(
        json.dumps(res.to_json(), indent=1, default=json_default) + "\n"
    )
    return [out / "tuned.json", out / "tune.png", out / "report.md", out / "result.json"]


def _plot_search(ev, obj, res, path: Path, games: int, check_games: int) -> None:
    """The loss of every point the search evaluated, in order, beside the check's losses of the
    starting and the tuned rules."""
    hist = res.search.history
    fig = figure(6.5, 3.2)
    ax = fig.add_subplot()
    ax.plot(range(1, len(hist) + 1), [-h.fitness for h in hist], "o-", ms=3, lw=0.8)
    ax.axhline(res.current_loss, color="grey", ls="--", lw=1, label="starting rules (check)")
    ax.axhline(res.final_loss, color="#c44e52", ls="--", lw=1, label="tuned (check)")
    ax.set_xlabel("evaluation")
    ax.set_ylabel(f"loss: {obj.label}", fontsize=7)
    ax.legend(fontsize=7)
    ax.set_title(
        f"{ev.game}, {ev.players} players: tuning search (points on {games} games each;"
        f" check lines on {check_games} fresh deals)\n"
        f"{stamp(games, ev.base_hash)} (starting rules)",
        fontsize=8,
    )
    fig.savefig(path, dpi=110)


def _summary_lines(ev, obj, res, args_text: str, check_games: int) -> list[str]:
    """The report's title, command, objective and agents, and the result against the starting
    rules with the verdict of the one-step-deviation check."""
    vc = res.vs_current
    return [
        f"# Rules tuning: {ev.game}, {ev.players} players",
        "",
        "```",
        args_text,
        "```",
        "",
        f"Objective: {obj.label} (a loss, 0 is the target). Agents: "
        f"{', '.join(f'`{a}`' for a in ev.agents)}. Starting rules data `{ev.base_hash}`"
        + (f" (the default rules with `{ev.base_file}`)." if ev.base_file else " (the default).")
        + "",
        "",
        f"**Result: {_pt(ev, res.final)}** (`tuned.json`); on {check_games} fresh deals its "
        f"loss is {num(res.final_loss)} against {num(res.current_loss)} under the starting "
        f"rules: difference {num(vc.diff)} {interval(vc.lo, vc.hi)} "
        "(paired bootstrap 95%), "
        f"p = {pval(vc.p)}. "
        + (
            "The one-step-deviation check confirmed it: no single-key change is significantly "
            "better (Holm-adjusted p < 0.05)."
            if res.confirmed
            else "The check did not settle within its rounds: a deviation was still "
            "significantly better; rerun with more --check-rounds or a larger budget."
        ),
        "",
        "![tune](tune.png)",
        "",
    ]


def _search_lines(ev, res, games: int) -> list[str]:
    """The section on the search: the 15 distinct points of lowest loss and its recommendation."""
    hist = res.search.history
    lines = [f"## Search (NTBEA, {len(hist)} evaluations of {games} games, the same deals)", ""]
    seen = {}
    for h in hist:
        seen.setdefault(h.point, -h.fitness)
    lines += table(
        ["point", "loss"],
        [[_pt(ev, q), num(v)] for q, v in sorted(seen.items(), key=lambda x: x[1])[:15]],
    )
    lines += [
        "",
        f"{len(seen)} distinct points evaluated; the 15 lowest losses shown. Recommended by the "
        f"search: {_pt(ev, res.search.best)}.",
        "",
    ]
    return lines


def _check_lines(ev, k: int, c: CheckRound) -> list[str]:
    """The section on round `k` (from 0) of the one-step-deviation check, `c`."""
    lines = [
        f"## Check {k + 1}: {_pt(ev, c.point)} (loss {num(c.loss)})",
        "",
        "Each one-key deviation's loss minus this point's, paired over the check's deals "
        "(bootstrap 95%, Holm-adjusted p):",
        "",
    ]
    lines += table(
        ["deviation", "loss", "difference", "95%", "p_holm"],
        [
            [_pt(ev, r.point), num(r.loss), num(r.diff), interval(r.lo, r.hi), pval(r.p_holm)]
            for r in c.rows
        ],
    )
    lines += [""]
    return lines


def _simplified_lines(ev, simplified: list[Reversion]) -> list[str]:
    """The section on the changes tried back at their starting value, and which were reverted."""
    lines = ["## Fewer changes", ""]
    lines += table(
        ["back to the starting value", "loss difference", "95%", "p", "reverted"],
        [
            [_pt(ev, r.point), num(r.diff), interval(r.lo, r.hi), pval(r.p)]
            + ["yes" if r.reverted else "no"]
            for r in simplified
        ],
    )
    lines += [""]
    return lines


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m training.balance.tune",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", required=True, choices=game_names())
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--agents", nargs="+", required=True, help="as python -m training.balance")
    p.add_argument("--space", required=True, help="the search space file (JSON)")
    p.add_argument("--objective", required=True, help=" | ".join(OBJECTIVES))
    p.add_argument("--games", type=int, required=True, help="games per evaluated point")
    p.add_argument("--budget", type=int, default=30, help="points evaluated by the search")
    p.add_argument("--check-games", type=int, required=True, help="games per point of the check")
    p.add_argument("--check-rounds", type=int, default=3)
    p.add_argument(
        "--base",
        metavar="FILE",
        help="start from this rules override file (default: the default rules)",
    )
    ad.add_adapt_arguments(p)
    add_run_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = "python -m training.balance.tune " + " ".join(sys.argv[1:] if argv is None else argv)

    def play():
        if not 1 <= args.budget <= MAX_BUDGET:
            raise ValueError(f"--budget {args.budget}: between 1 and {MAX_BUDGET}")
        if not 1 <= args.check_rounds <= 10:
            raise ValueError(f"--check-rounds {args.check_rounds}: between 1 and 10")
        base = None
        if args.base:
            load_rules_file(args.base, args.game)  # a bad file is refused here
            base = read_rules_file(args.base, args.game).get("values", {})
        space = read_space(args.space, args.game, base)
        obj = parse_objective(args.objective, tuple(stats_modules(args.game)[1].ITEMS))
        sizes = tuple(len(v) for v in space.values())
        n_dev = sum(s - 1 for s in sizes)
        if n_dev > MAX_DEVIATIONS:
            raise ValueError(
                f"the space has {n_dev} one-key deviations to check, at most {MAX_DEVIATIONS}: "
                "give fewer values"
            )
        field = list(args.agents)
        if args.adapt is not None:  # the search plays the learned agents unadapted
            field = ad.fixed_field(args.agents, args.adapt)
        conditioned = [a for a in field if ad.conditioned_network(a, args.game, args.players)]
        outside_space(args.game, space, base, conditioned)  # before anything is written
        ev = Evaluator(
            args.game,
            args.players,
            field,
            args.db,
            space,
            Path(args.out) / "points",
            base=base,
            workers=args.workers,
            progress=not args.no_progress,
            backend=args.backend,
            address=args.address,
        )
        ev.base_file = args.base
        for q in deviations(current_point(space, args.game, base), sizes):
            ev.file(q)  # every value of every key: one the game refuses fails before any game
        with backend_session(args.backend, args.address, args.workers):
            res = tune(
                ev, obj, args.games, args.budget, args.check_games, args.seed, args.check_rounds
            )
            if args.adapt is not None or conditioned:
                cache = args.adapt_cache or ad.default_cache(args.db)
                adapted = adapted_check(
                    ev, obj, res, args.agents, args.adapt, cache, args.check_games, args.seed + 1
                )
                res = replace(res, adapted=adapted, adapted_checked=True)
        paths = write_tune_report(
            ev, obj, res, command, Path(args.out), args.games, args.check_games
        )
        return ev, res, paths

    out, code = guarded(parser, play)
    if code is not None:
        return code
    ev, res, paths = out
    vc = res.vs_current
    print(
        f"tuned: {_pt(ev, res.final)}; loss {num(res.final_loss)} "
        f"vs {num(res.current_loss)}"
        f" under the starting rules ({num(vc.diff)} {interval(vc.lo, vc.hi)}, "
        f"{args.check_games} fresh deals); "
        + ("confirmed by the one-step check" if res.confirmed else "NOT confirmed")
    )
    print(f"report: {Path(args.out) / 'report.md'} ({len(paths)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
