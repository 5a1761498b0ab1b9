"""The job file of an A/B confirmation (docs/confirmation.md): a benchmark job of the
affected server, its points the affected ones, and a `confirmation` block naming the
event, the last good image (A), the current one (B), the nightly images between them
for a bisection, the repeats and how each metric is judged.

The orchestrator on the runner (confirm_job.py) turns it into one ordinary job per side and
block, with `turns` set when both sides run at once; those jobs follow contract.py.
"""

from __future__ import annotations

import re
from typing import Any, NotRequired, TypedDict, cast

from generator.core import ab_noise
from generator.core.contract import JobEntry
from generator.core.entry_checks import check_job
from generator.core.exits import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.record_types import PointRecord

PINNED = re.compile(r"^[^\s@]+@sha256:[0-9a-f]{64}$")
EVENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+-]{0,199}$")
MAX_REPEATS = 10
MAX_STEPS = 10


class SideImage(TypedDict):
    """One image of an A/B, pinned by digest, and the run that measured it."""

    image: str  # repository@sha256:...
    image_requested: str
    image_tag: str
    image_digest: str
    run: str | None


class MetricRule(TypedDict):
    higher_is_better: bool
    min_change: float


class ConfirmationFields(TypedDict):
    event: str
    repeats: int
    level: float
    metrics: dict[str, MetricRule]
    a: SideImage
    b: SideImage
    candidates: list[SideImage]  # the nightly images between a and b, oldest first
    max_bisect_steps: int
    noise: NotRequired[ab_noise.NoiseFields]  # absent: ab_noise.DEFAULT_NOISE


class ConfirmationEntry(JobEntry):
    confirmation: ConfirmationFields


Judged = dict[str, str | float | None]
"""An ab_verdict.Judgement's fields, as the A/B's documents write them."""


class TurnDocument(TypedDict):
    """One turn of an A/B step (sglang-ci/confirmation/1), written by launch/ab_steps.py."""

    schema: str
    event: str
    job_id: str
    run_attempt: str | None
    step: int
    order: int
    mode: str
    side: str
    repeat: int
    point: str
    images: dict[str, SideImage]
    record: PointRecord | None  # the turn's record (launch/record_doc.py), None when absent


class StepSummary(TypedDict):
    """One A/B of `a` against `b` (`candidate`: b's index, None for the first A/B)."""

    step: int
    candidate: int | None
    a: SideImage
    b: SideImage
    verdict: str
    judgements: list[Judged]


class BisectSummary(TypedDict):
    candidates: list[SideImage]
    good: int
    bad: int
    exact: bool


class AbSummary(TypedDict):
    """An A/B job's ab.json (schema sglang-ci/ab/1), written on the runner (launch/ab_steps.py)."""

    schema: str
    event: str
    job_id: str
    mode: str
    repeats: int
    verdict: str
    steps: list[StepSummary]
    bisect: BisectSummary


def _side(data: object, where: str) -> SideImage:
    if not isinstance(data, dict):
        msg = f"{where} must be an object"
        raise InputError(msg)
    image = data.get("image")
    if not isinstance(image, str) or not PINNED.match(image):
        msg = f"{where}: 'image' must be pinned by digest (repository@sha256:...)"
        raise InputError(msg)
    digest = data.get("image_digest")
    if digest != image.split("@", 1)[1]:
        msg = f"{where}: 'image_digest' must be the digest of 'image'"
        raise InputError(msg)
    for key in ("image_requested", "image_tag"):
        if not isinstance(data.get(key), str):
            msg = f"{where}: '{key}' must be a string"
            raise InputError(msg)
    if data.get("run") is not None and not isinstance(data["run"], str):
        msg = f"{where}: 'run' must be a string or null"
        raise InputError(msg)
    return cast("SideImage", data)


def _integer(data: dict[str, Any], key: str, where: str, low: int, high: int) -> None:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        msg = f"{where}: '{key}' must be an integer from {low} to {high}"
        raise InputError(msg)


def check_confirmation(data: dict[str, Any], where: str) -> ConfirmationEntry:
    """`data` as a ConfirmationEntry, or InputError naming what is wrong."""
    check_job(data, where)
    block = data.get("confirmation")
    at = f"{where}: confirmation"
    if not isinstance(block, dict):
        msg = f"{at} must be an object"
        raise InputError(msg)
    event = block.get("event")
    if not isinstance(event, str) or not EVENT_RE.match(event):
        msg = f"{at}: 'event' must match {EVENT_RE.pattern}"
        raise InputError(msg)
    _integer(block, "repeats", at, 2, MAX_REPEATS)
    _integer(block, "max_bisect_steps", at, 0, MAX_STEPS)
    level = block.get("level")
    if isinstance(level, bool) or not isinstance(level, float | int) or not 0.5 <= level < 1:
        msg = f"{at}: 'level' must be a number from 0.5 to below 1"
        raise InputError(msg)
    metrics = block.get("metrics")
    if not isinstance(metrics, dict) or not metrics:
        msg = f"{at}: 'metrics' must be a non-empty object"
        raise InputError(msg)
    for name, rule in metrics.items():
        change = rule.get("min_change") if isinstance(rule, dict) else None
        if (
            not isinstance(rule, dict)
            or not isinstance(rule.get("higher_is_better"), bool)
            or isinstance(change, bool)
            or not isinstance(change, float | int)
            or not 0 < change < 1
        ):
            msg = (
                f"{at}: metrics.{name} must have a boolean 'higher_is_better' and a "
                "'min_change' between 0 and 1"
            )
            raise InputError(msg)
    _side(block.get("a"), f"{at}.a")
    _side(block.get("b"), f"{at}.b")
    candidates = block.get("candidates")
    if not isinstance(candidates, list):
        msg = f"{at}: 'candidates' must be a list"
        raise InputError(msg)
    for index, candidate in enumerate(candidates):
        _side(candidate, f"{at}.candidates[{index}]")
    noise = block.get("noise")
    if noise is not None:
        _noise(noise, f"{at}.noise")
    return cast("ConfirmationEntry", data)


def _noise(data: object, where: str) -> None:
    parts = ("launch", "point")
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("source"), str)
        or not all(
            isinstance(data.get(k), float | int)
            and not isinstance(data.get(k), bool)
            and 0 <= data[k] < 1
            for k in parts
        )
    ):
        msg = f"{where} must hold 'launch' and 'point' from 0 to below 1 and a 'source'"
        raise InputError(msg)


def noise_of(conf: ConfirmationFields) -> ab_noise.Noise:
    """The A/B's noise model: what an A/A of the runner label measured, else the default."""
    got = conf.get("noise")
    if got is None:
        return ab_noise.DEFAULT_NOISE
    return ab_noise.Noise(launch=got["launch"], point=got["point"], source=got["source"])
