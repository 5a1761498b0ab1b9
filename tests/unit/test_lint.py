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
from generator.model import Catalog, EnvVar
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
                "parallel: {tp: 4}\n    args: [trust_remote_code, dp4_attention, "
                "aiter_runtime]\n",
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
