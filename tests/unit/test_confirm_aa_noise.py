"""generator/confirm/aa_noise.py: what A/As measure of the A/B's noise, pooled per runner label.

The A/As here are simulated as a restarting confirmation job runs them (blocks A | B B |
A A | B: consecutive repeats share one launch of a side), with a known offset per server
launch and a known deviation per measurement; the pooled sums must give those back."""

from __future__ import annotations

import math
import random

import pytest

from generator.confirm import aa_noise
from generator.core import ab_order, ab_verdict
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

POINTS = ("p1", "p2", "p3", "p4")
REPEATS = 3
LAUNCH_SD = 0.01  # one launch's offset: two launches differ by sqrt(2) of it
POINT_SD = 0.02  # one measurement's deviation: two differ by sqrt(2) of it


def simulated_aa(rng: random.Random) -> list[ab_verdict.Measurement]:
    """One A/A of the same image on both sides, restarting: K + 1 launches."""
    launches = [rng.gauss(0.0, LAUNCH_SD) for _ in range(REPEATS + 1)]
    out = []
    for repeat in range(1, REPEATS + 1):
        # Repeat r's A and B: the launches r-1 and r, alternating sides (A | B B | A A | B).
        a_launch, b_launch = (
            (launches[repeat - 1], launches[repeat])
            if repeat % 2
            else (launches[repeat], launches[repeat - 1])
        )
        for point in POINTS:
            for side, offset in ((ab_order.A, a_launch), (ab_order.B, b_launch)):
                value = 1000.0 * math.exp(offset + rng.gauss(0.0, POINT_SD))
                metrics = {aa_noise.THROUGHPUT: value}
                out.append(
                    ab_verdict.Measurement(side=side, repeat=repeat, point=point, metrics=metrics)
                )
    return out


def test_pooled_a_as_give_back_the_launch_and_point_noise_they_were_made_with() -> None:
    rng = random.Random(7)
    total = dict.fromkeys(aa_noise.SUMS, 0.0)
    for _ in range(400):
        for key, value in aa_noise.sums(simulated_aa(rng)).items():
            total[key] += value
    assert (total["within_df"], total["steps_n"]) == (400 * REPEATS * 3, 400 * 2)
    found = aa_noise.figures(total, "simulated")
    assert found is not None
    # The figures are of a difference of two: sqrt(2) of one launch's and one point's.
    assert found.launch == pytest.approx(math.sqrt(2) * LAUNCH_SD, rel=0.1)
    assert found.point == pytest.approx(math.sqrt(2) * POINT_SD, rel=0.05)
    assert found.source == "simulated"


def test_one_point_measures_no_point_noise_and_gives_no_figures() -> None:
    one = [m for m in simulated_aa(random.Random(1)) if m.point == "p1"]
    got = aa_noise.sums(one)
    assert (got["within"], got["within_df"], got["steps_n"]) == (0.0, 0, 2)
    assert aa_noise.figures(got, "one point") is None


def test_a_file_pools_every_a_a_of_its_label_and_a_re_run_adds_nothing(tmp_path: Path) -> None:
    history = tmp_path / "runs"
    rng = random.Random(3)
    one, two = aa_noise.sums(simulated_aa(rng)), aa_noise.sums(simulated_aa(rng))
    first: dict[str, str | float] = {"run": "r1", "job_id": "j", **one}
    second: dict[str, str | float] = {"run": "r2", "job_id": "j", **two}
    assert aa_noise.measured(history, "mi355") is None
    path, data = aa_noise.add(history, "mi355", first)
    aa_noise.save(path, data)
    path, data = aa_noise.add(history, "mi355", second)
    aa_noise.save(path, data)
    path, data = aa_noise.add(history, "mi355", first)  # the same run and job again
    aa_noise.save(path, data)
    assert path == tmp_path / "ab-noise" / "mi355.json"
    assert [m["run"] for m in data["measurements"]] == ["r1", "r2"]
    pooled = {k: one[k] + two[k] for k in aa_noise.SUMS}
    expected = aa_noise.figures(pooled, "A/A of mi355, 2 run(s)")
    assert aa_noise.measured(history, "mi355") == expected
    assert data["noise"] == (None if expected is None else expected.as_dict())


def test_a_label_that_cannot_name_a_file_and_a_foreign_file_are_one_line(tmp_path: Path) -> None:
    history = tmp_path / "runs"
    with pytest.raises(ResultsError, match=r"^runner label '\.\./x' cannot name a file$"):
        aa_noise.file_for(history, "../x")
    foreign = tmp_path / "ab-noise" / "mi355.json"
    foreign.parent.mkdir()
    foreign.write_text('{"schema": "something-else"}')
    refused = r"not an A/A noise file \(schema sglang-ci/ab-noise/1\)$"
    with pytest.raises(ResultsError, match=refused):
        aa_noise.measured(history, "mi355")
