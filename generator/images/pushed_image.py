"""The PR image once the builder pushed it (docs/images.md, "Pull request images"): `apply`
checks the tag against the registry and puts `repository@digest` in the entries that run on
it, with `image_build` (the PR, its head commit, the base's pinned reference): what the
launcher writes into its records' provenance."""

from __future__ import annotations

import copy

from generator.core.logtext import one_line
from generator.errors import SelectionError
from generator.imageref.reference import DIGEST_RE, ImageError, parse_reference
from generator.images.transport import RegistryError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from generator.core.contract import ImageBuildEntry
    from generator.images.matrix import JobOrCaseMatrix
    from generator.images.prbuild import Plan
    from generator.images.registry import Registry

BUILT = "built"  # the entries' image_resolution: the image this run built


def provenance(p: Plan) -> ImageBuildEntry:
    """What an entry (and so each record) says of the image it runs: built for PR `pr`
    from its head commit on the base image, pinned."""
    return {"pr": p.pr, "head": p.head, "base": p.base, "dockerfile": p.dockerfile}


def apply(
    p: Plan,
    digest: str,
    matrices: Iterable[JobOrCaseMatrix],
    client: Registry | None,
) -> list[JobOrCaseMatrix]:
    """Each matrix with the plan's entries on `repository@digest`, once the registry
    shows the plan's tag at that digest (skipped when resolution is off: `client` None)."""
    if not DIGEST_RE.fullmatch(digest):
        msg = f"the builder reported {one_line(digest)!r}, not a sha256 digest"
        raise SelectionError(msg)
    pushed = f"{p.repository}:{p.tag}"
    if client is not None:
        try:
            found = client.digest(parse_reference(pushed), p.tag)
        except (RegistryError, ImageError) as exc:
            msg = f"{pushed}: {exc.message}"
            raise SelectionError(msg) from None
        if found != digest:
            msg = f"{pushed} is {found} in the registry, not the {digest} the builder pushed"
            raise SelectionError(msg)
    ids = {*p.cases, *p.jobs}
    out = []
    for matrix in matrices:
        pinned = copy.deepcopy(matrix)
        for e in pinned["include"]:
            if e.get("id") in ids and e.get("server_mode") == p.server_mode:
                e["image"] = f"{p.repository}@{digest}"
                e["image_requested"] = pushed
                e["image_tag"] = p.tag
                e["image_digest"] = digest
                e["image_resolution"] = BUILT
                e["image_build"] = provenance(p)
        out.append(pinned)
    return out
