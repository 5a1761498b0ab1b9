"""The committed workflows: real linters, their select logic run in bash, the hygiene rules."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any, cast

import pytest

from generator.catalog.yamlio import load_data
from generator.dispatch import steps as dispatch
from tests.helpers import ROOT
from tests.pipeline.expressions import uses_status_function

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import JobEntry
    from generator.expand.expanded import Expanded
    from tests.conftest import Invoke

WORKFLOWS = sorted((ROOT / ".github/workflows").glob("*.yml"))
BIN = Path(sys.executable).parent
TOOL_ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def tool(name: str) -> str:
    found = shutil.which(name, path=TOOL_ENV["PATH"])
    assert found, f"{name} is not installed (make test installs it into .venv)"
    return found


def load(path: Path) -> dict[Any, Any]:
    data: dict[Any, Any] = load_data(path.read_text())
    return data


def test_the_generated_workflows_are_the_eight_expected() -> None:
    assert [p.name for p in WORKFLOWS] == [
        "ab-noise.yml",
        "accuracy-case.yml",
        "accuracy-nightly.yml",
        "benchmark-job.yml",
        "benchmark.yml",
        "confirm-job.yml",
        "pr-gpu.yml",
        "pr.yml",
    ]


def test_actionlint_with_shellcheck_reports_nothing() -> None:
    tool("shellcheck")
    proc = subprocess.run(
        [tool("actionlint"), "-color=false"],
        cwd=ROOT,
        env=TOOL_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (0, "")


def test_actionlint_runs_shellcheck_on_run_scripts(tmp_path: Path) -> None:
    """Guards the test above: a real shellcheck finding in a run: script is reported."""
    wf = tmp_path / ".github/workflows/bad.yml"
    wf.parent.mkdir(parents=True)
    wf.write_text(
        "on: push\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: echo $1\n"
    )
    proc = subprocess.run(
        [tool("actionlint"), "-color=false", str(wf)],
        cwd=tmp_path,
        env=TOOL_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert "SC2086" in proc.stdout


def test_zizmor_offline_reports_nothing() -> None:
    proc = subprocess.run(
        [tool("zizmor"), "--offline", "--format", "json", ".github/workflows"],
        cwd=ROOT,
        env=TOOL_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


@pytest.mark.parametrize("persona", ["pedantic", "auditor"])
def test_zizmor_pedantic_and_auditor_report_nothing(persona: str) -> None:
    proc = subprocess.run(
        [tool("zizmor"), "--offline", "--persona", persona, "--format", "json",
         ".github/workflows"],
        cwd=ROOT,
        env=TOOL_ENV,
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    found = []
    for finding in json.loads(proc.stdout):
        where = finding["locations"][0]["symbolic"]
        route = ".".join(str(next(iter(r.values()))) for r in where["route"]["route"])
        found.append((finding["ident"], where["key"]["Local"]["verbatim_path"], route))
    assert found == []


def test_the_github_workflows_schema_accepts_every_workflow() -> None:
    proc = subprocess.run(
        [
            tool("check-jsonschema"),
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, WORKFLOWS),
        ],
        cwd=ROOT,
        env=TOOL_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_each_workflow_is_marked_generated_and_least_privileged(path: Path) -> None:
    text = path.read_text()
    assert text.startswith("# @generated DO NOT EDIT MANUALLY\n# Template: templates/")
    data = load(path)
    assert data["permissions"] == {}
    for name, job in data["jobs"].items():
        wanted = WRITES.get(f"{name}@{path.name}", WRITES.get(name, {"contents": "read"}))
        assert job.get("permissions") == wanted, name
        if "uses" not in job:
            assert "timeout-minutes" in job, name


# The only jobs that write: the Pages deployment and the scheduled benchmark run's tracking
# issues (the history job pushes with its environment's deploy key; its token only reads);
# the PR GPU run's select reads the pull request, its approval gate holds no token at all.
WRITES = {
    "summary": {"contents": "read", "actions": "read"},
    "events@benchmark.yml": {"contents": "read", "issues": "write"},
    "pages": {"contents": "read", "pages": "write", "id-token": "write"},
    "select@pr-gpu.yml": {"contents": "read", "pull-requests": "read"},
    "approve@pr-gpu.yml": {},
}


@pytest.mark.parametrize("workflow", ["benchmark.yml", "accuracy-nightly.yml"])
def test_history_and_pages_run_only_for_schedules_and_default_branch_dispatches(
    workflow: str,
) -> None:
    jobs = load(ROOT / ".github/workflows" / workflow)["jobs"]
    assert jobs["summary"]["needs"] == ["select", "run"]
    assert jobs["summary"]["if"].startswith("${{ always() && needs.select.result == 'success'")
    assert jobs["history"]["if"] == (
        "${{ always() && needs.summary.result != 'skipped' && (github.event_name == "
        "'schedule' || (github.event_name == 'workflow_dispatch' && github.ref_name == "
        "github.event.repository.default_branch)) }}"
    )
    assert jobs["pages"]["if"] == (
        "${{ always() && github.event_name == 'schedule' && needs.history.result == 'success' }}"
    )
    assert jobs["pages"]["environment"]["name"] == "github-pages"
    steps = [s.get("uses", "").split("@")[0] for s in jobs["pages"]["steps"]]
    assert steps[-2:] == ["actions/upload-pages-artifact", "actions/deploy-pages"]
    pr = load(ROOT / ".github/workflows/pr.yml")["jobs"]
    assert not {"history", "pages"} & set(pr)


# The jobs that must run on the nights that matter (a failed GPU job, a regression): GitHub
# gives an `if:` without a status function an implicit success() over every job before it.
AFTER_FAILURE = {
    # The noise the A/As that ended measured, even when another A/A failed.
    "ab-noise.yml": ("record",),
    "benchmark.yml": ("summary", "confirm", "events", "history", "pages"),
    "accuracy-nightly.yml": ("summary", "history", "pages"),
    # After the build, or when it is skipped (nothing to build); never after a failed one.
    "pr-gpu.yml": ("pin",),
}


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_every_job_that_must_run_after_a_failure_has_a_status_function(path: Path) -> None:
    jobs = load(path)["jobs"]
    wanted = AFTER_FAILURE.get(path.name, ())
    assert set(wanted) <= set(jobs)
    without = [name for name in wanted if not uses_status_function(str(jobs[name].get("if", "")))]
    assert without == []
    # And the others do not: a GPU job after a failed select would be a job nobody asked for.
    assert [
        name
        for name, job in jobs.items()
        if name not in wanted and uses_status_function(str(job.get("if", "")))
    ] == []


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_actions_are_pinned_to_full_shas_and_runs_hold_no_expressions(path: Path) -> None:
    for line in path.read_text().splitlines():
        m = re.search(r"uses: (\S+)", line)
        assert not (m and m[1].startswith("$/")), line  # `./` resolves everywhere
        if m and not m[1].startswith("./"):
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", m[1]), line
            assert re.search(r" # v\d+\.\d+\.\d+$", line), line
    for job in load(path)["jobs"].values():
        for step in job.get("steps", []):
            assert "${{" not in step.get("run", ""), step


def select_script(root: Path, workflow: str, job: str = "select") -> tuple[str, dict[str, str]]:
    data = load(root / ".github/workflows" / workflow)
    step = next(s for s in data["jobs"][job]["steps"] if s.get("id") == "select")
    return step["run"], step.get("env", {})


# A `sglang-ci` that only records the arguments the step's bash gives it.
RECORDER = '#!/bin/sh\nprintf "%s\\0" "$@" > "$SGLANG_CI_ARGV"\n'


def run_select(
    root: Path,
    workflow: str,
    env: dict[str, str],
    tmp_path: Path,
    job: str = "select",
    *,
    cli: Invoke | None = None,
) -> tuple[int, Any, str]:
    """The select step's own bash, run in `root` (the rendered fixture) as GitHub runs it,
    with image resolution off (no registry here): with sglang-ci installed, the step as a
    whole. With `cli`, the bash runs with a `sglang-ci` that records the arguments it is
    given, and the command they make runs in this process, in `root` with the step's
    environment: what the bash hands sglang-ci and what sglang-ci does with it, without a
    second interpreter (the tests without `cli` run that one)."""
    script, _ = select_script(root, workflow, job)
    out = tmp_path / "github_output"
    out.write_text("")
    summary = tmp_path / "step_summary"
    summary.write_text("")
    step_env = {
        "SGLANG_CI_RESOLVE_IMAGES": "0",
        **env,
        "GITHUB_OUTPUT": str(out),
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    path = TOOL_ENV["PATH"]
    argv = tmp_path / "sglang-ci-argv"
    if cli is not None:
        recorder = tmp_path / "recorder" / "sglang-ci"
        recorder.parent.mkdir(exist_ok=True)
        recorder.write_text(RECORDER)
        recorder.chmod(0o755)
        path = f"{recorder.parent}{os.pathsep}{path}"
    proc = subprocess.run(
        ["bash", "-c", script],
        cwd=root,
        capture_output=True,
        text=True,
        env={**TOOL_ENV, **step_env, "PATH": path, "SGLANG_CI_ARGV": str(argv)},
        check=False,
    )
    code, log = proc.returncode, proc.stdout + proc.stderr
    if cli is not None:
        assert (code, log) == (0, "")
        with contextlib.chdir(root):
            result = cli(*argv.read_text().split("\0")[:-1], root=root, env=step_env)
        code, log = result.exit_code, result.stdout + result.stderr
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    matrix = json.loads(outputs["matrix"]) if "matrix" in outputs else None
    if matrix is not None:
        assert outputs["count"] == str(len(matrix["include"]))
    return code, matrix, log


DISPATCH = {
    "EVENT": "workflow_dispatch",
    "SCHEDULE": "",
    "SUITE": "SGLang-OOB",
    "OOB_PRESET": "none (run nothing)",
    "MESH_PRESET": "none (run nothing)",
    "CONFIGS": "",
    "POINTS": "",
    "MODE": "sglang-atom",
    "IMAGE": "",
}


@pytest.mark.parametrize(
    ("cron", "cells"),
    [("0 14 * * 1,3", 60), ("0 14 * * 2,4", 60), ("0 14 * * 5", 71), ("0 14 * * 6", 120)],
)
def test_each_cron_maps_to_the_matrix_with_its_cells(
    cli: Invoke, rendered_fixture: Path, tmp_path: Path, cron: str, cells: int
) -> None:
    env = {**DISPATCH, "EVENT": "schedule", "SCHEDULE": cron, "SUITE": ""}
    code, matrix, log = run_select(rendered_fixture, "benchmark.yml", env, tmp_path, cli=cli)
    assert code == 0, log
    assert sum(len(job["points"]) for job in matrix["include"]) == cells
    workflow = load(rendered_fixture / ".github/workflows/benchmark.yml")
    crons = [s["cron"] for s in workflow["on"]["schedule"]]
    assert cron in crons


def test_an_unknown_cron_fails_loudly(rendered_fixture: Path, tmp_path: Path) -> None:
    env = {**DISPATCH, "EVENT": "schedule", "SCHEDULE": "0 3 * * 1", "SUITE": ""}
    code, matrix, log = run_select(rendered_fixture, "benchmark.yml", env, tmp_path)
    assert (code, matrix) == (2, None)
    assert "error: unknown cron '0 3 * * 1'" in log


def dispatch_options(root: Path) -> list[tuple[str, str, str]]:
    inputs = load(root / ".github/workflows/benchmark.yml")["on"]["workflow_dispatch"]["inputs"]
    out = []
    for suite, key in (("SGLang-OOB", "oob_preset"), ("SGLang-Mesh", "mesh_preset")):
        modes = ["sglang-atom"] if suite == "SGLang-OOB" else inputs["server_mode"]["options"]
        options = inputs[key]["options"][1:]  # after "none"
        out += [(suite, label, mode) for label in options for mode in modes]
    return out


def test_every_dropdown_option_maps_to_a_matrix_with_the_labelled_counts(
    cli: Invoke, rendered_fixture: Path, fixture: Expanded, tmp_path: Path
) -> None:
    """Every option through the select logic; the first of each suite and mode through
    the step's own bash as well (the rest call what that bash calls, in process)."""
    options = dispatch_options(rendered_fixture)
    assert len(options) == 17 + 18 * 2
    firsts = {(suite, mode): label for suite, label, mode in reversed(options)}
    assert len(firsts) == 3
    for suite, label, mode in options:
        image = "lmsysorg/sglang-rocm:v0.5.9-rocm700-mi35x" if mode == "sglang-mori" else ""
        selected = dispatch.benchmark(
            fixture,
            rendered_fixture,
            event="workflow_dispatch",
            suite=suite,
            preset=label,
            mode=mode,
            image=image or None,
            today=date(2026, 12, 1),
            client=None,
        )
        matrix = selected.matrix
        if firsts[(suite, mode)] == label:
            preset = {"OOB_PRESET" if suite == "SGLang-OOB" else "MESH_PRESET": label}
            env = {**DISPATCH, "SUITE": suite, **preset, "MODE": mode, "IMAGE": image}
            code, through_bash, log = run_select(
                rendered_fixture, "benchmark.yml", env, tmp_path, cli=cli
            )
            assert (code, through_bash) == (0, matrix), (label, log)
        counts = re.search(r"\((\d+) configs?, (\d+) cells?, ~(\d+(?:\.\d)?) GPU-h\)$", label)
        assert counts, label
        configs, cells, cost = int(counts[1]), int(counts[2]), float(counts[3])
        jobs = cast("list[JobEntry]", matrix["include"])  # a benchmark selection's
        assert len({j["config"] for j in jobs}) == configs, label
        assert sum(len(j["points"]) for j in jobs) == cells, label
        # Jobs hold 8-GPU runners; their minutes are rounded up, the label to the hour.
        hours = sum(j["estimate_minutes"] for j in jobs) * 8 / 60
        assert abs(hours - cost) <= 0.5 + len(jobs) * 8 / 60, label
        assert {j["server_mode"] for j in matrix["include"]} == {mode}
        if image:
            assert {j["image"] for j in matrix["include"]} == {image}


