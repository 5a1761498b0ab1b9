"""Which points and cases a run was expected to report, and which it did not.

With `--expected MATRIX_JSON...` (the run's job and case matrices, as the workflows pass
them to the launchers: `{"include": [...]}` or a list), every point of every job and every
case is expected; a record matches by job id and point id, or by case entry id. Without
matrices, a point is expected when the newest history run that has its config reported it
and the current run reported some point of that config (a run that selected other configs
expects nothing of this one); a case likewise per accuracy suite.

A missing point or case says why when GitHub's status of its job does (`--jobs`,
jobs.py). Missing data fails a run, and so does a run without any record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict, cast

from generator.core import jsonread
from generator.results.jobs import load_jobs
from generator.results.record import ResultsError
from generator.results.record_columns import IMAGE_FAMILY_SQL

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from generator.results.store import Store


class PointIdentity(TypedDict):
    """Which point a verdict is of: its config, shape and server (an expected point that
    reported nothing has no fingerprint)."""

    config: str
    pair: str
    isl: int
    osl: int
    concurrency: int
    fingerprint: NotRequired[str | None]
    runner_label: str | None
    image_family: str | None


@dataclass(frozen=True, kw_only=True)
class Expected:
    # (job id, point id) -> identity of the point
    points: tuple[tuple[tuple[str, str], PointIdentity], ...]
    # case entry id -> case id
    cases: tuple[tuple[str, str], ...]
    # matrix id -> why its job left no record (jobs.load_jobs)
    jobs: tuple[tuple[str, str], ...] = ()

    def why(self, job_id: str) -> str:
        reason = dict(self.jobs).get(job_id)
        return f"not reported: {reason}" if reason else "not reported"


def matrix_entries(path: Path) -> list[Any]:
    """The entries of a matrix file (`{"include": [...]}` or a list); one line on bad input."""
    try:
        data = jsonread.load(path)
    except (OSError, ValueError) as e:
        msg = f"{path}: cannot read the matrix: {e}"
        raise ResultsError(msg) from e
    entries = data.get("include") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        msg = f'{path}: a matrix is {{"include": [...]}} or a list of objects'
        raise ResultsError(msg)
    return entries


def load_expected(paths: Sequence[Path], jobs: Path | None = None) -> Expected:
    """The points and cases of the matrices at `paths`; `jobs`: GitHub's job statuses."""
    points: list[tuple[tuple[str, str], PointIdentity]] = []
    cases: list[tuple[str, str]] = []
    for path in paths:
        for i, entry in enumerate(matrix_entries(path)):
            try:
                if "points" in entry:
                    for p in entry["points"]:
                        identity: PointIdentity = {
                            "config": entry.get("config"),
                            "pair": f"{p['isl']}x{p['osl']}",
                            "isl": int(p["isl"]),
                            "osl": int(p["osl"]),
                            "concurrency": int(p["concurrency"]),
                            "runner_label": entry.get("runner"),
                            "image_family": entry.get("image"),
                        }
                        points.append(((str(entry["id"]), str(p["id"])), identity))
                else:
                    cases.append((str(entry["id"]), str(entry.get("case", entry["id"]))))
            except (KeyError, TypeError, ValueError) as e:
                msg = f"{path}: entry {i}: not a job or case entry ({e!r})"
                raise ResultsError(msg) from e
    reasons = tuple(sorted(load_jobs(jobs).items())) if jobs is not None else ()
    return Expected(points=tuple(points), cases=tuple(cases), jobs=reasons)


_BY_HISTORY = """
WITH newest AS (
  SELECT r.* FROM records r JOIN runs USING (role, run)
  WHERE role = 'history' AND kind = 'point'
  QUALIFY rank = min(rank) OVER (PARTITION BY config)
)
SELECT DISTINCT config, pair, isl, osl, concurrency, runner_label, image_family
FROM newest n
WHERE config IN (SELECT config FROM records WHERE role = 'current' AND kind = 'point')
  AND NOT EXISTS (
    SELECT 1 FROM records c WHERE c.role = 'current' AND c.kind = 'point'
      AND c.config = n.config AND c.isl = n.isl AND c.osl = n.osl
      AND c.concurrency = n.concurrency)
ORDER BY config, isl, osl, concurrency
"""


