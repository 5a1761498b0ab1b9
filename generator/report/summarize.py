"""`results summarize`: the run summary for whoever is on call.

First the headline, the run's outcome in its colour, and one line per event (oncall.py),
then what else failed (failed gates, missing jobs and failed points, each a line), then
provenance (each image with its digest and
versions, the runners, a link to the run, expected / reported / missing counts), then the
tables, folded in `<details>`: the verdicts that are not `ok`, every accuracy case, every
config x point. The outcome comes from the verdicts of `results compare --json`
(`--verdicts`); without them the summary says the run was not judged.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from generator.launch.logtext import md_code as code
from generator.launch.logtext import md_text as text
from generator.launch.record_rules import error_line
from generator.report import compare_text, oncall
from generator.report.markdown import number, percent, table
from generator.results.expected import Expected, counts, missing_jobs, missing_points
from generator.results.gates import gates
from generator.results.provenance import provenance, short_digest, title, versions_text
from generator.results.verdicts_json import read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from generator.confirm.outcomes import Outcome
    from generator.confirm.tracked import Tracked
    from generator.results.store import Store

SCHEMA = "sglang-ci/summary/1"
# What compare_text needs of a compare JSON to print it in full.
_COMPARE_KEYS = {"policy", "counts", "events", "gates", "missing_cases", "curves", "points",
                 "problems", "confirmed", "exit_code", "current", "history_runs"}  # fmt: skip
# Outcome lines of one kind shown before "and N more" (the tables below hold them all).
MAX_LINES = 15
POINT_COLUMNS = (
    "config",
    "display",
    "pair",
    "concurrency",
    "status",
    "valid",
    "reason",
    "error",
    "output_throughput_per_gpu",
    "total_token_throughput_per_gpu",
    "median_ttft_ms",
    "p99_ttft_ms",
    "median_tpot_ms",
    "p99_tpot_ms",
    "median_itl_ms",
    "p99_itl_ms",
    "interactivity",
    "spec",
    "accept_length",
    "acceptance_rate",
    "image",
    "file",
)
CASE_COLUMNS = (
    "case_id",
    "case_name",
    "id",
    "status",
    "metric",
    "score",
    "threshold",
    "passed",
    "spec",
    "accept_length",
    "acceptance_rate",
    "min_acceptance_rate",
    "error",
    "image",
    "file",
)
SHORT = {
    "output_throughput_per_gpu": "tok/s/GPU",
    "median_ttft_ms": "TTFT",
    "median_tpot_ms": "TPOT",
    "acceptance_rate": "acceptance",
}


@dataclass(frozen=True, kw_only=True)
class Around:
    """What the headline and the event lines read beside the verdicts: the A/B outcomes,
    the tracking issues, the dashboard's URL, whether an A/B job comes after this one."""

    outcomes: Mapping[str, Outcome] = field(default_factory=dict)
    issues: Sequence[Tracked] = ()
    dashboard: str | None = None
    awaiting_ab: bool = False


