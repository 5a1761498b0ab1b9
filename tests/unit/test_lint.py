"""`generator.lint.checks`: each rule fails on an edit of the fixture catalogs, passes on them."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from generator.catalog.server_types import EnvVar
from generator.errors import Loc
from generator.expand import expand
from generator.lint.checks import lint
from generator.lint.findings import Finding, errors, format_text
from tests.helpers import FIXTURE, copy_catalogs, edit, expanded_at, snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Catalog
    from generator.expand.expanded import Expanded
    from tests.conftest import Invoke

BENCH = "catalogs/benchmark.yaml"
ACC = "catalogs/accuracy.yaml"


def edited(tmp_path: Path, *edits: tuple[str, str, str]) -> Expanded:
    """The fixture catalogs under tmp_path/catalogs/, each (file, old, new) edit applied to
    every occurrence of `old`, expanded."""
    root = copy_catalogs(tmp_path)
    for name, old, new in edits:
        edit(root / name, old, new, count=-1)
    return expanded_at(root)


def line_of(name: str, needle: str, root: Path | None = None) -> int:
    """1-based number of the first line of a catalog file that is `needle` once stripped,
    else of the first line that holds it."""
    lines = ((root or Path.cwd()) / name).read_text(encoding="utf-8").splitlines()
    exact = [n for n, text in enumerate(lines, 1) if text.strip() == needle.strip()]
    return exact[0] if exact else next(n for n, t in enumerate(lines, 1) if needle in t)


def by_rule(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


def relinted(catalog: Catalog) -> list[Finding]:
    """Lint of a catalog changed in memory (expanded again, as the CLI would)."""
    return lint(expand(catalog))


def with_case(catalog: Catalog, case_id: str, **changes: Any) -> Catalog:
    """The catalog with one accuracy case's fields changed (as an edit of its lines would)."""
    cases = tuple(
        dataclasses.replace(c, **changes) if c.id == case_id else c for c in catalog.cases
    )
    return dataclasses.replace(catalog, cases=cases)


def with_config(catalog: Catalog, prefix: str, **changes: Any) -> Catalog:
    """The catalog with one config's fields changed (as an edit of its lines would)."""
    configs = tuple(
        dataclasses.replace(c, **changes) if c.prefix == prefix else c for c in catalog.configs
    )
    return dataclasses.replace(catalog, configs=configs)


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module")
def found(fixture: Expanded) -> list[Finding]:
    return lint(fixture)


# ------------------------------------------------------------------ the fixture catalogs


def test_the_fixture_catalogs_have_no_unwaived_error(found: list[Finding]) -> None:
    assert errors(found) == []


