"""generator/git.py: every git call of the generator, one error with git's own last line."""

from __future__ import annotations

import subprocess

import pytest

from generator import git
from generator.errors import SglangCIError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    def run(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    run("init", "--quiet", "--initial-branch=main")
    (tmp_path / "catalogs").mkdir()
    (tmp_path / "catalogs/a.yaml").write_text("first\n")
    run("add", ".")
    run("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "one")
    (tmp_path / "catalogs/a.yaml").write_text("second\n")
    return tmp_path


def test_a_file_is_read_as_the_ref_holds_it_not_as_the_work_tree_does(repo: Path) -> None:
    assert git.show(repo, "HEAD", "catalogs/a.yaml") == b"first\n"
    assert git.output(repo, "ls-tree", "-r", "--name-only", "HEAD") == "catalogs/a.yaml\n"


def test_a_failed_call_is_one_line_naming_the_call_and_gits_last_words(repo: Path) -> None:
    with pytest.raises(git.GitError) as caught:
        git.show(repo, "no-such-ref", "catalogs/a.yaml")
    message = str(caught.value)
    assert message.startswith("git show no-such-ref:catalogs/a.yaml: fatal: ")
    assert "\n" not in message
    assert isinstance(caught.value, SglangCIError)
    assert caught.value.return_code == 2
