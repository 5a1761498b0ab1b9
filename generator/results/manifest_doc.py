"""An admitted run's MANIFEST as a document: what `results admit` writes beside the run's
records (the run, its provenance, the matrix, the verdicts, the jobs), and its reader."""

from __future__ import annotations

from typing import NotRequired, TypedDict, cast

from generator.core import jsonread
from generator.results.runs import MANIFEST_SCHEMA

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.results.provenance import ProvenanceDoc, RunDoc
    from generator.results.verdicts_json import VerdictsDoc


class JobStatus(TypedDict):
    job: str
    reason: str


class ManifestRecords(TypedDict):
    count: int
    files: list[str]


class ManifestDoc(TypedDict):
    """An admitted run's MANIFEST (results/admit.py writes it)."""

    schema: str
    name: str
    admitted_at: str
    started_at: str | None
    run: RunDoc
    provenance: ProvenanceDoc
    matrix: list[object]  # the matrix files as read
    verdicts: VerdictsDoc | None
    jobs: list[JobStatus] | None
    records: ManifestRecords
    confirmation: NotRequired[list[str]]  # absent before A/B documents were kept
    compact: str
    left_out: list[str]


def read_manifest(path: Path) -> ManifestDoc | None:
    """An admitted run's manifest, or None when it is not one (unreadable, other JSON)."""
    try:
        data = jsonread.load(path)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
        return None
    return cast("ManifestDoc", data)  # written by results admit (admit.py)
