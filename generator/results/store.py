"""DuckDB over the record files: one in-process database per command, nothing to start.

`Store.add` reads the JSON files of runs with `read_text` and types them with `from_json`
(one C++ pass over the files; DuckDB's schema detection per file would cost ten times
more). A history run admitted by `results admit` also has its compact file (COMPACT_FILE:
the same typed rows as Parquet, written at admission); those runs are read from it, lazily,
through a view over the Parquet files, and their JSON files are not opened at all.

The view `records` has a row per record (the newest attempt of a point or case in a run
wins, chosen as a run is added), and the table `runs` a row per run (a run's time is the
earliest `timings.started_at` of its records; `rank` 1 is the newest history run). Every
query of the commands runs on these.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb

from generator.launch import jsonread
from generator.results.record import SCHEMA_FAMILY, SCHEMA_ID, Problem
from generator.results.runs import MAX_RECORD_BYTES, RunDir, json_files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

HISTORY = "history"
CURRENT = "current"

_METRICS = (
    "duration_s",
    "output_throughput",
    "output_throughput_per_gpu",
    "total_token_throughput",
    "total_token_throughput_per_gpu",
    "median_ttft_ms",
    "p99_ttft_ms",
    "median_tpot_ms",
    "p99_tpot_ms",
    "median_itl_ms",
    "p99_itl_ms",
    "median_e2e_latency_ms",
    "p99_e2e_latency_ms",
    "interactivity",
    "accept_length",
    "acceptance_rate",
    "score",
    "threshold",
    "min_acceptance_rate",
    "invalid_rate",
)
_STRING = "VARCHAR"
# The typed shape DuckDB reads: only what the commands use. A value of the wrong type
# reads as NULL; a record that lacks its identity is reported by _SHAPE below.
STRUCTURE: dict[str, Any] = {
    "schema": _STRING,
    "id": _STRING,
    "kind": _STRING,
    "config": _STRING,
    "case": _STRING,
    "name": _STRING,
    "job_id": _STRING,
    "suite": _STRING,
    "display": _STRING,
    "model_path": _STRING,
    "server_fingerprint": _STRING,
    "runner_label": _STRING,
    "spec": _STRING,
    "draft_tokens": "BIGINT",
    "gpus": "BIGINT",
    "status": _STRING,
    "error": _STRING,
    "validity": {"valid": "BOOLEAN", "reason": _STRING},
    "timings": {"started_at": _STRING, "ended_at": _STRING, "wall_time_s": "DOUBLE"},
    "point": {
        "pair": _STRING,
        "isl": "BIGINT",
        "osl": "BIGINT",
        "concurrency": "BIGINT",
        "num_prompts": "BIGINT",
    },
    "provenance": {
        "image": {"requested": _STRING, "tag": _STRING, "digest": _STRING, "pinned": _STRING},
        "sglang_version": _STRING,
        "gpu": {"model": _STRING},
        "github": {
            "repository": _STRING,
            "run_id": _STRING,
            "run_attempt": _STRING,
            "workflow": _STRING,
        },
        "sglang_commit": _STRING,
        "atom_version": _STRING,
        "aiter_version": _STRING,
        "rocm_version": _STRING,
        "runner_name": _STRING,
        "catalog_commit": _STRING,
    },
    "metrics": {
        "completed": "BIGINT",
        "metric": _STRING,
        "passed": "BOOLEAN",
        **dict.fromkeys(_METRICS, "DOUBLE"),
    },
}
# The repository of an image reference: without `@digest`, then without a `:tag` after
# the last `/` (a registry's `:port` stays).
IMAGE_FAMILY_SQL = "regexp_replace(regexp_replace({ref}, '@.*$', ''), ':[^/:]*$', '')"

_WHEN = "coalesce(r.timings.started_at, r.timings.ended_at)"
_COLUMNS = ",\n".join(
    [
        *(f"r.{c} AS {c}" for c in ("kind", "id", "config", "job_id", "suite", "display")),
        'r."case" AS case_id',
        "r.name AS case_name",
        "r.model_path AS model_path",
        "r.server_fingerprint AS fingerprint",
        *(f"r.{c} AS {c}" for c in ("runner_label", "spec", "draft_tokens", "gpus", "status")),
        "r.error AS error",
        "r.validity.valid AS valid",
        "r.validity.reason AS reason",
        # When the record's point or case ran; one that never started (its server did not
        # become ready): when the launcher gave it up.
        f"TRY_CAST({_WHEN} AS TIMESTAMPTZ) AS started_at",
        "r.timings.wall_time_s AS wall_time_s",
        *(f"r.point.{c} AS {c}" for c in ("pair", "isl", "osl", "concurrency", "num_prompts")),
        "r.provenance.image.requested AS image",
        "r.provenance.image.tag AS image_tag",
        "r.provenance.image.digest AS image_digest",
        IMAGE_FAMILY_SQL.format(ref="r.provenance.image.requested") + " AS image_family",
        "r.provenance.sglang_version AS sglang_version",
        "r.provenance.gpu.model AS gpu_model",
        "r.provenance.github.repository AS gh_repository",
        "r.provenance.github.run_id AS gh_run_id",
        "r.provenance.github.run_attempt AS gh_run_attempt",
        *(
            f"r.provenance.{c} AS {c}"
            for c in (
                "sglang_commit",
                "atom_version",
                "aiter_version",
                "rocm_version",
                "runner_name",
                "catalog_commit",
            )
        ),
        "r.provenance.image.pinned AS image_pinned",
        "r.provenance.github.workflow AS gh_workflow",
        *(f"r.metrics.{c} AS {c}" for c in ("completed", "metric", "passed", *_METRICS)),
    ]
)
# A record typed by DuckDB still needs its identity, validity and start time.
_SHAPE = f"""
    CASE
      WHEN r.kind NOT IN ('point', 'case') OR r.kind IS NULL THEN 'kind is not point or case'
      WHEN r.id IS NULL THEN 'no id'
      WHEN r.validity.valid IS NULL THEN 'no validity.valid'
      WHEN TRY_CAST({_WHEN} AS TIMESTAMPTZ) IS NULL
        THEN 'no timings.started_at or ended_at timestamp'
      WHEN r.kind = 'point' AND (r.config IS NULL OR r.point.isl IS NULL
        OR r.point.osl IS NULL OR r.point.concurrency IS NULL) THEN 'no config or point'
      WHEN r.kind = 'case' AND r."case" IS NULL THEN 'no case'
    END
