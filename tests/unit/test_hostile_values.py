"""Quotes, `$(...)`, backticks, `${{ }}` and unicode in catalog values are data, never code.

They reach the matrices and `sglang-ci` output as the exact strings, never a workflow
file, and `explain` prints them shell-quoted.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

from generator.catalog import load
from generator.catalog.yamlio import load_data
from generator.errors import CatalogError
from generator.render import render
from tests.catalog_gen import RUNNER, CatalogSpec, base_benchmark, minimal_accuracy
from tests.helpers import ROOT, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded
    from tests.conftest import Invoke

DISPLAY = "DeepSeek-R1 ☃ «TP8»"
# A dashboard model names artifacts and files: only letters, digits, '.', '_' and '-'.
DASHBOARD = "R1-dash_0.8"
HOSTILE_DASHBOARD = "R1 'dash' $(touch /tmp/pwned)"
CASE_NAME = "Case ☃ «x» `id`"
ARGS: dict[str, str | list[str]] = {
    "--served-model-name": 'it\'s "quoted" and spaced',
    "--model-loader-extra-config": '{"threads": 8, "cmd": "$(touch /tmp/pwned)"}',
    "--tool-call-parser": "`touch /tmp/pwned`; echo done",
    "--encoder-urls": ["a b", "$HOME", "x;y|z", "${{ secrets.GITHUB_TOKEN }}"],
}
ENV = {
    "HOSTILE_QUOTES": "say \"hi\" and 'bye'",
    "HOSTILE_HOME": "$HOME/with space",
    "HOSTILE_SUBST": "$(touch /tmp/pwned) `id` ; rm -rf ~ && echo > /tmp/x",
    "HOSTILE_EXPR": "${{ github.event.pull_request.title }}",
    "HOSTILE_BLANKS": "  two  spaces  ",
    "HOSTILE_UNICODE": "naïve ☃ «»",
}
PAIR_ARGS = {"--chunked-prefill-size": "1024; touch /tmp/pwned"}
PAIR_ENV = {"PAIR_NOTE": "'; touch /tmp/pwned; '"}
CASE_ARGS = {"--served-model-name": 'case "name" $(id)'}
CASE_ENV = {"CASE_ENV": "`id` $HOME ${{ github.actor }}"}

# The scalars that must never be written into a workflow file.
HOSTILE = sorted(
    {DISPLAY, CASE_NAME, *ENV.values(), *PAIR_ENV.values(), *CASE_ENV.values()}
    | {
        v
        for value in [*ARGS.values(), *PAIR_ARGS.values(), *CASE_ARGS.values()]
        for v in ([value] if isinstance(value, str) else value)
    }
)


def argv(flags: dict[str, str | list[str]]) -> list[str]:
    return [
        t
        for name, value in flags.items()
        for t in [name, *([value] if isinstance(value, str) else value)]
    ]


BASE_ARGS = ["--tensor-parallel-size", "8", "--trust-remote-code", *argv(ARGS)]
BASE_ENV = {"SGLANG_USE_AITER": "1", "SGLANG_DEFAULT_SERVER_ARGS": "", **ENV}
EXPECTED: dict[str, tuple[list[str], dict[str, str]]] = {
    "1024x1024": (BASE_ARGS, BASE_ENV),
    "8192x1024": ([*BASE_ARGS, *argv(dict(PAIR_ARGS))], {**BASE_ENV, **PAIR_ENV}),
}


def hostile_spec() -> CatalogSpec:
    benchmark = {
        **base_benchmark(),
        "suites": {
            "SGLang-OOB": {
                "key": "oob",
                "runner": RUNNER,
                "random_range_ratio": 0.8,
                "sampling": "standard",
                "client": "bench",
                "pairs": ["1024x1024", "8192x1024"],
                "concurrency": [4, 8],
                "server_modes": ["plain"],
            }
        },
        "configs": [
            {
                "prefix": "hostile",
                "display": DISPLAY,
                "dashboard_model": DASHBOARD,
                "suite": "SGLang-OOB",
                "model": "ds-fp8",
                "parallel": {"tp": 8},
                "args": ["trust", dict(ARGS)],
                "env": ["common", dict(ENV)],
                "per_pair": {"8192x1024": {"args": [dict(PAIR_ARGS)], "env": [dict(PAIR_ENV)]}},
            }
        ],
        "schedules": [{"name": "nightly", "title": "Nightly", "cron": "0 14 * * 1", "select": {}}],
        "presets": {"SGLang-OOB": [{"name": "everything", "select": {"family": "deepseek"}}]},
    }
    accuracy = minimal_accuracy("ds-fp8")
    case = accuracy["cases"][0]
    case["name"] = CASE_NAME
    case["args"] = ["trust", dict(CASE_ARGS)]
    case["env"] = ["common", dict(CASE_ENV)]
    return CatalogSpec(benchmark=benchmark, accuracy=accuracy, cells_per_config={"hostile": 4})


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return hostile_spec().write(tmp_path)


@pytest.fixture
def outputs(root: Path) -> dict[str, str]:
    return render(expanded_at(root), root)


# The JSON the command prints, of whatever shape: the tests index it as they assert.
def run_json(cli: Invoke, root: Path, *args: str) -> Any:  # noqa: ANN401 (see above)
    result = cli(*args, root=root)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def run_scripts(text: str) -> list[str]:
    """Every `run:` script of every step of a workflow."""
    doc = load_data(text)
    return [
        step["run"]
        for job in doc["jobs"].values()
        for step in job.get("steps", [])
        if "run" in step
    ]


def workflows(outputs: dict[str, str]) -> dict[str, str]:
    return {rel: text for rel, text in outputs.items() if rel.startswith(".github/workflows/")}


def test_hostile_values_come_out_of_cells_as_the_exact_strings(cli: Invoke, root: Path) -> None:
    cells = run_json(cli, root, "cells")
    assert [c["id"] for c in cells] == [
        "hostile-1024-1024-4-0.8",
        "hostile-1024-1024-8-0.8",
        "hostile-8192-1024-4-0.8",
        "hostile-8192-1024-8-0.8",
    ]
    for cell in cells:
        args, env = EXPECTED[cell["pair"]]
        assert cell["display"] == DISPLAY
        assert cell["dashboard_model"] == DASHBOARD
        assert cell["server_args"] == args
        assert cell["env"] == env
        assert list(cell["env"]) == list(env)


def test_hostile_values_come_out_of_jobs_as_the_exact_strings(cli: Invoke, root: Path) -> None:
    include = run_json(cli, root, "jobs")["include"]
    assert [j["id"] for j in include] == ["hostile-1024x1024", "hostile-8192x1024"]
    for job, pair in zip(include, ["1024x1024", "8192x1024"], strict=True):
        args, env = EXPECTED[pair]
        assert (job["display"], job["dashboard_model"]) == (DISPLAY, DASHBOARD)
        assert job["server_args"] == args
        assert job["env"] == env


def test_hostile_values_come_out_of_cases_as_the_exact_strings(cli: Invoke, root: Path) -> None:
    [case] = run_json(cli, root, "cases", "--level", "nightly")
    assert case["name"] == CASE_NAME
    assert case["server_args"] == [
        "--tensor-parallel-size",
        "2",
        "--trust-remote-code",
        *argv(dict(CASE_ARGS)),
    ]
    assert case["env"] == {"SGLANG_USE_AITER": "1", "SGLANG_DEFAULT_SERVER_ARGS": "", **CASE_ENV}


def test_the_cli_prints_unicode_as_itself_not_as_escapes(cli: Invoke, root: Path) -> None:
    result = cli("cells", root=root)
    assert f'"display": "{DISPLAY}"' in result.stdout
    assert "\\u" not in result.stdout


def test_the_matrices_carry_the_hostile_values_exactly(outputs: dict[str, str]) -> None:
    for rel in (
        ".github/matrices/benchmark/schedule/nightly.json",
        ".github/matrices/benchmark/preset/oob/plain/everything.json",
        ".github/matrices/benchmark/preset/oob/plain/hostile.json",
    ):
        include = json.loads(outputs[rel])["include"]
        assert [(j["server_args"], j["env"]) for j in include] == list(EXPECTED.values()), rel
    [case] = json.loads(outputs[".github/matrices/accuracy/pr.json"])["include"]
    assert case["env"]["CASE_ENV"] == CASE_ENV["CASE_ENV"]


def test_no_run_script_of_a_rendered_workflow_holds_an_expression(
    outputs: dict[str, str],
) -> None:
    found = workflows(outputs)
    assert sorted(found) == [
        ".github/workflows/ab-noise.yml",
        ".github/workflows/accuracy-case.yml",
        ".github/workflows/accuracy-nightly.yml",
        ".github/workflows/benchmark-job.yml",
        ".github/workflows/benchmark.yml",
        ".github/workflows/confirm-job.yml",
        ".github/workflows/pr-gpu.yml",
        ".github/workflows/pr.yml",
    ]
    for rel, text in found.items():
        scripts = run_scripts(text)
        assert scripts, rel
        for script in scripts:
            assert "${{" not in script, f"{rel}: {script}"


def test_the_live_workflows_hold_no_expression_in_a_run_script(shipped: Expanded) -> None:
    for rel, text in workflows(render(shipped, ROOT)).items():
        for script in run_scripts(text):
            assert "${{" not in script, f"{rel}: {script}"


def test_no_hostile_value_is_written_into_a_workflow_file(outputs: dict[str, str]) -> None:
    files = {**workflows(outputs), ".github/actionlint.yaml": outputs[".github/actionlint.yaml"]}
    for rel, text in files.items():
        for value in HOSTILE:
            assert value not in text, f"{value!r} is in {rel}"
    # The values do exist in the render: in the matrix files only.
    matrices = "".join(t for rel, t in outputs.items() if rel.startswith(".github/matrices/"))
    for value in HOSTILE:
        assert json.dumps(value, ensure_ascii=False) in matrices, value


def explain_lines(cli: Invoke, root: Path, entry: str) -> list[tuple[str, list[str]]]:
    """`explain` output: each line that is not a comment, as written and split as a POSIX
    shell would."""
    result = cli("explain", entry, root=root)
    assert result.exit_code == 0, result.stderr
    return [
        (line, shlex.split(line))
        for line in result.stdout.splitlines()
        if not line.lstrip().startswith("#")
    ]


def server_line(model_path: str, args: list[str]) -> list[str]:
    return [
        "exec",
        "${PYTHON}",
        "-m",
        "sglang.launch_server",
        "--model-path",
        model_path,
        "--host",
        "127.0.0.1",
        "--port",
        "${SGLANG_PORT}",
        *args,
    ]


def assert_quoted(
    lines: list[tuple[str, list[str]]], env: dict[str, str], server: list[str], module: str
) -> list[list[str]]:
    """The env is exported and the server started token for token; no other line holds a
    hostile value. Returns the lines that run `module` (the client or the evaluator)."""
    tokens = [split for _, split in lines]
    assert [s for s in tokens if s[:1] == ["export"]] == [
        ["export", f"{k}={v}"] for k, v in env.items()
    ]
    assert [s for s in tokens if "sglang.launch_server" in s] == [server]
    for text, split in lines:
        if split[:1] != ["export"] and split != server:
            assert not [v for v in HOSTILE if v in text], text
    return [s for s in tokens if module in s]


@pytest.mark.parametrize("pair", ["1024x1024", "8192x1024"])
def test_explain_shell_quotes_every_token_of_a_cell(cli: Invoke, root: Path, pair: str) -> None:
    args, env = EXPECTED[pair]
    isl, osl = pair.split("x")
    lines = explain_lines(cli, root, f"hostile-{isl}-{osl}-8-0.8")
    [client] = assert_quoted(
        lines, env, server_line("${MODEL_CACHE}/org/DeepSeek-FP8", args), "sglang.bench_serving"
    )
    assert client[:3] == ["${PYTHON}", "-m", "sglang.bench_serving"]
    assert client[client.index("--max-concurrency") + 1] == "8"


def test_explain_shell_quotes_every_token_of_a_job(cli: Invoke, root: Path) -> None:
    args, env = EXPECTED["8192x1024"]
    lines = explain_lines(cli, root, "hostile-8192x1024")
    clients = assert_quoted(
        lines, env, server_line("${MODEL_CACHE}/org/DeepSeek-FP8", args), "sglang.bench_serving"
    )
    assert [c[c.index("--max-concurrency") + 1] for c in clients] == ["4", "8"]


def test_explain_shell_quotes_every_token_of_a_case(cli: Invoke, root: Path) -> None:
    lines = explain_lines(cli, root, "acc-case")
    env = {"SGLANG_USE_AITER": "1", "SGLANG_DEFAULT_SERVER_ARGS": "", **CASE_ENV}
    args = ["--tensor-parallel-size", "2", "--trust-remote-code", *argv(dict(CASE_ARGS))]
    [evaluator] = assert_quoted(
        lines, env, server_line("${MODEL_CACHE}/org/DeepSeek-FP8", args), "lm_eval"
    )
    assert evaluator[:3] == ["lm_eval", "--model", "local-completions"]


def test_explain_titles_show_the_unicode_display_name(cli: Invoke, root: Path) -> None:
    result = cli("explain", "hostile-1024x1024", root=root)
    assert result.stdout.splitlines()[0] == f"# benchmark job hostile-1024x1024: {DISPLAY}"


# Names and titles that would reach a comment, a workflow key or a run script are refused.


def refused(tmp_path: Path, spec: CatalogSpec, needle: str, message: str) -> None:
    """The loader refuses the value with one line naming the file and the line of `needle`."""
    root = spec.write(tmp_path)
    path = root / "catalogs" / "benchmark.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.strip().startswith(needle))
    with pytest.raises(CatalogError) as info:
        load(root)
    assert str(info.value) == f"{path}:{line}: {message}"


def test_a_display_name_with_a_newline_is_refused(tmp_path: Path) -> None:
    spec = hostile_spec()
    spec.benchmark["configs"][0]["display"] = "R1\ntouch /tmp/pwned"
    refused(
        tmp_path,
        spec,
        'display: "R1',
        'configs[0].display: "R1\\ntouch /tmp/pwned" '
        "must be one line of printable text (no control character, line or paragraph separator, "
        "or bidirectional control)",
    )


def test_a_suite_name_with_an_expression_is_refused(tmp_path: Path) -> None:
    spec = hostile_spec()
    name = "OOB ${{ github.event.pull_request.title }}"
    spec.benchmark["suites"] = {name: spec.benchmark["suites"]["SGLang-OOB"]}
    spec.benchmark["configs"][0]["suite"] = name
    spec.benchmark["presets"] = {name: []}
    refused(
        tmp_path,
        spec,
        f"{name}:",
        f"suites.{name}: \"{name}\" is not a label (letters, digits, '.', '_', '-')",
    )


def test_a_schedule_title_with_a_newline_is_refused(tmp_path: Path) -> None:
    spec = hostile_spec()
    spec.benchmark["schedules"] = [
        {"name": "nightly", "title": "Nightly\n  push:", "cron": "0 14 * * 1", "select": {}}
    ]
    refused(
        tmp_path,
        spec,
        'title: "Nightly',
        'schedules[0].title: "Nightly\\n  push:" '
        "must be one line of printable text (no control character, line or paragraph separator, "
        "or bidirectional control)",
    )


def test_an_image_pattern_with_shell_syntax_is_refused(tmp_path: Path) -> None:
    spec = hostile_spec()
    pattern = "x* ]] || touch /tmp/pwned; [[ a"
    spec.benchmark["server_modes"]["mori"]["image_pattern"] = pattern
    refused(
        tmp_path,
        spec,
        "image_pattern: x*",
        f'server_modes.mori.image_pattern: "{pattern}" is not an image pattern like '
        "lmsysorg/sglang-rocm*",
    )


def test_a_dashboard_model_that_cannot_name_an_artifact_is_refused(
    cli: Invoke, tmp_path: Path
) -> None:
    spec = hostile_spec()
    spec.benchmark["configs"][0]["dashboard_model"] = HOSTILE_DASHBOARD
    result = cli("render", root=spec.write(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.endswith(
        f"configs[0].dashboard_model: {json.dumps(HOSTILE_DASHBOARD)} is not a label "
        "(letters, digits, '.', '_', '-')\n"
    )


@pytest.mark.parametrize(
    ("separator", "shown"),
    [("\u2028", "\\u2028"), ("\u2029", "\\u2029"), ("\u0085", "\\u0085"), ("\u202e", "\\u202e")],
    ids=["line-separator", "paragraph-separator", "next-line", "bidi-override"],
)
def test_a_schedule_title_with_a_unicode_line_break_or_bidi_control_is_refused(
    tmp_path: Path, separator: str, shown: str
) -> None:
    """YAML parsers read U+2028, U+2029 and U+0085 as line breaks: in the comment a title
    becomes, one would end the comment and start a cron of the title's making."""
    spec = hostile_spec()
    title = f"Nightly{separator}    - cron: '*/5 * * * *'"
    spec.benchmark["schedules"] = [
        {"name": "nightly", "title": title, "cron": "0 14 * * 1", "select": {}}
    ]
    refused(
        tmp_path,
        spec,
        "title: ",
        f"schedules[0].title: \"Nightly{shown}    - cron: '*/5 * * * *'\" "
        "must be one line of printable text (no control character, line or paragraph separator, "
        "or bidirectional control)",
    )
