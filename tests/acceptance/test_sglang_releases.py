"""The SGLang an image carries, against its servers' flags: lint over every release the
catalog says a repository's images may carry (L801-L803), the select step over the release
of the image a run pinned (from its tag here; tests/unit/test_images_registry.py reads a
label from a registry), and the shipped catalog's servers over the flag tables."""

from __future__ import annotations

from typing import cast

from generator.catalog.image_releases import carried
from generator.catalog.release_flags import argv_flags
from generator.catalog.upstream import SERVER, SGLANG, index, takes
from generator.core import commands
from generator.expand.entries import spellings
from generator.lint.checks import lint
from generator.lint.rules.base import context
from generator.lint.rules.flag_uses import images_of
from tests.helpers import ROOT, copy_catalogs, edit, expanded_at
from tests.release_tables import release

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from generator.core.contract import ServerEntry
    from generator.expand.expanded import Expanded
    from tests.conftest import Invoke

BENCH = "catalogs/benchmark.yaml"
DEFAULT_IMAGES = """images:
  default: rocm/atom-dev:sglang-latest
  nightly_window_days: 7
"""
MESH_TP4 = """    parallel: {tp: 4}
    args: [trust_remote_code, aiter_runtime]
    env: [deepseek_common, quick_reduce_int4]
    grid:
      8192x1: [64, 128, 256]"""
OOB_FP4_TP4 = """    model: deepseek-r1-fp4
    parallel: {tp: 4}
    args: [trust_remote_code, aiter_runtime]
    env: [deepseek_common, quick_reduce_int4]

  - prefix: deepseek-r1-fp4-tp8"""
NEW_FLAG = "--disable-aiter-allreduce-fusion-in-decode"


def declared(root: Path, atom: str, mori: str) -> Path:
    """The fixture catalogs under `root` with the images' releases declared: ATOM's and the
    nightlies' as `atom`, the sglang-rocm images' as `mori` (YAML flow mappings)."""
    copy_catalogs(root)
    edit(
        root / BENCH,
        DEFAULT_IMAGES,
        DEFAULT_IMAGES
        + "  sglang:\n"
        + f"    docker.io/rocm/atom-dev: {atom}\n"
        + f"    docker.io/rocm/sgl-dev: {atom}\n"
        + f"    docker.io/lmsysorg/sglang-rocm: {mori}\n",
    )
    return root


def line_of(root: Path, needle: str) -> int:
    lines = (root / BENCH).read_text(encoding="utf-8").splitlines()
    return next(n for n, text in enumerate(lines, 1) if needle in text)


def test_lint_refuses_a_flag_the_mori_image_s_sglang_lacks_naming_file_line_and_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = declared(
        tmp_path,
        '{release: "0.5.23"}',
        '{tag: "v{version}-*", releases: {from: "0.5.9", to: "0.5.9"}}',
    )
    edit(
        root / BENCH,
        MESH_TP4,
        MESH_TP4.replace("aiter_runtime]", f"aiter_runtime, {{{NEW_FLAG}: true}}]"),
    )
    monkeypatch.chdir(root)
    findings = [f for f in lint(expanded_at(root)) if f.rule == "L802"]
    line = line_of(root, NEW_FLAG)
    assert [(f.loc.file, f.loc.line, f.severity, f.message) for f in findings] == [
        (
            BENCH,
            line,
            "error",
            (
                f"config 'deepseek-r1-fp4-mesh-tp4' (sglang-mori): SGLang 0.5.9 has no {NEW_FLAG} "
                "(it is a flag of 0.5.21 to 0.5.23); images of docker.io/lmsysorg/sglang-rocm "
                "may carry SGLang 0.5.9, and 0.5.9 refuses it"
            ),
        )
    ]


def test_lint_warns_on_dp_attention_for_0_5_23_images_and_takes_the_monokernel_backend_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = declared(tmp_path, '{release: "0.5.23"}', '{release: "0.5.23"}')
    edit(
        root / BENCH,
        OOB_FP4_TP4,
        OOB_FP4_TP4.replace("aiter_runtime]", "aiter_runtime, {--monokernel-backend: amd}]"),
    )
    monkeypatch.chdir(root)
    findings = lint(expanded_at(root))
    got = {(f.rule, f.loc.line): f.message for f in findings if f.rule in ("L801", "L802", "L803")}
    # Written from parallel: for every DP layout, found once at the first of them.
    dpa = line_of(root, "parallel: {tp: 4, dp: 4, ep: 4}")
    mono = line_of(root, "--monokernel-backend")
    graph = [
        n
        for n, t in enumerate((root / BENCH).read_text().splitlines(), 1)
        if t.strip().startswith("--cuda-graph-")
    ]
    assert got == {
        ("L803", dpa): (
            "--enable-dp-attention (written from parallel: here and in 12 more configs and "
            "cases) is deprecated in SGLang 0.5.23; use --attn-dp-size <dp-size> (SGLang "
            "removes it after 2026-12-31)"
        ),
        (
            "L803",
            mono,
        ): "--monokernel-backend is deprecated in SGLang 0.5.23; use --enable-amd-monokernel",
        **{
            ("L801", n): (
                f"{name} is {name}-decode in SGLang 0.5.23 (and later): the launcher gives it "
                f"that name there; write {name}-decode once every image carries a release "
                "that has it"
            )
            for n in graph
            for name in [(root / BENCH).read_text().splitlines()[n - 1].strip().split(":")[0]]
        },
    }
    assert all(f.severity == "warning" for f in findings if f.rule in ("L801", "L803"))


