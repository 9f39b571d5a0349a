"""The strategic response to a rules variant: its effect with fixed agents beside its effect with
agents adapted to it (training.balance.adapt), on the same deals.

Three studies share every deal seed, line-up and seat: the current rules with the agents as
given (`base`), the variant with the same agents unadapted (`fixed`: a learned agent plays its
network with `rules=any`) and the variant with the learned agents fine-tuned under it
(`adapted`; bots play as they are). Per headline figure (training.balance.paired) the report sets
side by side the variant's effect with fixed agents (fixed - base, paired by deal), with adapted
agents (adapted - base), and the strategic response itself (adapted - fixed, paired by deal,
Student-t 95% interval, p Benjamini-Hochberg adjusted over the figures); the share of deals whose
play changed in each comparison (Wilson 95%); the mix of decisions by action kind under each
(each game's share of its decisions of a kind, adapted - fixed paired by deal, BH over kinds);
Tomasev's measures under each (decisiveness, diversity, the fitted value of a point from each
source; training.balance.measures); and an adaptation check: each adapted network against its
unadapted self under the variant (training.arena.evaluate, seats rotated; one seat adapted, the
others unadapted), whose win share must clear chance (1 / players) by its Wilson 95% interval
for the adaptation to count as converged; otherwise the report says it did not, and by how much.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from training.balance import paired
from training.balance import stats as bs
from training.balance.adapt import Adapted, adapt, fixed_spec, is_az
from training.balance.game_stats import GameStats
from training.balance.markdown import interval, num, pval, table
from training.balance.measures import compare, compare_lines
from training.balance.play import run_study
from training.balance.results import (
    ActionMixRow,
    Adaptation,
    AdaptationCheck,
    AdaptedVariant,
    ChangedComparison,
    PairedComparison,
    ResponsePairs,
    ResponseRow,
    StrategicResponse,
)


def relabel(st: GameStats, names: dict[str, str]) -> GameStats:
    """`st` with its entrants' labels mapped by `names` (an adapted or fixed spec back to the spec
    as given; a copy's `#k` suffix in self-play kept), so its games pair with the base study's."""

    def label(v: str) -> str:
        spec, sep, copy = v.rpartition("#")
        if sep and copy.isdigit() and spec in names:
            return f"{names[spec]}#{copy}"
        return names.get(v, v)

    return replace(st, labels={k: label(v) for k, v in st.labels.items()})


def kind_shares(st: GameStats) -> np.ndarray:
    """(G, K) each game's share of its decisions by action kind."""
    per = st.actions.sum(axis=1).astype(np.float64)
    total = per.sum(axis=1, keepdims=True)
    return np.divide(per, total, out=np.zeros_like(per), where=total > 0)


def action_mix(
    base: GameStats, fixed: GameStats, adapted: GameStats, seed: int = 0
) -> list[ActionMixRow]:
    """A row per action kind: its mean share of decisions in each study and the paired
    difference adapted - fixed (deal by deal) with its interval and BH-adjusted p."""
    i_f, i_a = paired.match_pairs(fixed, adapted)
    sb, sf, sa = kind_shares(base), kind_shares(fixed), kind_shares(adapted)
    rows = []
    for k, name in enumerate(fixed.action_kinds):
        if not (sb[:, k].any() or sf[:, k].any() or sa[:, k].any()):
            continue  # a kind nobody took
        d = paired.paired_ci(sa[i_a, k] - sf[i_f, k], seed=seed)
        means = (float(sb[:, k].mean()), float(sf[:, k].mean()), float(sa[:, k].mean()))
        rows.append(ActionMixRow(name, *means, d.diff, d.lo, d.hi, d.p))
    return [replace(r, p_bh=v) for r, v in zip(rows, bs.bh([r.p for r in rows]), strict=True)]


def _changed(name: str, comp: PairedComparison) -> ChangedComparison:
    c = comp.changed
    return ChangedComparison(name, comp.pairs, c.pairs, c.share, c.lo, c.hi)