def test_the_fixture_catalogs_warn_only_about_retired_env_and_flags_graph_sizes_and_mori(
    fixture: Expanded, found: list[Finding]
) -> None:
    bench, acc = fixture.catalog.benchmark_file, fixture.catalog.accuracy_file
    got = sorted((f.rule, f.loc.file, f.loc.line) for f in found)
    lines = (FIXTURE / BENCH).read_text(encoding="utf-8").splitlines()
    spec_v2 = [n for n, t in enumerate(lines, 1) if "SGLANG_ENABLE_SPEC_V2" in t]
    # --cuda-graph-bs in the three MTP fragments, --cuda-graph-max-bs in sglang-mori: named
    # --cuda-graph-bs-decode and --cuda-graph-max-bs-decode from SGLang 0.5.20 on, which the
    # fixture's images (no declaration: any supported release) may carry.
    graph = [n for n, t in enumerate(lines, 1) if t.strip().startswith("--cuda-graph-")]
    # --enable-dp-attention, written from parallel: for every DP layout: deprecated in 0.5.22
    # and 0.5.23, found once, at the first of them.
    dpa = line_of(BENCH, "parallel: {tp: 4, dp: 4, ep: 4}", FIXTURE)
    mtp_dpa8 = line_of(BENCH, "- prefix: deepseek-r1-fp4-mesh-dpa8-ep8-mtp", FIXTURE)
    assert got == sorted(
        [
            ("L503", acc, line_of(ACC, 'SGLANG_ENABLE_SPEC_V2: "1"', FIXTURE)),
            *(("L503", bench, n) for n in spec_v2),
            ("L304", bench, line_of(BENCH, "- prefix: deepseek-r1-fp8-mesh-dpa8-ep8", FIXTURE)),
            ("L304", bench, line_of(BENCH, "- prefix: deepseek-r1-fp4-mesh-dpa8-ep8", FIXTURE)),
            ("L304", bench, mtp_dpa8),
            ("L304", bench, mtp_dpa8),
            # sglang-mori's 0.8 against the config's 0.85 (aiter_runtime): the config wins.
            ("L106", bench, line_of(BENCH, '--mem-fraction-static: "0.85"', FIXTURE)),
            *(("L801", bench, n) for n in graph),
            ("L803", bench, dpa),
        ]
    )
    assert len(spec_v2) == 2  # the mtp_common fragment and sglang-mori's spec_env
    assert len(graph) == 4
    assert [f.message for f in by_rule(found, "L803")] == [
        (
            "--enable-dp-attention (written from parallel: here and in 12 more configs and "
            "cases) is deprecated in SGLang 0.5.22 to 0.5.23; use --attn-dp-size <dp-size> "
            "(SGLang removes it after 2026-12-31)"
        )
    ]
    assert all(f.severity == "warning" for f in found)


def test_findings_are_ordered_by_file_line_and_rule(found: list[Finding]) -> None:
    keys = [(f.loc.file, f.loc.line, f.rule) for f in found]
    assert keys == sorted(keys)


# ------------------------------------------------------------------ the live catalogs


def test_the_live_catalogs_have_no_unwaived_error_and_ordered_findings(
    shipped: Expanded,
) -> None:
    findings = lint(shipped)
    assert errors(findings) == []
    keys = [(f.loc.file, f.loc.line, f.rule, f.message) for f in findings]
    assert keys == sorted(keys)


# ------------------------------------------------------------------ rule 1: layout

TP4_DP8_EP8 = (
    BENCH,
    "parallel: {tp: 8, dp: 8, ep: 8}\n    args: [trust_remote_code, parallel, aiter_runtime]",
    "parallel: {tp: 4, dp: 8, ep: 8}\n    args: [trust_remote_code, parallel, aiter_runtime]",
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
            (
                f"{config} runs TP4 DP8 with --enable-dp-attention, which SGLang refuses at "
                "start-up (tp size must be divisible by dp size): use TP8 DP8 or TP4 with DP4"
            ),
        )
    ]
    assert [f.message for f in by_rule(found, "L102") if f.loc.file == BENCH] == [
        (
            f"{config} runs TP4 with EP8; SGLang builds expert-parallel groups inside the "
            "tensor-parallel group, so the ep size must divide the tp size: use EP4 or a TP "
            "that is a multiple of 8"
        )
    ]
    # The accuracy case linked to it inherits the layout and fails too.
    assert [f.loc.file for f in by_rule(found, "L101")] == [ACC, BENCH]
    assert all(f.severity == "error" and f.waived is None for f in by_rule(found, "L101"))


def test_a_case_needing_more_gpus_than_its_runner_has_fails(fixture: Expanded) -> None:
    catalog = with_case(fixture.catalog, "deepseek-r1-fp4-tp8", runner="linux-atom-mi35x-4")
    assert [(f.loc.line, f.message) for f in by_rule(relinted(catalog), "L201")] == [
        (
            line_of(ACC, "- id: deepseek-r1-fp4-tp8", FIXTURE),
            (
                "case 'deepseek-r1-fp4-tp8' needs 8 GPUs but runner 'linux-atom-mi35x-4' has 4; "
                "pick a runner with at least 8 GPUs or a smaller layout"
            ),
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
            (
                "case 'deepseek-r1-mxfp4-tp4-mtp' uses --speculative-algorithm EAGLE3 without "
                "--speculative-draft-model-path; SGLang falls back to the model path only for "
                "architectures with a built-in MTP layer: name the draft model"
            ),
        )
    ]