def test_the_default_choice_runs_nothing_and_says_so(
    rendered_fixture: Path, tmp_path: Path
) -> None:
    inputs = load(rendered_fixture / ".github/workflows/benchmark.yml")["on"]["workflow_dispatch"]
    assert {inputs["inputs"][k]["default"] for k in ("oob_preset", "mesh_preset")} == {
        "none (run nothing)"
    }
    code, matrix, log = run_select(rendered_fixture, "benchmark.yml", DISPATCH, tmp_path)
    assert (code, matrix) == (0, {"include": []})
    assert log == "selected nothing (no preset chosen)\n"
    assert (tmp_path / "step_summary").read_text() == (
        "### Selected: nothing\n\nThe preset is `none`: no GPU job runs.\n"
    )
    run = load(rendered_fixture / ".github/workflows/benchmark.yml")["jobs"]["run"]
    assert run["if"] == "${{ needs.select.outputs.count != '0' }}"


def test_a_bare_preset_name_works_as_gh_workflow_run_passes_it(
    cli: Invoke, rendered_fixture: Path, tmp_path: Path
) -> None:
    env = {**DISPATCH, "OOB_PRESET": "all-deepseek"}
    code, matrix, log = run_select(rendered_fixture, "benchmark.yml", env, tmp_path, cli=cli)
    assert code == 0, log
    assert log == "selected preset all-deepseek (SGLang-OOB, sglang-atom): 10 jobs, 100 points\n"
    assert len(matrix["include"]) == 10