def summarize(
    store: Store,
    *,
    expected: Expected | None = None,
    verdicts: Mapping[str, Any] | None = None,
    run: Mapping[str, Any] | None = None,
    around: Around | None = None,
) -> dict[str, Any]:
    """The CURRENT records of `store` as one JSON document; `verdicts`: the run's
    `compare --json`; `run`: provenance.run_info."""
    points = store.rows(
        f"SELECT {', '.join(POINT_COLUMNS)} FROM records WHERE role = 'current' "
        "AND kind = 'point' ORDER BY config, isl, osl, concurrency, id"
    )
    cases = store.rows(
        f"SELECT {', '.join(CASE_COLUMNS)} FROM records WHERE role = 'current' "
        "AND kind = 'case' ORDER BY case_id, id"
    )
    runs = store.rows("SELECT run, run_time FROM runs WHERE role = 'current'")
    name = runs[0]["run"] if runs else None
    info = dict(run or {})
    images = {
        str(r["config"]): str(r["image"])
        for r in store.rows(
            "SELECT config, min(image_pinned) AS image FROM records WHERE role = 'current' "
            "AND kind = 'point' AND image_pinned IS NOT NULL GROUP BY config"
        )
    }
    around = around or Around()
    headline: str | None = None
    lines: list[str] = []
    if verdicts is not None:
        ctx = oncall.Context(
            run=str(verdicts.get("current") or name or ""),
            title=title(info, name),
            dashboard=around.dashboard,
            images=images,
            awaiting_ab=around.awaiting_ab,
        )
        headline, lines = oncall.section(
            verdicts,
            ctx,
            outcomes=around.outcomes,
            issues=around.issues,
            extra=_extra(verdicts, store, expected),
        )
    return {
        "schema": SCHEMA,
        "run": name,
        "title": title(info, name),
        "headline": headline,
        "event_lines": lines,
        "compare": dict(verdicts) if verdicts is not None else None,
        "run_info": info,
        "started_at": runs[0]["run_time"].isoformat() if runs else None,
        "judged": verdicts is not None,
        "verdicts": _verdicts(verdicts),
        "counts": counts(store, expected),
        "missing_jobs": [
            {"job": job, "points": n, "reason": why}
            for job, n, why in missing_jobs(store, expected)
        ],
        "missing_points": [
            {**identity, "reason": why} for identity, why in missing_points(store, expected)
        ],
        "provenance": provenance(store),
        "points": {
            "total": len(points),
            "valid": sum(bool(p["valid"]) for p in points),
            "status": dict(Counter(p["status"] for p in points)),
        },
        "cases": {"total": len(cases), "status": dict(Counter(c["status"] for c in cases))},
        "failures": [
            {"kind": "point", "subject": p["config"], "file": p["file"], "reason": _why(p)}
            for p in points
            if not p["valid"]
        ]
        + [
            {"kind": "case", "subject": c["id"], "file": c["file"], "reason": _why(c)}
            for c in cases
            if c["status"] != "passed"
        ],
        "gates": [g.as_dict() for g in gates(store)],
        "problems": [str(p) for p in store.problems],
        "point_rows": points,
        "case_rows": cases,
    }


def _extra(verdicts: Mapping[str, Any], store: Store, expected: Expected | None) -> list[str]:
    """The headline's other causes: failed gates, missing data."""
    out = []
    found = len(list(gates(store)))
    if found:
        out.append(f"{found} failed gate{'s' if found > 1 else ''}")
    missing = verdicts.get("missing")
    if verdicts.get("reason"):  # a run without any record says so, the count aside
        out.append(str(verdicts["reason"]))
    elif isinstance(missing, int) and missing:
        out.append(f"{missing} expected point(s) or case(s) missing")
    elif expected is not None and missing_points(store, expected):
        out.append(f"{len(missing_points(store, expected))} expected point(s) missing")
    return out


