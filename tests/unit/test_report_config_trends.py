"""The config page's trends (generator/report/config_trends.py): each point as % of its
baseline, the median of its values before the newest event's first bad run."""

from __future__ import annotations

from generator.report.config_trends import _normalized
from generator.report.timeline import Series


def series(values: list[float | None]) -> Series:
    times = [f"2026-03-0{i + 1}T00:00:00Z" for i in range(len(values))]
    return Series(isl=1024, osl=1024, concurrency=4, mtp=False, runs=times, roles=times,
                  t=times, values={"y": values})  # fmt: skip


def test_a_step_reads_against_the_median_before_it() -> None:
    one = series([100.0, 98.0, 102.0, 80.0, None])
    assert _normalized(one, "y", "2026-03-04T00:00:00Z") == [100.0, 98.0, 102.0, 80.0, None]


def test_without_an_event_the_baseline_is_the_median_of_all_values() -> None:
    assert _normalized(series([50.0, 100.0, 200.0]), "y", None) == [50.0, 100.0, 200.0]


def test_a_point_without_values_has_no_baseline() -> None:
    assert _normalized(series([None, None]), "y", None) == [None, None]
