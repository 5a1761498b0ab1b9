"""`results summarize` as Markdown (generator/report/summary_markdown.py,
templates/summary.md.j2): the outcome, provenance, then the tables folded."""

from __future__ import annotations

from generator.report.summarize import SCHEMA, RunSummary
from generator.report.summary_markdown import _runner, _url, markdown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.provenance import ImageRow, RunnerRow


def summary() -> RunSummary:
    image: ImageRow = {"requested": "rocm/x:tag", "tag": "tag", "digest": "sha256:" + "ab" * 32,
                       "pinned": None, "sglang_version": "0.5.6", "sglang_commit": None,
                       "atom_version": None, "aiter_version": None, "rocm_version": None,
                       "jobs": 2, "records": 3}  # fmt: skip
    return {"schema": SCHEMA, "run": None, "compare": None, "started_at": None, "judged": False,
            "headline": None, "title": "Benchmark #6", "event_lines": [], "verdicts": None,
            "missing_jobs": [], "missing_points": [], "gates": [], "failures": [],
            "run_info": {"url": "https://github.com/o/r/actions/runs/1"},
            "provenance": {"catalog_commits": ["0123456789abcdef"], "images": [image],
                           "runners": [{"name": None, "label": "mi355", "gpu": None,
                                        "records": 3}]},
            "counts": {"jobs": {"expected": 2, "reported": 2, "missing": 0}}, "problems": [],
            "case_rows": [], "point_rows": [], "points": {"total": 0, "valid": 0, "status": {}},
            "cases": {"total": 0, "status": {}}}  # fmt: skip


def test_a_run_without_verdicts_says_so_then_gives_its_provenance() -> None:
    assert markdown(summary()) == [
        "## Benchmark #6: not judged",
        "",
        "**not judged** (no verdicts)",
        "",
        "",
        "### Provenance",
        "",
        "- Run: [Benchmark #6](https://github.com/o/r/actions/runs/1) · catalog `0123456789ab`",
        (
            "- Image `rocm/x:tag` `sha256:abababababab`: SGLang 0.5.6 · ATOM - · AITER - · ROCm -; "
            "2 job(s)"
        ),
        "- Runners: label `mi355` (runner name not reported, GPU unknown) x3",
        "- Expected / reported / missing: jobs 2 / 2 / 0",
        "- Files that are not valid records: 0",
        "",
    ]


def test_unreadable_files_are_folded_in_details() -> None:
    data = summary()
    data["problems"] = ["a.json: bad"]
    assert markdown(data)[-7:] == [
        "<details>",
        "<summary>Files that are not valid records (1)</summary>",
        "",
        "- `a.json: bad`",
        "",
        "</details>",
        "",
    ]


def test_a_link_is_only_an_https_url_that_stays_in_its_destination() -> None:
    assert _url("https://github.com/o/r/actions/runs/1") == "https://github.com/o/r/actions/runs/1"
    assert [_url("http://x"), _url("https://x/(y)"), _url(None)] == ["#", "#", "#"]


def test_a_runner_is_named_with_its_label_and_gpu() -> None:
    named: RunnerRow = {"name": "r-1", "label": "mi355", "gpu": "MI355X", "records": 2}
    assert _runner(named) == "`r-1` (mi355, MI355X) x2"
