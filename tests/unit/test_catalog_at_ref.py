"""`generator.catalog.at_ref`: the catalogs of another commit read as data, under the default
branch's runner contract, runner labels, image repositories and PR image builder."""

from __future__ import annotations

from typing import Any

import pytest

from generator.catalog.at_ref import _trusted_parts, commit_of, load_at
from generator.errors import SelectionError
from tests.helpers import committed_catalogs, edit, git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return committed_catalogs(tmp_path / "repo")


@pytest.mark.parametrize("ref", ["", "-v", "--all"])
def test_a_ref_that_could_be_an_option_is_no_commit(repo: Path, ref: str) -> None:
    with pytest.raises(SelectionError) as info:
        commit_of(repo, ref)
    assert str(info.value) == f"'{ref}' is not a commit"


def test_a_ref_is_its_full_commit_id_or_refused(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    assert commit_of(repo, "main") == head
    assert commit_of(repo, head[:10]) == head
    with pytest.raises(SelectionError) as info:
        commit_of(repo, "0" * 40)
    assert str(info.value) == (
        f"'{'0' * 40}' names no commit of the checkout at {repo} (fetched with its history?)"
    )


def test_the_commit_s_catalogs_run_under_the_checkout_s_runners_and_labels(repo: Path) -> None:
    git(repo, "checkout", "--quiet", "-B", "pr", "main")
    bench = repo / "catalogs/benchmark.yaml"
    edit(bench, "runners:\n", "runners:\n  evil-runner: {gpus: 8}\n")
    edit(
        bench,
        "    runner: atom-mi355-8gpu-aac-runner\n    random_range_ratio: 0.8\n",
        "    runner: evil-runner\n    random_range_ratio: 0.8\n",
    )
    edit(bench, '    --mem-fraction-static: "0.9"\n', '    --mem-fraction-static: "0.88"\n')
    git(repo, "commit", "--quiet", "-am", "change")
    sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "--quiet", "main")  # the default branch's catalogs at the root
    found, catalog = load_at(repo, "pr")
    assert found == sha
    assert "evil-runner" not in {r.label for r in catalog.runners}
    assert {s.runner for s in catalog.suites} == {"atom-mi355-8gpu-aac-runner"}
    # The server change is the commit's own.
    assert any(
        f.name == "--mem-fraction-static" and f.values == ("0.88",)
        for c in catalog.configs
        for f in c.args
    )


def _parts(**trusted_images: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A commit's documents (its own runners, labels, modes and build), and the default
    branch's."""
    bench = {
        "runners": {"evil": {"gpus": 8}},
        "suites": {"A": {"runner": "evil"}, "New": {"runner": "evil"}},
        "configs": [
            {"prefix": "kept", "runner": "evil"},
            {"prefix": "unset", "runner": "evil"},
            {"prefix": "new", "runner": "evil"},
        ],
        "server_modes": {"atom": {"image_repositories": ["evil/x"]}, "own": {}},
        "images": {"build": {"runner": "evil", "repository": "evil/pr", "base": "b:2"}},
    }
    trusted = {
        "runners": {"mi355": {"gpus": 8}},
        "suites": {"A": {"runner": "mi355"}},
        "configs": [{"prefix": "kept", "runner": "mi355"}, {"prefix": "unset"}],
        "server_modes": {"atom": {"image_repositories": ["rocm/atom-dev"]}},
        "images": trusted_images,
    }
    return bench, trusted


def test_the_default_branch_s_contract_replaces_the_commit_s() -> None:
    bench, trusted = _parts(build={"runner": "builder", "repository": "ghcr.io/o/pr", "base": "a"})
    acc = {"cases": [{"id": "c", "runner": "evil"}, {"id": "d", "runner": "evil"}]}
    _trusted_parts(bench, acc, trusted, {"cases": [{"id": "c", "runner": "mi355-4"}]})
    assert bench["runners"] == {"mi355": {"gpus": 8}}
    assert bench["suites"] == {"A": {"runner": "mi355"}, "New": {"runner": "evil"}}
    assert bench["configs"] == [
        {"prefix": "kept", "runner": "mi355"},
        {"prefix": "unset"},  # the default branch names none: its suite's
        {"prefix": "new", "runner": "evil"},  # a label of the runners above, or refused
    ]
    assert acc["cases"] == [{"id": "c", "runner": "mi355-4"}, {"id": "d", "runner": "evil"}]
    assert bench["server_modes"] == {
        "atom": {"image_repositories": ["rocm/atom-dev"]},
        "own": {"image_repositories": []},
    }
    assert bench["images"] == {
        "build": {"runner": "builder", "repository": "ghcr.io/o/pr", "base": "b:2"}
    }


def test_without_the_default_branch_s_builder_no_image_is_built() -> None:
    bench, trusted = _parts()
    _trusted_parts(bench, {"cases": []}, trusted, {"cases": []})
    assert bench["images"] == {}