def test_a_deepseek_eagle_case_without_a_draft_model_passes(found: list[Finding]) -> None:
    assert by_rule(found, "L301") == []


def test_a_non_deepseek_model_without_a_draft_model_warns(tmp_path: Path) -> None:
    old = "model: deepseek-r1-mxfp4-preview\n"
    found = lint(edited(tmp_path, (ACC, old, "model: qwen3.5-35b-a3b-fp8\n")))
    assert [f.loc.line for f in by_rule(found, "L301")] == [line_of(ACC, SGLANG_CASE)]


def test_draft_tokens_must_be_steps_plus_one_with_topk_1(tmp_path: Path) -> None:
    old = "--speculative-num-draft-tokens: 4\n        --max-running-requests: 32"
    new = "--speculative-num-draft-tokens: 5\n        --max-running-requests: 32"
    found = lint(edited(tmp_path, (ACC, old, new)))
    assert [f.message for f in by_rule(found, "L302")] == [
        (
            "case 'deepseek-r1-mxfp4-tp4-mtp' sets --speculative-num-draft-tokens 5 with "
            "--speculative-eagle-topk 1 and --speculative-num-steps 3; SGLang silently replaces "
            "it with 4: write 4"
        )
    ]


def test_steps_topk_and_draft_tokens_come_together(tmp_path: Path) -> None:
    old = "        --speculative-eagle-topk: 1\n        --speculative-num-draft-tokens: 4\n"
    found = lint(edited(tmp_path, (ACC, old, "")))
    assert [f.message for f in by_rule(found, "L303")] == [
        (
            "case 'deepseek-r1-mxfp4-tp4-mtp' sets --speculative-num-steps but not "
            "--speculative-eagle-topk, --speculative-num-draft-tokens; SGLang asserts that all "
            "three are given or none (then it chooses them)"
        )
    ]


def test_concurrency_per_dp_rank_within_the_cuda_graph_sizes_passes(tmp_path: Path) -> None:
    found = lint(edited(tmp_path, (BENCH, "1x1024: [1024, 2048, 4096]", "1x1024: [1024, 2048]")))
    assert by_rule(found, "L304") == []


def test_concurrency_per_dp_rank_above_the_cuda_graph_sizes_warns(found: list[Finding]) -> None:
    mtp = [f.message for f in by_rule(found, "L304") if "dpa8-ep8-mtp" in f.message]
    assert mtp == [
        (
            "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp' (sglang-atom, 1x1024): concurrency 4096 "
            "over DP8 is more than 256 requests per rank, the largest CUDA-graph batch "
            "(--cuda-graph-bs); those batches run without CUDA graphs: raise --cuda-graph-bs or "
            "lower the concurrency"
        ),
        (
            "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp' (sglang-mori, 1x1024): concurrency 4096 "
            "over DP8 is more than 256 requests per rank, the largest CUDA-graph batch "
            "(--cuda-graph-bs); those batches run without CUDA graphs: raise --cuda-graph-bs or "
            "lower the concurrency"
        ),
    ]


def test_the_spec_field_must_agree_with_the_speculative_flags(fixture: Expanded) -> None:
    catalog = with_case(fixture.catalog, "deepseek-r1-mxfp4-tp4-mtp", spec="mtp1")
    assert [(f.loc.line, f.message) for f in by_rule(relinted(catalog), "L305")] == [
        (
            line_of(ACC, SGLANG_CASE, FIXTURE),
            (
                "case 'deepseek-r1-mxfp4-tp4-mtp' has spec 'mtp1' but --speculative-num-steps 3; "
                "make the field and the flags agree"
            ),
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
            (
                "case 'deepseek-r1-fp4-tp4' starts --mem-fraction-static '0.8' but benchmark "
                "config 'deepseek-r1-fp4-tp4' starts '0.85'; align them or list "
                "--mem-fraction-static under allowed_differences.args"
            ),
        )
    ]


