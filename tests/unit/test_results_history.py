"""generator/results/history.py: a server's series, pure data."""

from __future__ import annotations

from generator.results.history import PointKey, RunInfo, Sample, ServerKey, ServerSeries

KEY = ServerKey(config="c", fingerprint="fp-b", runner_label="mi355", image_family=None)
POINT = PointKey(isl=1024, osl=512, concurrency=8)
SERIES = ServerSeries(
    key=KEY,
    runs=(
        RunInfo(name="run-1", fingerprint="fp-a"),
        RunInfo(
            name="run-2", fingerprint="fp-b", identity="77", provenance=(("image_digest", "d"),)
        ),
        RunInfo(name="run-3", fingerprint="fp-b"),
    ),
    samples={POINT: (Sample(values={"m": 1.0}), None, Sample(values={}))},
)


def test_keys_as_the_verdicts_json_writes_them() -> None:
    assert KEY.as_dict() == {
        "config": "c", "fingerprint": "fp-b", "runner_label": "mi355", "image_family": None,
    }  # fmt: skip
    assert (POINT.pair, POINT.as_dict()) == (
        "1024x512",
        {"isl": 1024, "osl": 512, "concurrency": 8},
    )


def test_a_run_is_known_by_its_github_run_id_else_its_name() -> None:
    first, second, _ = SERIES.runs
    assert (first.key, second.key) == ("run-1", "77")
    assert (second.get("fingerprint"), second.get("image_digest"), second.get("rocm_version")) == (
        "fp-b", "d", None,
    )  # fmt: skip


def test_a_series_starts_its_fingerprint_after_the_previous_ones_runs() -> None:
    assert (SERIES.current, SERIES.boundary) == (2, 1)
    assert SERIES.values(POINT, "m") == [1.0, None, None]