def test_configs_and_points_build_a_custom_matrix(
    cli: Invoke, rendered_fixture: Path, tmp_path: Path
) -> None:
    env = {
        **DISPATCH,
        "CONFIGS": "deepseek-r1-fp8-tp4, qwen3-5-397b-a17b-fp8-tp8",
        "POINTS": "1024,1024,64,0.8;2048,128,8,1",
    }
    code, matrix, log = run_select(rendered_fixture, "benchmark.yml", env, tmp_path, cli=cli)
    assert code == 0, log
    jobs = matrix["include"]
    # One server per config; the job id names the pairs, as for any job of part of a grid.
    assert [j["id"] for j in jobs] == [
        "deepseek-r1-fp8-tp4-1024x1024-2048x128",
        "qwen3-5-397b-a17b-fp8-tp8-1024x1024-2048x128",
    ]
    assert [p["id"] for p in jobs[0]["points"]] == [
        "deepseek-r1-fp8-tp4-1024-1024-64-0.8",
        "deepseek-r1-fp8-tp4-2048-128-8-1",
    ]
    assert [(p["num_prompts"], p["num_warmups"]) for p in jobs[0]["points"]] == [
        (640, 128),
        (80, 16),
    ]


@pytest.mark.parametrize(
    ("inputs", "error"),
    [
        (
            {"CONFIGS": "deepseek-r1-fp8-tp4", "POINTS": "1024,1024,64"},
            (
                "error: points: item 1 '1024,1024,64' is not ISL,OSL,CONC,RATIO "
                "(e.g. 1024,1024,64,0.8; ISL and OSL of at most 9 digits, CONC of at most 6)"
            ),
        ),
        (
            {"CONFIGS": "deepseek-r1-fp8-tp4", "POINTS": "1" * 4301 + ",1024,64,0.8"},
            (
                "error: points: item 1 '1111111111111111111111111111111111111...' is not "
                "ISL,OSL,CONC,RATIO (e.g. 1024,1024,64,0.8; ISL and OSL of at most 9 digits, CONC "
                "of at most 6)"
            ),
        ),
        (
            {"CONFIGS": "deepseek-r1-fp8-tp4", "POINTS": "1024,1024,0,0.8"},
            (
                "error: points: item 1 '1024,1024,0,0.8' needs ISL, OSL and CONC of at least 1 "
                "and a RATIO in (0, 1]"
            ),
        ),
        (
            {"CONFIGS": "deepseek-r1-fp8-tp44"},
            (
                "error: configs: no config has prefix 'deepseek-r1-fp8-tp44' "
                "(did you mean 'deepseek-r1-fp8-tp4'?)"
            ),
        ),
        (
            {"CONFIGS": "deepseek-r1-fp8-tp4", "OOB_PRESET": "all-qwen"},
            "error: choose a preset or configs, not both",
        ),
        (
            {"OOB_PRESET": "ds-fp4-tp8"},
            (
                "error: preset 'ds-fp4-tp8' is a preset of SGLang-Mesh, not of SGLang-OOB: choose "
                "suite SGLang-Mesh (--suite SGLang-Mesh), or a SGLang-OOB preset"
            ),
        ),
        (
            {"CONFIGS": "deepseek-r1-fp4"},
            (
                "error: configs: no config has prefix 'deepseek-r1-fp4'; it begins 8 configs: "
                "deepseek-r1-fp4-tp4, deepseek-r1-fp4-tp8, deepseek-r1-fp4-tp4-dp4-ep4, "
                "deepseek-r1-fp4-tp8-dp8-ep8, deepseek-r1-fp4-tp8-mtp1, deepseek-r1-fp4-tp8-mtp3 "
                "and 2 more. Name each one, comma-separated, or choose a preset"
            ),
        ),
        (
            {"CONFIGS": "qwen3-5-397b-a17b-fp8"},
            (
                "error: configs: no config has prefix 'qwen3-5-397b-a17b-fp8'; it begins 2 "
                "configs: qwen3-5-397b-a17b-fp8-tp4, qwen3-5-397b-a17b-fp8-tp8. Name each one, "
                "comma-separated, or choose a preset"
            ),
        ),
        (
            {"OOB_PRESET": "all-deepseek", "IMAGE": "rocm/atom-dev:x --privileged"},
            "error: 'rocm/atom-dev:x --privileged': not an image reference: it contains whitespace",
        ),
        (
            {
                "SUITE": "SGLang-Mesh",
                "MESH_PRESET": "ds-all",
                "MODE": "sglang-mori",
                "IMAGE": "rocm/atom-dev:sglang-latest",
            },
            (
                "error: image 'rocm/atom-dev:sglang-latest': server mode 'sglang-mori' runs images "
                "of docker.io/lmsysorg/sglang-rocm only"
            ),
        ),
        (
            {
                "SUITE": "SGLang-Mesh",
                "MESH_PRESET": "ds-all",
                "MODE": "sglang-mori",
                "IMAGE": "lmsysorg/sglang-rocm-next:v0.5.9",
            },
            (
                "error: image 'lmsysorg/sglang-rocm-next:v0.5.9': server mode 'sglang-mori' runs "
                "images of docker.io/lmsysorg/sglang-rocm only"
            ),
        ),
        (
            {"SUITE": "SGLang-Mesh", "MESH_PRESET": "ds-all", "MODE": "sglang-mori"},
            "error: server mode 'sglang-mori' needs an image of its own: set the image",
        ),
        (
            {"CONFIGS": "x\n::error title=Pwned::owned", "POINTS": "1,1,1,1"},
            "error: configs: no config has prefix 'x\\n::error title=Pwned::owned'",
        ),
    ],
)
def test_a_bad_dispatch_input_fails_the_select_step_with_one_line(
    cli: Invoke, rendered_fixture: Path, tmp_path: Path, inputs: dict[str, str], error: str
) -> None:
    # The injected workflow command goes through a real sglang-ci process: its output is
    # what the runner reads.
    through = None if "::error" in inputs.get("CONFIGS", "") else cli
    code, matrix, log = run_select(
        rendered_fixture, "benchmark.yml", {**DISPATCH, **inputs}, tmp_path, cli=through
    )
    assert (code, matrix, log) == (2, None, error + "\n")


