"""The caller check of the reusable GPU workflows (`sglang-ci verify`): before any
self-hosted job, a GitHub-hosted job running the default branch's code checks

- who called: `github.workflow_ref` (in a called workflow, the caller's top-level
  workflow) must be one of this repository's own workflows on the default branch;
- what it handed: the job, case or A/B entry must be exactly what this code derives, for
  its id, from the catalogs at the requested commit read as data (`catalog.at_ref`: the
  runner contract and the image repositories always the default branch's), its image
  pins aside, which must be of the server mode's repositories and pinned by digest (a
  tag only when the dispatcher turned image resolution off); or, for a pull request's
  own image (`image_build`), of the default branch's PR image repository, pinned, built
  from the requested commit on a pinned base of the mode's repositories.

A benchmark job is derived from its config, server mode and points: the config's server
for those points, with every field the catalogs set (client, runner contract, timeouts,
estimates). Its id must be the one `expand` gives such a job.
"""

from __future__ import annotations

import re
from typing import Any

from generator.confirm.ab_matrix import MAX_TIMEOUT_MINUTES
from generator.errors import CheckFailed
from generator.expand.entries import case_entry
from generator.expand.rederive import NotDerived, job_for
from generator.imageref.allowed import is_allowed, is_pinned
from generator.imageref.reference import ImageError, parse_reference

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from generator.catalog.catalog_types import Catalog
    from generator.core.contract import JobEntry
    from generator.expand.expanded import Expanded

# The fields an entry's image pin sets (the select step's, docs/images.md).
IMAGE_KEYS = (
    "image",
    "image_requested",
    "image_tag",
    "image_digest",
    "image_resolution",
    "image_build",
)
CALLERS = ("benchmark.yml", "accuracy-nightly.yml", "pr-gpu.yml", "ab-noise.yml")
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


class Refused(CheckFailed):
    """The caller or the entry is not what the default branch's code allows (exit 1)."""


def check_caller(
    workflow_ref: str, *, repository: str, default_branch: str, allowed: Sequence[str]
) -> str:
    """`workflow_ref` when it is one of `allowed` (workflow file names) of `repository` on
    `default_branch`; Refused otherwise."""
    unknown = [name for name in allowed if name not in CALLERS]
    if unknown or not allowed:
        msg = f"callers: {', '.join(unknown) or 'none'} is not one of {', '.join(CALLERS)}"
        raise Refused(msg)
    if not _REPOSITORY.fullmatch(repository) or not default_branch:
        msg = f"'{repository}' on '{default_branch}' is not a repository and a branch"
        raise Refused(msg)
    wanted = [f"{repository}/.github/workflows/{n}@refs/heads/{default_branch}" for n in allowed]
    if workflow_ref not in wanted:
        msg = (
            f"called from '{workflow_ref}': GPU jobs run only for {', '.join(allowed)} of "
            f"{repository} on {default_branch}"
        )
        raise Refused(msg)
    return workflow_ref


_MISSING = object()


def _same(
    what: str,
    handed: Mapping[str, object],
    derived: Mapping[str, object],
    skip: Iterable[str],
    sha: str,
) -> None:
    keys = (set(handed) | set(derived)) - set(skip)
    differ = sorted(k for k in keys if handed.get(k, _MISSING) != derived.get(k, _MISSING))
    if differ:
        msg = (
            f"{what}: the entry handed differs from what the catalogs at {sha[:12]} derive, "
            f"in {', '.join(differ)}"
        )
        raise Refused(msg)


def check_image(
    what: str,
    image: str,
    digest: str | None,
    mode: str,
    catalog: Catalog,
    *,
    unpinned_ok: bool,
    repositories: tuple[str, ...] | None = None,
) -> None:
    """`image` of one of `mode`'s repositories (or of `repositories`), pinned by digest
    (`digest` agreeing), or, with `unpinned_ok`, a tag of one of them."""
    if repositories is None:
        repositories = catalog.mode(mode).image_repositories
    try:
        ref = parse_reference(image)
        allowed = ref.pattern is None and is_allowed(image, repositories)
    except ImageError as e:
        msg = f"{what}: {e.message}"
        raise Refused(msg) from None
    if not allowed:
        msg = (
            f"{what}: image '{image}' is not of server mode '{mode}''s image repositories "
            f"({', '.join(repositories) or 'none'} on the default branch)"
        )
        raise Refused(msg)
    if is_pinned(image):
        if digest is not None and digest != ref.digest:
            msg = f"{what}: image '{image}' does not carry its digest '{digest}'"
            raise Refused(msg)
        return
    if not unpinned_ok:
        msg = (
            f"{what}: image '{image}' is not pinned by digest; GPU jobs run pinned images "
            "(a tag only for a dispatch that turns image resolution off)"
        )
        raise Refused(msg)


