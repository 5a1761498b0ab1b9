"""`generator.plan.week`: padded columns, headings over column groups and numbers."""

from __future__ import annotations

from generator.plan.week import hours_text, plural, row, signed, spans


def test_a_row_pads_its_first_cell_left_and_the_others_right_without_trailing_blanks() -> None:
    assert row(["a", 1, 2.5], [3, 4, 5]) == "a       1    2.5"
    assert row(["name", ""], [6, 4]) == "name"


def test_a_heading_right_aligns_each_text_over_its_span() -> None:
    assert spans([("", 4), ("packed", 8)]) == "        packed"


def test_one_is_singular_and_every_other_count_plural() -> None:
    assert [plural(n, "cell") for n in (0, 1, 2)] == ["0 cells", "1 cell", "2 cells"]


def test_hours_are_whole_from_ten_up_else_one_decimal() -> None:
    assert [hours_text(v) for v in (9.94, 9.96, 12.4)] == ["9.9", "10.0", "12"]


def test_a_rise_has_its_plus_sign() -> None:
    assert [signed(v) for v in (1.5, 0, -2)] == ["+1.5", "0", "-2"]