def response(
    base: GameStats, fixed: GameStats, adapted: GameStats, seed: int = 0
) -> StrategicResponse:
    """The strategic-response comparison (module docstring) of three studies on the same deals
    (labels already mapped to the specs as given)."""
    eff_f = paired.paired_differences(base, fixed, seed=seed)
    eff_a = paired.paired_differences(base, adapted, seed=seed)
    resp = paired.paired_differences(fixed, adapted, seed=seed)
    rows = [
        ResponseRow(
            figure=rf.figure,
            unit=rf.unit,
            current=rf.base,
            fixed=rf.variant,
            adapted=ra.variant,
            effect_fixed=rf.diff,
            effect_fixed_lo=rf.lo,
            effect_fixed_hi=rf.hi,
            effect_adapted=ra.diff,
            effect_adapted_lo=ra.lo,
            effect_adapted_hi=ra.hi,
            response=rr.diff,
            response_lo=rr.lo,
            response_hi=rr.hi,
            response_p_bh=rr.p_bh,
        )
        for rf, ra, rr in zip(eff_f.rows, eff_a.rows, resp.rows, strict=True)
    ]
    return StrategicResponse(
        pairs=ResponsePairs(eff_f.pairs, eff_a.pairs, resp.pairs),
        changed=[
            _changed("fixed vs current", eff_f),
            _changed("adapted vs current", eff_a),
            _changed("adapted vs fixed", resp),
        ],
        rows=rows,
        actions=action_mix(base, fixed, adapted, seed=seed),
        measures=compare([("current", base), ("fixed", fixed), ("adapted", adapted)], seed),
    )


def check_row(result: dict, players: int) -> AdaptationCheck:
    """The adaptation check's verdict from an evaluation of [adapted] + [unadapted] x (P - 1)."""
    a = result["agents"][0]
    lo, hi = a["win_rate_ci95"]
    chance = 1.0 / players
    converged = lo > chance
    return AdaptationCheck(
        adapted=a["spec"],
        unadapted=result["agents"][1]["spec"],
        games=a["games"],
        win_share=a["win_rate"],
        lo=lo,
        hi=hi,
        chance=chance,
        converged=bool(converged),
        short_by=None if converged else chance - lo,
        mean_score=a["mean_score"],
        wall_seconds=result.get("wall_seconds"),
    )


def adaptation_check(
    game_name: str, players: int, pair: Adapted, rules_file, games: int, seed: int, workers: int
) -> AdaptationCheck:
    """Play the adapted network in one seat against its unadapted self in the others, under the
    variant, seats rotated (training.arena.evaluate); check_row's verdict."""
    from training.arena.evaluate import evaluate

    specs = [pair.adapted] + [pair.fixed] * (players - 1)
    games = max(players, games - games % players)
    result = evaluate(
        game_name, players, specs, games, seed=seed, workers=max(1, workers or 1),
        rules_file=str(rules_file),
    )  # fmt: skip
    return check_row(result, players)


def adapted_variant(
    game_name: str,
    players: int,
    agents: list[str],
    games: int,
    db,
    rules_file,
    base: GameStats,
    minutes: float | None,
    cache,
    seed: int = 0,
    say=print,
    **kw,
) -> AdaptedVariant:
    """Adapt the learned agents to `rules_file` (training.balance.adapt: conditioned networks
    read it, the others are fine-tuned for `minutes`, or stay fixed without), play the variant
    with them fixed and adapted (what the store lacks; kw: run_study's workers, progress,
    backend, address), and compare with `base` (the current rules' statistics): the two studies
    (labels mapped to the agents as given) and the response with its checks and
    adaptations."""
    pairs = adapt(agents, game_name, players, rules_file, minutes, cache, say=say)
    studies = {}
    for which in ("fixed", "adapted"):
        spec_of = {a: fixed_spec(a) for a in agents if is_az(a)}  # an az agent left fixed
        spec_of.update({p.spec: getattr(p, which) for p in pairs})
        field = [spec_of.get(a, a) for a in agents]
        out = run_study(game_name, players, field, games, db, rules_file, seed=seed, **kw)
        studies[which] = replace(out, stats=relabel(out.stats, {v: k for k, v in spec_of.items()}))
    res = response(base, studies["fixed"].stats, studies["adapted"].stats, seed=seed)
    workers = kw.get("workers") or 1
    checks = [
        adaptation_check(game_name, players, p, rules_file, games, seed, workers) for p in pairs
    ]
    adaptations = [Adaptation(p.spec, p.fixed, p.adapted, p.record) for p in pairs]
    res = replace(res, checks=checks, adaptations=adaptations)
    return AdaptedVariant(studies["fixed"], studies["adapted"], res)


def verdict(c: AdaptationCheck) -> str:
    if c.converged:
        return "converged"
    return (
        f"**did not converge**: its interval reaches {c.short_by:.3f} below chance ({c.chance:.3f})"
    )


