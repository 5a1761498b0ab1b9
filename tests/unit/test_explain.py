"""`sglang-ci explain`: every id resolves; the commands are the launcher's own."""

from __future__ import annotations

import shlex

import pytest

from generator.catalog.catalog_types import PER_SERVER
from generator.core import commands, eval_commands
from generator.expand.entries import case_entry, job_entry
from generator.expand.select import default_mode, image_for
from generator.explain import explain
from tests.helpers import copy_catalogs, edit, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded
    from tests.conftest import Invoke

WHERE = commands.Where(
    python="/py", port="4242", logs="/logs", model_cache="/models", root="/checkout"
)


def resolve(text: str) -> str:
    """Explain's text with its variables set as a shell would set them."""
    return (
        text.replace('"${PYTHON}"', WHERE.python)
        .replace('"${SGLANG_PORT}"', WHERE.port)
        .replace('"${LOG_DIR}"', WHERE.logs)
        .replace('"${MODEL_CACHE}"', str(WHERE.model_cache))
        .replace('"${SGLANG_CI_ROOT}"', WHERE.root)
    )


def commands_of(text: str) -> list[list[str]]:
    """The argv of every command line (the server's, the clients', the evaluator's)."""
    out = []
    for line in resolve(text).splitlines():
        tokens = shlex.split(line, comments=True)
        if tokens[:1] == ["exec"]:
            tokens = tokens[1:]
        if tokens[:1] in ([WHERE.python], ["lm_eval"]):
            cut = next((i for i, t in enumerate(tokens) if t in (">", ">>")), len(tokens))
            out.append(tokens[:cut])
    return out


def test_every_config_and_case_of_the_shipped_catalogs_explains_as_the_launcher_runs_it(
    shipped: Expanded,
) -> None:
    catalog = shipped.catalog
    for config in catalog.configs:
        mode = default_mode(catalog, config)
        jobs = shipped.jobs[(config.prefix, mode, PER_SERVER)]
        text = explain(shipped, config.prefix, kind="config")
        titles = [line for line in text.splitlines() if line.startswith("# benchmark job ")]
        assert titles == [
            f"# benchmark job {job.id}: {config.display} (of config {config.prefix})"
            for job in jobs
        ]
        expected = []
        for job in jobs:
            entry = job_entry(catalog, job, image_for(catalog, mode, None))
            expected.append(commands.server_argv(entry, WHERE))
            expected += [commands.bench_argv(entry, p, WHERE) for p in entry["points"]]
        assert commands_of(text) == expected, config.prefix
    for case in catalog.cases:
        runs = [r for r in shipped.case_runs if r.case is case]
        text = explain(shipped, case.id, kind="case")
        titles = [line for line in text.splitlines() if line.startswith("# accuracy case ")]
        # One text per run and runner label; the level is named when the labels differ.
        shown: dict[tuple[str, str], tuple[str, str]] = {}
        for r in runs:
            for level in case.levels:
                named = f" (level {level})" if len(case.labels) > 1 else ""
                shown.setdefault((r.id, case.runner_for(level)), (level, named))
        assert titles == [
            f"# accuracy case {run_id}: {next(r.name for r in runs if r.id == run_id)}{named}"
            for (run_id, _), (_, named) in shown.items()
        ]
        entries = [
            case_entry(catalog, next(r for r in runs if r.id == run_id), level)
            for (run_id, _), (level, _) in shown.items()
        ]
        assert commands_of(text) == [
            argv
            for entry in entries
            for argv in (commands.server_argv(entry, WHERE), eval_commands.eval_argv(entry, WHERE))
        ], case.id


def test_every_id_the_index_holds_explains_in_each_of_its_kinds(fixture: Expanded) -> None:
    for wanted, targets in fixture.index.items():
        for kind in {t.kind for t in targets}:
            text = explain(fixture, wanted, kind=kind)
            assert text.count("sglang.launch_server") >= 1, (wanted, kind)