def missing_points(store: Store, expected: Expected | None) -> list[tuple[PointIdentity, str]]:
    """(identity, reason) of every expected point the current run has no record of."""
    if expected is None:
        rows = cast("list[PointIdentity]", store.rows(_BY_HISTORY))  # _BY_HISTORY names them
        return [(row, "not reported (the previous run had it)") for row in rows]
    seen = {
        (row["job_id"], row["id"])
        for row in store.rows(
            "SELECT job_id, id FROM records WHERE role = 'current' AND kind = 'point'"
        )
    }
    out: list[tuple[PointIdentity, str]] = []
    for key, identity in expected.points:
        if key not in seen:
            image = identity["image_family"]
            family = store.con.execute(
                f"SELECT {IMAGE_FAMILY_SQL.format(ref='?')}", [image]
            ).fetchone()
            out.append(
                (
                    {**identity, "image_family": family[0] if family else None},
                    expected.why(key[0]),
                )
            )
    return out


_CASES_BY_HISTORY = """
WITH newest AS (
  SELECT r.* FROM records r JOIN runs USING (role, run)
  WHERE role = 'history' AND kind = 'case'
  QUALIFY rank = min(rank) OVER (PARTITION BY suite)
)
SELECT DISTINCT id, case_id FROM newest n
WHERE suite IN (SELECT suite FROM records WHERE role = 'current' AND kind = 'case')
  AND NOT EXISTS (SELECT 1 FROM records c
    WHERE c.role = 'current' AND c.kind = 'case' AND c.id = n.id)
ORDER BY id
"""


def missing_cases(store: Store, expected: Expected | None) -> list[tuple[str, str]]:
    """(case entry id, case id) of every expected case the current run has no record of."""
    if expected is None:
        return [(row["id"], row["case_id"]) for row in store.rows(_CASES_BY_HISTORY)]
    seen = {
        row["id"]
        for row in store.rows("SELECT id FROM records WHERE role = 'current' AND kind = 'case'")
    }
    return [(entry, case) for entry, case in expected.cases if entry not in seen]


def counts(store: Store, expected: Expected | None) -> dict[str, dict[str, int]]:
    """Expected, reported and missing points, cases and jobs of the CURRENT run (without
    matrices, what was expected is what was reported plus what is missing)."""
    missing_p = missing_points(store, expected)
    missing_c = missing_cases(store, expected)
    reported = store.rows(
        "SELECT kind, count(*) AS n, count(DISTINCT job_id) AS jobs FROM records "
        "WHERE role = 'current' GROUP BY kind"
    )
    by_kind = {row["kind"]: row for row in reported}
    points = int(by_kind.get("point", {}).get("n", 0))
    cases = int(by_kind.get("case", {}).get("n", 0))
    out = {
        "points": {
            "expected": len(expected.points) if expected else points + len(missing_p),
            "reported": points,
            "missing": len(missing_p),
        },
        "cases": {
            "expected": len(expected.cases) if expected else cases + len(missing_c),
            "reported": cases,
            "missing": len(missing_c),
        },
    }
    if expected is not None:
        jobs = {job for (job, _), _ in expected.points}
        seen = _jobs_reported(store)
        out["jobs"] = {
            "expected": len(jobs),
            "reported": len(jobs & seen),
            "missing": len(jobs - seen),
        }
    return out


def missing_jobs(store: Store, expected: Expected | None) -> list[tuple[str, int, str]]:
    """(job id, expected points, reason) of every expected job without any record."""
    if expected is None:
        return []
    seen = _jobs_reported(store)
    wanted: dict[str, int] = {}
    for (job, _), _ in expected.points:
        wanted[job] = wanted.get(job, 0) + 1
    return [(job, n, expected.why(job)) for job, n in wanted.items() if job not in seen]


def _jobs_reported(store: Store) -> set[Any]:
    sql = "SELECT DISTINCT job_id FROM records WHERE role = 'current' AND kind = 'point'"
    return {row["job_id"] for row in store.rows(sql)}


def empty_reason(reported: int, expected_points: int | None) -> str | None:
    """Why a run without any record fails (None when it reported something)."""
    if reported:
        return None
    wanted = f" of the {expected_points} points expected" if expected_points else ""
    return f"the run reported no record{wanted}: every job of it was lost or never ran"