def test_accuracy_dispatch_selects_single_cases_and_refuses_unknown_ones(
    cli: Invoke, rendered_fixture: Path, tmp_path: Path
) -> None:
    code, matrix, log = run_select(
        rendered_fixture, "accuracy-nightly.yml", {"LEVEL": "pr", "CASES": ""}, tmp_path
    )
    assert code == 0, log
    assert [c["id"] for c in matrix["include"]] == [
        "deepseek-r1-fp8-tp4",
        "qwen3-5-35b-a3b-fp8-tp2",
        "deepseek-r1-fp4-tp4",
    ]
    assert {c["timeout_minutes"] for c in matrix["include"]} == {180}
    code, matrix, log = run_select(
        rendered_fixture,
        "accuracy-nightly.yml",
        {"LEVEL": "nightly", "CASES": "deepseek-r1-fp8-tp4, qwen3-5-397b-a17b-fp8-tp8"},
        tmp_path,
        cli=cli,
    )
    assert code == 0, log
    assert [(c["id"], c["timeout_minutes"]) for c in matrix["include"]] == [
        ("deepseek-r1-fp8-tp4", 240),
        ("qwen3-5-397b-a17b-fp8-tp8", 240),
    ]
    code, matrix, log = run_select(
        rendered_fixture,
        "accuracy-nightly.yml",
        {"LEVEL": "pr", "CASES": "deepseek-r1-fp8-tp9"},
        tmp_path,
        cli=cli,
    )
    assert (code, matrix) == (2, None)
    assert "error: cases: no case in level pr has id deepseek-r1-fp8-tp9" in log


