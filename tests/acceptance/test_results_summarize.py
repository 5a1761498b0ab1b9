"""`sglang-ci results summarize`: the run summary a summary job writes, outcome first."""

from __future__ import annotations

import json

from click.testing import CliRunner, Result

from generator.cli.sglang_ci import main
from generator.core.logtext import one_line
from tests.results_gen import (
    Point,
    Run,
    Shape,
    case_record,
    history,
    point_record,
    sweep,
    write_run,
)
from tests.unit.test_markdown_text import PAYLOADS, assert_harmless, inside_code, render_markdown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

RUN = Run(day=5)
MTP = Point(config="ds-mtp", spec="mtp", draft_tokens=3)
GITHUB = {
    "GITHUB_WORKFLOW": "Benchmark",
    "GITHUB_RUN_NUMBER": "42",
    "GITHUB_RUN_ID": "7005",
    "GITHUB_RUN_ATTEMPT": "1",
    "GITHUB_REPOSITORY": "example/sglang-ci",
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_EVENT_NAME": "schedule",
}
RUN_URL = "https://github.com/example/sglang-ci/actions/runs/7005"
CRASH = (
    "sglang.bench_serving exited with status 1:\nTraceback (most recent call last):\n"
    '  File "/sgl/bench_serving.py", line 90, in <module>\n    main()\n'
    "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host 127.0.0.1:30000\n"
    "  0%|          | 0/40 [00:00<?, ?it/s]\n"
)


