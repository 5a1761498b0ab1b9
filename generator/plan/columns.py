"""How plan's text shows numbers: rows of columns, headings over column groups, plurals,
GPU-hours and signed changes."""

from __future__ import annotations

SHAPE = ("launches", "gpu_hours", "wall_hours")  # a shape's columns, in the tables' order


def row(cells: list[object], widths: list[int]) -> str:
    out = [str(cells[0]).ljust(widths[0])]
    out += [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
    return "  ".join(out).rstrip()


def spans(spans: list[tuple[str, int]]) -> str:
    """A heading over column groups: each text right-aligned over its span."""
    return "  ".join(text.rjust(width) for text, width in spans).rstrip()


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def hours_text(value: float) -> str:
    """GPU-hours as a label shows them: whole hours from 10 up, else one decimal."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def signed(value: float) -> str:
    return f"+{value}" if value > 0 else str(value)