def test_a_listed_arg_difference_passes(tmp_path: Path) -> None:
    allowed = (
        ACC,
        "  env: [AITER_QUICK_REDUCE_QUANTIZATION]\n",
        "  env: [AITER_QUICK_REDUCE_QUANTIZATION]\n  args: [--mem-fraction-static]\n",
    )
    assert by_rule(lint(edited(tmp_path, EXTRA_ARG, allowed)), "L401") == []


def test_unsetting_an_env_var_that_is_not_an_allowed_difference_fails(
    fixture: Expanded,
) -> None:
    found = relinted(dataclasses.replace(fixture.catalog, allowed_env_differences=()))
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
            (
                "TP_SIZE must not be set (the launcher and SGLang own it; SPEC.md lists it as "
                "removed): delete it"
            ),
        )
    ]


def test_a_renamed_env_var_names_its_new_name(tmp_path: Path) -> None:
    old = "env: [{ATOM_USE_FP4_NON_SHUFFLE_TRITON_GEMM: "
    found = lint(edited(tmp_path, (BENCH, old, "env: [{ATOM_USE_FP4_TRITON_GEMM: ")))
    assert len(by_rule(found, "L502")) == 4
    assert {f.message for f in by_rule(found, "L502")} == {
        "ATOM_USE_FP4_TRITON_GEMM was renamed: write ATOM_USE_FP4_NON_SHUFFLE_TRITON_GEMM instead"
    }


def test_a_waived_retired_env_var_is_kept_with_its_reason(
    fixture: Expanded, found: list[Finding]
) -> None:
    reason = (
        "mirrors the SGLang nightly launch of test_deepseek_r1_mxfp4_tp4_mtp_mi35x.py, "
        "which still sets it"
    )
    acc = [f for f in by_rule(found, "L503") if f.loc.file == fixture.catalog.accuracy_file]
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


def test_a_clean_env_var_passes(fixture: Expanded, found: list[Finding]) -> None:
    var = EnvVar(name="GOOD_NAME", value="one line", loc=Loc(BENCH, 7))
    assert [f for f in relinted(_with_env(fixture.catalog, var)) if f.rule.startswith("L50")] == [
        f for f in found if f.rule.startswith("L50")
    ]


# ------------------------------------------------------------------ rule 6: identity


def test_repeated_display_names_case_names_and_dashboard_models_fail(fixture: Expanded) -> None:
    catalog = fixture.catalog
    twin = dataclasses.replace(
        catalog.configs[0], prefix="twin", preset="twin", loc=Loc(BENCH, 999)
    )
    case = dataclasses.replace(catalog.cases[0], id="twin-case", loc=Loc(ACC, 999))
    found = relinted(
        dataclasses.replace(catalog, configs=(*catalog.configs, twin), cases=(*catalog.cases, case))
    )
    first, first_case = catalog.configs[0].loc.line, catalog.cases[0].loc.line
    assert [(f.loc, f.message) for f in by_rule(found, "L603")] == [
        (
            Loc(ACC, 999),
            f"case name 'DeepSeek-R1-FP8 TP4' is already used at line {first_case}; rename one",
        ),
        (
            Loc(BENCH, 999),
            (
                f"display name 'DeepSeek-R1-0528 FP8 TP4' is already used at line {first}; "
                "dropdowns and summaries show it: rename one"
            ),
        ),
    ]
    assert [(f.loc, f.message) for f in by_rule(found, "L604")] == [
        (
            Loc(BENCH, 999),
            (
                f"dashboard model 'DeepSeek-R1-0528-tp4' is already used at line {first}; "
                "two configs would share a dashboard series: rename one"
            ),
        )
    ]