def summarize(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner(env=env if env is not None else GITHUB).invoke(
        main, ["--root", str(tmp_path), "results", "summarize", *args], catch_exceptions=False
    )


def make_run(tmp_path: Path) -> Path:
    points = sweep()
    records = [point_record(RUN, p) for p in points[1:]]
    crashed = point_record(RUN, points[0], Shape(status="server-died", extra={"completed": None}))
    crashed["error"] = CRASH
    records.append(crashed)
    records.append(point_record(RUN, MTP, Shape(accept_length=None)))
    records.append(case_record(RUN))
    records.append(case_record(RUN, "gsm8k-low", score=0.91))
    return write_run(tmp_path, RUN, records, name="run")


def test_the_json_counts_every_point_and_case(tmp_path: Path) -> None:
    root = make_run(tmp_path)
    result = summarize(tmp_path, str(root), "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["points"] == {"total": 7, "valid": 5, "status": {"ok": 6, "server-died": 1}}
    assert data["cases"] == {"total": 2, "status": {"failed": 1, "passed": 1}}
    assert [(f["subject"], f["reason"]) for f in data["failures"]] == [
        (
            "ds-fp8-tp8",
            (
                "status server-died: sglang.bench_serving exited with status 1: "
                "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host "
                "127.0.0.1:30000"
            ),
        ),
        ("ds-mtp", "no acceptance length from a speculative-decoding server"),
        ("gsm8k-low-nightly", "status failed"),  # the case's run: a case may run on two images
    ]
    assert [(g["gate"], g["subject"]) for g in data["gates"]] == [
        ("accuracy", "gsm8k-low"),
        ("acceptance", "ds-mtp"),
    ]
    assert data["title"] == "Benchmark #42"
    assert data["run_info"]["url"] == "https://github.com/example/sglang-ci/actions/runs/7005"


def test_the_outcome_comes_first_then_provenance_then_folded_tables(tmp_path: Path) -> None:
    # The point at concurrency 16 half as fast on the newest history run and on this one:
    # the regression this run confirms.
    points = sweep()
    history(
        tmp_path / "history", points, 10, shapes={(9, points[2].point_id): Shape(throughput=0.5)}
    )
    root = make_run(tmp_path)
    data = root / "ds-fp8-tp8-1024x1024" / "ds-fp8-tp8-1024-1024-16.json"
    drop = json.loads(data.read_text())
    drop["metrics"]["output_throughput_per_gpu"] *= 0.5
    data.write_text(json.dumps(drop))
    verdicts = tmp_path / "verdicts.json"
    compared = CliRunner().invoke(
        main,
        [
            *("--root", str(tmp_path), "results", "compare"),
            *("--history", str(tmp_path / "history"), "--current", str(root)),
            *("--json", "--out", str(verdicts)),
        ],
    )
    assert compared.exit_code == 1
    text = summarize(tmp_path, str(root), "--verdicts", str(verdicts)).stdout
    lines = text.splitlines()
    verdict = json.loads(verdicts.read_text())
    [event] = [e for e in verdict["events"] if e["id"] in verdict["confirmed"]]
    # The outcome in the run's colour, then one line per event, then the other causes.
    assert (
        lines[0] == "## red: 1 new regression (ds-fp8-tp8 -49.4%), 2 failed gates · Benchmark #42"
    )
    assert lines[2] == (
        "- **new** ds-fp8-tp8 tok/s/GPU -49.4% [-50.5%, -48.4%] at 1024x1024 c16 since "
        f"{event['first_bad_run']}: digest 080808080808 -> 090909090909; "
        "confirmed by the runs after it · "
        "`sglang-ci explain ds-fp8-tp8 --image rocm/sgl-dev@sha256:" + "09" * 32 + "`"
    )
    assert lines[4] == "**fail**: 2 failed gate(s); 2 failed or invalid point(s)"
    assert lines[6:8] == [
        (
            "- failed gate: case gsm8k-low-nightly: exact_match,flexible-extract 0.91 below the "
            "threshold 0.93"
        ),
        "- failed gate: point ds-mtp-1024-1024-4: MTP point without acceptance length",
    ]
    assert (
        "- failed: point `ds-fp8-tp8`: status server-died: sglang.bench_serving exited with "
        "status 1: aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host "
        "127.0.0.1:30000"
    ) in lines
    assert (
        "- Run: [Benchmark #42](https://github.com/example/sglang-ci/actions/runs/7005) · "
        "schedule · catalog `000000000000`"
    ) in lines
    assert (
        "- Image `rocm/sgl-dev:nightly` `sha256:050505050505`: SGLang 0.5.6 · ATOM - · "
        "AITER - · ROCm 7.0.2; 4 job(s)"
    ) in lines
    assert "- Runners: `runner-01` (mi355-8gpu, AMD Instinct MI355X) x9" in lines
    order = [
        text.index(s)
        for s in (
            "**fail**",
            "### Provenance",
            "<summary>Verdicts:",
            "<summary>The verdicts in full (results compare)",
            "<summary>Accuracy cases (2)",
            "<summary>Benchmark points (7: ok 6, server-died 1; valid 5)",
        )
    ]
    assert order == sorted(order)


def test_expected_jobs_count_and_a_lost_job_is_named_with_its_status(tmp_path: Path) -> None:
    root = make_run(tmp_path)
    lost = {
        "id": "ds-fp8-tp8-8192x1024",
        "config": "ds-fp8-tp8",
        "runner": "mi355-8gpu",
        "image": "rocm/sgl-dev:nightly",
        "points": [{"id": f"p{c}", "isl": 8192, "osl": 1024, "concurrency": c} for c in (4, 8)],
    }
    kept = {
        **lost,
        "id": "ds-fp8-tp8-1024x1024",
        "points": [
            {"id": p.point_id, "isl": 1024, "osl": 1024, "concurrency": p.concurrency}
            for p in sweep()
        ],
    }
    matrix = tmp_path / "expected.json"
    matrix.write_text(json.dumps({"include": [kept, lost]}))
    jobs = tmp_path / "jobs.json"
    jobs.write_text(
        json.dumps(
            [
                {
                    "name": "ds-fp8-tp8-8192x1024 / ds-fp8-tp8-8192x1024",
                    "status": "completed",
                    "conclusion": "cancelled",
                    "steps": [],
                }
            ]
        )
    )
    result = summarize(tmp_path, str(root), "--expected", str(matrix), "--jobs", str(jobs))
    lines = result.stdout.splitlines()
    assert lines[2].startswith("**not judged** (no verdicts): 2 failed gate(s); 1 missing job(s)")
    assert "- missing job `ds-fp8-tp8-8192x1024` (2 points): not reported: job cancelled" in lines
    assert (
        "- Expected / reported / missing: jobs 2 / 1 / 1 · points 8 / 7 / 2 · cases 0 / 2 / 0"
    ) in lines


def test_a_large_summary_is_cut_and_the_full_text_written(tmp_path: Path) -> None:
    root = make_run(tmp_path)
    full = tmp_path / "full.md"
    result = summarize(tmp_path, str(root), "--out", str(full), "--max-bytes", "1500")
    assert len(result.stdout.encode()) <= 1500
    assert result.stdout.endswith(f"more lines; the full text is in `{full}`._\n")
    assert result.stdout.count("<details>") == result.stdout.count("</details>")
    assert "<summary>Benchmark points" in full.read_text()
    assert full.read_text().count("| ds-fp8-tp8 | 1024x1024 |") == 6


def test_several_directories_are_one_run_and_broken_files_are_warnings(tmp_path: Path) -> None:
    a = write_run(tmp_path, RUN, [point_record(RUN, Point())], name="a")
    b = write_run(tmp_path, RUN, [case_record(RUN)], name="b")
    (b / "bad.json").write_text('{"schema": "sglang-ci/record/1", "kind": "case", "id": 3}')
    result = summarize(tmp_path, str(a), str(b), "--json", env={})
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["run"], data["points"]["total"], data["cases"]["total"]) == ("current", 1, 1)
    assert data["title"] == "accuracy-nightly run 7005"
    problem = f"{b}/bad.json: record: 'model_path' is a required property"
    assert data["problems"] == [problem]
    assert result.stderr == f"warning: {problem}\n"


def test_a_run_without_records_is_summarized(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = summarize(tmp_path, str(tmp_path / "empty"))
    assert result.exit_code == 0
    assert result.stdout.startswith(
        "## Benchmark #42: not judged\n\n**not judged** (no verdicts)\n"
    )


def test_record_text_in_the_summary_is_printed_inside_code_spans_only(tmp_path: Path) -> None:
    # Every payload in the text fields a record carries: versions, runner, GPU, error.
    records = []
    for n, payload in enumerate(PAYLOADS.values()):
        record = point_record(RUN, Point(concurrency=2 ** (n + 1)), Shape(status="failed"))
        prov = record["provenance"]
        prov.update(sglang_version=payload, runner_name=payload, atom_version=payload)
        prov["gpu"]["model"] = payload
        prov["image"]["requested"] = payload
        record["error"] = payload
        records.append(record)
    root = write_run(tmp_path, RUN, records, name="run")
    text = summarize(tmp_path, str(root)).stdout
    assert_harmless(text, render_markdown(text), link=RUN_URL)
    shown = inside_code(render_markdown(text))
    assert {one_line(p) for p in PAYLOADS.values()} <= set(shown)
