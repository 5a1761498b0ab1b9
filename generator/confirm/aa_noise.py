"""The A/B's own noise, measured on a runner label by an A/A (docs/confirmation.md): the
confirmation job run with the same image on both sides, restarting its servers (an A/A
never runs both at once), whose every difference is noise.

From its throughput per GPU, w(p, r) = log(B / A) at point p in repeat r:
- a point's measurement (`point`): within a repeat each side's points share one launch,
  so w(p, r) - mean_p w(., r) is measurement alone: point^2 = SS / (K (P - 1));
- a launch's offset (`launch`): consecutive repeats share one launch (the blocks
  A | B B | A A | ...), so the difference of two consecutive repeats' means keeps one
  launch of each side and 2 / P of a point's: launch^2 = mean of d^2 - 2 point^2 / P.

Each A/A's sums are kept in `ab-noise/<runner label>.json` beside the history's runs and
pooled with the earlier ones: the figures the confirmation matrix gives every later A/B
on that label (ab_noise.Noise), in place of the default."""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import TypedDict, cast

from generator.core import ab_noise, ab_order, ab_verdict, jsonread
from generator.jsonio import dumps
from generator.results.record import ResultsError

SCHEMA = "sglang-ci/ab-noise/1"
FOLDER = "ab-noise"
THROUGHPUT = "output_throughput_per_gpu"
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
SUMS = ("within", "within_df", "steps", "steps_n", "steps_points")


class NoiseFile(TypedDict):
    """A runner label's noise file: each A/A's run, job_id and SUMS, and their pooled noise."""

    schema: str
    runner_label: str
    measurements: list[dict[str, str | float]]
    noise: ab_noise.NoiseFields | None


def file_for(history: Path, label: str) -> Path:
    """The noise file of runner `label`, beside the history's runs directory `history`."""
    if not _LABEL.match(label):
        msg = f"runner label {label!r} cannot name a file"
        raise ResultsError(msg)
    return history.parent / FOLDER / f"{label}.json"


def sums(measured: list[ab_verdict.Measurement]) -> dict[str, float]:
    """The sums one A/A gives (module docstring), from its turns' throughput."""
    values = {
        (m.side, m.point, m.repeat): (m.metrics or {}).get(THROUGHPUT)
        for m in measured
        if m.metrics is not None
    }
    by_repeat: dict[int, list[float]] = defaultdict(list)
    for (side, point, repeat), a in values.items():
        b = values.get((ab_order.B, point, repeat))
        if side == ab_order.A and a and b and a > 0 and b > 0:
            by_repeat[repeat].append(math.log(b / a))
    within, within_df = 0.0, 0
    means: dict[int, tuple[float, int]] = {}
    for repeat, w in by_repeat.items():
        mean = sum(w) / len(w)
        within += sum((x - mean) ** 2 for x in w)
        within_df += len(w) - 1
        means[repeat] = (mean, len(w))
    steps, steps_n, steps_points = 0.0, 0, 0.0
    for repeat, (mean, n) in means.items():
        after = means.get(repeat + 1)
        if after is not None:
            steps += (after[0] - mean) ** 2
            steps_n += 1
            steps_points += 1 / n + 1 / after[1]
    return dict(zip(SUMS, (within, within_df, steps, steps_n, steps_points), strict=True))


def figures(total: dict[str, float], source: str) -> ab_noise.Noise | None:
    """The pooled noise, or None while the sums cannot give both parts."""
    if total["within_df"] < 1 or total["steps_n"] < 1:
        return None
    point2 = total["within"] / total["within_df"]
    launch2 = (total["steps"] - point2 * total["steps_points"]) / total["steps_n"]
    return ab_noise.Noise(
        launch=math.sqrt(max(launch2, 0.0)), point=math.sqrt(point2), source=source
    )


def read(path: Path) -> NoiseFile | None:
    """A noise file, or None when there is none; ResultsError when it is not one."""
    if not path.is_file():
        return None
    try:
        data = jsonread.load(path)
    except (OSError, ValueError) as exc:
        msg = f"{path}: cannot read the A/A noise: {exc}"
        raise ResultsError(msg) from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        msg = f"{path}: not an A/A noise file (schema {SCHEMA})"
        raise ResultsError(msg)
    return cast("NoiseFile", data)  # written by save()


def measured(history: Path, label: str) -> ab_noise.Noise | None:
    """What the A/As of runner `label` measured, pooled; None: never measured."""
    data = read(file_for(history, label))
    return None if data is None else _pooled(data, label)


def _pooled(data: NoiseFile, label: str) -> ab_noise.Noise | None:
    total = {k: sum(float(a[k]) for a in data["measurements"]) for k in SUMS}
    return figures(total, f"A/A of {label}, {len(data['measurements'])} run(s)")


def add(history: Path, label: str, measurement: dict[str, str | float]) -> tuple[Path, NoiseFile]:
    """The label's noise file with one more A/A (`measurement`: its run and sums); an
    A/A the file holds already (a re-run of the same run and job) replaces nothing."""
    path = file_for(history, label)
    data = read(path) or NoiseFile(schema=SCHEMA, runner_label=label, measurements=[], noise=None)
    key = (measurement["run"], measurement["job_id"])
    if all((m["run"], m["job_id"]) != key for m in data["measurements"]):
        data["measurements"].append(measurement)
    noise = _pooled(data, label)
    data["noise"] = None if noise is None else noise.as_dict()
    return path, data


def save(path: Path, data: NoiseFile) -> None:
    """Write a noise file (add's), atomically: a reader sees the old file or the new one.
    A file there that is not a noise file was refused by read() before."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(dumps(data))
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
