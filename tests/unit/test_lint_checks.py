"""`generator.lint.checks`: running every rule, one finding per place and message, and the
catalog's waivers (L001 and L002 check the waivers themselves)."""

from __future__ import annotations

import dataclasses

import pytest

from generator.lint.checks import lint, newer_sglang, waiver_findings
from generator.lint.findings import LintFinding, errors, format_text
from tests.helpers import FIXTURE, copy_catalogs, edit, snapshot
from tests.lint_helpers import ACC, BENCH, TP4_DP8_EP8, by_rule, edited, line_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded
    from tests.conftest import Invoke


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)


def test_the_fixture_catalogs_have_no_unwaived_error(fixture_findings: list[LintFinding]) -> None:
    assert errors(fixture_findings) == []


def test_the_fixture_catalogs_warn_only_about_retired_env_and_flags_graph_sizes_and_mori(
    fixture: Expanded, fixture_findings: list[LintFinding]
) -> None:
    bench, acc = fixture.catalog.benchmark_file, fixture.catalog.accuracy_file
    got = sorted((f.rule, f.loc.file, f.loc.line) for f in fixture_findings)
    lines = (FIXTURE / BENCH).read_text(encoding="utf-8").splitlines()
    spec_v2 = [n for n, t in enumerate(lines, 1) if "SGLANG_ENABLE_SPEC_V2" in t]
    # --cuda-graph-bs in the three MTP fragments, --cuda-graph-max-bs in sglang-mori: named
    # --cuda-graph-bs-decode and --cuda-graph-max-bs-decode from SGLang 0.5.20 on, which the
    # fixture's images (no declaration: any supported release) may carry.
    graph = [n for n, t in enumerate(lines, 1) if t.strip().startswith("--cuda-graph-")]
    # --enable-dp-attention, written from parallel: for every DP layout: deprecated in 0.5.22
    # and 0.5.23, fixture_findings once, at the first of them.
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
    assert [f.message for f in by_rule(fixture_findings, "L803")] == [
        (
            "--enable-dp-attention (written from parallel: here and in 12 more configs and "
            "cases) is deprecated in SGLang 0.5.22 to 0.5.23; use --attn-dp-size <dp-size> "
            "(SGLang removes it after 2026-12-31)"
        )
    ]
    assert all(f.severity == "warning" for f in fixture_findings)


def test_findings_are_ordered_by_file_line_and_rule(fixture_findings: list[LintFinding]) -> None:
    keys = [(f.loc.file, f.loc.line, f.rule) for f in fixture_findings]
    assert keys == sorted(keys)


def test_the_live_catalogs_have_no_unwaived_error_and_ordered_findings(
    shipped: Expanded,
) -> None:
    findings = lint(shipped)
    assert errors(findings) == []
    keys = [(f.loc.file, f.loc.line, f.rule, f.message) for f in findings]
    assert keys == sorted(keys)


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


# Retired rules' checks live in the loader, expand and render (RETIRED says where); the
# invalid-catalog corpus and tests/unit/test_render_limits.py test those refusals, except
# L602's here.


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


def test_a_waived_retired_env_var_is_kept_with_its_reason(
    fixture: Expanded, fixture_findings: list[LintFinding]
) -> None:
    reason = (
        "mirrors the SGLang nightly launch of test_deepseek_r1_mxfp4_tp4_mtp_mi35x.py, "
        "which still sets it"
    )
    acc = [
        f for f in by_rule(fixture_findings, "L503") if f.loc.file == fixture.catalog.accuracy_file
    ]
    assert [(f.waived, f.severity) for f in acc] == [(reason, "warning")]
    assert f"[waived: {reason}]" in format_text(acc)


def test_without_its_waiver_the_retired_env_var_is_a_plain_warning(tmp_path: Path) -> None:
    old = (
        "    waive:\n      L503: mirrors the SGLang nightly launch of "
        "test_deepseek_r1_mxfp4_tp4_mtp_mi35x.py, which still sets it\n"
    )
    acc = [f for f in by_rule(lint(edited(tmp_path, (ACC, old, ""))), "L503") if f.loc.file == ACC]
    assert [(f.waived, f.severity) for f in acc] == [(None, "warning")]


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


def test_a_misspelled_waiver_is_told_the_close_rule_id_and_a_used_one_is_silent(
    fixture: Expanded,
) -> None:
    catalog = fixture.catalog
    config = dataclasses.replace(
        catalog.configs[0], waivers=(("l101", "a reason long enough"), ("L102", "a reason too"))
    )
    edited_catalog = dataclasses.replace(catalog, configs=(config, *catalog.configs[1:]))
    found = waiver_findings(edited_catalog, {(id(config), "L102")})
    # The fixture's one other waiver (an accuracy case's L503) is not in `used` either.
    assert [(f.rule, f.loc.file) for f in found[1:]] == [("L002", catalog.accuracy_file)]
    assert [(f.rule, f.loc, f.message) for f in found[:1]] == [
        (
            "L001",
            config.loc,
            (
                "waive names unknown rule 'l101' (did you mean 'L101'?); docs/lint.md lists "
                "the rule ids"
            ),
        )
    ]
    unused = waiver_findings(edited_catalog, set())
    assert [(f.rule, f.severity, f.loc) for f in unused[:2]] == [
        ("L001", "error", config.loc),
        ("L002", "warning", config.loc),
    ]
    assert unused[1].message == (
        "the waiver for L102 (ep-divides-tp) excuses no finding here; delete it"
    )


def test_no_package_index_asks_nothing_and_finds_nothing() -> None:
    assert newer_sglang({"SGLANG_CI_PACKAGE_INDEX": "off"}) == []
