"""What the dashboard draws, read once from the store and the runs' manifests: each run
(its name, link, outcome, images with digest and versions), the valid points of every
config, where a config's image or versions changed, and what each run's verdicts marked.

A history of five years holds 787k records: the points are copied once into a narrow
temporary table (one scan of the compact files) and read per config from there, so no
command ever holds all of them as Python objects.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.results.provenance import VERSION_NAMES, VERSIONS, short_digest, title
from generator.results.runs import MANIFEST_SCHEMA
from generator.results.shown_verdicts import MARKED, PointVerdict, ShownCurveVerdict, ShownEvent
from generator.results.verdicts_json import read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.results.store import Store

_T = "strftime(run_time, '%Y-%m-%dT%H:%M:%SZ')"
_POINTS = f"""
CREATE OR REPLACE TEMP TABLE dash_points AS
SELECT run, role, {_T} AS t, run_time, config, isl, osl, concurrency,
  x_interactivity AS x, output_throughput_per_gpu AS y, median_ttft_ms AS ttft,
  median_tpot_ms AS tpot, acceptance_rate, mtp
FROM records JOIN runs USING (role, run)
WHERE kind = 'point' AND valid AND status = 'ok' AND output_throughput_per_gpu IS NOT NULL
"""
_CONFIG_RUNS = f"""
CREATE OR REPLACE TEMP TABLE dash_config_runs AS
SELECT run, role, {_T} AS t, run_time, config, min(display) AS display,
  min(image) AS image, min(image_digest) AS image_digest,
  {", ".join(f"min({v}) AS {v}" for v in VERSIONS)}, min(catalog_commit) AS catalog_commit,
  min(sglang_commit) AS sglang_commit,
  string_agg(DISTINCT runner_name, ', ' ORDER BY runner_name) AS runner_name
FROM records JOIN runs USING (role, run)
WHERE kind = 'point'
GROUP BY ALL
"""
_RUNS = f"""
SELECT r.role, r.run, {_T} AS t, r.records, x.image, x.image_digest,
  {", ".join(f"x.{v}" for v in VERSIONS)}, x.catalog_commit, x.repository, x.workflow,
  x.run_id, x.attempt
FROM runs r JOIN (
  SELECT role, run, image, image_digest, {", ".join(VERSIONS)}, min(catalog_commit) AS
    catalog_commit, min(gh_repository) AS repository, min(gh_workflow) AS workflow,
    min(gh_run_id) AS run_id, min(gh_run_attempt) AS attempt
  FROM records WHERE run IN (SELECT run FROM runs ORDER BY run_time DESC LIMIT ?)
  GROUP BY ALL) x USING (role, run)
ORDER BY r.run_time DESC, r.run, x.image NULLS LAST, x.image_digest NULLS LAST
"""


@dataclass(frozen=True, kw_only=True)
class RunView:
    name: str
    role: str
    t: str
    title: str
    url: str | None
    outcome: str | None
    records: int
    images: tuple[dict[str, str | None], ...]  # image, digest and each of VERSION_NAMES
    catalog_commit: str | None


@dataclass(frozen=True, kw_only=True)
class Judged:
    """What one run's verdicts marked (only points and curves in MARKED), its events."""

    run: str
    outcome: str
    points: tuple[PointVerdict, ...]
    curves: tuple[ShownCurveVerdict, ...]
    events: tuple[ShownEvent, ...]


def judged(run: str, data: Mapping[str, Any]) -> Judged:
    v = read({**data, "current": data.get("current") if "events" in data else run})
    return Judged(
        run=run,
        outcome=v.outcome,
        points=tuple(p for p in v.points if p.verdict in MARKED),
        curves=tuple(c for c in v.curves if c.verdict in MARKED),
        events=v.events,
    )


# The manifest bytes read per query. DuckDB's memory for one query over many manifests grows
# with their size, some 40 to 90 times it on one thread, far beyond what the process holds:
# five years of them (1,826 of 350 KB) needed more than 2 GiB of its memory limit on two
# threads, at 420 MiB resident, and more than 18 GiB on one, so `results report` failed on
# a runner with one core or little memory. Read 2 MB at a time, the five-year report ran on
# one thread within 512 MiB and took as long on two; a larger manifest is read alone.
MANIFEST_BATCH_BYTES = 2_000_000

