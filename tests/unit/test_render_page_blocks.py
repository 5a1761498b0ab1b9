"""generator.render.page_blocks.launcher_knobs: the knob table of the hand-written
docs/launchers.md, rendered from the launcher's table between two marker lines."""

from __future__ import annotations

import pytest

from generator.core.knob_table import KNOBS
from generator.errors import SglangCIError
from generator.explain_text import PREAMBLE, READY_POLL, READY_WAIT
from generator.render.page_blocks import KNOBS_BEGIN, KNOBS_END, LAUNCHERS, launcher_knobs
from generator.render.templates import Templates
from tests.helpers import TEMPLATES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

TABLE_ROWS = len(KNOBS) + 2  # the header and the rule


def page(root: Path, text: str) -> Path:
    (root / "docs").mkdir()
    (root / LAUNCHERS).write_text(text, encoding="utf-8")
    return root


def test_the_table_between_the_markers_is_the_launchers_own_and_the_rest_is_kept(
    tmp_path: Path,
) -> None:
    text = f"# Launchers\n\nBefore.\n\n{KNOBS_BEGIN}| stale |\n{KNOBS_END}\nAfter.\n"
    out = launcher_knobs(page(tmp_path, text), Templates(TEMPLATES))
    lines = out[LAUNCHERS].splitlines()
    begin = lines.index(KNOBS_BEGIN.strip())
    assert lines[: begin + 1] == ["# Launchers", "", "Before.", "", KNOBS_BEGIN.strip()]
    assert lines[begin + 1 : begin + 3] == ["| Variable | Default | Meaning |", "|---|---|---|"]
    assert lines[begin + 3] == (
        "| `PYTHON` | `python3` | interpreter for the launcher itself, the server, the "
        "benchmark client, the few-shot evaluation and the version probe |"
    )
    assert lines[begin + 5] == (
        "| `MODEL_CACHE` | unset | absolute path of the model cache; unset: the server gets "
        "the Hugging Face ids |"
    )
    assert lines[begin + 1 + TABLE_ROWS :] == [KNOBS_END.strip(), "", "After."]
    assert [line.split(" | ")[0] for line in lines[begin + 3 : begin + 1 + TABLE_ROWS]] == [
        f"| `{k.name}`" for k in KNOBS
    ]


def test_the_committed_page_holds_the_table_the_launcher_has() -> None:
    root = TEMPLATES.parent
    assert launcher_knobs(root, Templates(TEMPLATES)) == {
        LAUNCHERS: (root / LAUNCHERS).read_text(encoding="utf-8")
    }


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("# Launchers\n\nno table\n", 1),
        (f"# Launchers\n\n{KNOBS_BEGIN}| x |\n", 3),
        (f"# Launchers\n{KNOBS_END}\n{KNOBS_BEGIN}", 4),
        (f"{KNOBS_BEGIN}{KNOBS_END}{KNOBS_BEGIN}{KNOBS_END}", 1),
    ],
    ids=["no-markers", "no-end", "end-first", "twice"],
)
def test_a_page_without_its_two_markers_once_each_is_refused_naming_the_line(
    tmp_path: Path, text: str, line: int
) -> None:
    with pytest.raises(SglangCIError) as info:
        launcher_knobs(page(tmp_path, text), Templates(TEMPLATES))
    assert str(info.value) == (
        f"docs/launchers.md:{line}: the page must hold the line "
        f"{KNOBS_BEGIN.strip()!r} and, after it, the line {KNOBS_END.strip()!r}, once each: "
        "the knob table goes between them"
    )


def test_a_checkout_without_the_page_gets_no_table(tmp_path: Path) -> None:
    assert launcher_knobs(tmp_path, Templates(TEMPLATES)) == {}


def test_explain_prints_the_launchers_defaults() -> None:
    assert PREAMBLE[:2] == ("PYTHON=${PYTHON:-python3}", "SGLANG_PORT=${SGLANG_PORT:-30000}")
    assert PREAMBLE[4:6] == (
        'RESULTS_DIR=$(realpath -m "${RESULTS_DIR:-results}")',
        'LOG_DIR=$(realpath -m "${LOG_DIR:-$RESULTS_DIR/logs}")',
    )
    assert READY_POLL == "${READY_POLL_S:-5}"
    assert READY_WAIT == (
        "# ready when each of these answers 200 (every READY_POLL_S=5 s, at most "
        "READY_TIMEOUT_S=3600 s)"
    )
