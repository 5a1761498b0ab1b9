"""`generator.lint`: each rule fails on a small edit of the shipped catalogs and passes on them."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from generator import lint as lint_module
from generator.errors import Loc
from generator.lint import Finding, errors, format_json, format_text, lint
from generator.load import load_catalog
from generator.model import Catalog, EnvVar, Selector
from generator.rules import limits

ROOT = Path(__file__).parents[2]
BENCH = "catalogs/benchmark.yaml"
ACC = "catalogs/accuracy.yaml"
EDITS = Path(__file__).parents[1] / "example-files" / "lint"


def copy_catalogs(tmp_path: Path, edits: list[tuple[str, str, str]]) -> Path:
    """The shipped catalogs under tmp_path/catalogs/, each (file, old, new) edit applied."""
    (tmp_path / "catalogs").mkdir()
    for name in (BENCH, ACC):
        shutil.copy(ROOT / name, tmp_path / name)
    for name, old, new in edits:
        path = tmp_path / name
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} is not in {name}"
        path.write_text(text.replace(old, new), encoding="utf-8")
    return tmp_path


def edited(tmp_path: Path, *edits: tuple[str, str, str]) -> Catalog:
    return load_catalog(copy_catalogs(tmp_path, list(edits)))


def line_of(name: str, needle: str, root: Path | None = None) -> int:
    """1-based number of the first line of a catalog file that is needle (or, for a needle
    ending in a space-free prefix, that starts with it once stripped)."""
    lines = ((root or Path.cwd()) / name).read_text(encoding="utf-8").splitlines()
    exact = [n for n, text in enumerate(lines, 1) if text.strip() == needle.strip()]
    return exact[0] if exact else next(n for n, t in enumerate(lines, 1) if needle in t)


def by_rule(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = copy_catalogs(tmp_path_factory.mktemp("shipped"), [])
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        return load_catalog(root)


@pytest.fixture(scope="module")
def shipped_findings(shipped: Catalog) -> list[Finding]:
    return lint(shipped)


# ------------------------------------------------------------------ shipped catalogs


def test_the_shipped_catalogs_have_no_unwaived_error(shipped_findings: list[Finding]) -> None:
    assert errors(shipped_findings) == []


def test_the_shipped_catalogs_warn_only_about_the_retired_env_and_cuda_graph_sizes(
    shipped_findings: list[Finding],
) -> None:
    got = sorted((f.rule, f.loc.file, f.loc.line) for f in shipped_findings)
    bench = (ROOT / BENCH).read_text(encoding="utf-8").splitlines()
    spec_v2 = [n for n, t in enumerate(bench, 1) if "SGLANG_ENABLE_SPEC_V2" in t]
    mtp_dpa8 = line_of(BENCH, "- prefix: deepseek-r1-fp4-mesh-dpa8-ep8-mtp", ROOT)
    assert got == sorted(
        [
            ("L503", ACC, line_of(ACC, 'SGLANG_ENABLE_SPEC_V2: "1"', ROOT)),
            *(("L503", BENCH, n) for n in spec_v2),
            ("L304", BENCH, line_of(BENCH, "- prefix: deepseek-r1-fp8-mesh-dpa8-ep8", ROOT)),
            ("L304", BENCH, line_of(BENCH, "- prefix: deepseek-r1-fp4-mesh-dpa8-ep8", ROOT)),
            ("L304", BENCH, mtp_dpa8),
            ("L304", BENCH, mtp_dpa8),
        ]
    )
    assert len(spec_v2) == 2  # the mtp_common fragment and sglang-mori's spec_env
    assert all(f.severity == "warning" for f in shipped_findings)


def test_findings_are_ordered_by_file_line_and_rule(shipped_findings: list[Finding]) -> None:
    keys = [(f.loc.file, f.loc.line, f.rule) for f in shipped_findings]
    assert keys == sorted(keys)


# ------------------------------------------------------------------ rule 1: layout

TP4_DP8_EP8 = (
    BENCH,
    "parallel: {tp: 8, dp: 8, ep: 8}\n    args: [trust_remote_code, dp8_attention, aiter_runtime]",
    "parallel: {tp: 4, dp: 8, ep: 8}\n    args: [trust_remote_code, dp8_attention, aiter_runtime]",
)


def test_the_tp4_dp8_ep8_layout_of_the_original_pull_request_fails_rule_1(
    tmp_path: Path,
) -> None:
    found = lint(edited(tmp_path, TP4_DP8_EP8))
    line = line_of(BENCH, "- prefix: deepseek-r1-fp4-tp8-dp8-ep8")
    config = "config 'deepseek-r1-fp4-tp8-dp8-ep8'"
    assert [(f.loc.line, f.message) for f in by_rule(found, "L101") if f.loc.file == BENCH] == [
        (
            line,
            f"{config} runs TP4 DP8 with --enable-dp-attention, which SGLang refuses at "
            "start-up (tp size must be divisible by dp size): use TP8 DP8 or TP4 with DP4",
        )
    ]
    assert [f.message for f in by_rule(found, "L102") if f.loc.file == BENCH] == [
        f"{config} runs TP4 with EP8; SGLang builds expert-parallel groups inside the "
        "tensor-parallel group, so the ep size must divide the tp size: use EP4 or a TP "
        "that is a multiple of 8"
    ]
    # The accuracy case linked to it inherits the layout and fails too.
    assert [f.loc.file for f in by_rule(found, "L101")] == [ACC, BENCH]
    assert all(f.severity == "error" and f.waived is None for f in by_rule(found, "L101"))


def test_structured_sizes_must_equal_the_flags(tmp_path: Path) -> None:
    found = lint(
        edited(
            tmp_path,
            (
                BENCH,
                "parallel: {tp: 4, dp: 4, ep: 4}\n    args: [trust_remote_code, dp4_attention, "
                "aiter_runtime]\n",
                "parallel: {tp: 4}\n    args: [trust_remote_code, dp4_attention, aiter_runtime]\n",
            ),
        )
    )
    assert sorted({f.message for f in by_rule(found, "L103") if f.loc.file == BENCH}) == [
        "config 'deepseek-r1-fp4-tp4-dp4-ep4' declares parallel.dp 1 but starts SGLang with "
        "--data-parallel-size 4; make the field and the flag agree",
        "config 'deepseek-r1-fp4-tp4-dp4-ep4' declares parallel.ep 1 but starts SGLang with "
        "--expert-parallel-size 4; make the field and the flag agree",
    ]


def test_a_server_mode_conflict_is_reported_instead_of_raised(tmp_path: Path) -> None:
    found = lint(edited(tmp_path, (BENCH, "    precedence: mode\n", "")))
    assert by_rule(found, "L100")
    assert "declare a precedence" in by_rule(found, "L100")[0].message


# ------------------------------------------------------------------ rule 2: GPUs


def test_a_case_needing_more_gpus_than_its_runner_has_fails(tmp_path: Path) -> None:
    old = "benchmark: deepseek-r1-fp4-tp8\n    unset_env: [AITER_QUICK_REDUCE_QUANTIZATION]\n"
    new = old + "    runner: linux-atom-mi35x-4"
    found = lint(edited(tmp_path, (ACC, old + "    runner: linux-atom-mi35x-8", new)))
    assert [(f.loc.line, f.message) for f in by_rule(found, "L201")] == [
        (
            line_of(ACC, "- id: deepseek-r1-fp4-tp8"),
            "case 'deepseek-r1-fp4-tp8' needs 8 GPUs but runner 'linux-atom-mi35x-4' has 4; "
            "pick a runner with at least 8 GPUs or a smaller layout",
        )
    ]


# ------------------------------------------------------------------ rule 3: speculative decoding

SGLANG_CASE = "- id: deepseek-r1-mxfp4-tp4-mtp"


def test_eagle3_without_a_draft_model_warns(tmp_path: Path) -> None:
    old = "--speculative-algorithm: EAGLE\n"
    found = lint(edited(tmp_path, (ACC, old, "--speculative-algorithm: EAGLE3\n")))
    assert [(f.severity, f.loc.line, f.message) for f in by_rule(found, "L301")] == [
        (
            "warning",
            line_of(ACC, SGLANG_CASE),
            "case 'deepseek-r1-mxfp4-tp4-mtp' uses --speculative-algorithm EAGLE3 without "
            "--speculative-draft-model-path; SGLang falls back to the model path only for "
            "architectures with a built-in MTP layer: name the draft model",
        )
    ]


def test_a_deepseek_eagle_case_without_a_draft_model_passes(
    shipped_findings: list[Finding],
) -> None:
    assert by_rule(shipped_findings, "L301") == []


def test_a_non_deepseek_model_without_a_draft_model_warns(tmp_path: Path) -> None:
    old = "model: deepseek-r1-mxfp4-preview\n"
    found = lint(edited(tmp_path, (ACC, old, "model: qwen3.5-35b-a3b-fp8\n")))
    assert [f.loc.line for f in by_rule(found, "L301")] == [line_of(ACC, SGLANG_CASE)]


def test_draft_tokens_must_be_steps_plus_one_with_topk_1(tmp_path: Path) -> None:
    old = "--speculative-num-draft-tokens: 4\n        --max-running-requests: 32"
    new = "--speculative-num-draft-tokens: 5\n        --max-running-requests: 32"
    found = lint(edited(tmp_path, (ACC, old, new)))
    assert [f.message for f in by_rule(found, "L302")] == [
        "case 'deepseek-r1-mxfp4-tp4-mtp' sets --speculative-num-draft-tokens 5 with "
        "--speculative-eagle-topk 1 and --speculative-num-steps 3; SGLang silently replaces "
        "it with 4: write 4"
    ]


def test_steps_topk_and_draft_tokens_come_together(tmp_path: Path) -> None:
    old = "        --speculative-eagle-topk: 1\n        --speculative-num-draft-tokens: 4\n"
    found = lint(edited(tmp_path, (ACC, old, "")))
    assert [f.message for f in by_rule(found, "L303")] == [
        "case 'deepseek-r1-mxfp4-tp4-mtp' sets --speculative-num-steps but not "
        "--speculative-eagle-topk, --speculative-num-draft-tokens; SGLang asserts that all "
        "three are given or none (then it chooses them)"
    ]


def test_concurrency_per_dp_rank_within_the_cuda_graph_sizes_passes(tmp_path: Path) -> None:
    found = lint(edited(tmp_path, (BENCH, "1x1024: [1024, 2048, 4096]", "1x1024: [1024, 2048]")))
    assert by_rule(found, "L304") == []


def test_concurrency_per_dp_rank_above_the_cuda_graph_sizes_warns(
    shipped_findings: list[Finding],
) -> None:
    mtp = [f.message for f in by_rule(shipped_findings, "L304") if "dpa8-ep8-mtp" in f.message]
    assert mtp == [
        "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp' (sglang-atom, 1x1024): concurrency 4096 "
        "over DP8 is more than 256 requests per rank, the largest CUDA-graph batch "
        "(--cuda-graph-bs); those batches run without CUDA graphs: raise --cuda-graph-bs or "
        "lower the concurrency",
        "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp' (sglang-mori, 1x1024): concurrency 4096 "
        "over DP8 is more than 256 requests per rank, the largest CUDA-graph batch "
        "(--cuda-graph-bs); those batches run without CUDA graphs: raise --cuda-graph-bs or "
        "lower the concurrency",
    ]


def test_the_spec_field_must_agree_with_the_speculative_flags(tmp_path: Path) -> None:
    old = "    spec: mtp3\n    # The launch"
    found = lint(edited(tmp_path, (ACC, old, old.replace("mtp3", "mtp1"))))
    assert [(f.loc.line, f.message) for f in by_rule(found, "L305")] == [
        (
            line_of(ACC, SGLANG_CASE),
            "case 'deepseek-r1-mxfp4-tp4-mtp' has spec 'mtp1' but --speculative-num-steps 3; "
            "make the field and the flags agree",
        )
    ]


# ------------------------------------------------------------------ rule 4: alignment

EXTRA_ARG = (
    ACC,
    "benchmark: deepseek-r1-fp4-tp4\n",
    'benchmark: deepseek-r1-fp4-tp4\n    args: [{--mem-fraction-static: "0.8"}]\n',
)


def test_a_linked_case_with_different_args_fails(tmp_path: Path) -> None:
    found = lint(edited(tmp_path, EXTRA_ARG))
    assert [(f.loc.line, f.message) for f in by_rule(found, "L401")] == [
        (
            line_of(ACC, "- id: deepseek-r1-fp4-tp4"),
            "case 'deepseek-r1-fp4-tp4' starts --mem-fraction-static '0.8' but benchmark "
            "config 'deepseek-r1-fp4-tp4' starts '0.85'; align them or list "
            "--mem-fraction-static under allowed_differences.args",
        )
    ]


def test_a_listed_arg_difference_passes(tmp_path: Path) -> None:
    allowed = (
        ACC,
        "  env: [AITER_QUICK_REDUCE_QUANTIZATION]\n",
        "  env: [AITER_QUICK_REDUCE_QUANTIZATION]\n  args: [--mem-fraction-static]\n",
    )
    assert by_rule(lint(edited(tmp_path, EXTRA_ARG, allowed)), "L401") == []


def test_unsetting_an_env_var_that_is_not_an_allowed_difference_fails(tmp_path: Path) -> None:
    found = lint(
        edited(tmp_path, (ACC, "  env: [AITER_QUICK_REDUCE_QUANTIZATION]\n", "  env: []\n"))
    )
    l402 = by_rule(found, "L402")
    assert len(l402) == 8  # every linked case that unsets it
    assert l402[0].message == (
        "case 'deepseek-r1-fp8-tp4' unsets AITER_QUICK_REDUCE_QUANTIZATION, which is not an "
        "allowed difference; keep it, or add it to allowed_differences.env with a comment "
        "saying why"
    )
    assert by_rule(found, "L401")[0].message == (
        "case 'deepseek-r1-fp8-tp4' sets AITER_QUICK_REDUCE_QUANTIZATION to nothing but "
        "benchmark config 'deepseek-r1-fp8-tp4' sets 'INT4'; align them or list "
        "AITER_QUICK_REDUCE_QUANTIZATION under allowed_differences.env"
    )


# ------------------------------------------------------------------ rule 5: env hygiene


def test_a_forbidden_env_var_in_a_fragment_is_one_error(tmp_path: Path) -> None:
    old = "    MORI_SHMEM_MODE: ISOLATION\n"
    found = lint(edited(tmp_path, (BENCH, old, old + '    TP_SIZE: "8"\n')))
    assert [(f.loc.file, f.loc.line, f.severity, f.message) for f in by_rule(found, "L501")] == [
        (
            BENCH,
            line_of(BENCH, 'TP_SIZE: "8"'),
            "error",
            "TP_SIZE must not be set (the launcher and SGLang own it; SPEC.md lists it as "
            "removed): delete it",
        )
    ]


def test_a_renamed_env_var_names_its_new_name(tmp_path: Path) -> None:
    old = "env: [{ATOM_USE_FP4_NON_SHUFFLE_TRITON_GEMM: "
    found = lint(edited(tmp_path, (BENCH, old, "env: [{ATOM_USE_FP4_TRITON_GEMM: ")))
    assert len(by_rule(found, "L502")) == 4
    assert {f.message for f in by_rule(found, "L502")} == {
        "ATOM_USE_FP4_TRITON_GEMM was renamed: write ATOM_USE_FP4_NON_SHUFFLE_TRITON_GEMM instead"
    }


def test_a_waived_retired_env_var_is_kept_with_its_reason(shipped: Catalog) -> None:
    reason = (
        "mirrors the SGLang nightly launch of test_deepseek_r1_mxfp4_tp4_mtp_mi35x.py, "
        "which still sets it"
    )
    acc = [f for f in by_rule(lint(shipped), "L503") if f.loc.file == ACC]
    assert [(f.waived, f.severity) for f in acc] == [(reason, "warning")]
    assert f"[waived: {reason}]" in format_text(acc)


def test_without_its_waiver_the_retired_env_var_is_a_plain_warning(tmp_path: Path) -> None:
    old = (
        "    waive:\n      L503: mirrors the SGLang nightly launch of "
        "test_deepseek_r1_mxfp4_tp4_mtp_mi35x.py, which still sets it\n"
    )
    acc = [f for f in by_rule(lint(edited(tmp_path, (ACC, old, ""))), "L503") if f.loc.file == ACC]
    assert [(f.waived, f.severity) for f in acc] == [(None, "warning")]


def _with_env(catalog: Catalog, var: EnvVar) -> Catalog:
    config = catalog.configs[0]
    configs = (dataclasses.replace(config, env=(*config.env, var)), *catalog.configs[1:])
    return dataclasses.replace(catalog, configs=configs)


def test_env_names_must_be_shell_identifiers(shipped: Catalog) -> None:
    var = EnvVar(name="BAD-NAME", value="1", loc=Loc(BENCH, 7))
    found = by_rule(lint(_with_env(shipped, var)), "L504")
    assert [(f.loc, f.message) for f in found] == [
        (
            Loc(BENCH, 7),
            "env name 'BAD-NAME' is not a shell identifier ([A-Za-z_][A-Za-z0-9_]*): rename it",
        )
    ]


def test_env_values_must_be_one_line(shipped: Catalog) -> None:
    for value in ("a\nb", "a\rb", "a\0b"):
        var = EnvVar(name="GOOD_NAME", value=value, loc=Loc(BENCH, 7))
        assert [f.message for f in by_rule(lint(_with_env(shipped, var)), "L505")] == [
            "GOOD_NAME's value spans lines or holds a NUL byte; write one line"
        ]


def test_a_clean_env_var_passes(shipped: Catalog) -> None:
    var = EnvVar(name="GOOD_NAME", value="one line", loc=Loc(BENCH, 7))
    assert [f for f in lint(_with_env(shipped, var)) if f.rule.startswith("L50")] == [
        f for f in lint(shipped) if f.rule.startswith("L50")
    ]


# ------------------------------------------------------------------ rule 6: identity


def test_repeated_prefixes_and_case_ids_fail(shipped: Catalog) -> None:
    twin = dataclasses.replace(shipped.configs[0], loc=Loc(BENCH, 999))
    case = dataclasses.replace(shipped.cases[0], loc=Loc(ACC, 999))
    catalog = dataclasses.replace(
        shipped, configs=(*shipped.configs, twin), cases=(*shipped.cases, case)
    )
    found = lint(catalog)
    first = shipped.configs[0].loc.line
    assert [f.message for f in by_rule(found, "L601")] == [
        f"prefix 'deepseek-r1-fp8-tp4' is already used at line {first}; result files and "
        "presets are named by it: rename one"
    ]
    assert [f.loc for f in by_rule(found, "L602")] == [Loc(ACC, 999)]
    assert [f.loc for f in by_rule(found, "L603")] == [Loc(ACC, 999), Loc(BENCH, 999)]
    assert [f.loc for f in by_rule(found, "L604")] == [Loc(BENCH, 999)]


def test_a_repeated_display_name_fails(tmp_path: Path) -> None:
    old = "display: DeepSeek-R1-0528 FP8 TP8\n"
    found = lint(edited(tmp_path, (BENCH, old, "display: DeepSeek-R1-0528 FP8 TP4\n")))
    assert [(f.loc.line, f.message) for f in by_rule(found, "L603")] == [
        (
            line_of(BENCH, "- prefix: deepseek-r1-fp8-tp8"),
            "display name 'DeepSeek-R1-0528 FP8 TP4' is already used at line "
            f"{line_of(BENCH, '- prefix: deepseek-r1-fp8-tp4')}; dropdowns and summaries "
            "show it: rename one",
        )
    ]


def test_a_repeated_dashboard_model_fails(tmp_path: Path) -> None:
    old = "display: DeepSeek-R1-0528 FP8 TP8\n"
    new = old + "    dashboard_model: DeepSeek-R1-0528-tp4\n"
    found = lint(edited(tmp_path, (BENCH, old, new)))
    assert [f.loc.line for f in by_rule(found, "L604")] == [
        line_of(BENCH, "- prefix: deepseek-r1-fp8-tp8")
    ]


def test_a_second_spelling_of_a_model_path_fails(tmp_path: Path) -> None:
    models = "models:\n  qwen3.5-35b-a3b-fp8:\n"
    upper = "models:\n  fp4-upper:\n    path: amd/DeepSeek-R1-0528-MXFP4-V2\n"
    upper += "    family: deepseek\n    precision: fp4\n  qwen3.5-35b-a3b-fp8:\n"
    use = (
        "model: deepseek-r1-fp4-mtp-moefp4\n    parallel: {tp: 8}\n    args: [trust",
        "model: fp4-upper\n    parallel: {tp: 8}\n    args: [trust",
    )
    found = lint(edited(tmp_path, (ACC, models, upper), (ACC, *use)))
    assert [(f.loc.file, f.loc.line, f.message) for f in by_rule(found, "L605")] == [
        (
            ACC,
            line_of(ACC, "fp4-upper:"),
            "model path 'amd/DeepSeek-R1-0528-MXFP4-V2' is also spelled "
            "'amd/DeepSeek-R1-0528-MXFP4-v2'; use one spelling",
        )
    ]


def test_an_unused_fragment_warns(tmp_path: Path) -> None:
    old = "args:\n  trust_remote_code:\n"
    new = "args:\n  unused_metrics:\n    --enable-metrics: true\n  trust_remote_code:\n"
    found = lint(edited(tmp_path, (BENCH, old, new)))
    assert [(f.severity, f.loc.line, f.message) for f in by_rule(found, "L606")] == [
        (
            "warning",
            line_of(BENCH, "unused_metrics:"),
            "args fragment 'unused_metrics' is used by no config or case; use it or delete it",
        )
    ]


def test_every_shipped_fragment_is_used(shipped_findings: list[Finding]) -> None:
    assert by_rule(shipped_findings, "L606") == []


# ------------------------------------------------------------------ rule 7: GitHub limits


def test_a_matrix_over_the_job_limit_fails(
    shipped: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_MATRIX_JOBS", 10)
    found = by_rule(lint(shipped), "L701")
    assert [f.message for f in found] == [
        f"{what} makes {n} jobs; a GitHub matrix holds at most 10: split it"
        for what, n in [
            ("accuracy level 'nightly'", 17),  # 15 cases, the sglang one on two images
            ("cron group 'mesh-all'", 17),
            ("cron group 'oob-all'", 12),
            ("preset 'all-oob' (SGLang-OOB)", 12),
            ("preset 'ds-all' (SGLang-Mesh)", 17),
            ("preset 'ds-fp4-all' (SGLang-Mesh)", 14),
        ]
    ]


def test_the_shipped_matrices_fit_github(shipped_findings: list[Finding]) -> None:
    assert [f for f in shipped_findings if f.rule.startswith("L70")] == []


def test_a_matrix_over_the_output_limit_fails(
    shipped: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_OUTPUT_BYTES", 1000)
    found = by_rule(lint(shipped), "L702")
    assert found
    assert all("bytes of matrix JSON; a job output holds at most 1000" in f.message for f in found)


def test_too_many_dispatch_inputs_fail(shipped: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_DISPATCH_INPUTS", 5)
    assert [f.message for f in by_rule(lint(shipped), "L703")] == [
        "the benchmark workflow would have 6 dispatch inputs (2 suites); GitHub allows 5: "
        "merge suites"
    ]


def test_a_long_expression_in_a_rendered_workflow_fails(tmp_path: Path) -> None:
    catalog = edited(tmp_path)
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    long = "${{ " + "a" * 21_000 + " }}"
    (workflows / "x.yml").write_text(
        f"on: push\njobs: {{}}\nenv:\n  X: {long}\n  Y: ${{{{ 1 }}}}\n"
    )
    assert [(f.loc, f.message) for f in by_rule(lint(catalog), "L704")] == [
        (
            Loc(".github/workflows/x.yml", 4),
            "an expression of 21007 characters; GitHub allows 21000: move the data into a "
            "committed JSON file",
        )
    ]


def test_a_cron_github_refuses_fails(shipped: Catalog) -> None:
    bad = dataclasses.replace(shipped.schedules[0], cron="@daily")
    catalog = dataclasses.replace(shipped, schedules=(bad, *shipped.schedules[1:]))
    assert [f.message for f in by_rule(lint(catalog), "L705")] == [
        "cron '@daily': macros like @daily are not supported by GitHub; write five fields"
    ]


def test_a_cron_group_that_selects_nothing_fails(shipped: Catalog) -> None:
    nothing = Selector(fields=(("suite", ("SGLang-Mesh",)), ("family", ("qwen",))))
    bad = dataclasses.replace(shipped.schedules[0], select=(nothing,))
    catalog = dataclasses.replace(shipped, schedules=(bad, *shipped.schedules[1:]))
    found = lint(catalog)
    assert [f.message for f in by_rule(found, "L706")] == [
        "cron group 'oob-deepseek-non-mtp': the selection schedule 'oob-deepseek-non-mtp' has "
        "no config"
    ]


def test_a_cron_group_outrunning_the_next_run_on_its_runners_warns(tmp_path: Path) -> None:
    catalog = edited(
        tmp_path,
        (BENCH, "{gpus: 8, count: 2}", "{gpus: 8, count: 1}"),
        (BENCH, '    cron: "0 14 * * 1,3"\n', '    cron: "0 14 * * 1,3"\n    packing: per-cell\n'),
    )
    found = by_rule(lint(catalog), "L707")
    line = line_of(BENCH, "- name: oob-deepseek-non-mtp")
    # 60 one-cell jobs, one after another on the one machine.
    assert [(f.loc.line, f.severity, f.message) for f in found] == [
        (
            line,
            "warning",
            "cron group 'oob-deepseek-non-mtp' is estimated at 41.2 h of wall time on its "
            "runners, but cron group 'oob-deepseek-mtp-qwen' starts 24.0 h after it "
            "(`sglang-ci plan --group oob-deepseek-non-mtp`)",
        )
    ]


def test_a_daily_group_longer_than_a_day_outruns_itself(shipped: Catalog) -> None:
    daily = dataclasses.replace(shipped.schedules[3], cron="0 14 * * *")
    small = dataclasses.replace(shipped.runners[0], count=1)
    catalog = dataclasses.replace(
        shipped, schedules=(daily,), runners=(small, *shipped.runners[1:])
    )
    assert [f.message for f in by_rule(lint(catalog), "L707")] == []
    packed = dataclasses.replace(daily, packing="per-cell")
    catalog = dataclasses.replace(catalog, schedules=(packed,))
    [finding] = by_rule(lint(catalog), "L707")
    assert "but its next run starts 24.0 h after it" in finding.message


def test_packed_shipped_groups_end_before_the_next_run(shipped_findings: list[Finding]) -> None:
    assert by_rule(shipped_findings, "L707") == []


# ------------------------------------------------------------------ waivers and output


def test_a_waiver_for_an_unknown_rule_fails_and_an_unused_one_warns(tmp_path: Path) -> None:
    old = "    env: [deepseek_common, quick_reduce_int4]\n\n  - prefix: deepseek-r1-fp8-tp8\n"
    new = old.replace(
        "\n\n", '\n    waive: {L999: "a reason long enough", L101: "a reason long enough"}\n\n'
    )
    found = lint(edited(tmp_path, (BENCH, old, new)))
    line = line_of(BENCH, "- prefix: deepseek-r1-fp8-tp4")
    assert [(f.rule, f.loc.line, f.message) for f in found if f.rule in ("L001", "L002")] == [
        (
            "L001",
            line,
            "waive names unknown rule 'L999'; `sglang-ci lint` lists the rule ids",
        ),
        (
            "L002",
            line,
            "the waiver for L101 (dp-attention-divisible) excuses no finding here; delete it",
        ),
    ]


def test_a_waived_error_does_not_count(tmp_path: Path) -> None:
    old = "  - prefix: deepseek-r1-fp4-tp8-dp8-ep8\n"
    waive = '    waive: {L101: "kept to show the layout fails", L102: "kept on purpose too"}\n'
    catalog = edited(
        tmp_path,
        TP4_DP8_EP8,
        (BENCH, old, old + waive),
        (
            ACC,
            "    benchmark: deepseek-r1-fp4-tp8-dp8-ep8\n",
            "    benchmark: deepseek-r1-fp4-tp8-dp8-ep8\n" + waive,
        ),
    )
    found = lint(catalog)
    assert errors(found) == []
    assert {f.waived for f in found if f.rule in ("L101", "L102")} == {
        "kept to show the layout fails",
        "kept on purpose too",
    }
    assert format_text(found).splitlines()[-1] == "lint passed: 0 errors, 6 warnings, 5 waived"


def test_text_output_has_one_line_per_finding_and_a_summary(shipped: Catalog) -> None:
    finding = Finding(
        rule="L101",
        name="dp-attention-divisible",
        severity="error",
        loc=Loc(BENCH, 42),
        message="use TP8 DP8",
    )
    text = format_text([finding], shipped)
    lines = text.splitlines()
    assert lines[0] == (
        "catalogs/benchmark.yaml:42: error L101 dp-attention-divisible: use TP8 DP8"
    )
    assert lines[1] == (
        "cron '0 14 * * 1,3' (oob-deepseek-non-mtp): At 02:00 PM, only on Monday and Wednesday "
        "(UTC)"
    )
    assert lines[-1] == "lint failed: 1 error, 0 warnings, 0 waived"
    assert len(lines) == 1 + len(shipped.schedules) + 1 + 1


def test_json_output_lists_every_field(shipped: Catalog) -> None:
    finding = Finding(
        rule="L503",
        name="env-retired",
        severity="warning",
        loc=Loc(ACC, 7),
        message="m",
        waived="because",
    )
    assert json.loads(format_json([finding])) == [
        {
            "rule": "L503",
            "name": "env-retired",
            "severity": "warning",
            "loc": {"file": ACC, "line": 7},
            "message": "m",
            "waived": "because",
        }
    ]
    assert lint_module.format_json([]) == "[]\n"