def test_the_sglang_nightly_images_do_not_cancel_each_other() -> None:
    run = load(ROOT / ".github/workflows/accuracy-nightly.yml")["jobs"]["run"]
    assert run["strategy"]["fail-fast"] is False
    assert run["uses"] == "./.github/workflows/accuracy-case.yml"


def test_a_pull_request_event_runs_its_code_on_github_hosted_runners_only() -> None:
    """The PR's own workflow file can reach no GPU runner: its jobs run on ubuntu-latest
    and call no reusable workflow, so a fork or draft evaluates no matrix at all."""
    data = load(ROOT / ".github/workflows/pr.yml")
    assert data["on"] == {
        "pull_request": {"types": ["opened", "synchronize", "reopened", "ready_for_review"]}
    }
    assert list(data["jobs"]) == ["tests", "plan"]
    for job in data["jobs"].values():
        assert job["runs-on"] == "ubuntu-latest"
        assert "uses" not in job
        assert "strategy" not in job
        assert "if" not in job
    # CI's own entry point, in the Debian it is made for (it installs the tests' tools).
    assert data["jobs"]["tests"]["container"] == (
        "python:3.11-bookworm@sha256:5887f265d8d44d8b4734d3658b21d668edf5aaf92e4945bc0c984afbfab105d3"
    )
    assert [s.get("run") for s in data["jobs"]["tests"]["steps"]] == [None, "bash .ci/run"]
    plan = data["jobs"]["plan"]["steps"]
    assert 'sglang-ci diff "origin/$BASE_REF"' in plan[-1]["run"]
    assert plan[-1]["env"] == {"BASE_REF": "${{ github.base_ref }}"}
    assert "fromJSON" not in (ROOT / ".github/workflows/pr.yml").read_text()


