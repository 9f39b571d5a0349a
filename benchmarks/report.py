"""Markdown table and bar chart of a benchmarks.run result."""

from __future__ import annotations

from pathlib import Path


def _fmt(x) -> str:
    if x is None:
        return ""
    if isinstance(x, float) and x < 100:
        return f"{x:,.2f}"
    return f"{x:,.0f}"


def to_markdown(res: dict) -> str:
    m = res["machine"]
    hashes = ", ".join(f"{g} `{h}`" for g, h in res["rules_data_hash"].items())
    lines = [
        f"# Benchmarks ({'quick' if res['quick'] else 'full'} run, {res['date']})",
        "",
        f"Command: `{res['command']}`; {res['seconds_per_row']} s per row; "
        f"{res['players']} players for our games.",
        f"Machine: {m.get('cpu_model', m.get('processor'))}, {m.get('cpus')} CPUs, "
        f"Python {m['python']}, numpy {m['numpy']}, numba {m['numba']}; load average at start "
        f"{m.get('loadavg')}.",
        f"RULES_DATA_HASH: {hashes}. **Results rest on provisional rules data.**",
        "Peers: " + ", ".join(f"{k} {v}" for k, v in res["peer_versions"].items()) + ".",
        "",
        "A decision is a step with an agent-chosen action (forced single-option choices and "
        "chance outcomes not counted); rows run on one thread unless `threads`/`procs` say so.",
        "",
        "| group | row | library | decisions/s | games/s | threads | procs | note |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in res["rows"]:
        if r["group"] == "memory":
            continue
        note = r.get("note", "")
        if "median_decision_ms" in r:
            note = f"median {_fmt(r['median_decision_ms'])} ms per decision; " + note
        if "network_evals_per_s" in r:
            note = f"{_fmt(r['network_evals_per_s'])} network evaluations/s; " + note
        lines.append(
            f"| {r['group']} | {r['name']} | {r['lib']} | "
            f"{_fmt(r.get('decisions_per_s'))} | {_fmt(r.get('games_per_s'))} | "
            f"{r['threads']} | {r['procs']} | {note} |"
        )
    mem = [r for r in res["rows"] if r["group"] == "memory"]
    if mem:
        lines += ["", "| memory | library | bytes per game state | note |", "|---|---|---:|---|"]
        for r in mem:
            lines.append(
                f"| {r['name']} | {r['lib']} | {_fmt(r.get('bytes_per_state'))} | "
                f"{r.get('note', '')} |"
            )
    if res["targets"]:
        lines += [
            "",
            "| target | game | measured | how | needed | met |",
            "|---|---|---:|---|---:|---|",
        ]
        for t in res["targets"]:
            if t["status" if "status" in t else "target"] == "not measured":
                lines.append(f"| {t['target']} | {t['game']} | not measured | | | |")
                continue
            how = t.get("how", "rows")
            if "rows_ratio" in t:
                how += f" (rows: {_fmt(t['rows_ratio'])})"
            lines.append(
                f"| {t['target']} | {t['game']} | {_fmt(t['value'])} | {how} | "
                f"{_fmt(t['needed'])} | {'yes' if t['met'] else '**no**'} |"
            )
        if res.get("paired"):
            lines += ["", "Paired ratios (rows measured again alternately, ratio per round):"]
            lines += [
                f"- {k}: " + ", ".join(_fmt(x) for x in p["ratios"])
                for k, p in res["paired"].items()
            ]
    if res["skipped"]:
        lines += ["", "Skipped:"]
        lines += [f"- {s['group']}: {s['name']} ({s['reason']})" for s in res["skipped"]]
    return "\n".join(lines) + "\n"


def to_png(res: dict, path: Path) -> Path | None:
    """Horizontal bars of decisions/s (log scale), ours vs peers; None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rows = [r for r in res["rows"] if r.get("decisions_per_s")]
    if not rows:
        return None
    labels = [f"[{r['group']}] {r['name']}" for r in rows][::-1]
    vals = [r["decisions_per_s"] for r in rows][::-1]
    colors = ["tab:blue" if r["lib"] == "ours" else "tab:gray" for r in rows][::-1]
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(rows) + 1.5))
    ax.barh(range(len(rows)), vals, color=colors)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("decisions per second (log scale; blue: ours, grey: peers)")
    hashes = ", ".join(f"{g} {h}" for g, h in res["rules_data_hash"].items())
    ax.set_title(
        f"Throughput ({'quick' if res['quick'] else 'full'} run {res['date'][:10]}; "
        f"provisional rules data {hashes})",
        fontsize=9,
    )
    for i, v in enumerate(vals):
        ax.text(v, i, f" {v:,.0f}", va="center", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