def adapted_word(res: StrategicResponse) -> str:
    """ "conditioned" when every learned agent of a response read the variant's rules (no
    fine-tuning), else "adapted"."""
    ad = res.adaptations
    conditioned = ad and all(a.record.get("how") == "conditioned" for a in ad)
    return "conditioned" if conditioned else "adapted"


def section(res: StrategicResponse, title: str | None = None) -> list[str]:
    """The report's lines for one variant's `response(...)` plus its checks and adaptations
    ("conditioned" in place of "adapted" where every learned agent read the rules)."""
    ad = res.adaptations
    word = adapted_word(res)
    how = (
        "with the learned agents reading its rules (conditioned networks; fixed: the same "
        "networks blind to the rules, `rules=any`)"
        if word == "conditioned"
        else "with the learned agents fine-tuned under it or reading its rules (adapted)"
    )
    lines = [
        "",
        title or f"## Strategic response: fixed and {word} agents",
        "",
        "The variant's effect with the agents as given (fixed: a learned agent plays its network "
        f"unadapted, `rules=any`) and {how}, each against the current rules on the same deals, "
        f"and the strategic response ({word} - fixed, paired by deal; Student-t 95%; p_bh over "
        "the figures). Definitions: `training.balance.response`.",
        "",
    ]
    for a in ad:
        rec = a.record
        if rec.get("how") == "conditioned":
            lines.append(
                f"- `{a.spec}` reads the variant's rules (conditioned network, variant space "
                f"`{rec.get('variant_space')}`, rules data `{rec['variant_rules_data_hash']}`): "
                f"`{a.adapted}` beside `{a.fixed}`"
            )
            continue
        lines.append(
            f"- `{a.spec}` adapted for {rec['key']['minutes']:g} min "
            f"({rec.get('seconds', 'n/a')} s, {rec.get('iterations', 'n/a')} iterations, "
            f"rules data `{rec['key']['variant_rules_data_hash']}`): `{a.adapted}`"
        )
    lines += [""] if ad else []
    lines += table(
        ["figure", "current", "fixed", word, "effect, fixed [95%]", f"effect, {word} [95%]",
         "response [95%]", "p_bh"],
        [
            [
                r.figure, num(r.current), num(r.fixed), num(r.adapted),
                f"{num(r.effect_fixed)} {interval(r.effect_fixed_lo, r.effect_fixed_hi)}",
                f"{num(r.effect_adapted)} {interval(r.effect_adapted_lo, r.effect_adapted_hi)}",
                f"{num(r.response)} {interval(r.response_lo, r.response_hi)}",
                pval(r.response_p_bh),
            ]
            for r in res.rows
        ],
    )  # fmt: skip
    lines += ["", "Deal pairs whose play changed (Wilson 95%):", ""]
    lines += table(
        ["comparison", "pairs", "changed", "share", "95%"],
        [
            [c.comparison, str(c.of), str(c.pairs), num(c.share), interval(c.lo, c.hi)]
            for c in res.changed
        ],
    )  # fmt: skip
    lines += [
        "",
        f"Decisions by action kind (each game's share; {word} - fixed paired by deal):",
        "",
    ]
    lines += table(
        ["action kind", "current", "fixed", word, f"{word} - fixed [95%]", "p_bh"],
        [
            [r.kind, num(r.current), num(r.fixed), num(r.adapted),
             f"{num(r.diff)} {interval(r.lo, r.hi)}", pval(r.p_bh)]
            for r in res.actions
        ],
    )  # fmt: skip
    lines += [
        "",
        "Decisiveness, diversity and fitted values (training.balance.measures) under the current "
        f"rules and the variant, fixed and {word} (95% intervals):",
        "",
    ]
    lines += compare_lines(res.measures, ["current", "fixed", "adapted"])
    checks = res.checks
    if checks:
        lines += [
            "",
            f"Adaptation check under the variant: the {word} network in one seat, its unadapted "
            "self in the others, seats rotated (win share, Wilson 95%; converged when the "
            "interval clears chance):",
            "",
        ]
        lines += table(
            [word, "games", "win share", "95%", "chance", "verdict"],
            [
                [f"`{c.adapted}`", str(c.games), num(c.win_share), interval(c.lo, c.hi),
                 num(c.chance), verdict(c)]
                for c in checks
            ],
        )  # fmt: skip
    return lines
