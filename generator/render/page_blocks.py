"""The generated blocks of hand-written pages: the knob table of docs/launchers.md and the
release table of docs/lint.md, each between its page's two marker lines."""

from __future__ import annotations

from generator.catalog.upstream import LM_EVAL, SGLANG, index, supported
from generator.core.knob_table import KNOBS
from generator.errors import Loc, SglangCIError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.render.templates import Templates

LAUNCHERS = "docs/launchers.md"
KNOBS_BEGIN = "<!-- @generated from generator/core/knob_table.py by `make workflows` -->\n"
KNOBS_END = "<!-- end of the generated table -->\n"
LINT = "docs/lint.md"
RELEASES_BEGIN = (
    "<!-- @generated from generator/catalog/flagtables/index.json by `make workflows` -->\n"
)
RELEASES_END = KNOBS_END


def generated_block(
    root: Path, page: str, markers: tuple[str, str], what: str, block: str
) -> dict[str, str]:
    """A hand-written page as the checkout has it, with `block` between its two marker
    lines (nothing when the page is not there: only the block is generated)."""
    path = root / page
    if not path.is_file():
        return {}
    begin_line, end_line = markers
    text = path.read_text(encoding="utf-8")
    head, begin, rest = text.partition(begin_line)
    _, end, tail = rest.partition(end_line)
    if not begin or not end or begin_line in rest or end_line in tail:
        msg = (
            f"the page must hold the line {begin_line.strip()!r} and, after it, the line "
            f"{end_line.strip()!r}, once each: {what} goes between them"
        )
        raise SglangCIError(msg, Loc(page, head.count("\n") + 1 if begin else 1))
    return {page: head + begin + block + end + tail}


def launcher_knobs(root: Path, t: Templates) -> dict[str, str]:
    """docs/launchers.md with the table between its two marker lines rendered from the
    launcher's own table of knobs."""
    table = t("knobs.md.j2", knobs=KNOBS)
    return generated_block(root, LAUNCHERS, (KNOBS_BEGIN, KNOBS_END), "the knob table", table)


def lint_releases(root: Path, t: Templates) -> dict[str, str]:
    """docs/lint.md with the releases the flag tables cover between its two marker lines."""
    tools = [
        {"name": "SGLang", "releases": index(SGLANG).releases, "supported": supported(SGLANG)},
        {"name": "lm-eval", "releases": index(LM_EVAL).releases, "supported": supported(LM_EVAL)},
    ]
    block = t("releases.md.j2", tools=tools, sglang=supported(SGLANG))
    return generated_block(root, LINT, (RELEASES_BEGIN, RELEASES_END), "the release table", block)
