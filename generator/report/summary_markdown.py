"""`results summarize` as Markdown (templates/summary.md.j2), its tables folded in
`<details>` (so a cut for size drops table rows, never the outcome)."""

from __future__ import annotations

import re

from generator.core.logtext import md_code as code
from generator.core.logtext import md_text as text
from generator.report import compare_text
from generator.report.markdown import SHORT, from_template, percent
from generator.results.provenance import short_digest, versions_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.report.summarize import RunSummary, ShownMetric
    from generator.results.provenance import RunnerRow

# What compare_text needs of a compare JSON to print it in full.
_COMPARE_KEYS = {"policy", "counts", "events", "gates", "missing_cases", "curves", "points",
                 "problems", "confirmed", "exit_code", "current", "history_runs"}  # fmt: skip
# Outcome lines of one kind shown before "and N more" (the tables below hold them all).
MAX_LINES = 15


def _capped(lines: list[str]) -> list[str]:
    if len(lines) <= MAX_LINES:
        return lines
    return [*lines[:MAX_LINES], f"- ... and {len(lines) - MAX_LINES} more (in the tables below)"]


def _changes(metrics: list[ShownMetric]) -> str:
    return ", ".join(
        f"{SHORT.get(m['metric'], m['metric'])} {percent(m['change'])} ({m['verdict']})"
        for m in metrics
    )


def _outcome(data: RunSummary) -> list[str]:
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


def _run(data: RunSummary) -> str:
    """The run's title (linked to it), event, ref and catalog commits."""
    info = data["run_info"]
    run = text(data["title"])
    if info.get("url"):
        run = f"[{run}]({_url(info['url'])})"
    facts = [run]
    facts += [text(info[k]) for k in ("event", "ref") if info.get(k)]
    commits = data["provenance"]["catalog_commits"]
    if commits:
        facts.append("catalog " + ", ".join(code(c[:12]) for c in commits))
    return " · ".join(facts)


def _runner(r: RunnerRow) -> str:
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


def markdown(data: RunSummary) -> list[str]:
    """The summary as Markdown lines."""
    outcome = _outcome(data)
    if data.get("headline") and not any(line.startswith("- ") for line in outcome):
        outcome = []
    compare = data["compare"]
    compared = compare_text.markdown(compare) if compare and set(compare) >= _COMPARE_KEYS else None
    return from_template(
        "summary.md.j2",
        data=data,
        v=data["verdicts"],
        outcome=outcome,
        run=_run(data),
        runners=[_runner(r) for r in data["provenance"]["runners"]],
        compare=compared,
        status=", ".join(f"{k} {n}" for k, n in sorted(data["points"]["status"].items())),
        changes=_changes,
        short_digest=short_digest,
        versions_text=versions_text,
        text=text,
    )