def test_pr_gpu_runs_are_dispatched_from_the_default_branch_and_approved() -> None:
    data = load(ROOT / ".github/workflows/pr-gpu.yml")
    assert list(data["on"]) == ["workflow_dispatch"]
    assert list(data["on"]["workflow_dispatch"]["inputs"]) == ["pr", "benchmark", "build"]
    jobs = data["jobs"]
    assert jobs["select"]["if"] == (
        "${{ github.ref == format('refs/heads/{0}', github.event.repository.default_branch) }}"
    )
    assert jobs["select"]["runs-on"] == "ubuntu-latest"
    guard = jobs["select"]["steps"][0]
    assert guard["id"] == "pr"
    assert 'if [ "$head" != "$REPO" ]; then' in guard["run"]
    assert 'if [ "$draft" != "false" ] || [ "$state" != "open" ]; then' in guard["run"]
    assert jobs["approve"]["environment"] == {"name": "gpu-pr"}
    assert jobs["approve"]["runs-on"] == "ubuntu-latest"
    for name, workflow, key, count, output in (
        ("accuracy", "accuracy-case.yml", "case", "count", "matrix"),
        ("benchmark", "benchmark-job.yml", "job", "jobs_count", "jobs"),
    ):
        job = jobs[name]
        assert job["needs"] == ["select", "pin"]
        assert job["if"] == f"${{{{ needs.pin.outputs.{count} != '0' }}}}"
        assert job["uses"] == f"./.github/workflows/{workflow}"
        assert job["with"] == {
            key: "${{ toJSON(matrix) }}",
            "ref": "${{ needs.select.outputs.sha }}",
        }
        assert "secrets" not in job
        # A skipped job's strategy is still evaluated: never fromJSON of an empty output.
        assert job["strategy"]["matrix"] == (
            f"${{{{ fromJSON(needs.pin.outputs.{count} != '0' && "
            f"needs.pin.outputs.{output} || "
            """'{"include":[{"id":"nothing-selected"}]}') }}"""
        )
    # The PR's image: built after the approval on the catalog's builder label, in its own
    # environment; the pin job (the default branch's code, GitHub-hosted) runs after it or
    # in its place, never after a failed build.
    build, pin = jobs["build"], jobs["pin"]
    assert (build["needs"], build["runs-on"], build["environment"]) == (
        ["select", "approve"], "atom-image-builder", "pr-image",
    )  # fmt: skip
    assert build["if"] == "${{ needs.select.outputs.build != '' }}"
    assert build["steps"][-1]["run"].endswith(
        'python3 -I scripts/build_image.py "$RUNNER_TEMP/build.json" code\n'
    )
    assert (pin["needs"], pin["runs-on"]) == (["select", "approve", "build"], "ubuntu-latest")
    assert pin["if"] == (
        "${{ !cancelled() && needs.approve.result == 'success' && "
        "(needs.build.result == 'success' || needs.build.result == 'skipped') }}"
    )


# Jobs with a write token, a secret, an environment or outputs (of the generated workflows),
# and of them those that install sglang-ci (the GPU jobs themselves install nothing).
POWERFUL_JOBS = 21
INSTALLING_POWERFUL_JOBS = 16
# The one way a generated job installs anything: the build backend, then every package,
# each checked against the lock's hashes, then this checkout, building nothing it fetched.
LOCKED_INSTALL = (
    (
        "python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps "
        "-r requirements-build.lock"
    ),
    (
        "python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps "
        "--no-build-isolation -r requirements.lock"
    ),
    (
        "python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation "
        "--no-index ."
    ),
)


def _holds_power(job: dict[str, Any]) -> bool:
    """A job with a write token, a secret, an environment's secrets, or one whose outputs
    decide what a GPU host runs (a select or check job)."""
    perms = job.get("permissions") or {}
    writes = isinstance(perms, dict) and "write" in perms.values()
    text = json.dumps(job)
    return writes or "secrets." in text or "environment" in job or bool(job.get("outputs"))


