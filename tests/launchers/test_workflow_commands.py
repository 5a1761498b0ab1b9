"""A tool that prints workflow commands (`::error::`, `::add-mask::`, `##[...]`) gets none
of them acted on: the launcher echoes tool output framed by `::stop-commands::<token>` and
`::<token>::`, and frames any other line that holds one. The job log is read here as the
runner reads it (lines split at \\n, \\r and \\r\\n; a command is a line that starts with
`::` once leading whitespace is stripped, or holds `##[`; nothing is a command between a
stop and its token)."""

from __future__ import annotations

import re

from tests.launchers.support import AMD_SMI_DIR, Harness, fixture_case, fixture_job, small_points

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

INJECTION = (
    "::error title=Pwned::owned by a tool\n"
    "  ::add-mask::hide-everything\r"
    "::set-output name=x::y\n"
    "progress ##[warning]old-style command"
)
_TOKEN = re.compile(r"[0-9a-f]{32}")


def acted_on(log: str) -> list[str]:
    """The workflow commands the runner would act on in one stream of a job log."""
    acted: list[str] = []
    stopped: str | None = None
    for line in re.split(r"\r\n|\r|\n", log):
        text = line.lstrip()
        if stopped is not None:
            if text == f"::{stopped}::":
                stopped = None
            continue
        if text.startswith("::stop-commands::"):
            stopped = text.removeprefix("::stop-commands::")
            assert _TOKEN.fullmatch(stopped), line  # 128 random bits, nothing to guess
        elif text.startswith("::") or "##[" in line:
            acted.append(line)
    assert stopped is None, "a stop-commands frame was never closed"
    return acted


def framed_blocks(log: str) -> list[str]:
    """The text of each frame in one stream."""
    found = re.findall(r"::stop-commands::([0-9a-f]{32})\n(.*?)\n::\1::", log, re.DOTALL)
    return [text for _, text in found]


def test_the_reading_of_the_log_finds_every_injected_command() -> None:
    """Guards the tests below: printed as it is, the injection is four commands."""
    assert len(acted_on(INJECTION)) == 4
    token = "0" * 32
    assert acted_on(f"::stop-commands::{token}\n{INJECTION}\n::{token}::") == []


def echoed(text: str) -> str:
    """`text` as the launcher echoes a tool's log: its lines (a lone \r ends one too)."""
    return "\n".join(text.splitlines())


def _assert_framed(log: str) -> None:
    assert acted_on(log) == []
    assert any(echoed(INJECTION) in block for block in framed_blocks(log)), log


def test_a_client_printing_workflow_commands_has_none_acted_on(harness: Harness) -> None:
    job = small_points(fixture_job("--preset", "all-qwen"), [1])
    run = harness.run(
        "run_benchmark.sh", harness.write_json("job.json", job), {"SGLANG_STANDIN_PRINT": INJECTION}
    )
    assert run.returncode == 0, run.stdout + run.stderr
    _assert_framed(run.stdout)
    assert acted_on(run.stderr) == []


def test_a_server_printing_workflow_commands_before_it_dies_has_none_acted_on(
    harness: Harness,
) -> None:
    job = small_points(fixture_job("--preset", "all-qwen"), [1])
    run = harness.run(
        "run_benchmark.sh",
        harness.write_json("job.json", job),
        {"SGLANG_STANDIN_PRINT": INJECTION, "SGLANG_STANDIN_FAIL": "exit-at-start"},
    )
    assert run.returncode == 2, run.stdout + run.stderr
    _assert_framed(run.stdout)
    assert acted_on(run.stderr) == []


def test_an_evaluator_printing_workflow_commands_has_none_acted_on(harness: Harness) -> None:
    case = fixture_case("deepseek-r1-fp8-tp4")
    run = harness.run(
        "run_accuracy.sh",
        harness.write_json("case.json", case),
        {"SGLANG_STANDIN_PRINT": INJECTION},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    _assert_framed(run.stdout)
    assert acted_on(run.stderr) == []


def test_a_failed_download_printing_workflow_commands_has_none_acted_on(
    harness: Harness, tmp_path: Path
) -> None:
    harness.model_cache = tmp_path / "cache"
    job = small_points(fixture_job("--preset", "all-qwen"), [1])
    run = harness.run(
        "run_benchmark.sh",
        harness.write_json("job.json", job),
        {"SGLANG_STANDIN_PRINT": INJECTION, "SGLANG_STANDIN_HF_FAIL": "1"},
    )
    assert run.returncode == 2, run.stdout + run.stderr
    _assert_framed(run.stdout)
    assert acted_on(run.stderr) == []
    # The record that carries hf's words is printed too, framed as well.
    assert any("hf download" in b and echoed(INJECTION) in b for b in framed_blocks(run.stdout))


def test_a_gpu_name_holding_a_workflow_command_is_framed_where_it_is_logged(
    harness: Harness,
) -> None:
    job = small_points(fixture_job("--preset", "all-qwen"), [1])
    name = "AMD Instinct MI355X\n::error::from smi"
    run = harness.run(
        "run_benchmark.sh",
        harness.write_json("job.json", job),
        {"PATH": f"{AMD_SMI_DIR}:{harness.base_env()['PATH']}", "SGLANG_STANDIN_GPU_MODEL": name},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert acted_on(run.stdout) == []
    assert any("::error::from smi" in block for block in framed_blocks(run.stdout))