def test_a_dispatch_pinned_to_an_image_whose_sglang_refuses_a_flag_stops_in_select(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = declared(tmp_path, '{release: "0.5.23"}', '{tag: "v{version}-*"}')
    edit(
        root / BENCH,
        MESH_TP4,
        MESH_TP4.replace("aiter_runtime]", f"aiter_runtime, {{{NEW_FLAG}: true}}]"),
    )
    output = tmp_path / "github_output"
    monkeypatch.setenv("SGLANG_CI_RESOLVE_IMAGES", "0")
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))

    def select(image: str) -> tuple[int, str, str]:
        result = cli(
            "dispatch", "benchmark", "--event", "workflow_dispatch", "--suite", "SGLang-Mesh",
            "--configs", "deepseek-r1-fp4-mesh-tp4", "--mode", "sglang-mori", "--image", image,
            root=root,
        )  # fmt: skip
        return result.exit_code, result.stdout, result.stderr

    old = "lmsysorg/sglang-rocm:v0.5.9-rocm700-mi35x"
    assert select(old) == (
        2,
        "",
        (
            f"error: job deepseek-r1-fp4-mesh-tp4-8192x1 (sglang-mori): image '{old}' carries "
            f"SGLang 0.5.9 (from its tag v0.5.9-rocm700-mi35x): SGLang 0.5.9 has no {NEW_FLAG} "
            "(it is a flag of 0.5.21 to 0.5.23); no GPU job started\n"
        ),
    )
    assert not output.exists()
    code, stdout, _ = select("lmsysorg/sglang-rocm:v0.5.23-rocm700-mi35x")
    assert (code, stdout) == (
        0,
        "selected configs deepseek-r1-fp4-mesh-tp4 (SGLang-Mesh, sglang-mori): 2 jobs, 6 points\n",
    )


def test_the_shipped_servers_start_on_every_release_their_images_may_carry(
    shipped: Expanded,
) -> None:
    """Each server of the live catalogs, on each SGLang release the catalog says its images
    may carry, with its flags named as the launcher names them for that release: every
    flag is one of that release's own table (no prefix argparse would have to guess), with
    a number of values it takes, and not one the release refuses."""
    tables = {v: release(SGLANG, v) for v in index(SGLANG).releases}
    renamed_on: set[str] = set()
    for server in context(shipped).servers:
        entry = {"server_args": list(server.server.args), **spellings(server.server.args)}
        for version in carried(shipped.catalog, images_of(shipped.catalog, server)):
            table = tables[version]
            argv = commands.spelled(cast("ServerEntry", entry), version)
            for name, count in argv_flags(argv):
                action = table.parsers[SERVER].get(name)
                assert action is not None, (server.where, version, name)
                assert takes(action.nargs, count), (server.where, version, name)
                assert name not in table.refused[SERVER], (server.where, version, name)
            if "--cuda-graph-bs" in server.server.args:
                renamed_on.add(version)
    # The MTP servers ran on the releases before and after the rename, as their images may.
    assert {"0.5.9", "0.5.19", "0.5.20", "0.5.23"} <= renamed_on


def test_explain_shows_the_sglang_nightly_case_with_its_exec_wrapper_s_variables(
    cli: Invoke,
) -> None:
    result = cli("explain", "deepseek-r1-mxfp4-tp4-mtp", "--kind", "case", root=ROOT)
    assert result.exit_code == 0, result.stderr
    exports = [line.strip() for line in result.stdout.splitlines() if "export " in line]
    for wrapper in (
        "SGLANG_IS_IN_CI=1",
        "SGLANG_IS_IN_CI_AMD=1",
        "SGLANG_USE_AITER=1",
        "GPU_ARCHS=gfx950",
    ):
        # once per image the case runs on (ROCm 7.0 and 7.2)
        assert exports.count(f"export {wrapper}") == 2, wrapper
