"""The images an A/B compares, read from the history: the image a server ran in a run (A),
the current job's (B), and the digests of the same image family recorded between them,
oldest first (the nightlies a bisection can name). Only images pinned by digest count."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.core import jsonread
from generator.core.abjob import SideImage
from generator.results.runs import json_files, started

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.confirm.events import ConfirmEvent
    from generator.core.contract import JobEntry


def _family(ref: str) -> str:
    name = ref.split("@", 1)[0]
    head, _, tail = name.rpartition("/")
    return f"{head}/{tail.split(':', 1)[0]}" if head else tail.split(":", 1)[0]


def _side(
    *, requested: str, tag: str, digest: str, pinned: str | None, run: str | None
) -> SideImage | None:
    """A side image of `requested`, when it is pinned by digest."""
    if not digest.startswith("sha256:"):
        return None
    return SideImage(
        image=pinned or f"{_family(requested)}@{digest}",
        image_requested=requested,
        image_tag=tag,
        image_digest=digest,
        run=run,
    )


def job_side(job: JobEntry, run: str | None) -> SideImage | None:
    """The image of a job of the run's matrix, as an A/B side."""
    return _side(
        requested=job.get("image_requested") or job["image"],
        tag=job.get("image_tag") or "",
        digest=job.get("image_digest") or "",
        pinned=job["image"] if "@sha256:" in job["image"] else None,
        run=run,
    )


def _recorded(record: dict[str, Any], run: str) -> SideImage | None:
    """The side image of a record's provenance.image (read as it is: a history's record)."""
    image = (record.get("provenance") or {}).get("image") or {}
    return _side(
        requested=image.get("requested") or "",
        tag=image.get("tag") or "",
        digest=image.get("digest") or "",
        pinned=image.get("pinned"),
        run=run,
    )


def _records(run: Path) -> list[dict[str, Any]]:
    out = []
    for name in json_files(run):
        try:
            data = jsonread.load(Path(name))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("schema") == "sglang-ci/record/1":
            out.append(data)
    return out


def server_image(history: Path, run: str | None, event: ConfirmEvent) -> SideImage | None:
    """The image the server of `event` ran in history run `run`."""
    if run is None or not (history / run).is_dir():
        return None
    for data in _records(history / run):
        if data.get("kind") == "point" and data.get("config") == event.server.config:
            return _recorded(data, run)
    return None


def candidates(history: Path, a: SideImage, b: SideImage) -> list[SideImage]:
    """The digests of A's image family the history saw after A's run, before B's, oldest
    first, each once (neither A nor B)."""
    start = started(history / a["run"]) if a["run"] else None
    family = _family(a["image"])
    seen = {a["image_digest"], b["image_digest"]}
    found: list[tuple[Any, str, SideImage]] = []
    for run in sorted(p for p in history.iterdir() if p.is_dir() and not p.name.startswith(".")):
        when = started(run)
        if start is None or when is None or when <= start or run.name == b["run"]:
            continue
        for data in _records(run):
            side = _recorded(data, run.name)
            if side is not None and _family(side["image"]) == family:
                if side["image_digest"] not in seen:
                    seen.add(side["image_digest"])
                    found.append((when, run.name, side))
                break
    return [s for _, _, s in sorted(found, key=lambda t: (t[0], t[1]))]