def test_a_config_shows_each_of_its_jobs_with_its_points(fixture: Expanded) -> None:
    text = explain(fixture, "deepseek-r1-fp8-mesh-dpa8-ep8", kind="config")
    titles = [line for line in text.splitlines() if line.startswith("# benchmark job")]
    assert titles == [
        (
            "# benchmark job deepseek-r1-fp8-mesh-dpa8-ep8-8192x1: DeepSeek-R1-0528 FP8 "
            "SGLang-Mesh DPA8 EP8 (of config deepseek-r1-fp8-mesh-dpa8-ep8)"
        ),
        (
            "# benchmark job deepseek-r1-fp8-mesh-dpa8-ep8-1x1024: DeepSeek-R1-0528 FP8 "
            "SGLang-Mesh DPA8 EP8 (of config deepseek-r1-fp8-mesh-dpa8-ep8)"
        ),
    ]
    assert text.count("-m sglang.bench_serving") == 6


def test_a_job_s_commands_are_the_launchers_token_for_token(fixture: Expanded) -> None:
    catalog = fixture.catalog
    job = fixture.jobs[("deepseek-r1-fp4-mesh-tp8", "sglang-mori", PER_SERVER)][1]
    image = "lmsysorg/sglang-rocm:v0.5.9-rocm700-mi35x"
    entry = job_entry(catalog, job, image)
    text = explain(fixture, job.id, kind="job", mode="sglang-mori", image=image)
    expected = [commands.server_argv(entry, WHERE)]
    expected += [commands.bench_argv(entry, p, WHERE) for p in entry["points"]]
    assert commands_of(text) == expected
    assert f"image: {image}   server mode: sglang-mori" in text
    lines = resolve(text).splitlines()
    flushes = [line for line in lines if "/flush_cache" in line]
    assert flushes == ["curl -fsS -X POST http://127.0.0.1:4242/flush_cache > /dev/null"] * 7
    exports = [line.strip() for line in lines if line.startswith("  export ")]
    assert exports == [f"export {k}={shlex.quote(v)}" for k, v in entry["env"].items()]


def test_a_case_shows_its_evaluator_in_its_own_directory_and_its_gate(fixture: Expanded) -> None:
    text = resolve(explain(fixture, "deepseek-r1-fp8-tp4", kind="case"))
    assert "rm -rf /logs/deepseek-r1-fp8-tp4.lm-eval && mkdir -p " in text
    assert '# gate: results["gsm8k"]["exact_match,flexible-extract"] >= 0.91' in text
    evaluator = commands_of(text)[-1]
    assert evaluator[:3] == ["lm_eval", "--model", "local-completions"]


def test_a_case_name_and_an_image_run_id_resolve_to_the_case(fixture: Expanded) -> None:
    by_name = explain(fixture, "DeepSeek-R1-MXFP4 TP4 MTP")
    assert [line for line in by_name.splitlines() if line.startswith("# accuracy case")] == [
        "# accuracy case deepseek-r1-mxfp4-tp4-mtp-rocm700: DeepSeek-R1-MXFP4 TP4 MTP (rocm700)",
        "# accuracy case deepseek-r1-mxfp4-tp4-mtp-rocm720: DeepSeek-R1-MXFP4 TP4 MTP (rocm720)",
    ]
    one = explain(fixture, "deepseek-r1-mxfp4-tp4-mtp-rocm720")
    assert one.count("# accuracy case ") == 1


def test_an_id_naming_several_things_shows_each_and_kind_chooses(cli: Invoke) -> None:
    both = cli("explain", "deepseek-r1-fp8-tp4")
    assert both.exit_code == 0
    assert both.stdout.splitlines()[0] == (
        "# 'deepseek-r1-fp8-tp4' names a config and a job and a case and a preset; "
        "--kind chooses one"
    )
    assert both.stdout.count("# benchmark job ") == 1
    assert both.stdout.count("# accuracy case ") == 1
    case = cli("explain", "deepseek-r1-fp8-tp4", "--kind", "case")
    assert case.stdout.count("# benchmark job ") == 0
    assert case.stdout.splitlines()[:2] == [
        "# accuracy case deepseek-r1-fp8-tp4: DeepSeek-R1-FP8 TP4",
        "# runner: linux-atom-mi35x-4   image: rocm/atom-dev:sglang-latest",
    ]
    assert case.stdout.count("# accuracy case ") == 1


