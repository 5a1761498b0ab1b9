"""Markdown for the step summary: templates (templates/*.md.j2), tables, numbers, and the
cut under GitHub's 1 MiB step-summary limit (a cut names the file with the full text)."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from generator.core.logtext import md_cell, md_code, md_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

# A metric as the summaries and the pages name it.
SHORT = {
    "output_throughput_per_gpu": "tok/s/GPU",
    "median_ttft_ms": "TTFT",
    "median_tpot_ms": "TPOT",
    "acceptance_rate": "acceptance",
}
# GitHub refuses a step summary over 1 MiB; the workflow's own lines need some room.
DEFAULT_MAX_BYTES = 1_000_000


def number(value: object, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f}%"


def row(*cells: object) -> str:
    """A Markdown table's row of cells the caller formatted (its code spans kept): each
    one line, no workflow command, `|` escaped; text from a record goes in as md_code."""
    return "| " + " | ".join(md_cell(c) for c in cells) + " |"


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    return ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)] + [
        row(*cells) for cells in rows
    ]


def from_template(template: str, **context: Any) -> list[str]:
    """The Markdown template `templates/<template>` rendered as lines: no HTML escaping, a
    line that holds only a block tag left out, each line it writes ending in a newline."""
    md = Environment(
        loader=PackageLoader("generator.report", "templates"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    md.filters.update(text=md_text, code=md_code, number=number, percent=percent)
    md.globals.update(row=row, SHORT=SHORT)
    return md.get_template(template).render(**context).split("\n")[:-1]


def fit(lines: Sequence[str], max_bytes: int, full: str | None) -> str:
    """`lines` as text of at most `max_bytes` bytes: whole lines, then a note (which
    closes a `<details>` the cut left open)."""
    text = "\n".join(lines) + "\n"
    if len(text.encode()) <= max_bytes:
        return text
    where = f"the full text is in `{full}`" if full else "rerun with `--out FILE` for the full text"

    def note(kept: Sequence[str]) -> str:
        more = len(lines) - len(kept)
        cut = f"\n_Cut to stay under {max_bytes:,} bytes: {more} more lines; {where}._\n"
        opened = sum(x == "<details>" for x in kept) - sum(x == "</details>" for x in kept)
        return ("\n</details>\n" if opened > 0 else "") + cut

    kept: list[str] = []
    size = 0
    for line in lines:
        grown = size + len(line.encode()) + 1
        if grown + len(note([*kept, line]).encode()) > max_bytes:
            break
        kept.append(line)
        size = grown
    return "\n".join(kept) + "\n" + note(kept)
