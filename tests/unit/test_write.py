"""`generator.render.write.write_all`: all new files or all old ones, stale files removed,
hand-written files left alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.catalog import load
from generator.expand import expand
from generator.render import render as render_all
from generator.render.drift import drift
from generator.render.write import write_all
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


def test_a_stale_matrix_is_reported_by_drift_and_deleted_by_write_all(tmp_path: Path) -> None:
    outputs = render(old_spec(), tmp_path)
    write_all(tmp_path, outputs)
    (tmp_path / STALE_MATRIX).write_text('{"include": []}\n')
    (tmp_path / ".github/matrices/old").mkdir()
    (tmp_path / ".github/matrices/old/x.json").write_text("{}\n")

    assert drift(tmp_path, outputs) == [
        "stale: .github/matrices/benchmark/preset-x.json is no longer generated (delete it)\n",
        "stale: .github/matrices/old/x.json is no longer generated (delete it)\n",
    ]
    assert write_all(tmp_path, outputs) == [STALE_MATRIX, ".github/matrices/old/x.json"]
    assert not (tmp_path / STALE_MATRIX).exists()
    assert not (tmp_path / ".github/matrices/old").exists()
    assert drift(tmp_path, outputs) == []


def test_a_stale_marked_workflow_is_deleted_and_an_unmarked_one_is_kept(tmp_path: Path) -> None:
    outputs = render(old_spec(), tmp_path)
    marked = ".github/workflows/retired.yml"
    write_all(tmp_path, {**outputs, marked: outputs[".github/workflows/pr.yml"]})
    (tmp_path / HAND_WRITTEN).write_text(HAND_TEXT)
    (tmp_path / NOTES).write_text("# Notes\n\nNot @generated here.\n")
    late_mark = ".github/workflows/late-mark.yml"
    (tmp_path / late_mark).write_text("#" * 500 + "\n# @generated\n")
    kept = {rel: (tmp_path / rel).read_bytes() for rel in (HAND_WRITTEN, NOTES, late_mark)}
    stamps = {rel: (tmp_path / rel).stat().st_mtime_ns for rel in kept}

    assert drift(tmp_path, outputs) == [
        f"stale: {marked} is no longer generated (delete it)\n",
    ]
    assert write_all(tmp_path, outputs) == [marked]
    assert not (tmp_path / marked).exists()
    for rel, data in kept.items():
        assert (tmp_path / rel).read_bytes() == data
        assert (tmp_path / rel).stat().st_mtime_ns == stamps[rel]


def test_write_all_into_an_empty_root_writes_every_output(tmp_path: Path) -> None:
    outputs = render(old_spec(), tmp_path)
    assert sorted(write_all(tmp_path, outputs)) == sorted(outputs)
    assert snapshot(tmp_path) == {rel: text.encode() for rel, text in outputs.items()}
    assert tmp_files(tmp_path) == []
