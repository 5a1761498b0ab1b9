"""Where the records and the summary go: RESULTS_DIR, or, when it cannot be written (not
creatable, read-only, full), a fallback directory that keeps every record so far.

The fallback is a new directory `sglang-ci-results-*` under RUNNER_TEMP (mounted in the
job's container), else under the system's temporary directory; it is named on standard
error and in the summary, and the launcher then exits 2. Should the fallback fail too,
each record is printed to the job log between marker lines, so no result is lost.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from generator.core.console import log, say
from generator.launch import record_doc, summary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.record_types import Record
    from generator.launch.knobs import Knobs
    from generator.launch.process import Supervisor

_PROBE = ".sglang-ci-write-check"
FALLBACK_PREFIX = "sglang-ci-results-"
PROGRAM = "sglang-ci launcher"


class Sink:
    def __init__(self, knobs: Knobs, supervisor: Supervisor) -> None:
        self._knobs = knobs
        self._supervisor = supervisor
        self.folder: Path | None = knobs.results_dir  # None: only the job log is left
        self.problem: str | None = None  # why RESULTS_DIR was given up
        self._kept: dict[str, Record] = {}
        self.published = False  # the summary has been written

    def prepare(self) -> str | None:
        """Create RESULTS_DIR and LOG_DIR and check that a file can be written in each;
        the reason when not (RESULTS_DIR is then replaced by the fallback)."""
        for name, folder in (
            ("RESULTS_DIR", self._knobs.results_dir),
            ("LOG_DIR", self._knobs.log_dir),
        ):
            try:
                folder.mkdir(parents=True, exist_ok=True)
                probe = folder / _PROBE
                probe.write_bytes(b"")
                probe.unlink()
            except OSError as exc:
                reason = f"{name} {folder} cannot be written: {exc.strerror or exc}"
                if name == "RESULTS_DIR":
                    self._give_up(reason)
                return reason
        return None

    def write(self, name: str, data: Record) -> None:
        """Write one record (atomically, a signal held until it is written)."""
        with self._supervisor.shielded():
            self._kept[name] = data
            self._store(name, data)

    def publish(self, text: str) -> None:
        """Print the summary section and append it to $GITHUB_STEP_SUMMARY and to the
        summary in the results, with a note when the results moved."""
        if self.problem is not None:
            where = f"`{self.folder}`" if self.folder is not None else "the job log only"
            text += (
                f"**Results not in RESULTS_DIR**: {summary.cell(self.problem)}; "
                f"every record is in {where}.\n\n"
            )
        with self._supervisor.shielded():
            summary.publish(text, self._knobs.step_summary, self.folder)
            self.published = True

    def _store(self, name: str, data: Record) -> None:
        folder = self.folder
        if folder is None:
            _print_record(name, data)
            return
        try:
            record_doc.write(folder / name, data)
        except OSError as exc:
            self._give_up(f"cannot write {folder / name}: {exc.strerror or exc}")

    def _give_up(self, reason: str) -> None:
        """Leave the current folder for the fallback (the job log after a failed fallback),
        and write every record so far there."""
        first = self.problem is None
        self.problem = self.problem or reason
        self.folder = _fallback_dir(self._knobs.runner_temp) if first else None
        where = self.folder if self.folder is not None else "the job log"
        log(f"error: {reason}")
        say(f"{PROGRAM}: error: {reason}; every record and the summary go to {where}", stderr=True)
        folder = self.folder
        for name, data in list(self._kept.items()):
            if self.folder is not folder:
                return  # a failure of the fallback has put everything in the job log
            self._store(name, data)


def _print_record(name: str, data: Record) -> None:
    say(f"===== record {name} =====\n{record_doc.text(data)}===== end of record {name} =====")


def _fallback_dir(runner_temp: Path | None) -> Path | None:
    """A new directory under RUNNER_TEMP, else under the system's temporary directory."""
    for parent in ([runner_temp] if runner_temp is not None else []) + [None]:
        try:
            return Path(tempfile.mkdtemp(prefix=FALLBACK_PREFIX, dir=parent))
        except OSError:
            continue
    return None
