"""Hostile result and history inputs: every reader (summarize, compare, admit) refuses the
same files with the same one-line reason, never with a traceback (exit 3); a history with
a broken or linked part goes on without it.

Each case is one file of a run as an artifact could hold it. `summarize` and `compare`
name it in a warning and go on with the others; `admit` refuses the run whole (exit 2)
when the file claims to be a record, and never admits it."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner, Result

from generator.cli.sglang_ci import main
from generator.core.jsonread import MAX_DEPTH
from tests.helpers import FIXTURE
from tests.results_gen import Point, Run, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

RUN = Run(day=5)
GOOD = point_record(RUN, Point())
TEXT = json.dumps(GOOD)
THROUGHPUT = json.dumps(GOOD["metrics"]["output_throughput_per_gpu"])


def _deep(levels: int) -> bytes:
    return TEXT[:-1].encode() + b', "x": ' + b"[" * levels + b"]" * levels + b"}"


# name -> (the bytes of `bad.json`, the reason every reader gives)
RECORDS: dict[str, tuple[bytes, str]] = {
    "byte-order-mark": (b"\xef\xbb\xbf" + TEXT.encode(), "starts with a byte order mark"),
    "lone-surrogate-escape": (
        TEXT.replace('"config": "', '"config": "\\ud800', 1).encode(),
        "a string holds a lone surrogate",
    ),
    "encoded-surrogate": (
        TEXT.replace('"config": "', '"config": "\udcff', 1).encode("utf-8", "surrogatepass"),
        "not UTF-8 (byte",
    ),
    "number-1e309": (
        TEXT.replace(THROUGHPUT, "1e309", 1).encode(),
        "number 1e309 is beyond a float's range",
    ),
    "minus-1e400": (
        TEXT.replace(THROUGHPUT, "-1e400", 1).encode(),
        "number -1e400 is beyond a float's range",
    ),
    "nan-literal": (TEXT.replace(THROUGHPUT, "NaN", 1).encode(), "non-finite number NaN"),
    "nested-100k-deep": (_deep(100_000), f"nested deeper than {MAX_DEPTH} levels"),
    "nested-65-deep": (_deep(MAX_DEPTH), f"nested deeper than {MAX_DEPTH} levels"),
    "not-utf8": (TEXT.encode().replace(b'"config": "', b'"config": "\xff', 1), "not UTF-8"),
    "truncated": (TEXT[: len(TEXT) // 2].encode(), "not valid JSON"),
    "huge-number-of-digits": (
        TEXT.replace(THROUGHPUT, "9" * 5000, 1).encode(),
        "not valid JSON: Exceeds the limit (4300 digits)",
    ),
}


def results(root: Path, *args: str) -> Result:
    return CliRunner(env={}).invoke(
        main, ["--root", str(root), "results", *args], catch_exceptions=False
    )


def _run_with(tmp_path: Path, write: Callable[[Path], object]) -> Path:
    root = write_run(tmp_path, RUN, [GOOD], name="run")
    (root / "job").mkdir()
    write(root / "job")
    return root


def _one_line_each(result: Result) -> list[str]:
    lines = result.stderr.splitlines()
    assert "Traceback" not in result.stderr
    assert result.exit_code != 3, result.stderr
    return lines


@pytest.mark.parametrize("case", RECORDS, ids=RECORDS.keys())
def test_a_hostile_record_is_refused_alike_by_summarize_compare_and_admit(
    tmp_path: Path, case: str
) -> None:
    raw, reason = RECORDS[case]
    run = _run_with(tmp_path, lambda job: (job / "bad.json").write_bytes(raw))
    bad = run / "job" / "bad.json"
    (tmp_path / "history").mkdir()

    summarized = results(tmp_path, "summarize", str(run), "--json")
    assert summarized.exit_code == 0
    lines = _one_line_each(summarized)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"warning: {bad}: {reason}")
    assert json.loads(summarized.stdout)["points"]["total"] == 1

    compared = results(
        tmp_path, "compare", "--current", str(run), "--history", str(tmp_path / "history")
    )
    warned = [line for line in _one_line_each(compared) if line.startswith("warning: ")]
    assert len(warned) == 1
    assert warned[0].startswith(f"warning: {bad}: {reason}")

    admitted = results(
        FIXTURE, "admit", str(run), "--history", str(tmp_path / "history"), "--name", "r1"
    )
    lines = _one_line_each(admitted)
    assert admitted.exit_code == 2
    assert len(lines) == 1
    assert lines[0].startswith(f"error: {bad}: {reason}")
    assert list((tmp_path / "history").iterdir()) == []


def _link_to_a_file(job: Path) -> None:
    (job / "bad.json").symlink_to("/etc/passwd")


def _link_to_a_record(job: Path) -> None:
    outside = job.parent.parent / "outside.json"
    outside.write_text(TEXT.replace(THROUGHPUT, "1e9", 1))
    (job / "bad.json").symlink_to(outside)


def _link_to_root(job: Path) -> None:
    (job / "root").symlink_to("/")


def _fifo(job: Path) -> None:
    os.mkfifo(job / "bad.json")


# Files that are no record to read: summarize never follows or opens them; admit, which
# takes a run whole or not at all, refuses a run holding one (an artifact never does).
SKIPPED: dict[str, tuple[Callable[[Path], object], str | None]] = {
    "symlink-to-etc-passwd": (_link_to_a_file, "a symbolic link (never followed)"),
    "symlink-to-a-record-outside": (_link_to_a_record, "a symbolic link (never followed)"),
    "symlinked-directory-to-root": (_link_to_root, None),
    "fifo-named-json": (_fifo, "not a regular file"),
}


@pytest.mark.parametrize("case", SKIPPED, ids=SKIPPED.keys())
def test_a_link_or_fifo_in_a_run_is_never_followed_and_admit_refuses_it(
    tmp_path: Path, case: str
) -> None:
    write, refusal = SKIPPED[case]
    run = _run_with(tmp_path, write)
    summarized = results(tmp_path, "summarize", str(run), "--json")
    assert _one_line_each(summarized) == []
    assert json.loads(summarized.stdout)["points"]["total"] == 1
    history = tmp_path / "history"
    history.mkdir()
    admitted = results(FIXTURE, "admit", str(run), "--history", str(history), "--name", "r1")
    lines = _one_line_each(admitted)
    if refusal is None:
        assert admitted.exit_code == 0, lines
        manifest = json.loads((history / "r1" / "manifest.json").read_text())
        assert manifest["records"]["count"] == 1
    else:
        assert admitted.exit_code == 2
        assert len(lines) == 1
        assert lines[0].startswith(f"error: {run}/job/bad.json: {refusal}")
        assert list(history.iterdir()) == []


def _admitted(tmp_path: Path, history: Path, day: int) -> Path:
    run = Run(day=day)
    source = write_run(tmp_path / f"artifact-{day}", run, [point_record(run, Point())])
    done = results(FIXTURE, "admit", str(source), "--history", str(history), "--name", run.name)
    assert done.exit_code == 0, done.stderr
    return history / run.name


def _corrupt_compact(history: Path, tmp_path: Path) -> str:
    admitted = _admitted(tmp_path, history, 2)
    (compact,) = admitted.glob("records-*.parquet")
    compact.write_bytes(b"PAR1 not parquet at all")
    return f"warning: {compact}: not a readable compact file ("


def _truncated_compact(history: Path, tmp_path: Path) -> str:
    admitted = _admitted(tmp_path, history, 2)
    (compact,) = admitted.glob("records-*.parquet")
    compact.write_bytes(compact.read_bytes()[:-40])
    return f"warning: {compact}: not a readable compact file ("


def _corrupt_pages(history: Path, tmp_path: Path) -> str:
    """A footer DuckDB reads, pages it cannot: found by decoding every value once."""
    admitted = _admitted(tmp_path, history, 2)
    (compact,) = admitted.glob("records-*.parquet")
    data = bytearray(compact.read_bytes())
    for i in range(8, len(data) // 5):
        data[i] ^= 0x5A
    compact.write_bytes(bytes(data))
    return f"warning: {compact}: not a readable compact file ("


def _bom_record(history: Path, tmp_path: Path) -> str:
    del tmp_path
    run = Run(day=2)
    root = write_run(history, run, [point_record(run, Point())])
    (bad,) = root.rglob("*.json")
    bad.write_bytes(b"\xef\xbb\xbf" + bad.read_bytes())
    return f"warning: {bad}: starts with a byte order mark"


def _run_linked_to_root(history: Path, tmp_path: Path) -> str | None:
    del tmp_path
    (history / "2026-11-02-linked").symlink_to("/")
    return None


def _deep_manifest(history: Path, tmp_path: Path) -> str | None:
    admitted = _admitted(tmp_path, history, 2)
    (admitted / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    return None


# A broken part of a history: a warning (or nothing, for a link never followed) and the
# comparison goes on with the rest; never exit 3.
HISTORIES: dict[str, Callable[[Path, Path], str | None]] = {
    "corrupt-parquet": _corrupt_compact,
    "truncated-parquet": _truncated_compact,
    "parquet-with-corrupt-pages": _corrupt_pages,
    "bom-record": _bom_record,
    "run-directory-linked-to-root": _run_linked_to_root,
    "manifest-100k-deep": _deep_manifest,
}


@pytest.mark.parametrize("case", HISTORIES, ids=HISTORIES.keys())
def test_a_broken_part_of_a_history_is_harmless_and_the_rest_is_read(
    tmp_path: Path, case: str
) -> None:
    history = tmp_path / "history"
    history.mkdir()
    _admitted(tmp_path, history, 1)
    warning = HISTORIES[case](history, tmp_path)
    run = write_run(tmp_path, RUN, [GOOD], name="run")
    compared = results(
        tmp_path, "compare", "--current", str(run), "--history", str(history), "--json"
    )
    lines = _one_line_each(compared)
    assert compared.exit_code in (0, 1), lines
    assert [line for line in lines if line.startswith("warning: ")] == (
        [] if warning is None else [line for line in lines if line.startswith(warning)]
    )
    if warning is not None:
        assert len([line for line in lines if line.startswith(warning)]) == 1
    assert json.loads(compared.stdout)["history_runs"] >= 1
