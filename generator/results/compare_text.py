"""`results compare` as Markdown: the outcome, the gates, then every point and curve that
is not plainly `ok` (most severe first), then the counts."""

from __future__ import annotations

from typing import Any

from generator.results.markdown import number, percent, table
from generator.results.verdict import IMPROVED, OK, SEVERITY

SHORT = {
    "output_throughput_per_gpu": "tok/s/GPU",
    "median_ttft_ms": "TTFT",
    "median_tpot_ms": "TPOT",
    "acceptance_rate": "acceptance",
}


def _outcome(data: dict[str, Any]) -> str:
    policy = data["policy"]
    parts = []
    if data["regressions"]:
        parts.append(f"{data['regressions']} confirmed regression(s) ({policy['on_regression']})")
    if data["gates"]:
        parts.append(f"{len(data['gates'])} failed gate(s) ({policy['on_gate']})")
    if data.get("reason"):
        parts.append(str(data["reason"]))
    elif data.get("missing"):
        parts.append(f"{data['missing']} expected point(s) or case(s) without a record")
    verdict = "FAIL" if data["exit_code"] else "pass"
    return f"**{verdict}**" + (": " + "; ".join(parts) if parts else ": no confirmed regression")


def _note(m: dict[str, Any]) -> str:
    if not m["baseline"]:
        return f"{m['runs']} runs"
    return f"band {abs(m['band'] / m['baseline']):.1%}, {m['runs']} runs"


def markdown(data: dict[str, Any]) -> list[str]:
    policy = data["policy"]
    changes = ", ".join(f"{SHORT[m]} {v:.0%}" for m, v in policy["min_change"].items())
    lines = [
        f"## Verdicts: {data['current']} against {data['history_runs']} history run(s)",
        "",
        _outcome(data),
        "",
        f"Baseline: last {policy['runs']} valid runs (at least {policy['min_runs']}); band "
        f"max({policy['k']:g} x 1.4826 x MAD, {changes}); policy from {policy['source']}.",
        "",
    ]
    counts = data["counts"]
    for what in ("points", "curves"):
        found = counts[what]
        shown = ", ".join(f"{v} {found[v]}" for v in SEVERITY if v in found) or "none"
        lines.append(f"- {what}: {shown}")
    lines.append("")
    if data["gates"]:
        lines += ["### Failed gates", ""]
        lines += [f"- {g['gate']}: {g['kind']} `{g['id']}`: {g['message']}" for g in data["gates"]]
        lines.append("")
    if data["missing_cases"]:
        lines += ["### Missing accuracy cases", ""]
        lines += [f"- `{c['id']}` ({c['case']})" for c in data["missing_cases"]]
        lines.append("")
    curves = [c for c in data["curves"] if c["verdict"] not in (OK,)]
    if curves:
        lines += ["### Curves (throughput per GPU at fixed interactivity)", ""]
        lines += table(
            ("verdict", "config", "ISLxOSL", "at tok/s/user", "change", "note"),
            (
                (
                    c["verdict"],
                    c["config"],
                    c["pair"],
                    number(c["interactivity"]),
                    percent(c["change"]),
                    c["note"] or "",
                )
                for c in sorted(curves, key=lambda c: SEVERITY.index(c["verdict"]))
            ),
        )
        lines.append("")
    rows = []
    for p in sorted(data["points"], key=lambda p: SEVERITY.index(p["verdict"])):
        if p["verdict"] in (OK, IMPROVED) and not p["reason"]:
            continue
        if not p["metrics"]:
            rows.append(
                (
                    p["verdict"],
                    p["config"],
                    p["pair"],
                    p["concurrency"],
                    "",
                    "",
                    "",
                    "",
                    p["reason"],
                )
            )
        for m in p["metrics"].values():
            if m["verdict"] == OK:
                continue
            rows.append(
                (
                    m["verdict"],
                    p["config"],
                    p["pair"],
                    p["concurrency"],
                    SHORT[m["metric"]],
                    number(m["current"], 2),
                    number(m["baseline"], 2),
                    percent(m["change"]),
                    _note(m),
                )
            )
    if rows:
        lines += ["### Points", ""]
        lines += table(
            ("verdict", "config", "ISLxOSL", "conc", "metric", "now", "baseline", "change", "note"),
            rows,
        )
        lines.append("")
    if data["problems"]:
        lines += ["### Files that are not valid records", ""]
        lines += [f"- `{p}`" for p in data["problems"]]
    return lines
