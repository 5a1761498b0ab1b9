"""The select step's names and outputs (generator/dispatch/steps.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import cast

from generator.dispatch.steps import Selected, history_name, outputs, preset_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import JobEntry
    from generator.images.matrix import Matrix


def test_a_dropdown_label_or_a_bare_name_is_the_presets_name() -> None:
    assert preset_name("all-deepseek (10 configs, 100 cells, ~129 GPU-h)") == "all-deepseek"
    assert preset_name(" ds-all / all (3 configs)") == "ds-all"
    assert preset_name("none") == "none"


def test_a_runs_history_name_sorts_as_the_runs_started() -> None:
    now = datetime(2026, 1, 5, 9, 12, 3, tzinfo=timezone(timedelta(hours=2)))
    assert history_name("nightly", "123", "2", now) == "2026-01-05T07-12-03Z-nightly-123-2"
    later = history_name("pr", "99", "1", datetime(2026, 1, 5, 7, 12, 4, tzinfo=UTC))
    assert later > history_name("nightly", "123", "2", now)


def test_the_outputs_are_the_compact_matrix_and_its_count() -> None:
    matrix = {"include": [{"id": "a"}, {"id": "b"}]}
    selected = Selected(what="x", matrix=cast("Matrix[JobEntry]", matrix), summary="")
    assert outputs(selected) == 'matrix={"include":[{"id":"a"},{"id":"b"}]}\ncount=2\n'
