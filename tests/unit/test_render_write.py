"""`generator.render.write.write_all`: all new files or all old ones, stale files removed,
hand-written files left alone."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from generator.catalog import load
from generator.expand import expand
from generator.render import render as render_all
from generator.render.drift import drift
from generator.render.manifest import MANIFEST
from generator.render.write import NotOurs, write_all
from tests.catalog_gen import CatalogSpec, small_spec
from tests.helpers import snapshot

HAND_WRITTEN = ".github/workflows/hand-written.yml"
HAND_TEXT = "# Maintained by hand.\nname: Hand written\non: push\njobs: {}\n"
STALE_MATRIX = ".github/matrices/benchmark/preset-x.json"
NOTES = "docs/notes.md"


def old_spec() -> CatalogSpec:
    spec = small_spec(
        {"Suite-A": "a"},
        [{"prefix": "c0", "suite": "Suite-A"}, {"prefix": "c1", "suite": "Suite-A"}],
    )
    spec.benchmark["presets"]["Suite-A"] = [{"name": "both", "select": {}}]
    return spec


def new_spec() -> CatalogSpec:
    """c0 is gone (its preset files go stale), c1 runs other points, c2 and a group are new."""
    spec = small_spec(
        {"Suite-A": "a"},
        [
            {"prefix": "c1", "suite": "Suite-A", "grid": {"1024x1024": [2, 4]}},
            {"prefix": "c2", "suite": "Suite-A", "model": "qwen-fp8"},
        ],
    )
    spec.benchmark["presets"]["Suite-A"] = [{"name": "both", "select": {}}]
    spec.benchmark["schedules"] = [
        {"name": "weekly", "title": "Weekly", "cron": "0 14 * * 5", "select": {}}
    ]
    return spec


RENDERED: dict[tuple[bytes, bytes], dict[str, str]] = {}


def render(spec: CatalogSpec, root: Path) -> dict[str, str]:
    """`spec` written under `root`, and what render makes of it: rendered the first time
    for these catalogs (the outputs name no path; the tests write and compare them)."""
    spec.write(root)
    catalogs = root / "catalogs"
    key = ((catalogs / "benchmark.yaml").read_bytes(), (catalogs / "accuracy.yaml").read_bytes())
    if key not in RENDERED:
        RENDERED[key] = render_all(expand(load(root)), root)
    return dict(RENDERED[key])


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A tree holding the old catalog's generated files and a hand-written workflow."""
    write_all(tmp_path, render(old_spec(), tmp_path))
    (tmp_path / HAND_WRITTEN).write_text(HAND_TEXT)
    return tmp_path


@pytest.fixture
def new(root: Path) -> dict[str, str]:
    return render(new_spec(), root)


def tmp_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.tmp"))


def plan(root: Path, outputs: dict[str, str]) -> tuple[list[str], list[str]]:
    """(files write_all must write, in its order; stale files it must delete)."""
    on_disk = snapshot(root)
    writes = [rel for rel, text in outputs.items() if on_disk.get(rel) != text.encode()]
    stale = sorted(set(on_disk) - set(outputs) - {HAND_WRITTEN})
    return writes, stale