"""
_INVALID = "not valid JSON"
# Keys of the baselines: a point of a server on a runner and an image family.
POINT_KEY = """concat_ws('|', coalesce(fingerprint, 'config:' || config), isl, osl,
    concurrency, coalesce(runner_label, '-'), coalesce(image_family, '-'))"""
CURVE_KEY = """concat_ws('|', coalesce(fingerprint, 'config:' || config), config, isl, osl,
    coalesce(runner_label, '-'), coalesce(image_family, '-'))"""


# The compact file of an admitted run: its name carries a hash of the typed shape, so a
# file written by a version with other columns is never read as this one's (the run's
# JSON files are read instead).
COMPACT_VERSION = hashlib.sha256((json.dumps(STRUCTURE) + _COLUMNS).encode()).hexdigest()[:12]
COMPACT_FILE = f"records-{COMPACT_VERSION}.parquet"
COMPACT_GLOB = "records-*.parquet"


class Store:
    """The records of the runs added so far, in an in-memory DuckDB database."""

    def __init__(self) -> None:
        self.con = duckdb.connect(":memory:")
        self.con.execute("SET TimeZone = 'UTC'")
        self.con.execute("SET enable_progress_bar = false")
        # One thread: the results commands' queries are many and small, and a query's memory
        # grows with its threads. At five years of history on two cores (bench_results.py's,
        # farm-bench pairs against the default of one per core) `results compare` took 2.47 s
        # instead of 2.56 and `results report` 21.9 s against 21.6 (paired ratio 1.00), with 4%
        # and 10% less CPU and a 5-7% smaller peak. docs/performance.md has the figures.
        self.con.execute("SET threads = 1")
        structure = _structure_literal()
        self.con.execute(
            "CREATE TABLE all_records AS SELECT NULL::VARCHAR AS role, NULL::VARCHAR AS run, "
            f"NULL::VARCHAR AS file, {_COLUMNS} "
            f"FROM (SELECT from_json('{{}}', '{structure}') AS r) WHERE false"
        )
        self.problems: list[Problem] = []
        # History runs read from their compact files: run name -> the file.
        self.compact: dict[str, str] = {}
        # Admitted runs' manifests: run name -> the file (read by the dashboard).
        self.manifests: dict[str, str] = {}
        # History runs' directories: run name -> the directory (their A/B outcomes).
        self.dirs: dict[str, str] = {}
        self._views()

    def add(self, role: str, runs: Sequence[RunDir]) -> list[Problem]:
        """Read the files of `runs` as `role` (HISTORY or CURRENT); returns the files that
        claim to be records and are not (also kept in `self.problems`). A history run with
        a compact file is read from that file."""
        self.manifests.update({r.name: r.manifest for r in runs if r.manifest})
        if role == HISTORY:
            self.dirs.update({r.name: r.path for r in runs if r.path})
        compact = {
            r.name: r.compact
            for r in runs
            if role == HISTORY and r.compact and Path(r.compact).name == COMPACT_FILE
        }
        if compact:
            self.compact.update(compact)
            self._compact_view()
        rest = [
            r if r.files or r.path is None else replace(r, files=json_files(Path(r.path)))
            for r in runs
            if r.name not in compact
        ]
        new = self._add_json(role, rest)
        self._refresh_runs()
        return new

    def _add_json(self, role: str, runs: Sequence[RunDir]) -> list[Problem]:
        try:
            return self._add_json_files(role, runs)
        except duckdb.Error:
            # A file DuckDB refuses to read at all (a byte order mark, bytes that are not
            # UTF-8): find them the strict way, report them, read the others.
            refused = []
            for run in runs:
                for f in run.files:
                    reason = jsonread.problem(Path(f), MAX_RECORD_BYTES)
                    if reason is not None:
                        refused.append(Problem(f, reason))
            skip = {p.path for p in refused}
            kept = [replace(r, files=tuple(f for f in r.files if f not in skip)) for r in runs]
            self.problems.extend(refused)
            return refused + self._add_json_files(role, kept)

    def _add_json_files(self, role: str, runs: Sequence[RunDir]) -> list[Problem]:
        files = [f for run in runs for f in run.files]
        if not files:
            return []
        names = [run.name for run in runs for _ in run.files]
        structure = _structure_literal()
        self.con.execute(
            "CREATE OR REPLACE TEMP TABLE names AS SELECT unnest(?) AS filename, unnest(?) AS run",
            [files, names],
        )
        self.con.execute(
            f"""
            CREATE OR REPLACE TEMP TABLE parsed AS
            SELECT n.run, t.filename AS file, json_valid(t.content) AS ok,
              CASE WHEN json_valid(t.content) THEN from_json(t.content, '{structure}') END AS r
            FROM read_text(?) t JOIN names n ON n.filename = t.filename
            """,
            [files],
        )
        found = self.con.execute(
            f"""
            SELECT file, CASE WHEN NOT ok THEN '{_INVALID}'
              WHEN r.schema <> '{SCHEMA_ID}' THEN 'unsupported record schema ''' || r.schema || ''''
              ELSE {_SHAPE} END AS reason
            FROM parsed
            WHERE NOT ok OR (r.schema LIKE '{SCHEMA_FAMILY}%'
              AND (r.schema <> '{SCHEMA_ID}' OR ({_SHAPE}) IS NOT NULL))
            ORDER BY file
            """
        ).fetchall()
        # Within a run, the attempt of a point or case that started last wins.
        self.con.execute(
            f"""
            INSERT INTO all_records
            SELECT * FROM (
              SELECT ?, run, file, {_COLUMNS} FROM parsed
              WHERE ok AND r.schema = '{SCHEMA_ID}' AND ({_SHAPE}) IS NULL)
            QUALIFY row_number() OVER (
              PARTITION BY run, kind, coalesce(job_id, ''), id
              ORDER BY started_at DESC NULLS LAST, file DESC) = 1
            """,
            [role],
        )
        self.con.execute("DROP TABLE parsed")
        new = [
            Problem(str(f), self._why_invalid(str(f)) if reason == _INVALID else str(reason))
            for f, reason in found
        ]
        self.problems.extend(new)
        return new

    @staticmethod
    def _why_invalid(path: str) -> str:
        """What the strict reader says of a file DuckDB found no JSON in, so that every
        reader gives a file the same reason."""
        return jsonread.problem(Path(path), MAX_RECORD_BYTES) or _INVALID

    def _compact_view(self) -> None:
        """`compact_records`: the rows of the compact files, read when a query needs them;
        `file` is the record's path (the file holds it relative to its run directory)."""
        if not self.compact:
            self.con.execute(
                "CREATE OR REPLACE VIEW compact_records AS SELECT * FROM all_records WHERE false"
            )
            return
        runs = ", ".join(f"({_literal(f)}, {_literal(r)})" for r, f in self.compact.items())
        files = ", ".join(_literal(f) for f in self.compact.values())
        self.con.execute(
            f"""
            CREATE OR REPLACE VIEW compact_records AS
            SELECT 'history' AS role, n.run AS run,
              regexp_replace(c.filename, '[^/]*$', '') || c.file AS file,
              c.* EXCLUDE (file, filename)
            FROM read_parquet([{files}], filename = true) c
            JOIN (VALUES {runs}) n(filename, run) ON n.filename = c.filename
            """
        )

    def _views(self) -> None:
        self._compact_view()
        self.con.execute(
            f"""
            CREATE VIEW records AS
            SELECT *, {POINT_KEY} AS point_key, {CURVE_KEY} AS curve_key,
              coalesce(spec, 'none') <> 'none' AS mtp,
              coalesce(interactivity, 1000.0 / nullif(median_tpot_ms, 0)) AS x_interactivity
            FROM (SELECT * FROM all_records UNION ALL BY NAME SELECT * FROM compact_records)
            """
        )
        self._refresh_runs()

    def _refresh_runs(self) -> None:
        """`runs`, a table: computed once per added batch, not per query."""
        self.con.execute(
            """
            CREATE OR REPLACE TABLE runs AS
            SELECT role, run, min(started_at) AS run_time, count(*) AS records,
              CASE WHEN role = 'history' THEN row_number() OVER (
                PARTITION BY role ORDER BY min(started_at) DESC, run DESC) END AS rank
            FROM records GROUP BY role, run
            """
        )

    def promote_latest(self) -> str | None:
        """Make the newest history run the current one (a report without --current)."""
        row = self.con.execute(
            "SELECT run FROM runs WHERE role = 'history' AND rank = 1"
        ).fetchone()
        if row is None:
            return None
        run = str(row[0])
        if run in self.compact:
            self.con.execute(
                "INSERT INTO all_records BY NAME SELECT * REPLACE ('current' AS role) "
                "FROM compact_records WHERE run = ?",
                [run],
            )
            del self.compact[run]
            self._compact_view()
        else:
            self.con.execute(
                "UPDATE all_records SET role = 'current' WHERE role = 'history' AND run = ?",
                [run],
            )
        self._refresh_runs()
        return run

    def compact_starts(self, files: Sequence[str]) -> dict[str, Any]:
        """The earliest record start in each of the compact `files`."""
        if not files:
            return {}
        rows = self.con.execute(
            "SELECT filename, min(started_at) FROM read_parquet(?, filename = true) "
            "GROUP BY filename",
            [list(files)],
        ).fetchall()
        return {str(f): t for f, t in rows}

    def write_compact(self, path: Path, root: Path, run: str | None = None) -> int:
        """Write the CURRENT records (of `run`, when given) as a compact file at `path`,
        each `file` relative to the run directory `root`; the number of rows."""
        prefix = str(root).rstrip("/") + "/"
        which = "" if run is None else f" AND run = {_literal(run)}"
        self.con.execute(
            f"""
            COPY (SELECT * EXCLUDE (role, run) REPLACE (
                    CASE WHEN starts_with(file, {_literal(prefix)})
                      THEN file[{len(prefix) + 1}:] ELSE file END AS file)
                  FROM all_records WHERE role = 'current'{which}
                  ORDER BY kind, config, case_id, id)
            TO {_literal(str(path))} (FORMAT parquet, COMPRESSION zstd)
            """
        )
        row = self.con.execute(
            f"SELECT count(*) FROM all_records WHERE role = 'current'{which}"
        ).fetchone()
        return int(row[0]) if row else 0

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """The rows of a query as dicts (column name -> value)."""
        cursor = self.con.execute(sql, list(params))
        names = [d[0] for d in cursor.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def count(self, role: str) -> int:
        row = self.con.execute("SELECT count(*) FROM records WHERE role = ?", [role]).fetchone()
        return int(row[0]) if row else 0


def _literal(text: str) -> str:
    """`text` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _structure_literal() -> str:
    """STRUCTURE as the text of a SQL string literal."""
    return json.dumps(STRUCTURE).replace("'", "''")