def test_every_install_is_hash_locked_in_every_job_that_holds_a_secret_or_a_write_token() -> None:
    """Every pip install of every generated workflow is the locked sequence, whole and in
    order; the jobs with a secret, a write token, an environment or outputs that choose
    what a GPU host runs all install that way (or install nothing)."""
    powerful = installing = 0
    for path in sorted((ROOT / ".github/workflows").glob("*.yml")):
        for name, job in load(path)["jobs"].items():
            lines = [
                line.strip()
                for step in job.get("steps", [])
                for line in str(step.get("run", "")).splitlines()
                if "pip" in line and "install" in line
            ]
            assert len(lines) % 3 == 0, (path.name, name, lines)
            assert lines == list(LOCKED_INSTALL) * (len(lines) // 3), (path.name, name)
            powerful += _holds_power(job)
            installing += bool(lines) and _holds_power(job)
    assert (powerful, installing) == (POWERFUL_JOBS, INSTALLING_POWERFUL_JOBS)
    lock = (ROOT / "requirements.lock").read_text()
    assert "scipy==1.17.1 \\\n    --hash=sha256:" in lock
    # E-Divisive is the bench's alone (requirements-dev.txt): its sdist is never built in a
    # job that holds power.
    assert "signal-processing-algorithms" not in lock


def test_the_pr_select_job_runs_the_default_branch_code_and_only_reads_the_pr_head() -> None:
    """No code of the PR runs before approval: the one checkout is this run's commit (the
    default branch), what is installed is that checkout, and the PR head is handed to
    sglang-ci as a commit whose catalogs it reads with git show."""
    steps = load(ROOT / ".github/workflows/pr-gpu.yml")["jobs"]["select"]["steps"]
    checkouts = [s for s in steps if s.get("uses", "").startswith("actions/checkout@")]
    assert [c["with"] for c in checkouts] == [{"fetch-depth": 0, "persist-credentials": False}]
    runs = [s["run"] for s in steps if "run" in s]
    installs = [r for r in runs if "pip install" in r]
    assert installs == ["".join(f"{line}\n" for line in LOCKED_INSTALL)]
    assert steps.index(checkouts[0]) < min(
        i for i, s in enumerate(steps) if "pip install" in s.get("run", "")
    )
    select = next(s for s in steps if s.get("id") == "select")
    assert (
        'sglang-ci dispatch pr --base "origin/$DEFAULT_BRANCH" --head "$HEAD_SHA" \\\n'
        '  --pr-base "$PR_BASE" --default-branch "$DEFAULT_BRANCH" "${benchmark[@]}"'
    ) in select["run"]
    assert select["env"]["HEAD_SHA"] == "${{ steps.pr.outputs.sha }}"
    assert select["env"]["DEFAULT_BRANCH"] == "${{ github.event.repository.default_branch }}"
    # The PR step refuses a base that is not the default branch before anything is installed.
    pr = next(s for s in steps if s.get("id") == "pr")
    assert pr["env"]["DEFAULT_BRANCH"] == "${{ github.event.repository.default_branch }}"
    assert 'if [ "$base" != "$DEFAULT_BRANCH" ]; then' in pr["run"]
    assert steps.index(pr) < steps.index(checkouts[0])
    # Nothing else names the PR head: no step checks it out, installs or runs it.
    text = json.dumps(steps)
    assert text.count("steps.pr.outputs.sha") == 1


CALLER_STEP = "Refuse any caller but this repository's own workflows on the default branch"
GPU_JOBS = [
    ("accuracy-case.yml", "accuracy", "accuracy", "case"),
    ("benchmark-job.yml", "benchmark", "benchmark", "job"),
    ("confirm-job.yml", "confirm", "confirm", "job"),
]


@pytest.mark.parametrize(("workflow", "job", "program", "key"), GPU_JOBS)
def test_gpu_jobs_run_the_default_branch_on_the_host_and_the_checked_commit_in_the_container(
    workflow: str, job: str, program: str, key: str
) -> None:
    data = load(ROOT / ".github/workflows" / workflow)
    gpu = data["jobs"][job]
    assert gpu["needs"] == "check"
    assert gpu["environment"] == "gpu"
    assert "container" not in gpu  # the step runs docker with the runner's GPUs only
    checkouts = [
        s["with"] for s in gpu["steps"] if s.get("uses", "").startswith("actions/checkout@")
    ]
    assert checkouts == [
        {"ref": "${{ needs.check.outputs.trusted }}", "persist-credentials": False},
        {"ref": "${{ needs.check.outputs.commit }}", "path": "code", "persist-credentials": False},
    ]
    launch = next(s for s in gpu["steps"] if "run_in_container.py" in s.get("run", ""))
    script = f"python3 -I scripts/run_in_container.py {program}"
    assert launch["run"] == f'{script} "$RUNNER_TEMP/{key}.json" code'

    assert launch["env"] == {"HF_TOKEN": "${{ secrets.HF_TOKEN }}"}
    text = (ROOT / ".github/workflows" / workflow).read_text()
    assert text.count("secrets.") == 1
    assert "secrets" not in data["on"]["workflow_call"]
    check = data["jobs"]["check"]
    assert check["runs-on"] == "ubuntu-latest"
    assert check["outputs"] == {
        "trusted": "${{ steps.verify.outputs.trusted }}",
        "commit": "${{ steps.verify.outputs.commit }}",
    }
    checkout = next(s for s in check["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"] == {
        "ref": "${{ steps.default.outputs.branch }}",
        "fetch-depth": 0,
        "persist-credentials": False,
    }
    names = [s.get("name") or s["uses"].split("@")[0] for s in check["steps"]]
    caller = check["steps"][names.index(CALLER_STEP)]
    assert caller["env"]["WORKFLOW_REF"] == "${{ github.workflow_ref }}"
    verify = check["steps"][-1]
    assert (verify["id"], verify["env"]["ENTRY"]) == ("verify", f"${{{{ inputs.{key} }}}}")
    kind = "confirm" if job == "confirm" else key
    # The caller is checked before the caller's commit is checked out and installed.
    assert (
        verify["run"].index('git merge-base --is-ancestor "$CALLER_SHA" HEAD')
        < (verify["run"].index('git checkout --quiet --detach "$CALLER_SHA"'))
        < verify["run"].index(f'sglang-ci verify {kind} "$RUNNER_TEMP/entry.json" --at ')
    )
    assert names.index(CALLER_STEP) == len(names) - 2


@pytest.mark.parametrize(
    ("workflow", "callers"),
    [
        ("accuracy-case.yml", ["accuracy-nightly.yml", "pr-gpu.yml"]),
        ("benchmark-job.yml", ["benchmark.yml", "pr-gpu.yml"]),
        ("confirm-job.yml", ["benchmark.yml", "ab-noise.yml"]),
    ],
)
def test_each_reusable_workflow_takes_only_its_own_callers(
    workflow: str, callers: list[str]
) -> None:
    check = load(ROOT / ".github/workflows" / workflow)["jobs"]["check"]
    run = next(s for s in check["steps"] if s.get("name") == CALLER_STEP)["run"]
    allowed = re.findall(r"--allow (\S+)", run)
    assert allowed == callers


def test_actionlint_config_declares_the_catalog_runner_labels(rendered_fixture: Path) -> None:
    data = load(rendered_fixture / ".github/actionlint.yaml")
    assert data["self-hosted-runner"]["labels"] == [
        "atom-mi355-8gpu-aac-runner",
        "linux-atom-mi35x-4",
        "linux-atom-mi35x-8",
    ]


@pytest.mark.parametrize("workflow", ["benchmark.yml", "accuracy-nightly.yml", "pr-gpu.yml"])
def test_callers_pass_no_secret(workflow: str) -> None:
    """HF_TOKEN is the gpu environment's secret: the called GPU job reads it there."""
    jobs = load(ROOT / ".github/workflows" / workflow)["jobs"]
    callers = [j for j in jobs.values() if "uses" in j]
    assert callers
    for job in callers:
        assert job["uses"].startswith("./.github/workflows/")
        assert "secrets" not in job
    text = (ROOT / ".github/workflows" / workflow).read_text()
    assert "$/" not in text
    assert "HF_TOKEN" not in text


def test_the_nightly_accuracy_runs_at_18_utc(rendered_fixture: Path) -> None:
    data = load(rendered_fixture / ".github/workflows/accuracy-nightly.yml")
    assert data["on"]["schedule"] == [{"cron": "0 18 * * *"}]


ATTEMPT = "-attempt-${{ github.run_attempt }}"


@pytest.mark.parametrize(
    ("workflow", "job", "kind", "key"),
    [
        ("accuracy-case.yml", "accuracy", "accuracy", "case"),
        ("benchmark-job.yml", "benchmark", "benchmark", "job"),
    ],
)
def test_gpu_jobs_upload_their_results_and_any_fallback_apart(
    workflow: str, job: str, kind: str, key: str
) -> None:
    """The summary downloads `<kind>-*`: records kept outside results/ go under another
    name, so they are kept but never counted twice; each attempt uploads under its own
    name (a re-run never collides with the first, and its records supersede)."""
    steps = load(ROOT / ".github/workflows" / workflow)["jobs"][job]["steps"]
    uploads = [s["with"] for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert uploads == [
        {
            "name": f"{kind}-${{{{ fromJSON(inputs.{key}).id }}}}{ATTEMPT}",
            "path": "code/results/",
            "if-no-files-found": "warn",
        },
        {
            "name": f"fallback-{kind}-${{{{ fromJSON(inputs.{key}).id }}}}{ATTEMPT}",
            "path": "${{ runner.temp }}/sglang-ci-results-*",
            "if-no-files-found": "ignore",
        },
    ]
