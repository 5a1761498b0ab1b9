"""What the A/B jobs of a run found: their documents (schema sglang-ci/confirmation/1)
judged again by the summary, with the same function the runner bisected with
(generator/core/ab_verdict.py), one outcome per event.

A job of the matrix that left no document is `missing`: its event stays suspected.
`results compare --confirmation FILE` takes `confirmation_file(outcomes)`.
"""

from __future__ import annotations

import dataclasses
import os
from collections import defaultdict
from pathlib import Path
from typing import cast

from generator.confirm.outcome import MISSING, Outcome, Step
from generator.core import ab_verdict, bisection, jsonread
from generator.core.abjob import noise_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from generator.core.abjob import ConfirmationEntry, SideImage, TurnDocument
    from generator.core.record_types import PointRecord


DOCUMENT = "sglang-ci/confirmation/1"


def documents(folder: Path) -> list[TurnDocument]:
    """Every confirmation document below `folder` (other JSON is ignored)."""
    out: list[TurnDocument] = []
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
                out.append(cast("TurnDocument", data))  # written by launch/ab_steps.py
    return out


def measurement(doc: TurnDocument) -> ab_verdict.Measurement:
    """One turn of an A/B from its document: its metrics when its record is valid."""
    return ab_verdict.from_record(doc["side"], int(doc["repeat"]), doc["point"], doc.get("record"))


def _versions(record: PointRecord) -> dict[str, str | None]:
    prov = record["provenance"]
    return {
        "sglang_version": prov["sglang_version"],
        "sglang_commit": prov["sglang_commit"],
        "atom_version": prov["atom_version"],
        "aiter_version": prov["aiter_version"],
        "rocm_version": prov["rocm_version"],
    }


def _rules(entry: ConfirmationEntry) -> dict[str, ab_verdict.Rule]:
    return {
        name: ab_verdict.Rule(higher_is_better=r["higher_is_better"], min_change=r["min_change"])
        for name, r in entry["confirmation"]["metrics"].items()
    }


def judge_entry(entry: ConfirmationEntry, docs: Sequence[TurnDocument]) -> Outcome:
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
    by_step: dict[int, list[TurnDocument]] = defaultdict(list)
    for d in docs:
        by_step[int(d["step"])].append(d)
    per_step = len(entry["points"]) * 2 * conf["repeats"]
    rules, how, noise = _rules(entry), str(docs[0]["mode"]), noise_of(conf)

    def judge(turns: list[ab_verdict.Measurement]) -> tuple[str, list[ab_verdict.Judgement]]:
        return ab_verdict.judge_step(turns, rules, conf["level"], how, noise)

    steps: list[Step] = []
    versions: dict[str, dict[str, str | None]] = {}
    for number in sorted(by_step):
        found = sorted(by_step[number], key=lambda d: int(d["order"]))
        measured = []
        for d in found:
            record = d.get("record")
            measured.append(measurement(d))
            digest = d["images"][d["side"]]["image_digest"]
            if record is not None and digest not in versions:
                versions[digest] = _versions(record)
        verdict, judgements = judge(measured)
        per_point = tuple(
            (point, tuple(judge([m for m in measured if m.point == point])[1]))
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
        mode=how,
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
    grouped: dict[tuple[str, str], list[TurnDocument]] = defaultdict(list)
    for d in docs:
        grouped[(str(d.get("event")), str(d.get("job_id")))].append(d)
    return [
        judge_entry(e, latest(grouped.get((e["confirmation"]["event"], e["id"]), [])))
        for e in entries
    ]


def latest(docs: list[TurnDocument]) -> list[TurnDocument]:
    """The documents of an A/B job's latest attempt (a job run again writes its turns
    again, under its attempt's artifact)."""

    def attempt(d: TurnDocument) -> int:
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
