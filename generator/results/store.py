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

from generator.results.record_columns import COLUMNS, STRUCTURE, structure_literal
from generator.results.runs import RunDir, json_files
from generator.results.store_json import add_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from generator.results.record import Problem

HISTORY = "history"
CURRENT = "current"

# Keys of the baselines: a point of a server on a runner and an image family.
POINT_KEY = """concat_ws('|', coalesce(fingerprint, 'config:' || config), isl, osl,
    concurrency, coalesce(runner_label, '-'), coalesce(image_family, '-'))"""
CURVE_KEY = """concat_ws('|', coalesce(fingerprint, 'config:' || config), config, isl, osl,
    coalesce(runner_label, '-'), coalesce(image_family, '-'))"""


# The compact file of an admitted run: its name carries a hash of the typed shape, so a
# file written by a version with other columns is never read as this one's (the run's
# JSON files are read instead).
COMPACT_VERSION = hashlib.sha256((json.dumps(STRUCTURE) + COLUMNS).encode()).hexdigest()[:12]
COMPACT_FILE = f"records-{COMPACT_VERSION}.parquet"


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
        structure = structure_literal()
        self.con.execute(
            "CREATE TABLE all_records AS SELECT NULL::VARCHAR AS role, NULL::VARCHAR AS run, "
            f"NULL::VARCHAR AS file, {COLUMNS} "
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
        new = add_json(self.con, role, rest)
        self.problems.extend(new)
        self._refresh_runs()
        return new

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

    def compact_starts(self, files: Sequence[str]) -> dict[str, datetime | None]:
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