def test_an_unknown_id_suggests_the_nearest_of_the_kind_asked_for(cli: Invoke) -> None:
    result = cli("explain", "deepseek-r1-fp8-tp4x")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: nothing has id 'deepseek-r1-fp8-tp4x' (did you mean 'deepseek-r1-fp8-tp4'?)\n",
    )
    result = cli("explain", "ds-fp4-tp8-mpt", "--kind", "preset")
    assert result.stderr == (
        "error: no preset has id 'ds-fp4-tp8-mpt' (did you mean 'ds-fp4-tp8-mtp'?)\n"
    )
    result = cli("explain", "qwen3-5-35b-a3b-fp8-tp2", "--kind", "config")
    assert result.stderr == (
        "error: no config has id 'qwen3-5-35b-a3b-fp8-tp2' (it names a case) "
        "(did you mean 'qwen3-5-397b-a17b-fp8-tp8'?)\n"
    )


def test_a_mode_a_suite_lacks_is_refused(cli: Invoke) -> None:
    result = cli("explain", "deepseek-r1-fp8-tp8", "--kind", "config", "--mode", "sglang-mori")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: suite SGLang-OOB has no server mode 'sglang-mori' (it has: sglang-atom)\n",
    )


def many_configs(root: Path, n: int) -> None:
    """`n` more OOB configs, so that the all-oob preset makes more than 256 jobs."""
    block = "".join(
        f"  - prefix: extra-{i:03d}\n"
        f"    display: Extra {i:03d}\n"
        "    suite: SGLang-OOB\n"
        "    model: deepseek-r1-fp8\n"
        "    parallel: {tp: 8}\n"
        "    args: [trust_remote_code, aiter_runtime]\n"
        for i in range(n)
    )
    edit(root / "catalogs/benchmark.yaml", "configs:\n", "configs:\n" + block)


def test_a_300_config_catalog_explains_though_it_cannot_render(cli: Invoke, tmp_path: Path) -> None:
    root = copy_catalogs(tmp_path)
    many_configs(root, 300)
    expanded = expanded_at(root)
    all_oob = next(p for p in expanded.presets if p.name == "all-oob")
    assert len(all_oob.runs["sglang-atom"].jobs) == 312
    assert cli("explain", "extra-299", root=root).exit_code == 0
    result = cli("render", root=root)
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "catalogs/benchmark.yaml:2353: cron group 'oob-deepseek-non-mtp' makes 306 jobs; "
        "a GitHub matrix holds at most 256: split it\n"
    )


@pytest.mark.parametrize("kind", ["config", "job", "preset"])
def test_the_same_job_through_three_kinds_prints_the_same_commands(
    fixture: Expanded, kind: str
) -> None:
    text = explain(fixture, "qwen3-5-397b-a17b-fp8-tp4", kind=kind)
    assert commands_of(text) == commands_of(
        explain(fixture, "qwen3-5-397b-a17b-fp8-tp4", kind="job")
    )


def test_every_oob_cell_runs_the_declared_client_with_the_original_methodology(
    fixture: Expanded,
) -> None:
    cells = [
        c for (prefix, _), cs in fixture.cells.items() for c in cs if c.config.suite == "SGLang-OOB"
    ]
    assert len(cells) == 120
    for cell in cells:
        [client] = commands_of(explain(fixture, cell.id, kind="cell"))[1:]
        flags = dict(zip(client[3::2], client[4::2], strict=False))
        assert client[:3] == ["/py", "-m", "sglang.bench_serving"], cell.id
        assert {k: flags[k] for k in ("--backend", "--dataset-name", "--seed")} == {
            "--backend": "sglang-oai",
            "--dataset-name": "random-ids",
            "--seed": "0",
        }
        assert int(flags["--warmup-requests"]) == 2 * cell.concurrency
        assert int(flags["--max-concurrency"]) == cell.concurrency
        assert flags["--request-rate"] == "inf"
