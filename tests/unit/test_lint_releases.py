"""`generator.lint.rules.releases`: each server's flags against the SGLang releases its images
may carry: refused (L802), renamed (L801), deprecated (L803). tests/acceptance/
test_sglang_releases.py lints catalogs that declare their images' releases."""

from __future__ import annotations

import pytest

from generator.lint.checks import lint
from tests.helpers import FIXTURE
from tests.lint_helpers import BENCH, by_rule, edited, line_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.lint.findings import LintFinding

NEW_FLAG = "--disable-aiter-allreduce-fusion-in-decode"  # a flag of 0.5.21 and later
MESH_TP4 = "    parallel: {tp: 4}\n    args: [trust_remote_code, aiter_runtime]\n"


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)


def test_a_renamed_flag_is_named_by_its_new_name_for_the_releases_that_have_it(
    fixture_findings: list[LintFinding],
) -> None:
    lines = (FIXTURE / BENCH).read_text(encoding="utf-8").splitlines()
    graph = {
        n: text.strip().split(":")[0]
        for n, text in enumerate(lines, 1)
        if text.strip().startswith("--cuda-graph-")
    }
    assert sorted(set(graph.values())) == ["--cuda-graph-bs", "--cuda-graph-max-bs"]
    assert [(f.severity, f.loc.line, f.message) for f in by_rule(fixture_findings, "L801")] == [
        (
            "warning",
            n,
            (
                f"{name} is {name}-decode in SGLang 0.5.20 to 0.5.23 (and later): the launcher "
                f"gives it that name there; write {name}-decode once every image carries a "
                "release that has it"
            ),
        )
        for n, name in sorted(graph.items())
    ]


def test_a_flag_the_oldest_releases_lack_is_refused_naming_the_images_and_releases(
    tmp_path: Path,
) -> None:
    old = MESH_TP4 + "    env: [deepseek_common, quick_reduce_int4]\n    grid:\n      8192x1:"
    new = old.replace("aiter_runtime]", f"aiter_runtime, {{{NEW_FLAG}: true}}]")
    found = by_rule(lint(edited(tmp_path, (BENCH, old, new))), "L802")
    # The images declare no release: any supported one (0.5.9 to 0.5.23) may be there.
    assert [(f.severity, f.loc.line, f.message) for f in found] == [
        (
            "error",
            line_of(BENCH, NEW_FLAG),
            (
                f"config 'deepseek-r1-fp4-mesh-tp4' (sglang-atom): SGLang 0.5.9 has no {NEW_FLAG} "
                "(it is a flag of 0.5.21 to 0.5.23); images of registry-1.docker.io/rocm/atom-dev, "
                "registry-1.docker.io/rocm/sgl-dev may carry SGLang 0.5.9 to 0.5.23, and 0.5.9 "
                "to 0.5.20 refuse it"
            ),
        )
    ]


def test_the_fixture_s_servers_pass_flags_every_release_takes(
    fixture_findings: list[LintFinding],
) -> None:
    assert by_rule(fixture_findings, "L802") == []