# The parts of each manifest the dashboard needs, parsed by DuckDB (a manifest's verdicts
# judge every point of its run; five years of them are most of a gigabyte of JSON): the run,
# the outcome, and only the points and curves its verdicts marked.
_MANIFESTS = f"""
SELECT filename, run, outcome, exit_code, has_events, events, current, confirmation,
  list_filter(points, lambda p: (p ->> 'verdict') IN {tuple(MARKED)}) AS points,
  list_filter(curves, lambda c: (c ->> 'verdict') IN {tuple(MARKED)}) AS curves
FROM (
  SELECT filename,
    json_extract(content, '$.run') AS run,
    json_extract_string(content, '$.verdicts.outcome') AS outcome,
    json_extract(content, '$.verdicts.exit_code') AS exit_code,
    json_exists(content, '$.verdicts.events') AS has_events,
    json_extract(content, '$.verdicts.events') AS events,
    json_extract_string(content, '$.verdicts.current') AS current,
    coalesce(json_array_length(content, '$.confirmation'), 0) AS confirmation,
    CAST(json_extract(content, '$.verdicts.points') AS JSON[]) AS points,
    CAST(json_extract(content, '$.verdicts.curves') AS JSON[]) AS curves,
    json_extract_string(content, '$.schema') AS schema,
    json_type(content, '$.verdicts') AS verdicts
  FROM read_text(?)
  WHERE json_valid(content))
WHERE schema = '{MANIFEST_SCHEMA}'
"""


@dataclass(frozen=True, kw_only=True)
class Manifests:
    """What the dashboard reads of the admitted runs' manifests."""

    info: dict[str, dict[str, Any]]  # run -> its `run` block
    marks: dict[str, Judged]  # run -> what its verdicts marked
    confirmed: dict[str, Path]  # run -> its directory, for runs admitted with an A/B


def manifests(store: Store, paths: Mapping[str, str]) -> Manifests:
    """Each run's `run` block, what its verdicts marked and whether it holds an A/B
    confirmation, from the manifests at `paths` (run name -> path)."""
    found = Manifests(info={}, marks={}, confirmed={})
    if not paths:
        return found
    runs = {str(Path(path)): run for run, path in paths.items()}
    info, marks = found.info, found.marks
    rows = [
        row
        for batch in _batches(list(runs), MANIFEST_BATCH_BYTES)
        for row in store.con.execute(_MANIFESTS, [batch]).fetchall()
    ]
    for filename, block, outcome, exit_code, has_events, events, current, conf, pts, crv in rows:
        run = runs.get(str(Path(filename)))
        if run is None:
            continue
        info[run] = json.loads(block) if block else {}
        if conf:
            found.confirmed[run] = Path(filename).parent
        if outcome is None and exit_code is None:
            continue
        data: dict[str, Any] = {
            "outcome": outcome,
            "exit_code": json.loads(exit_code) if exit_code else None,
            "current": current,
            "points": [json.loads(p) for p in pts or ()],
            "curves": [json.loads(c) for c in crv or ()],
        }
        if has_events:
            data["events"] = json.loads(events) if events else []
        marks[run] = judged(run, data)
    return found


def _batches(files: list[str], limit: int) -> list[list[str]]:
    """`files` in order, in batches of at most `limit` bytes (a larger file alone)."""
    out: list[list[str]] = []
    size = 0
    for f in files:
        try:
            n = Path(f).stat().st_size
        except OSError:
            n = 0  # read_text reports it, as for any file it cannot read
        if not out or size + n > limit:
            out.append([])
            size = 0
        out[-1].append(f)
        size += n
    return out


def load_points(store: Store) -> None:
    store.con.execute(_POINTS)
    store.con.execute(_CONFIG_RUNS)


def configs(store: Store) -> list[tuple[str, str]]:
    """(config, display name) of every config with a valid point, by display name."""
    rows = store.con.execute(
        "SELECT config, min(display) FROM dash_config_runs WHERE config IN "
        "(SELECT DISTINCT config FROM dash_points) GROUP BY config ORDER BY 2, 1"
    ).fetchall()
    return [(str(c), str(d or c)) for c, d in rows]


