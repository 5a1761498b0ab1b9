"""GitHub's limits on render's in-memory output (`generator.render.limits`): each refusal
names the catalog line of what made the file, and `render` exits 2 before writing anything."""

from __future__ import annotations

import json
import re

import pytest

from generator.catalog.yamlio import load_data
from generator.errors import LimitError, Loc
from generator.jsonio import compact_size
from generator.render import limits, render
from tests.helpers import ROOT, copy_catalogs, snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded
    from generator.images.matrix import EntryT, Matrix
    from tests.conftest import Invoke

Checked = list[tuple[str, Loc, int, int]]


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> Checked:
    """Every matrix render checks: (what, catalog line, jobs, compact JSON bytes)."""
    calls: Checked = []
    check = limits.check_matrix

    def spy(what: str, loc: Loc, matrix: Matrix[EntryT]) -> None:
        calls.append((what, loc, len(matrix["include"]), compact_size(matrix)))
        check(what, loc, matrix)

    monkeypatch.setattr(limits, "check_matrix", spy)
    return calls


def refusal(expanded: Expanded) -> str:
    with pytest.raises(LimitError) as info:
        render(expanded, ROOT)
    return str(info.value)


def test_every_matrix_is_checked_and_these_hold_more_than_10_jobs(
    fixture: Expanded, checked: Checked
) -> None:
    outputs = render(fixture, ROOT)
    bench, acc = fixture.catalog.benchmark_file, fixture.catalog.accuracy_file
    # 4 cron groups, 35 presets (the 18 Mesh ones in two modes), 2 accuracy levels.
    assert len(checked) == len([p for p in outputs if p.startswith(".github/matrices/")]) == 59
    assert [(what, str(loc), jobs) for what, loc, jobs, _ in checked if jobs > 10] == [
        ("cron group 'mesh-all'", f"{bench}:563", 17),
        ("cron group 'oob-all'", f"{bench}:567", 12),
        ("preset 'all-oob' (SGLang-OOB, sglang-atom)", f"{bench}:580", 12),
        ("preset 'ds-all' (SGLang-Mesh, sglang-atom)", f"{bench}:582", 17),
        ("preset 'ds-all' (SGLang-Mesh, sglang-mori)", f"{bench}:582", 17),
        ("preset 'ds-fp4-all' (SGLang-Mesh, sglang-atom)", f"{bench}:583", 14),
        ("preset 'ds-fp4-all' (SGLang-Mesh, sglang-mori)", f"{bench}:583", 14),
        ("accuracy level 'nightly'", f"{acc}:72", 17),  # 16 cases, the SGLang one on 2 images
    ]


def test_a_matrix_over_the_job_limit_is_refused_at_its_selection(
    fixture: Expanded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_MATRIX_JOBS", 17)
    render(fixture, ROOT)  # the largest matrices hold 17 jobs
    monkeypatch.setattr(limits, "MAX_MATRIX_JOBS", 16)
    assert refusal(fixture) == (
        f"{fixture.catalog.benchmark_file}:563: cron group 'mesh-all' makes 17 jobs; "
        "a GitHub matrix holds at most 16: split it"
    )


def test_a_matrix_over_the_output_limit_is_refused_at_its_selection(
    fixture: Expanded, checked: Checked, monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs = render(fixture, ROOT)
    largest = max(size for *_, size in checked)
    first = json.loads(outputs[".github/matrices/benchmark/schedule/oob-deepseek-non-mtp.json"])
    size = len(json.dumps(first, ensure_ascii=False, separators=(",", ":")).encode())
    assert (size, largest) == (21139, 57371)
    monkeypatch.setattr(limits, "MAX_OUTPUT_BYTES", largest)
    render(fixture, ROOT)
    monkeypatch.setattr(limits, "MAX_OUTPUT_BYTES", size - 1)
    assert refusal(fixture) == (
        f"{fixture.catalog.benchmark_file}:553: cron group 'oob-deepseek-non-mtp' is 21139 "
        "bytes of matrix JSON; a job output holds at most 21138: split it"
    )


def test_too_many_dispatch_inputs_are_refused_at_the_last_suite(
    fixture: Expanded, monkeypatch: pytest.MonkeyPatch
) -> None:
    workflow = load_data(render(fixture, ROOT)[".github/workflows/benchmark.yml"])
    assert list(workflow["on"]["workflow_dispatch"]["inputs"]) == [
        "suite",
        "oob_preset",
        "mesh_preset",
        "configs",
        "points",
        "server_mode",
        "image",
        "resolve_images",
    ]
    monkeypatch.setattr(limits, "MAX_DISPATCH_INPUTS", 8)
    render(fixture, ROOT)
    monkeypatch.setattr(limits, "MAX_DISPATCH_INPUTS", 7)
    assert refusal(fixture) == (
        f"{fixture.catalog.benchmark_file}:251: .github/workflows/benchmark.yml would have 8 "
        "dispatch inputs; GitHub allows 7: merge suites"
    )


def test_a_long_expression_is_refused_at_its_workflow_line() -> None:
    long = "${{ " + "a" * 21_000 + " }}"
    text = f"on: push\njobs: {{}}\nenv:\n  X: {long}\n  Y: ${{{{ 1 }}}}\n"
    with pytest.raises(LimitError) as info:
        limits.check_expressions("x.yml", text)
    assert str(info.value) == (
        "x.yml:4: an expression of 21007 characters; GitHub allows 21000: move the data into "
        "a committed JSON file"
    )
    limits.check_expressions("x.yml", text.replace("a" * 21_000, "a" * 20_993))


def test_the_longest_rendered_expression_is_the_one_refused_under_a_lower_limit(
    fixture: Expanded, monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs = render(fixture, ROOT)
    monkeypatch.setattr(limits, "MAX_EXPRESSION_CHARS", 195)
    with pytest.raises(LimitError) as info:
        render(fixture, ROOT)
    loc = info.value.loc
    assert loc is not None
    # The history job's condition, the same in both workflows: the first rendered is refused.
    assert loc.file == ".github/workflows/benchmark.yml"
    line = outputs[loc.file].splitlines()[loc.line - 1]
    assert [len(e) for e in re.findall(r"\$\{\{.*?\}\}", line)] == [196]
    assert info.value.message == (
        "an expression of 196 characters; GitHub allows 195: move the data into a committed "
        "JSON file"
    )


def test_render_refuses_a_limit_with_one_line_and_exit_2_and_writes_nothing(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_catalogs(tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.setattr(limits, "MAX_MATRIX_JOBS", 16)
    result = cli("render", root=root)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: catalogs/benchmark.yaml:563: cron group 'mesh-all' makes 17 jobs; a GitHub "
        "matrix holds at most 16: split it\n"
    )
    assert snapshot(root) == {}
