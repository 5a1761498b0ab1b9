"""`results summarize`: one run's table. Every config x point with its status, throughput
per GPU and latencies; every accuracy case with score, threshold, verdict and acceptance;
what failed and why; the files that are not valid records."""

from __future__ import annotations

from collections import Counter
from typing import Any

from generator.results.gates import gates
from generator.results.markdown import number, table
from generator.results.store import Store

POINT_COLUMNS = (
    "config",
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


def summarize(store: Store) -> dict[str, Any]:
    """The CURRENT records of `store` as one JSON document."""
    points = store.rows(
        f"SELECT {', '.join(POINT_COLUMNS)} FROM records WHERE role = 'current' "
        "AND kind = 'point' ORDER BY config, isl, osl, concurrency, id"
    )
    cases = store.rows(
        f"SELECT {', '.join(CASE_COLUMNS)} FROM records WHERE role = 'current' "
        "AND kind = 'case' ORDER BY case_id, id"
    )
    runs = store.rows("SELECT run, run_time FROM runs WHERE role = 'current'")
    return {
        "schema": "sglang-ci/summary/1",
        "run": runs[0]["run"] if runs else None,
        "started_at": runs[0]["run_time"].isoformat() if runs else None,
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
            {"kind": "case", "subject": c["case_id"], "file": c["file"], "reason": _why(c)}
            for c in cases
            if c["status"] not in ("passed",)
        ],
        "gates": [g.as_dict() for g in gates(store)],
        "problems": [str(p) for p in store.problems],
        "point_rows": points,
        "case_rows": cases,
    }


def _why(row: dict[str, Any]) -> str:
    parts = [row.get("reason") or f"status {row['status']}"]
    if row.get("error"):
        parts.append(str(row["error"]).strip().splitlines()[-1][:300])
    return ": ".join(parts)


def markdown(data: dict[str, Any]) -> list[str]:
    """The summary as Markdown lines: counts, failures and gates first, the tables last
    (so a cut for size drops table rows, never a failure)."""
    p, c = data["points"], data["cases"]
    status = ", ".join(f"{k} {v}" for k, v in sorted(p["status"].items())) or "none"
    case_status = ", ".join(f"{k} {v}" for k, v in sorted(c["status"].items())) or "none"
    lines = [
        f"## Run {data['run'] or '(no records)'}",
        "",
        f"- Benchmark points: {p['total']} ({status}); valid {p['valid']}",
        f"- Accuracy cases: {c['total']} ({case_status})",
        f"- Files that are not valid records: {len(data['problems'])}",
        "",
    ]
    if data["gates"]:
        lines += ["### Failed gates", ""]
        lines += [f"- {g['gate']}: {g['kind']} `{g['id']}`: {g['message']}" for g in data["gates"]]
        lines.append("")
    if data["failures"]:
        lines += ["### What failed", ""]
        lines += table(
            ("kind", "config or case", "why", "file"),
            ((f["kind"], f["subject"], f["reason"], f["file"]) for f in data["failures"]),
        )
        lines.append("")
    if data["problems"]:
        lines += ["### Files that are not valid records", ""]
        lines += [f"- `{problem}`" for problem in data["problems"]]
        lines.append("")
    if data["case_rows"]:
        lines += ["### Accuracy cases", ""]
        lines += table(
            (
                "case",
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
                    r["case_id"],
                    r["metric"],
                    number(r["score"], 4),
                    number(r["threshold"], 4),
                    r["status"],
                    number(r["accept_length"], 2),
                    number(r["acceptance_rate"], 3),
                    number(r["min_acceptance_rate"], 3),
                )
                for r in data["case_rows"]
            ),
        )
        lines.append("")
    if data["point_rows"]:
        lines += ["### Benchmark points", ""]
        lines += table(
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
                    r["config"],
                    r["pair"],
                    r["concurrency"],
                    r["status"] if r["valid"] else f"{r['status']} (invalid)",
                    number(r["output_throughput_per_gpu"]),
                    number(r["total_token_throughput_per_gpu"]),
                    f"{number(r['median_ttft_ms'])} / {number(r['p99_ttft_ms'])}",
                    f"{number(r['median_tpot_ms'], 2)} / {number(r['p99_tpot_ms'], 2)}",
                    f"{number(r['median_itl_ms'], 2)} / {number(r['p99_itl_ms'], 2)}",
                    number(r["accept_length"], 2),
                )
                for r in data["point_rows"]
            ),
        )
    return lines
