"""The catalogs of another commit, read as data, under the default branch's runner contract.

A pull request's GPU run and the caller check of the reusable workflows derive jobs and
cases from the catalogs at the requested commit (`git show <sha>:catalogs/...`), with the
code of the default branch's checkout at `root`, never the commit's own. The commit may
change servers, clients, points and cases; what the runner host does is not its to say.
From the catalogs at `root` come: the `runners:` section (labels, GPUs, model cache, GPU
allocation file, container options); the runner label of every suite, config and case
the default branch has (a new config or case takes a label the default branch declares);
each server mode's `image_repositories` (a server mode the default branch does not
declare may run no image at all); the PR image's builder label and repository
(`images.build`: a commit may change the Dockerfile, its base and its build arguments,
never where the image is built or pushed; without the default branch's section, no image
is built).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from generator.catalog import ACCURACY, BENCHMARK, build
from generator.catalog.reader import Reader
from generator.catalog.schema import validate
from generator.catalog.yamlio import MAX_CATALOG_BYTES, load_mapping
from generator.errors import Loc, SelectionError
from generator.git import GitError, git, show

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Catalog


def commit_of(root: Path, ref: str) -> str:
    """The full commit id `ref` names in the repository at `root`."""
    if not ref or ref.startswith("-"):
        msg = f"'{ref}' is not a commit"
        raise SelectionError(msg)
    try:
        return git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
    except GitError:
        msg = f"'{ref}' names no commit of the checkout at {root} (fetched with its history?)"
        raise SelectionError(msg) from None


def _document(root: Path, sha: str, rel: str, scratch: Path) -> tuple[Any, str]:
    """The catalog file `rel` of commit `sha`, loaded as the loader loads a file."""
    shown = f"{sha[:12]}:{rel}"
    size = int(git(root, "cat-file", "-s", f"{sha}:{rel}").decode().strip() or "0")
    if size > MAX_CATALOG_BYTES:
        msg = f"catalog is {size} bytes; the limit is {MAX_CATALOG_BYTES} bytes"
        raise SelectionError(msg, Loc(shown, 1))
    path = scratch / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(show(root, sha, rel))
    return load_mapping(path, shown), shown


def _labels(items: list[dict[str, Any]], trusted: list[dict[str, Any]], key: str) -> None:
    """Each item (a config by prefix, a case by id) the default branch has gets its label."""
    theirs = {str(item[key]): item for item in trusted}
    for item in items:
        known = theirs.get(str(item[key]))
        if known is None:
            continue
        if "runner" in known:
            item["runner"] = known["runner"]
        else:
            item.pop("runner", None)


def _trusted_parts(
    bench: dict[str, Any], acc: dict[str, Any], trusted: dict[str, Any], trusted_acc: dict[str, Any]
) -> None:
    """The default branch's runner contract, runner labels, image repositories and PR
    image builder and repository, in place."""
    bench["runners"] = trusted["runners"]
    for name, suite in bench["suites"].items():
        if name in trusted["suites"]:
            suite["runner"] = trusted["suites"][name]["runner"]
    _labels(bench["configs"], trusted["configs"], "prefix")
    _labels(acc["cases"], trusted_acc["cases"], "id")
    modes = trusted["server_modes"]
    for name, mode in bench["server_modes"].items():
        declared = modes[name]["image_repositories"] if name in modes else []
        mode["image_repositories"] = list(declared)
    images, trusted_build = bench["images"], trusted["images"].get("build")
    if trusted_build is None:
        images.pop("build", None)
    elif "build" in images:
        images["build"] |= {k: trusted_build[k] for k in ("runner", "repository")}


def load_at(root: Path, ref: str) -> tuple[str, Catalog]:
    """(commit id, catalog) of the catalogs at `ref`, under the runner contract, runner
    labels and image repositories of the catalogs at `root` (see the module's text)."""
    sha = commit_of(root, ref)
    trusted = [load_mapping(root / rel, str(root / rel)) for rel in (BENCHMARK, ACCURACY)]
    validate("benchmark", trusted[0], str(root / BENCHMARK))
    validate("accuracy", trusted[1], str(root / ACCURACY))
    with tempfile.TemporaryDirectory(prefix="sglang-ci-at-") as scratch:
        bench, bench_shown = _document(root, sha, BENCHMARK, Path(scratch))
        acc, acc_shown = _document(root, sha, ACCURACY, Path(scratch))
    validate("benchmark", bench, bench_shown)
    validate("accuracy", acc, acc_shown)
    _trusted_parts(bench, acc, *trusted)
    return sha, build(Reader(bench, bench_shown), Reader(acc, acc_shown))
