"""`results compare` as Markdown: the outcome, the events, the gates, then every point and
curve that is not plainly `ok` (most severe first), then the counts."""

from __future__ import annotations

from typing import Any

from generator.launch.logtext import md_code as code
from generator.launch.logtext import md_text as text
from generator.report.markdown import SHORT, number, percent, table
from generator.results.verdict import IMPROVED, OK, SEVERITY


def _outcome(data: dict[str, Any]) -> str:
    policy = data["policy"]
    parts = []
    if data["confirmed"]:
        parts.append(
            f"{len(data['confirmed'])} regression(s) confirmed by this run "
            f"({policy['on_regression']})"
        )
    if data["gates"]:
        parts.append(f"{len(data['gates'])} failed gate(s) ({policy['on_gate']})")
    if data.get("reason"):
        parts.append(str(data["reason"]))
    elif data.get("missing"):
        parts.append(f"{data['missing']} expected point(s) or case(s) without a record")
    verdict = "FAIL" if data["exit_code"] else "pass"
    return f"**{verdict}**" + (": " + "; ".join(parts) if parts else ": no new regression")


def _note(m: dict[str, Any]) -> str:
    text = f"{m['runs']} runs"
    if m["band"] is not None:
        text = f"band {m['band']:.1%}, " + text
    return f"{text}; {m['note']}" if m.get("note") else text


def _size(changes: dict[str, Any]) -> str:
    return "; ".join(
        f"{SHORT.get(m, m)} {percent(c['change'])} [{percent(c['low'])}, {percent(c['high'])}]"
        for m, c in changes.items()
    )


def _events(data: dict[str, Any]) -> list[str]:
    found = data["events"]
    if not found:
        return []
    rows = []
    for e in sorted(found, key=lambda e: (e["state"] != "confirmed", e["config"])):
        state = e["state"] + (" (new)" if e["new_confirmation"] else "")
        what = ", ".join(
            [f"{p['isl']}x{p['osl']} c={p['concurrency']}" for p in e["points"]]
            + [f"{c['isl']}x{c['osl']} curve" for c in e["curves"]]
        )
        differs = ", ".join(f"{k} {a} -> {b}" for k, (a, b) in e["differences"].items())
        rows.append(
            (
                state,
                text(e["config"]),
                text(e["first_bad_run"]),
                text(e["last_good_run"]) if e["last_good_run"] else "",
                e["runs"],
                _size(e["changes"]),
                what,
                (e["cause"] + " change; " if e["cause"] else "")
                + (text(differs) if differs else ""),
                text(e["id"]),
            )
        )
    header = ("state", "config", "first bad run", "last good run", "runs", "change [95%]",
              "points and curves", "what differs", "event")  # fmt: skip
    return ["### Events", "", *table(header, rows), ""]


def _rank(item: tuple[str, int]) -> int:
    return SEVERITY.index(item[0]) if item[0] in SEVERITY else len(SEVERITY)


def markdown(data: dict[str, Any]) -> list[str]:
    policy = data["policy"]
    changes = ", ".join(f"{SHORT[m]} {v:.0%}" for m, v in policy["min_change"].items())
    z = policy["significance"]
    lines = [
        f"## Verdicts: {data['current']} against {data['history_runs']} history run(s)",
        "",
        _outcome(data),
        "",
        (
            f"Each server's level and each point beyond it against the runs before (at most "
            f"{policy['window']}, at least {policy['min_runs']}), in standard errors of the "
            f"history's noise: one run {z['suspect']:g} worse is suspected, a stretch of runs "
            f"{z['confirm']:g} worse (or the A/B) confirms, a point {z['point']:g}; a confirmed "
            f"change of {changes} fails the run. Policy from {policy['source']}."
        ),
        "",
        *_events(data),
    ]
    counts = data["counts"]
    for what in ("events", "points", "curves"):
        found = counts.get(what, {})
        shown = ", ".join(f"{v} {n}" for v, n in sorted(found.items(), key=_rank)) or "none"
        lines.append(f"- {what}: {shown}")
    lines.append("")
    if data["gates"]:
        lines += ["### Failed gates", ""]
        lines += [
            f"- {g['gate']}: {g['kind']} {code(g['id'])}: {text(g['message'])}"
            for g in data["gates"]
        ]
        lines.append("")
    if data["missing_cases"]:
        lines += ["### Missing accuracy cases", ""]
        lines += [f"- {code(c['id'])} ({text(c['case'])})" for c in data["missing_cases"]]
        lines.append("")
    curves = [c for c in data["curves"] if c["verdict"] != OK]
    if curves:
        lines += ["### Curves (throughput per GPU at fixed interactivity)", ""]
        lines += table(
            ("verdict", "config", "ISLxOSL", "at tok/s/user", "change", "note"),
            (
                (
                    c["verdict"],
                    text(c["config"]),
                    text(c["pair"]),
                    number(c["interactivity"]),
                    percent(c["change"]),
                    text(c["note"]) if c["note"] else "",
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
                    text(p["config"]),
                    text(p["pair"]),
                    p["concurrency"],
                    "",
                    "",
                    "",
                    "",
                    text(p["reason"]),
                )
            )
        for m in p["metrics"].values():
            if m["verdict"] == OK:
                continue
            rows.append(
                (
                    m["verdict"],
                    text(p["config"]),
                    text(p["pair"]),
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
        lines += [f"- {code(p)}" for p in data["problems"]]
    return lines
