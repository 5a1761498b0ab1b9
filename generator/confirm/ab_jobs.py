"""`confirm matrix`, `aa`, `noise` and `outcomes`: the A/B and A/A jobs, derived from the
run's job entries by this checkout's catalogs, and what they measured."""

from __future__ import annotations

import functools
import json
import sys

from generator.catalog import load as load_catalog
from generator.catalog.regression import policy_for
from generator.confirm import aa_noise, ab_matrix, events, outcomes
from generator.confirm.outcome import markdown as outcomes_markdown
from generator.core.abjob import check_confirmation
from generator.core.exits import InputError
from generator.expand.rederive import job_for
from generator.jsonio import dumps
from generator.results.expected import matrix_entries
from generator.results.output import JSON, check_file, write_file
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from generator.core.abjob import ConfirmationEntry
    from generator.core.contract import JobEntry


def _job_entries(paths: tuple[Path, ...]) -> list[JobEntry]:
    """The job entries (those with points) of the matrix files (render/matrices.py's)."""
    return [e for path in paths for e in matrix_entries(path) if "points" in e]


def _deriver(root: Path) -> Callable[[JobEntry], JobEntry]:
    """The caller check's derivation of a job entry from the catalogs under `root`."""
    return functools.partial(job_for, load_catalog(root), sha="this checkout", named=False)


def _print(entries: list[ConfirmationEntry]) -> None:
    sys.stdout.write(json.dumps({"include": entries}, separators=(",", ":")) + "\n")


def print_matrix(
    root: Path,
    *,
    verdicts: Path,
    matrices: tuple[Path, ...],
    history: Path,
    markdown: Path | None,
    policy_path: Path | None,
) -> int:
    """One A/B job per new suspected event's server; its summary appended to `markdown`."""
    policy, _ = policy_for(root, policy_path)
    found = events.load(verdicts)
    derive = _deriver(root)
    entries, skipped = ab_matrix.build(found, _job_entries(matrices), history, policy, derive)
    lines = ab_matrix.markdown(entries, skipped)
    if markdown is not None and lines:
        with markdown.open("a", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
    _print(entries)
    return 0


def print_aa(root: Path, *, matrices: tuple[Path, ...], policy_path: Path | None) -> int:
    policy, _ = policy_for(root, policy_path)
    _print(ab_matrix.aa_entries(_job_entries(matrices), policy, _deriver(root)))
    return 0


def _confirmations(matrices: tuple[Path, ...]) -> list[ConfirmationEntry]:
    """The matrices' confirmation jobs, each checked as the launcher checks it."""
    try:
        entries = [e for path in matrices for e in matrix_entries(path) if "points" in e]
        return [check_confirmation(e, "matrix") for e in entries]
    except InputError as exc:
        raise ResultsError(str(exc)) from exc


def pool_noise(*, matrices: tuple[Path, ...], results: Path, history: Path, run_name: str) -> int:
    """Each A/A job's noise into its runner label's file; one line per job on stdout."""
    entries = _confirmations(matrices)
    for entry in entries:  # every job checked before any file is written
        conf = entry["confirmation"]
        if conf["a"]["image_digest"] != conf["b"]["image_digest"]:
            msg = f"matrix: {entry['id']} is an A/B of two images, not an A/A"
            raise ResultsError(msg)
    docs = outcomes.documents(results) if results.is_dir() else []
    lines = []
    for entry in entries:
        conf = entry["confirmation"]
        mine = [
            d for d in docs if d.get("job_id") == entry["id"] and d.get("event") == conf["event"]
        ]
        found = aa_noise.sums([outcomes.measurement(d) for d in outcomes.latest(mine)])
        measured: dict[str, str | float] = {"run": run_name, "job_id": entry["id"], **found}
        path, data = aa_noise.add(history, str(entry["runner"]), measured)
        aa_noise.save(path, data)
        got = data["noise"]
        shown = (
            "not yet measurable (too few points or repeats)"
            if got is None
            else f"launch {got['launch']:.4f}, point {got['point']:.4f} ({got['source']})"
        )
        lines.append(f"{path}: {shown}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def print_outcomes(
    *, matrices: tuple[Path, ...], results: Path | None, confirmation: Path | None, as_json: bool
) -> int:
    """With `confirmation`, compare's --confirmation file written too."""
    if confirmation is not None:
        check_file(confirmation, JSON, "confirm outcomes")
    found = outcomes.collect(_confirmations(matrices), results)
    if confirmation is not None:
        text = dumps(outcomes.confirmation_file(found))
        write_file(confirmation, text, JSON, "confirm outcomes")
    if as_json:
        sys.stdout.write(dumps([o.as_dict() for o in found]))
    else:
        sys.stdout.write("\n".join(outcomes_markdown(found)) + "\n")
    return 0
