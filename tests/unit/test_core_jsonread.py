"""generator.core.jsonread: strict JSON, each refusal in one line, files never through a
link and never past their limit."""

from __future__ import annotations

import codecs
import os

import pytest

from generator.core.jsonread import MAX_DEPTH, JsonRefused, load, loads, problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def refusal(raw: bytes | str) -> str:
    with pytest.raises(JsonRefused) as info:
        loads(raw)
    return str(info.value)


def test_what_json_takes_and_other_readers_would_not_is_refused() -> None:
    assert loads(b'{"a": [1, 2.5, null]}') == {"a": [1, 2.5, None]}
    assert (
        refusal(codecs.BOM_UTF8 + b"{}")
        == "starts with a byte order mark (write UTF-8 without one)"
    )
    assert refusal("\ufeff{}") == "starts with a byte order mark (write UTF-8 without one)"
    assert refusal(b'{"a": "\xff"}') == "not UTF-8 (byte 7)"
    assert refusal('{"a": NaN}') == "non-finite number NaN (write null)"
    assert refusal("[1e309]") == (
        "number 1e309 is beyond a float's range (write null or a finite number)"
    )
    assert refusal('["\\ud800"]') == (
        "a string holds a lone surrogate (\\ud800-\\udfff without its pair)"
    )
    assert refusal('{"\\udfff": 1}') == (
        "a key holds a lone surrogate (\\ud800-\\udfff without its pair)"
    )
    assert refusal("{") == (
        "not valid JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)"
    )


def test_nesting_is_bounded_at_max_depth() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert refusal("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)) == (
        f"nested deeper than {MAX_DEPTH} levels"
    )


def test_a_file_is_read_only_when_regular_unlinked_and_within_its_limit(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text('{"ok": true}')
    assert load(good) == {"ok": True}
    assert problem(good) is None
    assert problem(good, max_bytes=5) == "larger than 5 bytes (12)"
    link = tmp_path / "link.json"
    link.symlink_to(good)
    assert problem(link) == "a symbolic link (never followed)"
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    assert problem(fifo) == "not a regular file"
    assert problem(tmp_path / "missing.json") == "cannot read: No such file or directory"