FIELDS = ("x", "y", "ttft", "tpot", "acceptance_rate")
_SERIES = f"""
SELECT isl, osl, concurrency, bool_or(mtp) AS mtp,
  list(run ORDER BY run_time, run) AS runs, list(role ORDER BY run_time, run) AS roles,
  list(t ORDER BY run_time, run) AS t,
  {", ".join(f"list({f} ORDER BY run_time, run) AS {f}" for f in FIELDS)}
FROM dash_points WHERE config = ?
GROUP BY isl, osl, concurrency ORDER BY isl, osl, concurrency
"""


@dataclass(frozen=True, kw_only=True)
class Series:
    """One point of a config over runs, in time order (lists built by DuckDB)."""

    isl: int
    osl: int
    concurrency: int
    mtp: bool
    runs: list[str]
    roles: list[str]
    t: list[str]
    values: dict[str, list[float | None]]

    @property
    def pair(self) -> str:
        return f"{self.isl}x{self.osl}"

    def index(self) -> dict[str, int]:
        return {run: i for i, run in enumerate(self.runs)}


def config_series(store: Store, config: str) -> list[Series]:
    return [
        Series(
            isl=row["isl"],
            osl=row["osl"],
            concurrency=row["concurrency"],
            mtp=bool(row["mtp"]),
            runs=row["runs"],
            roles=row["roles"],
            t=row["t"],
            values={f: row[f] for f in FIELDS},
        )
        for row in store.rows(_SERIES, [config])
    ]


def _key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    return (row["image_digest"], *(row[v] for v in VERSIONS))


def _change_text(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    parts = []
    if before["image_digest"] != after["image_digest"]:
        parts.append(
            f"image {short_digest(before['image_digest'])} -> {short_digest(after['image_digest'])}"
        )
    parts += [
        f"{VERSION_NAMES[v]} {before[v] or '-'} -> {after[v] or '-'}"
        for v in VERSIONS
        if before[v] != after[v]
    ]
    return "; ".join(parts)


@dataclass(frozen=True, kw_only=True)
class ConfigRuns:
    """A config's runs in time order, with where its image or versions changed."""

    runs: list[dict[str, Any]]
    changes: list[tuple[str, str]]  # a version changed (with the image digest, or alone)
    # the last run before the most recent change (None: no change in the history)
    before_change: str | None
    quiet: list[tuple[str, str]] = field(default_factory=list)  # the image digest alone


def config_runs(store: Store, config: str) -> ConfigRuns:
    runs = store.rows(
        "SELECT * EXCLUDE (run_time) FROM dash_config_runs WHERE config = ? ORDER BY run_time, run",
        [config],
    )
    changes: list[tuple[str, str]] = []
    quiet: list[tuple[str, str]] = []
    before: str | None = None
    for prev, now in itertools.pairwise(runs):
        if _key(prev) != _key(now):
            versions = any(prev[v] != now[v] for v in VERSIONS)
            (changes if versions else quiet).append((now["t"], _change_text(prev, now)))
            before = prev["run"]
    return ConfigRuns(runs=runs, changes=changes, before_change=before, quiet=quiet)


def run_views(
    store: Store, info: Mapping[str, Mapping[str, Any]], marks: Mapping[str, Judged], limit: int
) -> list[RunView]:
    """The newest `limit` runs, newest first, each with every image it ran."""
    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    order: list[str] = []
    for row in store.rows(_RUNS, [limit]):
        if row["run"] not in by_run:
            order.append(row["run"])
        by_run[row["run"]].append(row)
    out = []
    for run in order:
        rows = by_run[run]
        first = rows[0]
        meta = dict(info.get(run) or {})
        if not meta:
            repository, run_id = first["repository"], first["run_id"]
            meta = {
                "workflow": first["workflow"],
                "id": run_id,
                "attempt": first["attempt"],
                "url": f"https://github.com/{repository}/actions/runs/{run_id}"
                if repository and run_id
                else None,
            }
        out.append(
            RunView(
                name=run,
                role=first["role"],
                t=first["t"],
                title=title(meta, run),
                url=meta.get("url"),
                outcome=marks[run].outcome if run in marks else None,
                records=first["records"],
                images=tuple(
                    {
                        "image": r["image"],
                        "digest": short_digest(r["image_digest"]),
                        **{VERSION_NAMES[v]: r[v] for v in VERSIONS},
                    }
                    for r in rows
                ),
                catalog_commit=first["catalog_commit"],
            )
        )
    return out
