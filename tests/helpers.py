"""Shared test helpers: the frozen fixture catalogs, copies of catalogs to edit."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.catalog import BENCHMARK, load
from generator.errors import CatalogError
from generator.expand import expand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from generator.expand.expanded import Expanded

ROOT = Path(__file__).resolve().parents[1]
# A frozen copy of the shipped catalogs: the exact counts of the spec are pinned on it, so
# that editing catalogs/ never breaks a test that pins a number.
FIXTURE = ROOT / "tests" / "fixtures"
SHARED = ROOT.parent / "shared"
TEMPLATES = ROOT / "templates"
GENERATED = (".github", "docs")


def copy_catalogs(dest: Path, source: Path = FIXTURE) -> Path:
    """The catalogs of `source` (the fixture by default) copied under `dest`, with the
    checkout's templates they render through: a checkout of their own."""
    shutil.copytree(source / "catalogs", dest / "catalogs")
    shutil.copytree(TEMPLATES, dest / "templates")
    return dest


def committed_catalogs(dest: Path) -> Path:
    """copy_catalogs(dest) in a git repository of its own, committed on `main`."""
    root = copy_catalogs(dest)
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", ".")
    git(root, "commit", "--quiet", "-m", "base")
    return root


def expanded_at(root: Path) -> Expanded:
    return expand(load(root))


def edit(path: Path, old: str, new: str, count: int = 1) -> int:
    """Replace `old` with `new` (it must be there); return the 1-based line of the edit."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, count))
    return line


def refusal_after_edit(tmp_path: Path, old: str, new: str) -> str:
    """The fixture's benchmark catalog with `old` replaced by `new`, loaded: the refusal,
    which must name the file and the line of the edit (the rest is returned)."""
    root = copy_catalogs(tmp_path)
    line = edit(root / BENCHMARK, old, new)
    with pytest.raises(CatalogError) as info:
        load(root)
    where = f"{root / BENCHMARK}:{line}: "
    assert str(info.value).startswith(where)
    return str(info.value).removeprefix(where)


@contextlib.contextmanager
def imports_forgotten() -> Iterator[None]:
    """The modules imported inside (from scripts/, the flag tables' sources, the stand-ins)
    leave sys.modules afterwards."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under the generated directories, byte for byte."""
    out = {}
    for d in GENERATED:
        base = root / d
        if base.is_dir():
            for p in sorted(base.rglob("*")):
                if p.is_file():
                    out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


# git with a fixed identity, for the tests that commit into repositories of their own.
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(root: Path, *args: str) -> str:
    """`git -C root ARGS`'s standard output; a failure raises."""
    done = subprocess.run(
        ["git", "-C", str(root), *args], env=GIT_ENV, capture_output=True, text=True, check=True
    )
    return done.stdout
