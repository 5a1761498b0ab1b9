"""The run's GPU jobs as GitHub saw them: why a job left no record.

`--jobs FILE` is what the summary job saved from GitHub's API (`gh api --paginate
repos/R/actions/runs/ID/attempts/N/jobs --jq '.jobs[]'`: one JSON object per line; a JSON
list, or the API's `{"jobs": [...]}`, are read too). A matrix job's name there is
`<matrix id> / <called job's name>`; its status, conclusion and first failed step become
the reason a point or case of that job is missing ("job failure at step 'Run the job in
its container'", "job cancelled", "job never started (queued)").
"""

from __future__ import annotations

from typing import Any

from generator.core import jsonread
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


def _objects(path: Path) -> list[Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        msg = f"{path}: cannot read the jobs: {e.strerror or e}"
        raise ResultsError(msg) from e
    try:
        data = jsonread.loads(text) if text.strip() else []
    except ValueError:
        data = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                data.append(jsonread.loads(line))
            except ValueError as e:
                msg = f"{path}:{number}: not a JSON object: {e}"
                raise ResultsError(msg) from e
    if isinstance(data, dict):
        data = data.get("jobs", [])
    if not isinstance(data, list) or not all(isinstance(j, dict) for j in data):
        msg = f'{path}: jobs are JSON objects, a list of them or {{"jobs": [...]}}'
        raise ResultsError(msg)
    return data


def _reason(job: Mapping[str, Any]) -> str:
    status, conclusion = job.get("status"), job.get("conclusion")
    if status != "completed":
        return f"job never finished ({status or 'unknown status'})"
    failed = next(
        (
            s.get("name")
            for s in job.get("steps") or []
            if isinstance(s, dict) and s.get("conclusion") in ("failure", "cancelled")
        ),
        None,
    )
    return f"job {conclusion}" + (f" at step '{failed}'" if failed else "")


def load_jobs(path: Path) -> dict[str, str]:
    """Matrix id -> why its job left no record (the status of a job that did not succeed)."""
    reasons: dict[str, str] = {}
    for job in _objects(path):
        name = str(job.get("name") or "")
        matrix_id = name.split(" / ", 1)[0].strip()
        if matrix_id and job.get("conclusion") != "success":
            reasons[matrix_id] = _reason(job)
    return reasons
