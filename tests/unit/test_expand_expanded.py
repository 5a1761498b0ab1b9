"""generator.expand.expanded: what a job and a selection say about themselves."""

from __future__ import annotations

import pytest

from generator.catalog.catalog_types import PER_SERVER
from generator.expand.expanded import KINDS, Expanded


def test_a_job_is_its_cells_config_and_lasts_its_start_up_plus_its_points(
    fixture: Expanded,
) -> None:
    job = fixture.jobs[("qwen3-5-397b-a17b-fp8-tp4", "sglang-atom", PER_SERVER)][0]
    assert job.config.prefix == "qwen3-5-397b-a17b-fp8-tp4"
    assert job.startup_minutes == 25
    assert job.minutes == pytest.approx(25 + sum(c.minutes for c in job.cells))
    assert len(job.cells) == 10


def test_a_selection_runs_first_in_its_first_mode(fixture: Expanded) -> None:
    [ds_all] = [p for p in fixture.presets if p.name == "ds-all"]
    assert list(ds_all.runs) == ["sglang-atom", "sglang-mori"]
    assert ds_all.default_run is ds_all.runs["sglang-atom"]
    assert (len(ds_all.default_run.cells), ds_all.default_run.packed.jobs) == (71, 17)
    [oob] = [s for s in fixture.schedules if s.name == "oob-all"]
    assert list(oob.runs) == [None]  # each config's suite's first mode
    assert KINDS == ("config", "job", "cell", "case", "preset", "group")
