"""Record files into the store: their JSON typed by DuckDB (`read_text`, `from_json`), the
newest attempt of a point or case in a run kept, the files that claim to be records and
are not reported."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import duckdb

from generator.core import jsonread
from generator.core.record_rules import SCHEMA_FAMILY
from generator.results.record import SCHEMA_ID, Problem
from generator.results.record_columns import COLUMNS, SHAPE, structure_literal
from generator.results.runs import MAX_RECORD_BYTES, RunDir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_INVALID = "not valid JSON"


def add_json(con: duckdb.DuckDBPyConnection, role: str, runs: Sequence[RunDir]) -> list[Problem]:
    """Insert the records of the files of `runs` as `role` into `all_records`; the files
    that claim to be records and are not."""
    try:
        return _add_json_files(con, role, runs)
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
        return refused + _add_json_files(con, role, kept)


def _add_json_files(
    con: duckdb.DuckDBPyConnection, role: str, runs: Sequence[RunDir]
) -> list[Problem]:
    files = [f for run in runs for f in run.files]
    if not files:
        return []
    names = [run.name for run in runs for _ in run.files]
    structure = structure_literal()
    con.execute(
        "CREATE OR REPLACE TEMP TABLE names AS SELECT unnest(?) AS filename, unnest(?) AS run",
        [files, names],
    )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE parsed AS
        SELECT n.run, t.filename AS file, json_valid(t.content) AS ok,
          CASE WHEN json_valid(t.content) THEN from_json(t.content, '{structure}') END AS r
        FROM read_text(?) t JOIN names n ON n.filename = t.filename
        """,
        [files],
    )
    found = con.execute(
        f"""
        SELECT file, CASE WHEN NOT ok THEN '{_INVALID}'
          WHEN r.schema <> '{SCHEMA_ID}' THEN 'unsupported record schema ''' || r.schema || ''''
          ELSE {SHAPE} END AS reason
        FROM parsed
        WHERE NOT ok OR (r.schema LIKE '{SCHEMA_FAMILY}%'
          AND (r.schema <> '{SCHEMA_ID}' OR ({SHAPE}) IS NOT NULL))
        ORDER BY file
        """
    ).fetchall()
    # Within a run, the attempt of a point or case that started last wins.
    con.execute(
        f"""
        INSERT INTO all_records
        SELECT * FROM (
          SELECT ?, run, file, {COLUMNS} FROM parsed
          WHERE ok AND r.schema = '{SCHEMA_ID}' AND ({SHAPE}) IS NULL)
        QUALIFY row_number() OVER (
          PARTITION BY run, kind, coalesce(job_id, ''), id
          ORDER BY started_at DESC NULLS LAST, file DESC) = 1
        """,
        [role],
    )
    con.execute("DROP TABLE parsed")
    return [
        Problem(str(f), _why_invalid(str(f)) if reason == _INVALID else str(reason))
        for f, reason in found
    ]


def _why_invalid(path: str) -> str:
    """What the strict reader says of a file DuckDB found no JSON in, so that every
    reader gives a file the same reason."""
    return jsonread.problem(Path(path), MAX_RECORD_BYTES) or _INVALID
