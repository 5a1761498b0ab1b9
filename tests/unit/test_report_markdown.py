"""The Markdown helpers of the step summary (generator/report/markdown.py): numbers, table
rows, and the cut under the size limit that closes the `<details>` it left open."""

from __future__ import annotations

from generator.report.markdown import fit, number, percent, row, table


def test_numbers_read_with_their_digits_and_unknowns_as_a_dash() -> None:
    assert [number(None), number(True), number(1234.56), number(0.5, 3), number(7)] == [
        "-", "yes", "1,234.6", "0.500", "7",
    ]  # fmt: skip
    assert [percent(None), percent(-0.081), percent(0.1)] == ["-", "-8.1%", "+10.0%"]


def test_a_row_escapes_its_pipes_and_writes_a_line_break_as_text() -> None:
    assert row("a|b", 3, "x\ny") == "| a\\|b | 3 | x\\ny |"
    assert table(("h", "i"), [(1, 2)]) == ["| h | i |", "|---|---|", "| 1 | 2 |"]


def test_text_under_the_limit_is_left_whole() -> None:
    assert fit(["a", "b"], 100, None) == "a\nb\n"


def test_a_cut_keeps_whole_lines_closes_the_open_details_and_names_the_full_text() -> None:
    lines = ["# t", "<details>", *(f"row {i}" for i in range(50)), "</details>"]
    cut = fit(lines, 300, "summary.md")
    assert len(cut.encode()) <= 300
    assert cut.startswith("# t\n<details>\nrow 0\n")
    assert cut.endswith(
        "\n</details>\n\n_Cut to stay under 300 bytes: 22 more lines; the full text is in "
        "`summary.md`._\n"
    )