class CrashingWriter:
    """Writes `survive` files, then tears the next one in half and fails like a full disk."""

    def __init__(self, survive: int) -> None:
        self.survive = survive
        self.written: list[Path] = []

    def __call__(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if len(self.written) == self.survive:
            path.write_bytes(data[: len(data) // 2])
            raise OSError(28, "No space left on device")
        path.write_bytes(data)
        self.written.append(path)


def test_the_scenario_rewrites_adds_and_deletes_files(root: Path, new: dict[str, str]) -> None:
    writes, stale = plan(root, new)
    on_disk = snapshot(root)
    assert [rel for rel in writes if rel not in on_disk] == [
        ".github/matrices/benchmark/preset/a/plain/c2.json",
        ".github/matrices/benchmark/schedule/weekly.json",
    ]
    assert len(writes) >= 6
    assert stale == [".github/matrices/benchmark/preset/a/plain/c0.json"]


@pytest.mark.parametrize("where", ["first", "second", "middle", "last"])
def test_a_crash_after_k_writes_leaves_the_old_tree_byte_for_byte(
    root: Path, new: dict[str, str], where: str
) -> None:
    writes, _ = plan(root, new)
    survive = {"first": 0, "second": 1, "middle": len(writes) // 2, "last": len(writes) - 1}[where]
    before = snapshot(root)
    writer = CrashingWriter(survive)
    with pytest.raises(OSError, match="No space left on device"):
        write_all(root, new, write=writer)
    assert [p.relative_to(root).as_posix() for p in writer.written] == writes[:survive]
    assert snapshot(root) == before
    assert tmp_files(root) == []


def test_an_interrupt_in_the_middle_also_leaves_the_old_tree(
    root: Path, new: dict[str, str]
) -> None:
    before = snapshot(root)
    calls: list[Path] = []

    def interrupted(path: Path, data: bytes) -> None:
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    with pytest.raises(KeyboardInterrupt):
        write_all(root, new, write=interrupted)
    assert len(calls) == 3
    assert snapshot(root) == before


def test_a_failure_while_deleting_a_stale_file_restores_everything(
    root: Path, new: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, [stale] = plan(root, new)
    before = snapshot(root)
    real_unlink = Path.unlink

    def unlink(self: Path, missing_ok: bool = False) -> None:
        if self == root / stale:
            raise PermissionError(13, "Permission denied", str(self))
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)
    with pytest.raises(PermissionError):
        write_all(root, new)
    monkeypatch.undo()
    assert snapshot(root) == before
    assert tmp_files(root) == []


def test_a_failed_rename_of_the_default_writer_leaves_no_tmp_file_and_the_old_tree(
    root: Path, new: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(root)
    real_replace = os.replace
    calls: list[str] = []

    def replace(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(5, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="Input/output error"):
        write_all(root, new)
    monkeypatch.undo()
    assert snapshot(root) == before
    assert tmp_files(root) == []


def test_a_successful_write_gives_exactly_the_outputs_and_no_tmp_file(
    root: Path, new: dict[str, str]
) -> None:
    writes, stale = plan(root, new)
    changed = write_all(root, new)
    assert changed == [*writes, *stale]
    assert snapshot(root) == {
        **{rel: text.encode() for rel, text in new.items()},
        HAND_WRITTEN: HAND_TEXT.encode(),
    }
    assert tmp_files(root) == []
    assert drift(root, new) == []
    assert write_all(root, new) == []


def test_a_stale_file_render_listed_is_reported_by_drift_and_deleted(tmp_path: Path) -> None:
    outputs = render(old_spec(), tmp_path)
    write_all(tmp_path, outputs)
    newer = render(new_spec(), tmp_path)
    stale = ".github/matrices/benchmark/preset/a/plain/c0.json"
    assert f"stale: {stale} is no longer generated (delete it)\n" in drift(tmp_path, newer)
    assert stale in write_all(tmp_path, newer)
    assert not (tmp_path / stale).exists()
    assert drift(tmp_path, newer) == []


def _notes_in_matrices(root: Path) -> str:
    rel = ".github/matrices/NOTES.md"
    (root / rel).write_text("# Why the matrices look like this\n")
    return rel


def _recipe_saying_generated(root: Path) -> str:
    rel = "docs/recipes/Mine.md"
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text("# My recipe\n\nUnlike the @generated ones, kept by hand.\n")
    return rel


def _marked_workflow(root: Path) -> str:
    rel = ".github/workflows/retired.yml"
    (root / rel).write_text(
        "# @generated DO NOT EDIT MANUALLY\nname: Retired\non: push\njobs: {}\n"
    )
    return rel


def _manifest_naming_the_catalog(root: Path) -> str:
    """A manifest edited to list a file outside the generated areas, with its hash."""
    rel = "Makefile"
    (root / rel).write_text("test:\n\tpytest\n")
    manifest = json.loads((root / MANIFEST).read_text())
    digest = hashlib.sha256((root / rel).read_bytes()).hexdigest()
    manifest["files"][rel] = digest
    manifest["files"]["../outside.txt"] = digest
    (root / MANIFEST).write_text(json.dumps(manifest))
    (root.parent / "outside.txt").write_bytes((root / rel).read_bytes())
    return rel


# Files render did not list: never deleted, never reported, whatever they look like.
NOT_LISTED = {
    "notes-in-the-matrices-dir": _notes_in_matrices,
    "recipe-mentioning-generated": _recipe_saying_generated,
    "workflow-with-the-generated-header": _marked_workflow,
    "manifest-edited-to-name-the-catalog": _manifest_naming_the_catalog,
}


@pytest.mark.parametrize("case", NOT_LISTED, ids=NOT_LISTED.keys())
def test_render_deletes_only_what_its_manifest_lists(tmp_path: Path, case: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write_all(root, render(old_spec(), root))
    rel = NOT_LISTED[case](root)
    kept = (root / rel).read_bytes()
    newer = render(new_spec(), root)
    assert not [d for d in drift(root, newer) if d.startswith(f"stale: {rel}")]
    write_all(root, newer)
    assert (root / rel).read_bytes() == kept
    if case == "manifest-edited-to-name-the-catalog":
        assert (tmp_path / "outside.txt").exists()


def test_a_listed_file_changed_since_or_an_unlisted_one_in_the_way_is_refused(
    tmp_path: Path,
) -> None:
    write_all(tmp_path, render(old_spec(), tmp_path))
    newer = render(new_spec(), tmp_path)
    stale = tmp_path / ".github/matrices/benchmark/preset/a/plain/c0.json"
    stale.write_text('{"include": [], "edited": true}\n')
    before = snapshot(tmp_path)
    with pytest.raises(NotOurs, match="changed since render wrote it; delete it yourself"):
        write_all(tmp_path, newer)
    assert snapshot(tmp_path) == before
    stale.unlink()
    in_the_way = tmp_path / ".github/matrices/benchmark/schedule/weekly.json"
    in_the_way.parent.mkdir(parents=True, exist_ok=True)
    in_the_way.write_text("kept by hand\n")
    with pytest.raises(NotOurs, match="does not list it; move it away or rename it"):
        write_all(tmp_path, newer)
    assert in_the_way.read_text() == "kept by hand\n"


def test_write_all_into_an_empty_root_writes_every_output(tmp_path: Path) -> None:
    outputs = render(old_spec(), tmp_path)
    assert sorted(write_all(tmp_path, outputs)) == sorted(outputs)
    assert snapshot(tmp_path) == {rel: text.encode() for rel, text in outputs.items()}
    assert tmp_files(tmp_path) == []
