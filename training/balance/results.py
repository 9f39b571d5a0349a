"""What the balance studies return: a frozen dataclass per result, row and estimate, named for what
it holds (no game, no I/O).

Every figure that comes with a 95% interval carries `lo` and `hi` (None where the sample is too
small to give one), every sample size its `n` or a count named for what it counts. `to_json()`
gives the dict a study writes to result.json and its CSV tables: the fields in their order, nested
results turned into their dicts; a field documented as "left out of the JSON when None" is absent
rather than null, as in the files studies have always written. A dict that stays a dict is a
mapping keyed by data (seat, figure or rules key names, the tournament's result, a cache key),
not a result with a fixed set of fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from training.balance.game_stats import GameStats


def plain(value: Any) -> Any:
    """`value` with every result in it turned into its dict (to_json), through lists, tuples and
    dicts; anything else as it is (json.dumps' default= handles numpy values)."""
    if isinstance(value, Record):
        return value.to_json()
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


class Record:
    """A result's JSON form: its fields in order (`plain`), less the ones `_omitted` names."""

    __slots__ = ()

    def _omitted(self) -> tuple[str, ...]:
        """Fields left out of the JSON (each class says when)."""
        return ()

    def to_json(self) -> dict[str, Any]:
        skip = self._omitted()
        return {f.name: plain(getattr(self, f.name)) for f in fields(self) if f.name not in skip}

    @classmethod
    def from_json(cls, d: dict[str, Any]):
        """The result a flat `to_json()` dict describes (nested results stay dicts)."""
        return cls(**d)


def _none(rec: Record, *names: str) -> tuple[str, ...]:
    return tuple(n for n in names if getattr(rec, n) is None)


# --- estimates (training.balance.stats, measures, paired, tune) ---------------------------------
@dataclass(frozen=True, slots=True)
class Estimate(Record):
    """A mean with its 95% interval: `mean` (None for no values), `lo`, `hi` (None under 2
    values), `n` the values it rests on (nan values left out)."""

    mean: float | None
    lo: float | None
    hi: float | None
    n: int


@dataclass(frozen=True, slots=True)
class Difference(Record):
    """mean(a) - mean(b) of two independent samples: `diff`, its Welch normal 95% interval `lo`,
    `hi`, two-sided `p` and standard error `se` (each None when a side has fewer than 2 values);
    `n_a`, `n_b` the values of each side."""

    diff: float | None
    lo: float | None
    hi: float | None
    p: float | None
    se: float | None
    n_a: int
    n_b: int


@dataclass(frozen=True, slots=True)
class Proportion(Record):
    """A share of True among `n` values (None when n = 0) with its Wilson 95% interval."""

    share: float | None
    lo: float | None
    hi: float | None
    n: int


@dataclass(frozen=True, slots=True)
class PairedDifference(Record):
    """The mean paired difference `diff` over `n_pairs` pairs, its Student-t 95% interval `lo`,
    `hi`, the paired t-test's two-sided `p`, standard error `se` and degrees of freedom `df`,
    and the paired percentile bootstrap 95% interval `boot_lo`, `boot_hi` (None under 2 pairs)."""

    diff: float | None
    lo: float | None
    hi: float | None
    p: float | None
    se: float | None
    df: int | None
    boot_lo: float | None
    boot_hi: float | None
    n_pairs: int


@dataclass(frozen=True, slots=True)
class McNemar(Record):
    """McNemar's exact test of paired wins: `base_only` pairs won only under the base rules,
    `variant_only` only under the variant, its two-sided `p`, over `n_pairs` pairs."""

    base_only: int
    variant_only: int
    p: float
    n_pairs: int


@dataclass(frozen=True, slots=True)
class LossDifference(Record):
    """loss(b) - loss(a) of a tuning objective over `n` paired games: `diff`, its paired
    bootstrap 95% interval `lo`, `hi` and two-sided bootstrap `p` (None where undefined)."""

    diff: float | None
    lo: float | None
    hi: float | None
    p: float | None
    n: int


@dataclass(frozen=True, slots=True)
class LinearFit:
    """A least-squares fit with cluster-robust covariance: per column its coefficient `beta`,
    standard error `se`, 95% interval `lo`, `hi` and two-sided `p` (nan: no test), and the
    Student-t degrees of freedom `df` (clusters - 1)."""

    beta: np.ndarray
    se: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    p: np.ndarray
    df: int


# --- a study's tables (training.balance.stats, report) -----------------------------------------
@dataclass(frozen=True, slots=True)
class SeatRow(Record):
    """One seat of the seat-advantage table: its `games`, `wins` (a shared win counts 1/k),
    `win_share` with its Wilson 95% interval, and its mean score with a 95% interval
    (`mean_score`, `score_lo`, `score_hi`; the three left out of the JSON when no scores were
    given)."""

    seat: int
    games: int
    wins: float
    win_share: float
    win_share_lo: float
    win_share_hi: float
    mean_score: float | None = None
    score_lo: float | None = None
    score_hi: float | None = None

    def _omitted(self):
        return () if self.mean_score is not None else ("mean_score", "score_lo", "score_hi")


@dataclass(frozen=True, slots=True)
class SeatAdvantage(Record):
    """Win share and score per seat (`seats`) over `games` games, and the chi-square test of
    "every seat wins equally often": `chi2` on `df` degrees of freedom, `p` (None without wins)."""

    games: int
    seats: list[SeatRow]
    chi2: float | None
    df: int
    p: float | None


@dataclass(frozen=True, slots=True)
class ScoreQuantiles(Record):
    """One seat's final score: its mean with a 95% interval over `n` games, and the 5, 25, 50,
    75 and 95% quantiles."""

    seat: int
    mean: float | None
    lo: float | None
    hi: float | None
    n: int
    q05: float
    q25: float
    q50: float
    q75: float
    q95: float


@dataclass(frozen=True, slots=True)
class SourceShare(Record):
    """One score source: mean points per player for the winners (full wins) and for the rest,
    each with its 95% interval and sample size, and each side's share of its total points (None
    when the side scored nothing)."""

    source: str
    winners_mean: float | None
    winners_lo: float | None
    winners_hi: float | None
    winners_share: float | None
    rest_mean: float | None
    rest_lo: float | None
    rest_hi: float | None
    rest_share: float | None
    n_winners: int
    n_rest: int


@dataclass(frozen=True, slots=True)
class ItemLift(Record):
    """One comparison of an item's win-share lift: `comparison` is "taken" (takers against the
    players of games with it in play who did not take it) or "in play, seat p"; the rates with
    and without it, the `lift` with its Welch 95% interval, `p` and `se` (None when a side has
    too few observations to test), the sizes `n_with` and `n_without`, the Benjamini-Hochberg
    adjusted `p_bh` over every comparison and the matching false-coverage-rate adjusted
    interval `adj_lo`, `adj_hi`."""

    item: str
    comparison: str
    games_in_play: int
    rate_with: float | None
    rate_without: float | None
    lift: float | None
    lo: float | None
    hi: float | None
    p: float | None
    se: float | None
    n_with: int
    n_without: int
    p_bh: float | None = None
    adj_lo: float | None = None
    adj_hi: float | None = None


@dataclass(frozen=True, slots=True)
class GameShape(Record):
    """How games go, each figure an Estimate over the games where it is defined: length in
    `rounds` and `decisions`, the winner's `margin`, `lead_changes` (and per round transition),
    `decided_at` (the share of rounds before the final winner led alone), the `branching_factor`,
    the share of `decision_moves`, `drama` (mean and max); `truncated` games of `games`."""

    rounds: Estimate
    decisions: Estimate
    margin: Estimate
    lead_changes: Estimate
    lead_changes_per_round: Estimate
    decided_at: Estimate
    branching_factor: Estimate
    decision_moves: Estimate
    drama: Estimate
    drama_max: Estimate
    truncated: int
    games: int

    def figures(self) -> list[tuple[str, Estimate]]:
        """(name, estimate) of every figure, in order."""
        return [(f.name, getattr(self, f.name)) for f in fields(self) if f.type == "Estimate"]


@dataclass(frozen=True, slots=True)
class ActionFrequency(Record):
    """One action kind: mean decisions of that kind per player and game with its 95% interval,
    and the kind's `share` of every decision (None when there were none)."""

    kind: str
    per_player_game: float | None
    lo: float | None
    hi: float | None
    share: float | None


@dataclass(frozen=True, slots=True)
class ResourceFlow(Record):
    """One resource: mean gained and mean spent per player and game, each with its 95%
    interval."""

    resource: str
    gained: float | None
    gained_lo: float | None
    gained_hi: float | None
    spent: float | None
    spent_lo: float | None
    spent_hi: float | None


# --- Tomasev's measures (training.balance.measures) --------------------------------------------
@dataclass(frozen=True, slots=True)
class DecidedBy(Record):
    """The share of games already decided by the share `by` of their rounds (Wilson 95%, over
    `n` games without a shared win)."""

    by: float
    share: float | None
    lo: float | None
    hi: float | None
    n: int


@dataclass(frozen=True, slots=True)
class Decisiveness(Record):
    """The share of games with a shared win, the winner's margin and the games decided by each
    share of their rounds."""

    shared_wins: Proportion
    margin: Estimate
    decided_by: list[DecidedBy]


@dataclass(frozen=True, slots=True)
class FittedValue(Record):
    """The fitted win-share value of an item taken or a point from a source (`unit` says which):
    the coefficient `value` with its cluster-robust 95% interval, `p`, `se` and its
    Benjamini-Hochberg adjusted `p_bh` over its table, fitted on `players` player rows of `games`
    games; `taken_by`: the players who took the item (None for a source). A fit that could not be
    made has `value` None and leaves `se`, `players`, `games` and `p_bh` out of the JSON; a
    source's row leaves `taken_by` out."""

    name: str
    unit: str
    value: float | None
    lo: float | None
    hi: float | None
    p: float | None
    se: float | None = None
    players: int | None = None
    games: int | None = None
    p_bh: float | None = None
    taken_by: int | None = None

    def _omitted(self):
        unfitted = ("se", "players", "games", "p_bh") if self.value is None else ()
        return unfitted + _none(self, "taken_by")


@dataclass(frozen=True, slots=True)
class OpeningEntropy(Record):
    """One seat's openings (its first decision): their entropy in bits with a bootstrap 95%
    interval over games, the `distinct` openings and the `games` with one."""

    seat: int
    entropy_bits: float
    lo: float | None
    hi: float | None
    distinct: int
    games: int


@dataclass(frozen=True, slots=True)
class ActionKindEntropy(Record):
    """The entropy in bits of the decisions by action kind with a bootstrap 95% interval over
    `games` games, the number of `kinds` and the most bits they could give."""

    entropy_bits: float
    lo: float | None
    hi: float | None
    kinds: int
    max_bits: float
    games: int


@dataclass(frozen=True, slots=True)
class Diversity(Record):
    """How diverse the play is: each seat's openings and the mix of action kinds."""

    openings: list[OpeningEntropy]
    action_kinds: ActionKindEntropy


@dataclass(frozen=True, slots=True)
class Measures(Record):
    """Every measure of training.balance.measures for one set of games."""

    decisiveness: Decisiveness
    item_values: list[FittedValue]
    source_values: list[FittedValue]
    diversity: Diversity


@dataclass(frozen=True, slots=True)
class MeasureRow(Record):
    """One headline measure (`measure` names it and its unit) with its 95% interval."""

    measure: str
    value: float | None
    lo: float | None
    hi: float | None


# --- a balance study (training.balance.play, report) -------------------------------------------
@dataclass(frozen=True, slots=True)
class StudyRun:
    """A played study: the `tournament`'s result (training.arena.tournament, without its records,
    with "analysis_seconds") and the re-simulated games' statistics `stats`."""

    tournament: dict[str, Any]
    stats: GameStats


@dataclass(frozen=True, slots=True)
class Analysis(Record):
    """Every table of a balance study's report: the `game`, `players`, `games` and
    `rules_data_hash` the figures rest on and the `note` on those rules; the seat advantage,
    the scores by seat, points by source, item lifts, the shape of the games, actions by kind,
    resources, the deaths per player (None in a game without deaths), Tomasev's measures, and
    `skill`, the tournament's pairwise table when several agents played (left out of the JSON
    when None)."""

    game: str
    players: int
    games: int
    rules_data_hash: str
    note: str
    seats: SeatAdvantage
    scores: list[ScoreQuantiles]
    sources: list[SourceShare]
    items: list[ItemLift]
    shape: GameShape
    actions: list[ActionFrequency]
    resources: list[ResourceFlow]
    deaths: Estimate | None
    measures: Measures
    skill: dict[str, Any] | None = None

    def _omitted(self):
        return _none(self, "skill")


# --- a rules variant against the base rules (training.balance.paired) --------------------------
@dataclass(frozen=True, slots=True)
class ChangedPlay(Record):
    """The deal `pairs` whose play changed, their `share` of all pairs and its Wilson 95%
    interval."""

    pairs: int
    share: float
    lo: float
    hi: float


@dataclass(frozen=True, slots=True)
class SeatFlips(Record):
    """One seat's win flips between the base rules and a variant (McNemar), with `p_bh`
    adjusted over the seats."""

    seat: int
    base_only: int
    variant_only: int
    p: float
    n_pairs: int
    p_bh: float | None = None


@dataclass(frozen=True, slots=True)
class FigureDifference(Record):
    """One headline figure (in `unit`) under the base rules and the variant (means over the
    paired games), and the paired difference variant - base: `diff`, its Student-t interval,
    `p`, `se`, `df`, bootstrap interval and `n_pairs` (PairedDifference's fields); the unpaired
    Welch interval and p of the same games; `p_bh` over the figures and the matching
    false-coverage-rate adjusted interval `adj_lo`, `adj_hi`."""

    figure: str
    unit: str
    base: float | None
    variant: float | None
    diff: float | None
    lo: float | None
    hi: float | None
    p: float | None
    se: float | None
    df: int | None
    boot_lo: float | None
    boot_hi: float | None
    n_pairs: int
    welch_lo: float | None
    welch_hi: float | None
    welch_p: float | None
    p_bh: float | None = None
    adj_lo: float | None = None
    adj_hi: float | None = None


@dataclass(frozen=True, slots=True)
class PairedComparison(Record):
    """A variant compared with the base rules deal by deal: the deal `pairs` compared, the games
    of each side without a twin, the pairs whose play changed, the win flips per seat and a
    difference per headline figure."""

    pairs: int
    unpaired_base: int
    unpaired_variant: int
    changed: ChangedPlay
    mcnemar: list[SeatFlips]
    rows: list[FigureDifference]


# --- the strategic response (training.balance.response) ----------------------------------------
@dataclass(frozen=True, slots=True)
class ActionMixRow(Record):
    """One action kind's mean share of decisions under the current rules and the variant with
    fixed and adapted agents, and the paired difference adapted - fixed (`diff`, its interval,
    `p`, `p_bh` over the kinds)."""

    kind: str
    current: float
    fixed: float
    adapted: float
    diff: float | None
    lo: float | None
    hi: float | None
    p: float | None
    p_bh: float | None = None


@dataclass(frozen=True, slots=True)
class ResponseRow(Record):
    """One headline figure under the current rules, the variant with fixed agents and with
    adapted ones; the variant's effect with each (paired against the current rules, Student-t
    95%) and the strategic `response` adapted - fixed with its interval and `response_p_bh`."""

    figure: str
    unit: str
    current: float | None
    fixed: float | None
    adapted: float | None
    effect_fixed: float | None
    effect_fixed_lo: float | None
    effect_fixed_hi: float | None
    effect_adapted: float | None
    effect_adapted_lo: float | None
    effect_adapted_hi: float | None
    response: float | None
    response_lo: float | None
    response_hi: float | None
    response_p_bh: float | None


@dataclass(frozen=True, slots=True)
class ResponsePairs(Record):
    """The deal pairs of each comparison: fixed vs current, adapted vs current, adapted vs
    fixed."""

    fixed: int
    adapted: int
    response: int


@dataclass(frozen=True, slots=True)
class ChangedComparison(Record):
    """In one `comparison` of `of` deal pairs, the `pairs` whose play changed, their `share`
    and its Wilson 95% interval."""

    comparison: str
    of: int
    pairs: int
    share: float
    lo: float
    hi: float


@dataclass(frozen=True, slots=True)
class AdaptationCheck(Record):
    """An adapted network (`adapted`) in one seat against its `unadapted` self: its win share
    over `games` with its Wilson 95% interval, `chance` (1 / players), `converged` when the
    interval clears chance, else `short_by` how far it falls short; its mean score and the
    evaluation's wall time."""

    adapted: str
    unadapted: str
    games: int
    win_share: float
    lo: float
    hi: float
    chance: float
    converged: bool
    short_by: float | None
    mean_score: float
    wall_seconds: float | None


@dataclass(frozen=True, slots=True)
class Adaptation(Record):
    """A learned agent `spec` under a variant: its `fixed` spec (blind to the rules), the
    `adapted` one it played, and the adaptation's `record` (its cache record or the conditioned
    network's, as training.balance.adapt writes it)."""

    spec: str
    fixed: str
    adapted: str
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StrategicResponse(Record):
    """The strategic-response comparison of three studies on the same deals: the pairs and the
    changed plays of each comparison, a row per headline figure, the action mix, Tomasev's
    measures under each (training.balance.measures.compare's rows), and the adaptation `checks`
    and `adaptations` behind it."""

    pairs: ResponsePairs
    changed: list[ChangedComparison]
    rows: list[ResponseRow]
    actions: list[ActionMixRow]
    measures: list[dict[str, Any]]
    checks: list[AdaptationCheck] = field(default_factory=list)
    adaptations: list[Adaptation] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class AdaptedVariant:
    """A variant played with the learned agents `fixed` and `adapted` (labels mapped back to the
    agents as given), and the strategic `response` against the current rules."""

    fixed: StudyRun
    adapted: StudyRun
    response: StrategicResponse


# --- sweeps (training.balance.sweep) ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SweepPoint(Record):
    """One point of a sweep: its name, its `values` by key, its rules override `file` and that
    file's RULES_DATA_HASH."""

    point: str
    values: dict[str, Any]
    file: str
    rules_data_hash: str


@dataclass(frozen=True, slots=True)
class PointResponse(Record):
    """The strategic response at one sweep point; `response` None at the reference point (the
    current rules: nothing to adapt), written as {"point": ..., "reference": true}."""

    point: str
    response: StrategicResponse | None

    def to_json(self) -> dict[str, Any]:
        if self.response is None:
            return {"point": self.point, "reference": True}
        return {"point": self.point, **self.response.to_json()}


@dataclass(frozen=True, slots=True)
class MeasureComparison(Record):
    """Tomasev's measures side by side: the `names` of the sets of games and
    training.balance.measures.compare's `rows` (a value and interval per name)."""

    names: list[str]
    rows: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class SweepResult(Record):
    """A sweep: what was played (game, players, agents, games per point, seed, the swept
    `keys`), its `points`, the current rules' hash and games, `rows` (sweep_rows: a row per point
    and figure, with a `value:KEY` column per key), the adaptation minutes, the strategic
    responses per point and Tomasev's measures by point."""

    game: str
    players: int
    agents: list[str]
    games: int
    seed: int
    keys: list[str]
    points: list[SweepPoint]
    base_rules_data_hash: str
    base_games: int
    rows: list[dict[str, Any]]
    adapt_minutes: float | None
    responses: list[PointResponse]
    measures: MeasureComparison


# --- tuning (training.balance.ntbea, tune) ------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Evaluation(Record):
    """One point the search evaluated and the `fitness` it got (minus the loss)."""

    point: tuple[int, ...]
    fitness: float


@dataclass(frozen=True, slots=True)
class SearchResult(Record):
    """An NTBEA search: the recommended point `best`, its model `estimate` and every evaluation
    in order (`history`)."""

    best: tuple[int, ...]
    estimate: float | None
    history: list[Evaluation]


@dataclass(frozen=True, slots=True)
class Deviation(Record):
    """A one-key deviation `point` of the check: its `loss`, its loss minus the checked point's
    (LossDifference's fields) and the Holm-adjusted `p_holm` over the deviations."""

    point: tuple[int, ...]
    loss: float
    diff: float | None
    lo: float | None
    hi: float | None
    p: float | None
    n: int
    p_holm: float | None = None


@dataclass(frozen=True, slots=True)
class CheckRound(Record):
    """One round of the one-step-deviation check of `point` (its `loss`): a row per deviation and
    `better`, the deviation with the lowest loss among those significantly better (None:
    none)."""

    point: tuple[int, ...]
    loss: float
    rows: list[Deviation]
    better: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class Reversion(Record):
    """A changed key (`dimension`) tried back at its starting value (`point`): the loss there
    minus the loss with the change (LossDifference's fields), and whether it was `reverted`."""

    dimension: int
    point: tuple[int, ...]
    diff: float | None
    lo: float | None
    hi: float | None
    p: float | None
    n: int
    reverted: bool


@dataclass(frozen=True, slots=True)
class AdaptedTuning(Record):
    """The tuned rules played with the learned agents adapted to them: the tuned `rules_file`,
    the objective's loss with fixed and with adapted agents, adapted - fixed (paired bootstrap)
    and the strategic response."""

    rules_file: str
    loss_fixed: float
    loss_adapted: float
    adapted_minus_fixed: LossDifference
    response: StrategicResponse


@dataclass(frozen=True, slots=True)
class TuneResult(Record):
    """A tuning run: the space's `sizes`, the starting point `current`, the search, the check's
    rounds and whether the last `confirmed` the point, the `simplified` keys tried back, the
    `final` point with its changes and override values, its and the starting rules' loss on the
    check's deals and their difference `vs_current`; `adapted`: the tuned rules with adapted
    agents (None where the tuned rules are the default ones), in the JSON only where it was
    asked for (`adapted_checked`, itself not written)."""

    sizes: tuple[int, ...]
    current: tuple[int, ...]
    search: SearchResult
    check_rounds: list[CheckRound]
    confirmed: bool
    simplified: list[Reversion]
    final: tuple[int, ...]
    final_changes: dict[str, Any]
    final_overrides: dict[str, Any]
    final_loss: float
    current_loss: float
    vs_current: LossDifference
    adapted: AdaptedTuning | None = None
    adapted_checked: bool = False

    def _omitted(self):
        return ("adapted_checked",) + (() if self.adapted_checked else ("adapted",))


# --- skill traces (training.balance.skill) ------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FigureRow(Record):
    """One series of a skill-trace figure at one level: its `mean` (in `unit`) with a 95%
    interval over `n` games. The JSON of a margin or item row has `n` before `unit` (the order
    those rows have always been written in)."""

    series: str
    mean: float | None
    lo: float | None
    hi: float | None
    unit: str
    n: int

    def to_json(self) -> dict[str, Any]:
        d = {"series": self.series, "mean": self.mean, "lo": self.lo, "hi": self.hi}
        if self.unit in ("points", "win-share lift"):
            return {**d, "n": self.n, "unit": self.unit}
        return {**d, "unit": self.unit, "n": self.n}


@dataclass(frozen=True, slots=True)
class LevelScore(Record):
    """A level's `score` against the level before it (win 1, tie 1/2) with its Wilson 95%
    interval over `games`."""

    score: float | None
    lo: float | None
    hi: float | None
    games: int


@dataclass(frozen=True, slots=True)
class SkillLevel(Record):
    """One level of a skill trace: its `agent`, the `games` it played, its rows per figure name,
    and its score against the level before (None without --check-strength or at the first
    level; then left out of the JSON)."""

    agent: str
    games: int
    figures: dict[str, list[FigureRow]]
    vs_previous: LevelScore | None = None

    def _omitted(self):
        return _none(self, "vs_previous")


@dataclass(frozen=True, slots=True)
class Extrapolation(Record):
    """A figure regressed on log2(budget) over `levels` levels of one search: the slope per
    doubling with its 95% interval and the prediction at `next_budget` (one doubling beyond the
    largest) with its 95% interval, clipped to what the figure's unit can take."""

    slope_per_doubling: float
    slope_lo: float
    slope_hi: float
    next_budget: int
    predicted: float
    predicted_lo: float
    predicted_hi: float
    levels: int


@dataclass(frozen=True, slots=True)
class Trend(Record):
    """The extrapolation `fit` of one `series` of one `figure` over one search `family`; its JSON
    is the three names followed by the fit's fields."""

    family: str
    figure: str
    series: str
    fit: Extrapolation

    def to_json(self) -> dict[str, Any]:
        return {"family": self.family, "figure": self.figure, "series": self.series,
                **self.fit.to_json()}  # fmt: skip


@dataclass(frozen=True, slots=True)
class SkillTrace(Record):
    """A skill trace: what was played (game, players, agents weakest first, games per level,
    seed, rules data), a row per level and the trends with the search budget."""

    game: str
    players: int
    agents: list[str]
    games: int
    seed: int
    rules_data_hash: str
    levels: list[SkillLevel]
    trends: list[Trend]


# --- restricted play (training.balance.restricted) ----------------------------------------------
@dataclass(frozen=True, slots=True)
class RestrictionCounts(Record):
    """Over the restricted seat's `decisions`: those where a forbidden action was legal
    (`binding`), where every legal action was forbidden (`forced`), and where a forbidden action
    was taken while an allowed one was legal (`violations`: 0 unless the wrapper is broken)."""

    decisions: int = 0
    binding: int = 0
    forced: int = 0
    violations: int = 0


@dataclass(frozen=True, slots=True)
class ClassRow(Record):
    """One forbidden class (`forbid`, of `kind` segment, item or mixed; the agent `spec`): the
    restricted agent's `wins` of `games`, `win_share` with its Wilson 95% interval, the null share
    1/P, the score test's `z` and `p`; mean scores of the restricted agent and the others; the
    restriction counts and `binding_share`; the restriction's `rule` and `description`; the
    tournament's stored games and those `played_now`; and, after the adjusted tests, `p_adj`,
    `significant`, the adjusted interval's level and bounds."""

    forbid: str
    kind: str
    spec: str
    games: int
    wins: float
    win_share: float | None
    lo: float | None
    hi: float | None
    null_share: float
    z: float | None
    p: float | None
    mean_score_restricted: float | None
    mean_score_unrestricted: float | None
    decisions: int
    binding: int
    forced: int
    violations: int
    binding_share: float | None
    rule: str
    description: str
    tournament_games: int
    played_now: int
    p_adj: float | None = None
    significant: bool = False
    adj_level: float | None = None
    adj_lo: float | None = None
    adj_hi: float | None = None


@dataclass(frozen=True, slots=True)
class RestrictedResult(Record):
    """A restricted-play study: what was played (game, players, agent, games per class, seed),
    the tests' `alpha` and `correction`, the null share 1/P, the rules data and its `note`, the
    machine `notice` of a clocked agent (None without one), the library version and a row per
    class."""

    game: str
    players: int
    agent: str
    games_per_class: int
    seed: int
    alpha: float
    correction: str
    null_share: float
    rules_data_hash: str
    note: str
    notice: str | None
    library_version: str
    rows: list[ClassRow]


# --- planning (training.balance.sizing, plan) ---------------------------------------------------
@dataclass(frozen=True, slots=True)
class DesignEffect(Record):
    """How much the games of one deal count as fewer than independent games: the intraclass
    correlation `rho` and the `design_effect` (None without spread or under two groups) over
    `groups` groups of `n` values, and the mean group size `group_size` (left out of the JSON
    when None)."""

    rho: float | None
    design_effect: float | None
    groups: int
    n: int
    group_size: float | None = None

    def _omitted(self):
        return _none(self, "group_size")


@dataclass(frozen=True, slots=True)
class SeatLook(Record):
    """One tested seat at a look of a sequential study: its win `share`, anytime-valid interval
    `lo`, `hi`, fixed-n Wilson interval, the `games` and the `units` (deals) so far."""

    seat: int
    share: float
    lo: float
    hi: float
    wilson_lo: float
    wilson_hi: float
    games: int
    units: int


@dataclass(frozen=True, slots=True)
class SeedShare(Record):
    """One seat's win share under one tournament `seed` with its Wilson 95% interval over
    `games`."""

    seed: int
    share: float
    lo: float
    hi: float
    games: int


@dataclass(frozen=True, slots=True)
class BetweenSeeds(Record):
    """The mean of the seeds' shares with its Student-t 95% interval, their standard deviation
    `sd` and the number of `seeds`."""

    mean: float
    lo: float
    hi: float
    sd: float
    seeds: int


@dataclass(frozen=True, slots=True)
class PooledShare(Record):
    """Every game of every seed as one sample: the `share` with its Wilson 95% interval over
    `games`."""

    share: float
    lo: float
    hi: float
    games: int


@dataclass(frozen=True, slots=True)
class Dispersion(Record):
    """The seeds' spread against independent games: the chi-square homogeneity statistic on `df`
    degrees of freedom, its `ratio` to df and `p` (None without spread)."""

    chi2: float | None
    df: int
    ratio: float | None
    p: float | None


@dataclass(frozen=True, slots=True)
class ReplicateSeat(Record):
    """One seat over the replicates: per seed, between the seeds, pooled, and the dispersion."""

    seat: int
    per_seed: list[SeedShare]
    between: BetweenSeeds
    pooled: PooledShare
    dispersion: Dispersion


@dataclass(frozen=True, slots=True)
class ReplicateSummary(Record):
    """Seat win shares over replicates of a study: the `seeds`, `players`, `games` in all and a
    row per seat."""

    seeds: list[int]
    players: int
    games: int
    seats: list[ReplicateSeat]


@dataclass(frozen=True, slots=True)
class ReplicateStudy(Record):
    """A study played under several tournament seeds: the `summary` of the seat win shares, the
    `game`, `agents`, the games of each seed, the rules data they rest on and each seed's
    tournament result."""

    summary: ReplicateSummary
    game: str
    agents: list[str]
    games_per_seed: list[int]
    rules_data_hash: str
    tournaments: list[dict[str, Any]]
