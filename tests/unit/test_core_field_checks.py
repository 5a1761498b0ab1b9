"""generator.core.field_checks: a job or case file over its size, or JSON the parser cannot
hold, is refused in one line."""

from __future__ import annotations

import pytest

from generator.core.exits import InputError
from generator.core.field_checks import load_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_a_file_over_a_mebibyte_is_refused_unparsed(tmp_path: Path) -> None:
    path = tmp_path / "job.json"
    path.write_text('{"pad": "' + "x" * (1024 * 1024) + '"}')
    with pytest.raises(InputError, match=r"more than 1048576 bytes; a job or case is smaller$"):
        load_object(path)


IDS = ["deep", "65-deep", "digits", "not-utf8", "bom", "1e309", "nan", "lone-surrogate",
       "encoded-surrogate"]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper than 64 levels"),
        ("[" * 65 + "]" * 65, "nested deeper than 64 levels"),
        ('{"n": ' + "9" * 5000 + "}", "Exceeds the limit (4300 digits)"),
        ("\xff", "not UTF-8 (byte 0)"),
        ("\xef\xbb\xbf{}", "starts with a byte order mark"),
        ('{"threshold": 1e309}', "number 1e309 is beyond a float's range"),
        ('{"threshold": NaN}', "non-finite number NaN"),
        ('{"id": "\\ud800"}', "a string holds a lone surrogate"),
        ('{"id": "\xed\xa0\x80"}', "not UTF-8 (byte 8)"),
    ],
    ids=IDS,
)
def test_json_the_parser_cannot_hold_is_refused_in_one_line(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "job.json"
    path.write_text(text, encoding="latin-1")
    with pytest.raises(InputError) as caught:
        load_object(path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
