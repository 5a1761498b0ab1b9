"""One A/B job's outcome (what `sglang-ci confirm outcomes --json` writes per event), its
reader, and how the run summary and the tracking issues write it (Markdown)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from generator.core import ab_verdict, jsonread
from generator.core.abjob import StepSummary
from generator.core.logtext import md_code as code
from generator.core.logtext import md_text as text
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from generator.core.abjob import Judged, SideImage

MISSING = "missing"


class StepDocument(StepSummary):
    """A step of an outcome: ab.json's, with its turns measured and each point's judgements."""

    turns: int
    expected: int
    points: dict[str, list[Judged]]


class OutcomeDocument(TypedDict):
    """One event's outcome as `sglang-ci confirm outcomes --json` writes it."""

    event: str
    job_id: str
    config: str
    mode: str | None
    repeats: int
    result: str
    steps: list[StepDocument]
    first_bad: SideImage | None
    exact: bool
    between: list[SideImage] | None
    versions: dict[str, dict[str, str | None]]


@dataclass(frozen=True, kw_only=True)
class Step:
    step: int
    candidate: int | None  # index among the candidates, None for the first A/B
    a: SideImage
    b: SideImage
    verdict: str
    judgements: tuple[ab_verdict.Judgement, ...]
    turns: int  # turns with a valid record
    expected: int
    # per point id: each metric's ratio B / A over the repeats, with its interval
    points: tuple[tuple[str, tuple[ab_verdict.Judgement, ...]], ...] = ()

    def as_dict(self) -> StepDocument:
        return {
            "step": self.step,
            "candidate": self.candidate,
            "a": self.a,
            "b": self.b,
            "verdict": self.verdict,
            "turns": self.turns,
            "expected": self.expected,
            "judgements": [dict(j.__dict__) for j in self.judgements],
            "points": {p: [dict(j.__dict__) for j in js] for p, js in self.points},
        }


@dataclass(frozen=True, kw_only=True)
class Outcome:
    event: str
    job_id: str
    config: str
    mode: str | None
    repeats: int
    result: str  # confirmed | cleared | inconclusive | missing
    steps: tuple[Step, ...] = ()
    candidates: tuple[SideImage, ...] = ()
    first_bad: SideImage | None = None  # named by the bisection (or B with no nightly between)
    exact: bool = False
    between: tuple[SideImage, SideImage] | None = None  # last known good, first known bad
    versions: dict[str, dict[str, str | None]] = field(default_factory=dict)

    def as_dict(self) -> OutcomeDocument:
        return {
            "event": self.event,
            "job_id": self.job_id,
            "config": self.config,
            "mode": self.mode,
            "repeats": self.repeats,
            "result": self.result,
            "steps": [s.as_dict() for s in self.steps],
            "first_bad": self.first_bad,
            "exact": self.exact,
            "between": list(self.between) if self.between else None,
            "versions": self.versions,
        }


def from_dict(data: Mapping[str, Any]) -> Outcome:
    """An outcome read back from `Outcome.as_dict()`."""
    steps = tuple(
        Step(
            **{k: v for k, v in s.items() if k not in ("judgements", "points")},
            judgements=tuple(ab_verdict.Judgement(**j) for j in s["judgements"]),
            points=tuple(
                (str(p), tuple(ab_verdict.Judgement(**j) for j in js))
                for p, js in (s.get("points") or {}).items()
            ),
        )
        for s in data.get("steps") or ()
    )
    between = data.get("between")
    return Outcome(
        event=data["event"],
        job_id=data["job_id"],
        config=data["config"],
        mode=data.get("mode"),
        repeats=int(data["repeats"]),
        result=data["result"],
        steps=steps,
        first_bad=data.get("first_bad"),
        exact=bool(data.get("exact")),
        between=(between[0], between[1]) if between else None,
        versions=data.get("versions") or {},
    )


def load(path: Path) -> dict[str, Outcome]:
    """The outcomes of `sglang-ci confirm outcomes --json`, by event id."""
    try:
        data = jsonread.load(path)
    except (OSError, ValueError) as exc:
        msg = f"{path}: cannot read the outcomes: {exc}"
        raise ResultsError(msg) from exc
    if not isinstance(data, list):
        msg = f"{path}: not the JSON of `sglang-ci confirm outcomes --json`"
        raise ResultsError(msg)
    return {o.event: o for o in (from_dict(d) for d in data)}


def short(image: SideImage | None) -> str:
    """An image as a summary names it: its tag and short digest."""
    if not image:
        return "-"
    digest = str(image.get("image_digest") or "")
    tag = image.get("image_tag") or image.get("image_requested") or ""
    if not tag:
        return code(digest[:19])
    return f"{code(tag)} ({code(digest.removeprefix('sha256:')[:12])})"


def judgement_text(j: ab_verdict.Judgement) -> str:
    if j.ratio is None:
        return f"{j.what}: {j.verdict} ({text(j.reason)})"
    interval = "" if j.low is None else f" [{j.low:.3f}, {j.high:.3f}] at {j.level:.0%}"
    return f"{j.what} B/A {j.ratio:.3f}{interval}: {j.verdict}"


def markdown(outcomes: Sequence[Outcome]) -> list[str]:
    """The run summary's section on the A/B jobs."""
    if not outcomes:
        return []
    lines = ["### A/B confirmation", ""]
    for o in outcomes:
        head = f"- **{text(o.config)}** (event {code(o.event)}): **{o.result}**"
        if o.result == MISSING:
            lines.append(head + ": the A/B job left no measurement; the event stays suspected")
            continue
        lines.append(f"{head}, {o.repeats} repeats each, {o.mode}")
        for s in o.steps:
            what = "A/B" if s.candidate is None else f"bisection step {s.step}"
            lines.append(
                f"  - {what}: A {short(s.a)} against B {short(s.b)}, "
                f"{s.turns} of {s.expected} turns measured; "
                + "; ".join(judgement_text(j) for j in s.judgements)
            )
        if o.first_bad is not None:
            lines.append(f"  - first bad image: {short(o.first_bad)}")
        elif o.between is not None:
            lines.append(
                f"  - first bad image: after {short(o.between[0])}, "
                f"at or before {short(o.between[1])}"
            )
    return [*lines, ""]