def test_a_repeated_display_name_fails(fixture: Expanded) -> None:
    catalog = with_config(
        fixture.catalog, "deepseek-r1-fp8-tp8", display="DeepSeek-R1-0528 FP8 TP4"
    )
    assert [(f.loc.line, f.message) for f in by_rule(relinted(catalog), "L603")] == [
        (
            line_of(BENCH, "- prefix: deepseek-r1-fp8-tp8", FIXTURE),
            (
                "display name 'DeepSeek-R1-0528 FP8 TP4' is already used at line "
                f"{line_of(BENCH, '- prefix: deepseek-r1-fp8-tp4', FIXTURE)}; dropdowns and "
                "summaries show it: rename one"
            ),
        )
    ]


def test_a_repeated_dashboard_model_fails(fixture: Expanded) -> None:
    catalog = with_config(
        fixture.catalog, "deepseek-r1-fp8-tp8", dashboard_model="DeepSeek-R1-0528-tp4"
    )
    assert [f.loc.line for f in by_rule(relinted(catalog), "L604")] == [
        line_of(BENCH, "- prefix: deepseek-r1-fp8-tp8", FIXTURE)
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
            (
                "model path 'amd/DeepSeek-R1-0528-MXFP4-V2' is also spelled "
                "'amd/DeepSeek-R1-0528-MXFP4-v2'; use one spelling"
            ),
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


def test_every_fixture_fragment_is_used(found: list[Finding]) -> None:
    assert by_rule(found, "L606") == []


# ------------------------------------------------------------------ rule 7: run lengths


def test_a_cron_group_outrunning_the_next_run_on_its_runners_warns(fixture: Expanded) -> None:
    catalog = fixture.catalog
    one = dataclasses.replace(catalog.runners[0], count=1)
    per_cell = dataclasses.replace(catalog.schedules[0], packing="per-cell")
    expanded = expand(
        dataclasses.replace(
            catalog,
            runners=(one, *catalog.runners[1:]),
            schedules=(per_cell, *catalog.schedules[1:]),
        )
    )
    found = by_rule(lint(expanded), "L707")
    line = line_of(BENCH, "- name: oob-deepseek-non-mtp", FIXTURE)
    # 60 one-cell jobs, one after another on the one machine.
    assert len(expanded.schedules[0].default_run.jobs) == 60
    assert [(f.loc.line, f.severity, f.message) for f in found] == [
        (
            line,
            "warning",
            (
                "cron group 'oob-deepseek-non-mtp' is estimated at 41.2 h of wall time on its "
                "runners, but cron group 'oob-deepseek-mtp-qwen' starts 24.0 h after it "
                "(`sglang-ci plan --group oob-deepseek-non-mtp`)"
            ),
        )
    ]


def test_a_daily_group_longer_than_a_day_outruns_itself(fixture: Expanded) -> None:
    catalog = fixture.catalog
    daily = dataclasses.replace(catalog.schedules[3], cron="0 14 * * *")
    small = dataclasses.replace(catalog.runners[0], count=1)
    catalog = dataclasses.replace(
        catalog, schedules=(daily,), runners=(small, *catalog.runners[1:])
    )
    assert by_rule(relinted(catalog), "L707") == []
    per_cell = dataclasses.replace(daily, packing="per-cell")
    [finding] = by_rule(relinted(dataclasses.replace(catalog, schedules=(per_cell,))), "L707")
    assert finding.loc == daily.loc
    assert finding.message.startswith("cron group 'oob-all' is estimated at ")
    assert finding.message.endswith(
        " h of wall time on its runners, but its next run starts 24.0 h after it "
        "(`sglang-ci plan --group oob-all`)"
    )


def test_packed_fixture_groups_end_before_the_next_run(found: list[Finding]) -> None:
    assert by_rule(found, "L707") == []


# ------------------------------------------------------------------ retired rules
# Their checks live in the loader, expand and render (RETIRED says where); the invalid-catalog
# corpus and tests/unit/test_render_limits.py test those refusals, except L602's here.


def test_a_waiver_for_a_retired_rule_says_where_its_check_lives(tmp_path: Path) -> None:
    old = "    env: [deepseek_common, quick_reduce_int4]\n\n  - prefix: deepseek-r1-fp8-tp8\n"
    new = old.replace("\n\n", '\n    waive: {L601: "a reason long enough"}\n\n')
    found = lint(edited(tmp_path, (BENCH, old, new)))
    assert [(f.rule, f.severity, f.loc.line, f.message) for f in by_rule(found, "L001")] == [
        (
            "L001",
            "error",
            line_of(BENCH, "- prefix: deepseek-r1-fp8-tp4"),
            (
                "waive names unknown rule 'L601' (L601 is retired: a "
                "repeated prefix is refused when the catalog is loaded (exit 2)); docs/lint.md "
                "lists the rule ids"
            ),
        )
    ]


def test_a_repeated_case_id_is_refused_when_the_catalog_is_loaded(
    cli: Invoke, tmp_path: Path
) -> None:
    """L602's check, now in the loader: the second case with an id is refused."""
    root = copy_catalogs(tmp_path)
    edit(root / ACC, "  - id: qwen3-5-35b-a3b-tp2\n", "  - id: qwen3-5-35b-a3b-fp8-tp2\n")
    first = line_of(ACC, "- id: qwen3-5-35b-a3b-fp8-tp2")
    second = line_of(ACC, "name: Qwen3.5-35B-A3B TP2") - 1  # the renamed case's `- id:`
    result = cli("render", root=root)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {ACC}:{second}: duplicate case id 'qwen3-5-35b-a3b-fp8-tp2' (first at line "
        f"{first})\n"
    )
    assert snapshot(root) == {}


# ------------------------------------------------------------------ waivers and output


def test_a_waiver_for_an_unknown_rule_fails_and_an_unused_one_warns(tmp_path: Path) -> None:
    old = "    env: [deepseek_common, quick_reduce_int4]\n\n  - prefix: deepseek-r1-fp8-tp8\n"
    new = old.replace(
        "\n\n", '\n    waive: {L999: "a reason long enough", L101: "a reason long enough"}\n\n'
    )
    found = lint(edited(tmp_path, (BENCH, old, new)))
    line = line_of(BENCH, "- prefix: deepseek-r1-fp8-tp4")
    assert [(f.rule, f.loc.line, f.message) for f in found if f.rule in ("L001", "L002")] == [
        ("L001", line, "waive names unknown rule 'L999'; docs/lint.md lists the rule ids"),
        (
            "L002",
            line,
            "the waiver for L101 (dp-attention-divisible) excuses no finding here; delete it",
        ),
    ]


def test_a_waived_error_does_not_count(tmp_path: Path) -> None:
    old = "  - prefix: deepseek-r1-fp4-tp8-dp8-ep8\n"
    waive = '    waive: {L101: "kept to show the layout fails", L102: "kept on purpose too"}\n'
    expanded = edited(
        tmp_path,
        TP4_DP8_EP8,
        (BENCH, old, old + waive),
        (
            ACC,
            "    benchmark: deepseek-r1-fp4-tp8-dp8-ep8\n",
            "    benchmark: deepseek-r1-fp4-tp8-dp8-ep8\n" + waive,
        ),
    )
    found = lint(expanded)
    assert errors(found) == []
    assert {f.waived for f in found if f.rule in ("L101", "L102")} == {
        "kept to show the layout fails",
        "kept on purpose too",
    }
    assert format_text(found).splitlines()[-1] == "lint passed: 0 errors, 12 warnings, 5 waived"