def _entry_image(
    what: str, entry: Mapping[str, Any], catalog: Catalog, sha: str, *, unpinned_ok: bool
) -> None:
    image, digest = str(entry["image"]), entry.get("image_digest") or None
    mode = str(entry["server_mode"])
    built = entry.get("image_build")
    if built is None:
        check_image(what, image, digest, mode, catalog, unpinned_ok=unpinned_ok)
        return
    build = catalog.image_build
    if build is None:
        msg = f"{what}: a pull request's image, but the default branch builds none (images.build)"
        raise Refused(msg)
    if not isinstance(built, dict) or not isinstance(built.get("base"), str):
        msg = f"{what}: 'image_build' does not name the base it was built on"
        raise Refused(msg)
    if built.get("head") != sha or mode != build.server_mode:
        msg = (
            f"{what}: a pull request's image runs the {build.server_mode} cases and jobs of "
            f"the commit it was built from, here {sha[:12]}"
        )
        raise Refused(msg)
    tag = f"pr-{built.get('pr')}-{sha[:12]}"
    if entry.get("image_tag") != tag:
        msg = f"{what}: a pull request's image is tagged {tag}, not {entry.get('image_tag')!r}"
        raise Refused(msg)
    check_image(
        what, image, digest, mode, catalog, unpinned_ok=False, repositories=(build.repository,)
    )
    check_image(what, built["base"], None, mode, catalog, unpinned_ok=unpinned_ok)


def derive_job(expanded: Expanded, entry: Mapping[str, Any], sha: str) -> JobEntry:
    """The job entry the catalogs give for `entry`'s config, server mode and points."""
    try:
        return job_for(expanded.catalog, entry, sha)
    except NotDerived as e:
        raise Refused(str(e)) from None


def verify_job(expanded: Expanded, entry: Mapping[str, Any], sha: str, *, unpinned_ok: bool) -> str:
    """Refused unless `entry` is the benchmark job the catalogs give; one line of what
    was verified."""
    derived = derive_job(expanded, entry, sha)
    what = f"job {entry['id']}"
    _same(what, entry, derived, IMAGE_KEYS, sha)
    _entry_image(what, entry, expanded.catalog, sha, unpinned_ok=unpinned_ok)
    return f"{what} ({entry['server_mode']}) is the catalogs' at {sha[:12]}, image {entry['image']}"


def verify_case(
    expanded: Expanded, entry: Mapping[str, Any], sha: str, *, unpinned_ok: bool
) -> str:
    """Refused unless `entry` is the accuracy case run the catalogs give, at its level."""
    what = f"case {entry['id']}"
    run = next((r for r in expanded.case_runs if r.id == entry["id"]), None)
    if run is None:
        msg = f"{what}: no case run '{entry['id']}' in the catalogs at {sha[:12]}"
        raise Refused(msg)
    level = entry.get("level")
    if level not in run.case.levels:
        msg = f"{what}: the case does not run at level '{level}'"
        raise Refused(msg)
    derived = case_entry(expanded.catalog, run, str(level))
    _same(what, entry, derived, IMAGE_KEYS, sha)
    _entry_image(what, entry, expanded.catalog, sha, unpinned_ok=unpinned_ok)
    return f"{what} (level {level}) is the catalogs' at {sha[:12]}, image {entry['image']}"


def verify_confirm(expanded: Expanded, entry: Mapping[str, Any], sha: str) -> str:
    """Refused unless `entry` is an A/B of a job the catalogs give (some of its points, a
    longer timeout) whose every image is of the mode's repositories and pinned."""
    catalog = expanded.catalog
    what = f"A/B {entry['id']}"
    conf = entry.get("confirmation")
    if not isinstance(conf, dict):
        msg = f"{what}: no 'confirmation' block"
        raise Refused(msg)
    job = {k: v for k, v in entry.items() if k != "confirmation"}
    derived = derive_job(expanded, job, sha)
    _same(what, job, derived, (*IMAGE_KEYS, "timeout_minutes"), sha)
    timeout = entry.get("timeout_minutes")
    least = catalog.estimates.job_timeout_minutes
    if not isinstance(timeout, int) or not least <= timeout <= MAX_TIMEOUT_MINUTES:
        msg = f"{what}: timeout_minutes {timeout!r} is not in [{least}, {MAX_TIMEOUT_MINUTES}]"
        raise Refused(msg)
    policy = catalog.regression.confirm
    steps = policy.max_bisect_steps if policy.bisect else 0
    if (conf.get("repeats"), conf.get("max_bisect_steps")) != (policy.repeats, steps):
        msg = (
            f"{what}: repeats and bisection steps are not the catalogs' ({policy.repeats}, {steps})"
        )
        raise Refused(msg)
    mode = str(entry["server_mode"])
    check_image(
        what, entry["image"], entry.get("image_digest") or None, mode, catalog, unpinned_ok=False
    )
    sides = [conf.get("a"), conf.get("b"), *(conf.get("candidates") or [])]
    for side in sides:
        if not isinstance(side, dict) or not isinstance(side.get("image"), str):
            msg = f"{what}: an A/B side names no image"
            raise Refused(msg)
        check_image(what, side["image"], side.get("image_digest"), mode, catalog, unpinned_ok=False)
    return f"{what} ({mode}) is the catalogs' at {sha[:12]}, {len(sides)} pinned images"
