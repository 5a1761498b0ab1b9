"""What the A/B jobs of a run found: their documents (schema sglang-ci/confirmation/1)
judged again by the summary, with the same function the runner bisected with
(generator/launch/ab_verdict.py), one outcome per event.

A job of the matrix that left no document is `missing`: its event stays suspected.
`results compare --confirmation FILE` takes `confirmation_file(outcomes)`.
"""

from __future__ import annotations

import dataclasses
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.launch import ab_verdict, bisection, jsonread
from generator.launch.abjob import noise_of
from generator.launch.logtext import md_code as code
from generator.launch.logtext import md_text as text
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from generator.launch.abjob import ConfirmationEntry, SideImage

DOCUMENT = "sglang-ci/confirmation/1"
MISSING = "missing"


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

    def as_dict(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "job_id": self.job_id,
            "config": self.config,
            "mode": self.mode,
            "repeats": self.repeats,
            "result": self.result,
            "steps": [
                {
                    **{k: v for k, v in s.__dict__.items() if k not in ("judgements", "points")},
                    "judgements": [dict(j.__dict__) for j in s.judgements],
                    "points": {p: [dict(j.__dict__) for j in js] for p, js in s.points},
                }
                for s in self.steps
            ],
            "first_bad": self.first_bad,
            "exact": self.exact,
            "between": list(self.between) if self.between else None,
            "versions": self.versions,
        }


def documents(folder: Path) -> list[dict[str, Any]]:
    """Every confirmation document below `folder` (other JSON is ignored)."""
    out = []
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            try:
                data = jsonread.load(Path(top, name))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and data.get("schema") == DOCUMENT:
                out.append(data)
    return out


def measurement(doc: dict[str, Any]) -> ab_verdict.Measurement:
    """One turn of an A/B from its document: its metrics when its record is valid."""
    record = doc.get("record")
    valid = isinstance(record, dict) and (record.get("validity") or {}).get("valid")
    metrics = record.get("metrics") if valid and isinstance(record, dict) else None
    return ab_verdict.Measurement(
        side=doc["side"], repeat=int(doc["repeat"]), point=doc["point"], metrics=metrics
    )


def _versions(record: dict[str, Any] | None) -> dict[str, str | None]:
    prov = (record or {}).get("provenance") or {}
    keys = ("sglang_version", "sglang_commit", "atom_version", "aiter_version", "rocm_version")
    return {k: prov.get(k) for k in keys}


def _rules(entry: ConfirmationEntry) -> dict[str, ab_verdict.Rule]:
    return {
        name: ab_verdict.Rule(higher_is_better=r["higher_is_better"], min_change=r["min_change"])
        for name, r in entry["confirmation"]["metrics"].items()
    }


def judge_entry(entry: ConfirmationEntry, docs: Sequence[dict[str, Any]]) -> Outcome:
    """The outcome of one A/B job from its documents."""
    conf = entry["confirmation"]
    candidates = tuple(conf["candidates"])
    empty = Outcome(
        event=conf["event"],
        job_id=entry["id"],
        config=entry["config"],
        repeats=conf["repeats"],
        candidates=candidates,
        mode=None,
        result=MISSING,
    )
    if not docs:
        return empty
    by_step: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for d in docs:
        by_step[int(d["step"])].append(d)
    per_step = len(entry["points"]) * 2 * conf["repeats"]
    steps: list[Step] = []
    versions: dict[str, dict[str, str | None]] = {}
    for number in sorted(by_step):
        found = sorted(by_step[number], key=lambda d: int(d["order"]))
        measured = []
        for d in found:
            record = d.get("record")
            measured.append(measurement(d))
            digest = d["images"][d["side"]]["image_digest"]
            if isinstance(record, dict) and digest not in versions:
                versions[digest] = _versions(record)
        how, noise = str(docs[0]["mode"]), noise_of(conf)
        verdict, judgements = ab_verdict.judge_step(
            measured, _rules(entry), conf["level"], how, noise
        )
        per_point = tuple(
            (
                point,
                tuple(
                    ab_verdict.judge_step(
                        [m for m in measured if m.point == point],
                        _rules(entry),
                        conf["level"],
                        how,
                        noise,
                    )[1]
                ),
            )
            for point in sorted({m.point for m in measured})
        )
        images = found[0]["images"]
        b_digest = images["B"]["image_digest"]
        index = next((i for i, c in enumerate(candidates) if c["image_digest"] == b_digest), None)
        steps.append(
            Step(
                step=number,
                candidate=None if number == 0 else index,
                a=images["A"],
                b=images["B"],
                verdict=verdict,
                judgements=tuple(judgements),
                turns=sum(m.metrics is not None for m in measured),
                expected=per_step,
                points=per_point,
            )
        )
    first = steps[0].verdict if steps and steps[0].step == 0 else ab_verdict.INCONCLUSIVE
    bisected = [(s.candidate, s.verdict) for s in steps if s.candidate is not None]
    bounds = bisection.bisect_bounds(len(candidates), [(int(i), v) for i, v in bisected])
    chain: list[SideImage] = [conf["a"], *candidates, conf["b"]]
    named = first == ab_verdict.CONFIRMED
    return dataclasses.replace(
        empty,
        mode=str(docs[0]["mode"]),
        result=first,
        steps=tuple(steps),
        first_bad=chain[bounds.bad + 1] if named and bounds.exact else None,
        exact=named and bounds.exact,
        between=(chain[bounds.good + 1], chain[bounds.bad + 1]) if named else None,
        versions=versions,
    )


def collect(entries: Iterable[ConfirmationEntry], folder: Path | None) -> list[Outcome]:
    """One outcome per job of the confirmation matrix, from the documents under `folder`."""
    docs = documents(folder) if folder is not None and folder.is_dir() else []
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for d in docs:
        grouped[(str(d.get("event")), str(d.get("job_id")))].append(d)
    return [
        judge_entry(e, latest(grouped.get((e["confirmation"]["event"], e["id"]), [])))
        for e in entries
    ]


def latest(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The documents of an A/B job's latest attempt (a job run again writes its turns
    again, under its attempt's artifact)."""

    def attempt(d: dict[str, Any]) -> int:
        text = str(d.get("run_attempt") or "")
        return int(text) if text.isdigit() else 0

    last = max((attempt(d) for d in docs), default=0)
    return [d for d in docs if attempt(d) == last]


def confirmation_file(outcomes: Iterable[Outcome]) -> list[dict[str, str]]:
    """What `results compare --confirmation FILE` takes: the decided events only."""
    return [
        {"event": o.event, "result": o.result}
        for o in outcomes
        if o.result in (ab_verdict.CONFIRMED, ab_verdict.CLEARED)
    ]


def short(image: SideImage | dict[str, Any] | None) -> str:
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


def from_dict(data: dict[str, Any]) -> Outcome:
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
