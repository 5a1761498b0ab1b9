"""`sglang-ci check` (make check): any difference from a fresh render fails with a diff."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Invoke
from tests.helpers import ROOT, copy_repo, edit, snapshot

FIX_LINE = (
    "error: {n} generated file(s) differ from the catalogs; run `make workflows` and "
    "commit the result\n"
)


def test_the_committed_files_match_the_catalogs(cli: Invoke) -> None:
    result = cli("check")
    assert result.exit_code == 0, result.output
    assert result.stdout == "check: 62 generated files match the catalogs\n"


def test_render_of_the_committed_catalogs_changes_nothing(cli: Invoke, tmp_path: Path) -> None:
    root = copy_repo(tmp_path)
    before = snapshot(root)
    result = cli("render", root=root)
    assert result.exit_code == 0
    assert result.stdout == "rendered 62 files; 0 changed\n"
    assert snapshot(root) == before


def test_changing_one_concurrency_fails_the_check_with_a_diff(cli: Invoke, tmp_path: Path) -> None:
    root = copy_repo(tmp_path)
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


def test_editing_a_generated_workflow_fails_the_check(cli: Invoke, tmp_path: Path) -> None:
    root = copy_repo(tmp_path)
    edit(root / ".github/workflows/benchmark.yml", "timeout-minutes: 5", "timeout-minutes: 50")
    result = cli("check", root=root)
    assert result.exit_code == 1
    assert "-    timeout-minutes: 50\n+    timeout-minutes: 5\n" in result.stdout
    assert result.stderr == FIX_LINE.format(n=1)


def test_a_stale_or_missing_generated_file_fails_the_check(cli: Invoke, tmp_path: Path) -> None:
    root = copy_repo(tmp_path)
    (root / ".github/matrices/benchmark/preset/oob/sglang-atom/gone.json").write_text("{}\n")
    (root / "docs/coverage.md").unlink()
    result = cli("check", root=root)
    assert result.exit_code == 1
    assert result.stdout == (
        "stale: .github/matrices/benchmark/preset/oob/sglang-atom/gone.json is no longer "
        "generated (delete it)\nmissing: docs/coverage.md is not committed\n"
    )
    assert cli("render", root=root).exit_code == 0
    assert not (root / ".github/matrices/benchmark/preset/oob/sglang-atom/gone.json").exists()
    assert (root / "docs/coverage.md").read_bytes() == (ROOT / "docs/coverage.md").read_bytes()


def test_a_removed_config_shows_up_as_drift(cli: Invoke, tmp_path: Path) -> None:
    root = copy_repo(tmp_path)
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
