"""`sglang-ci check` (make check): any difference from a fresh render fails with a diff."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from generator.render.manifest import MANIFEST
from tests.helpers import ROOT, copy_catalogs, edit, snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.conftest import Invoke

FIX_LINE = (
    "error: {n} generated file(s) differ from the catalogs; run `make workflows` and "
    "commit the result\n"
)


@pytest.fixture
def rendered(rendered_fixture: Path, tmp_path: Path) -> Path:
    """A copy of the fixture catalogs with every generated file rendered beside them (the
    session's render, copied: each test edits its own)."""
    return Path(shutil.copytree(rendered_fixture, tmp_path / "repo"))


def test_the_committed_files_match_the_catalogs(cli: Invoke) -> None:
    result = cli("check", root=ROOT)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("check: ")
    assert result.stdout.endswith(" generated files match the catalogs\n")


def test_a_second_render_changes_nothing(cli: Invoke, tmp_path: Path) -> None:
    rendered = copy_catalogs(tmp_path)
    result = cli("render", root=rendered)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("rendered 73 files; 73 changed\n")
    before = snapshot(rendered)
    result = cli("render", root=rendered)
    assert result.exit_code == 0
    assert result.stdout == "rendered 73 files; 0 changed\n"
    assert snapshot(rendered) == before
    assert cli("check", root=rendered).stdout == "check: 73 generated files match the catalogs\n"


def test_changing_one_concurrency_fails_the_check_with_a_diff(cli: Invoke, rendered: Path) -> None:
    root = rendered
    edit(
        root / "catalogs/benchmark.yaml",
        "      8192x1: [256, 512, 1024]\n",
        "      8192x1: [256, 512, 768]\n",
    )
    result = cli("check", root=root)
    assert result.exit_code == 1
    assert "+++ b/.github/matrices/benchmark/schedule/mesh-all.json (catalog)" in result.stdout
    assert '-          "id": "deepseek-r1-fp8-mesh-dpa4-ep4-8192-1-1024-1",' in result.stdout
    assert '+          "id": "deepseek-r1-fp8-mesh-dpa4-ep4-8192-1-768-1",' in result.stdout
    n = result.stdout.count("+++ b/")
    assert result.stderr == FIX_LINE.format(n=n)
    assert cli("render", root=root).exit_code == 0
    assert cli("check", root=root).exit_code == 0


def test_editing_a_generated_workflow_fails_the_check(cli: Invoke, rendered: Path) -> None:
    root = rendered
    edit(root / ".github/workflows/benchmark.yml", "timeout-minutes: 15", "timeout-minutes: 50")
    result = cli("check", root=root)
    assert result.exit_code == 1
    assert "-    timeout-minutes: 50\n+    timeout-minutes: 15\n" in result.stdout
    assert result.stderr == FIX_LINE.format(n=1)


def test_a_stale_or_missing_generated_file_fails_the_check(cli: Invoke, rendered: Path) -> None:
    root = rendered
    coverage = (root / "docs/coverage.md").read_bytes()
    gone = ".github/matrices/benchmark/preset/oob/sglang-atom/gone.json"
    (root / gone).write_text("{}\n")  # as if an earlier render had written and listed it
    manifest = json.loads((root / MANIFEST).read_text())
    manifest["files"][gone] = hashlib.sha256(b"{}\n").hexdigest()
    (root / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    mine = ".github/matrices/NOTES.md"
    (root / mine).write_text("# kept by hand: render never listed it\n")
    (root / "docs/coverage.md").unlink()
    result = cli("check", root=root)
    assert result.exit_code == 1
    assert f"stale: {gone} is no longer generated (delete it)\n" in result.stdout
    assert "missing: docs/coverage.md is not committed\n" in result.stdout
    assert mine not in result.stdout
    assert cli("render", root=root).exit_code == 0
    assert not (root / gone).exists()
    assert (root / mine).read_text() == "# kept by hand: render never listed it\n"
    assert (root / "docs/coverage.md").read_bytes() == coverage
    assert cli("check", root=root).exit_code == 0


def test_a_removed_config_shows_up_as_drift(cli: Invoke, rendered: Path) -> None:
    root = rendered
    text = (root / "catalogs/benchmark.yaml").read_text()
    start = text.index("  - prefix: qwen3-5-397b-a17b-fp8-tp8\n")
    end = text.index("  # -----", start)
    (root / "catalogs/benchmark.yaml").write_text(text[:start] + text[end:])
    edit(
        root / "catalogs/accuracy.yaml",
        "    benchmark: qwen3-5-397b-a17b-fp8-tp8\n",
        "    benchmark: qwen3-5-397b-a17b-fp8-tp4\n",
    )
    result = cli("check", root=root)
    assert result.exit_code == 1
    assert (
        "stale: .github/matrices/benchmark/preset/oob/sglang-atom/qwen3-5-397b-a17b-fp8-tp8"
        ".json is no longer generated (delete it)\n"
    ) in result.stdout
