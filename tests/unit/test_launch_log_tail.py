"""generator.launch.log_tail: the tail of a log file, bounded however it was written."""

from __future__ import annotations

from generator.launch.log_tail import MAX_LINE_CHARS, MAX_TAIL_BYTES, tail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_the_tail_of_a_log_without_newlines_is_bounded(tmp_path: Path) -> None:
    log = tmp_path / "client.log"
    log.write_bytes(b"x" * (3 * MAX_TAIL_BYTES) + b"\xff\n" + b"\xfelast\n")
    text = tail(log, 20)
    assert text.endswith(" more characters)\n\ufffdlast")
    assert len(text) < MAX_LINE_CHARS + 100