def _verdicts(data: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What the summary shows of the verdicts: the outcome and every point and curve that
    is not plainly ok."""
    if data is None:
        return None
    v = read(data)
    return {
        "outcome": v.outcome,
        "reason": v.reason,
        "causes": list(v.causes),
        "regressions": v.regressions,
        "gates": list(v.gates),
        "points": [
            {
                "config": p.config,
                "pair": p.pair,
                "concurrency": p.concurrency,
                "verdict": p.verdict,
                "reason": p.reason,
                "metrics": [
                    {"metric": m.metric, "verdict": m.verdict, "change": m.change}
                    for m in p.metrics
                    if m.verdict != "ok"
                ],
            }
            for p in v.points
            if p.verdict not in ("ok", "improved")
        ],
        "curves": [
            {"config": c.config, "pair": c.pair, "verdict": c.verdict, "change": c.change}
            for c in v.curves
            if c.verdict not in ("ok", "improved")
        ],
    }


def _why(row: dict[str, Any]) -> str:
    parts = [row.get("reason") or f"status {row['status']}"]
    line = error_line(row.get("error"))
    if line and line != parts[0]:
        parts.append(line)
    return ": ".join(parts)


def _capped(lines: list[str]) -> list[str]:
    if len(lines) <= MAX_LINES:
        return lines
    return [*lines[:MAX_LINES], f"- ... and {len(lines) - MAX_LINES} more (in the tables below)"]


def _changes(metrics: list[dict[str, Any]]) -> str:
    return ", ".join(
        f"{SHORT.get(m['metric'], m['metric'])} {percent(m['change'])} ({m['verdict']})"
        for m in metrics
    )


def _outcome(data: dict[str, Any]) -> list[str]:
    v = data["verdicts"]
    missing = data["missing_jobs"]
    lost_points = sum(j["points"] for j in missing)
    parts = []
    if v is None:
        head = "**not judged** (no verdicts)"
    else:
        head = f"**{v['outcome']}**"
        if v["reason"]:
            parts.append(v["reason"])
        if v["regressions"] and not data.get("headline"):
            parts.append(f"{v['regressions']} confirmed regression(s)")
    if data["gates"]:
        parts.append(f"{len(data['gates'])} failed gate(s)")
    if missing:
        parts.append(f"{len(missing)} missing job(s) ({lost_points} points)")
    others = len(data["missing_points"]) - lost_points
    if others > 0:
        parts.append(f"{others} other missing point(s)")
    failed = [f for f in data["failures"] if f["kind"] == "point"]
    if failed:
        parts.append(f"{len(failed)} failed or invalid point(s)")
    lines = [head + (": " + "; ".join(parts) if parts else ""), ""]
    # The event lines above say each regression; the other causes follow.
    lines += [
        f"- {text(cause)}"
        for cause in (v["causes"] if v else [])
        if not cause.startswith("confirmed regression of ")
    ]
    if not (v and v["causes"]):  # the causes name the failed gates
        lines += [
            f"- failed gate: {g['gate']}: {g['kind']} {code(g['id'])}: {text(g['message'])}"
            for g in data["gates"]
        ]
    lines += _capped(
        [
            f"- missing job {code(j['job'])} ({j['points']} points): {text(j['reason'])}"
            for j in missing
        ]
    )
    lines += _capped(
        [f"- failed: {f['kind']} {code(f['subject'])}: {text(f['reason'])}" for f in failed]
    )
    return [*lines, ""]


def _provenance(data: dict[str, Any]) -> list[str]:
    info, prov = data["run_info"], data["provenance"]
    lines = ["### Provenance", ""]
    run = text(data["title"])
    if info.get("url"):
        run = f"[{run}]({_url(info['url'])})"
    facts = [run]
    facts += [text(info[k]) for k in ("event", "ref") if info.get(k)]
    commits = prov["catalog_commits"]
    if commits:
        facts.append("catalog " + ", ".join(code(c[:12]) for c in commits))
    lines.append("- Run: " + " · ".join(facts))
    for image in prov["images"]:
        digest = short_digest(image["digest"])
        lines.append(
            f"- Image {code(image['requested'] or '-')}"
            + (f" {code(digest)}" if digest else " (no digest)")
            + f": {versions_text(image, text)}"
            + (f" (SGLang commit {code(image['sglang_commit'])})" if image["sglang_commit"] else "")
            + f"; {image['jobs']} job(s)"
        )
    runners = [_runner(r) for r in prov["runners"]]
    if runners:
        lines.append("- Runners: " + ", ".join(runners))
    c = data["counts"]
    shown = [
        f"{what} {c[what]['expected']} / {c[what]['reported']} / {c[what]['missing']}"
        for what in ("jobs", "points", "cases")
        if what in c
    ]
    lines.append("- Expected / reported / missing: " + " · ".join(shown))
    lines.append(f"- Files that are not valid records: {len(data['problems'])}")
    return [*lines, ""]


def _runner(r: Mapping[str, Any]) -> str:
    """A runner of the run: its name and label, or its label when the job reported no
    name (RUNNER_NAME unset), its GPU, and how many records it made."""
    gpu = text(r["gpu"] or "GPU unknown")
    if r["name"]:
        return f"{code(r['name'])} ({text(r['label'] or 'no label')}, {gpu}) x{r['records']}"
    label = code(r["label"] or "-")
    return f"label {label} (runner name not reported, {gpu}) x{r['records']}"


def _url(url: object) -> str:
    """A link target from the run's own facts: only an https URL, without the characters
    that would end the link's destination."""
    text = str(url)
    return text if re.fullmatch(r"https://[^\s()<>`\\]+", text) else "#"


def _details(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>", ""]


def markdown(data: dict[str, Any]) -> list[str]:
    """The summary as Markdown lines: the outcome, provenance, then the tables folded (so
    a cut for size drops table rows, never the outcome)."""
    if data.get("headline"):
        lines = [f"## {data['headline']} · {text(data['title'])}", ""]
        lines += [*data["event_lines"], ""] if data["event_lines"] else []
        causes = _outcome(data)
        lines += causes if any(line.startswith("- ") for line in causes) else []
    else:
        verdict = data["verdicts"]["outcome"] if data["verdicts"] else "not judged"
        lines = [f"## {text(data['title'])}: {verdict}", "", *_outcome(data)]
    lines += _provenance(data)
    v = data["verdicts"]
    if v and (v["points"] or v["curves"]):
        rows = [
            (
                p["verdict"],
                text(p["config"]),
                text(p["pair"]),
                p["concurrency"],
                _changes(p["metrics"]),
                text(p["reason"]) if p["reason"] else "",
            )
            for p in v["points"]
        ] + [
            (c["verdict"], text(c["config"]), text(c["pair"]), "curve", percent(c["change"]), "")
            for c in v["curves"]
        ]
        lines += _details(
            f"Verdicts: {len(v['points'])} points and {len(v['curves'])} curves not ok",
            table(("verdict", "config", "ISLxOSL", "conc", "change", "note"), rows),
        )
    if set(data.get("compare") or ()) >= _COMPARE_KEYS:
        lines += _details("The verdicts in full (results compare)",
                          compare_text.markdown(data["compare"]))  # fmt: skip
    if data["problems"]:
        lines += _details(
            f"Files that are not valid records ({len(data['problems'])})",
            [f"- {code(problem)}" for problem in data["problems"]],
        )
    if data["case_rows"]:
        lines += _details(
            f"Accuracy cases ({len(data['case_rows'])})",
            table(
                (
                    "case",
                    "image",
                    "metric",
                    "score",
                    "threshold",
                    "verdict",
                    "accept length",
                    "acceptance",
                    "min",
                ),
                (
                    (
                        # A case on two images is two runs of it: the run's id and its image
                        # tell them apart.
                        text(r["id"]),
                        code(r["image"] or "-"),
                        text(r["metric"]),
                        number(r["score"], 4),
                        number(r["threshold"], 4),
                        text(r["status"]),
                        number(r["accept_length"], 2),
                        number(r["acceptance_rate"], 3),
                        number(r["min_acceptance_rate"], 3),
                    )
                    for r in data["case_rows"]
                ),
            ),
        )
    if data["point_rows"]:
        p = data["points"]
        status = ", ".join(f"{k} {n}" for k, n in sorted(p["status"].items()))
        lines += _details(
            f"Benchmark points ({p['total']}: {status}; valid {p['valid']})",
            table(
                (
                    "config",
                    "ISLxOSL",
                    "conc",
                    "status",
                    "out tok/s/GPU",
                    "total tok/s/GPU",
                    "TTFT med / p99 ms",
                    "TPOT med / p99 ms",
                    "ITL med / p99 ms",
                    "accept len",
                ),
                (
                    (
                        text(r["config"]),
                        text(r["pair"]),
                        r["concurrency"],
                        text(r["status"]) + ("" if r["valid"] else " (invalid)"),
                        number(r["output_throughput_per_gpu"]),
                        number(r["total_token_throughput_per_gpu"]),
                        f"{number(r['median_ttft_ms'])} / {number(r['p99_ttft_ms'])}",
                        f"{number(r['median_tpot_ms'], 2)} / {number(r['p99_tpot_ms'], 2)}",
                        f"{number(r['median_itl_ms'], 2)} / {number(r['p99_itl_ms'], 2)}",
                        number(r["accept_length"], 2),
                    )
                    for r in data["point_rows"]
                ),
            ),
        )
    return lines
