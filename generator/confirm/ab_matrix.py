"""The confirmation matrix of a scheduled run: one A/B job per new `suspected` event's
server, on the same runner label, from the run's own job matrix (docs/confirmation.md).

Per event, worst change first, at most `max_jobs`: the run's job of the event's server
(same config, fingerprint and runner label), its points among the event's (at most
`max_points`, the largest changes first), the current image of that job (B) and the
image the last good run measured that server with (A), read from that run's records;
between them, the other digests of the same image family the history recorded after
the last good run, oldest first (the nightlies a bisection can name). An event is
skipped, with the reason, when no job of this run serves it, when either image is not
pinned by digest, or when both runs ran the same image (an A/B could not tell them apart).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from generator.catalog.regression import METRICS, Policy
from generator.confirm import aa_noise
from generator.confirm.ab_images import candidates, job_side, server_image
from generator.core import ab_noise, ab_order
from generator.core.logtext import md_code as code
from generator.core.logtext import md_text as text
from generator.expand.rederive import NotDerived
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path

    from generator.confirm.events import CompareEvents, ConfirmEvent
    from generator.core.abjob import ConfirmationEntry, ConfirmationFields, SideImage
    from generator.core.contract import JobEntry, PointEntry

MAX_TIMEOUT_MINUTES = 72 * 60
THROUGHPUT = "output_throughput_per_gpu"


@dataclass(frozen=True, kw_only=True)
class Skipped:
    event: str
    config: str
    reason: str


def size(changes: Iterable[float | None]) -> float:
    """How an event or a point is ranked for an A/B: its largest relative change."""
    return max((abs(c or 0.0) for c in changes), default=0.0)


def _size(event: ConfirmEvent) -> float:
    return size(c.change for c in event.changes.values())


def _job_for(event: ConfirmEvent, jobs: Sequence[JobEntry]) -> JobEntry | None:
    s = event.server
    for job in jobs:
        if (
            job.get("config") == s.config
            and (s.fingerprint is None or job.get("server_fingerprint") == s.fingerprint)
            and (s.runner_label is None or job.get("runner") == s.runner_label)
        ):
            return job
    return None


def _points(
    event: ConfirmEvent, job: JobEntry, verdicts: CompareEvents, most: int
) -> list[PointEntry]:
    wanted = {(p.isl, p.osl, p.concurrency) for p in event.points}
    metrics = event.metrics or (THROUGHPUT,)

    def change(point: PointEntry) -> float:
        key = (event.server.key(), point["isl"], point["osl"], point["concurrency"])
        got = verdicts.point_changes.get(key, {})
        return size(got.get(m) for m in metrics)

    chosen = [p for p in job["points"] if (p["isl"], p["osl"], p["concurrency"]) in wanted]
    return sorted(chosen, key=lambda p: (-change(p), p["id"]))[:most]


def _timeout(job: JobEntry, points: list[PointEntry], policy: Policy) -> int:
    """Every A/B step with restarts (the longer form), twice over, within 72 hours."""
    c = policy.confirm
    per = float(ab_order.launches(ab_order.RESTART, c.repeats) * job["startup_minutes"])
    per += 2 * c.repeats * sum(float(p["estimate_minutes"]) for p in points)
    least = int(job["timeout_minutes"])
    return min(MAX_TIMEOUT_MINUTES, max(least, math.ceil(2 * c.steps * per)))


def build(
    verdicts: CompareEvents,
    jobs: Sequence[JobEntry],
    history: Path,
    policy: Policy,
    derive: Callable[[JobEntry], JobEntry],
) -> tuple[list[ConfirmationEntry], list[Skipped]]:
    """The confirmation matrix's entries and the events left out, with why. `derive` gives
    the catalogs' job entry for a job's config, server mode and some of its points (the
    function the caller check derives it with: `expand.rederive.job_for`)."""
    c = policy.confirm
    entries: list[ConfirmationEntry] = []
    skipped: list[Skipped] = []
    if not c.enabled:
        return [], []

    def skip(event: ConfirmEvent, reason: str) -> None:
        skipped.append(Skipped(event=event.id, config=event.server.config, reason=reason))

    for event in sorted(verdicts.suspected(), key=lambda e: (-_size(e), e.id)):
        job = _job_for(event, jobs)
        if job is None:
            skip(event, "no job of this run serves it")
            continue
        points = _points(event, job, verdicts, c.max_points)
        if not points:
            skip(event, "none of its points is a point of this run's job")
            continue
        b = job_side(job, verdicts.current)
        a = server_image(history, event.last_good_run, event)
        if a is None or b is None:
            which = "the current" if b is None else f"the last good run's ({event.last_good_run})"
            skip(event, f"{which} image is not pinned by digest")
            continue
        if a["image_digest"] == b["image_digest"]:
            skip(event, f"the last good and the current run ran the same image {b['image']}")
            continue
        if len(entries) >= c.max_jobs:
            skip(event, f"regression.confirm.max_jobs ({c.max_jobs}) reached")
            continue
        try:
            derived = derive({**job, "points": points})
        except NotDerived as e:
            skip(event, f"no job of the catalogs measures these points: {e}")
            continue
        metrics = [m for m in event.metrics if m in METRICS] or [THROUGHPUT]
        between = candidates(history, a, b) if c.bisect else []
        noise = aa_noise.measured(history, str(job["runner"]))
        sides = (a, b, between)
        entries.append(entry(job, derived, points, policy, event.id, metrics, sides, noise))
    return entries, skipped


def entry(
    job: JobEntry,
    derived: JobEntry,
    points: list[PointEntry],
    policy: Policy,
    event: str,
    metrics: Sequence[str],
    sides: tuple[SideImage, SideImage, list[SideImage]],
    noise: ab_noise.Noise | None,
) -> ConfirmationEntry:
    """An A/B job: the run's `job` as the catalogs derive it for `points`, with the
    confirmation block of `event` (`sides`: A, B and the candidates between them).
    `noise`: what the A/As of the runner label measured (aa_noise.py); None: the A/B
    takes ab_noise.DEFAULT_NOISE."""
    c = policy.confirm
    a, b, between = sides
    conf: ConfirmationFields = {
        "event": event,
        "repeats": c.repeats,
        "level": c.level,
        "metrics": {
            m: {"higher_is_better": METRICS[m], "min_change": policy.change(m)} for m in metrics
        },
        "a": a,
        "b": b,
        "candidates": between,
        "max_bisect_steps": c.max_bisect_steps if c.bisect else 0,
    }
    if noise is not None:
        conf["noise"] = noise.as_dict()
    return {
        **job,
        **derived,
        "timeout_minutes": _timeout(job, points, policy),
        "confirmation": conf,
    }


def aa_entries(
    jobs: Sequence[JobEntry],
    policy: Policy,
    derive: Callable[[JobEntry], JobEntry],
) -> list[ConfirmationEntry]:
    """An A/A per job of a selected matrix (`sglang-ci dispatch`): its first `max_points`
    points on its image on both sides, as an A/B of the same catalogs would measure them
    (aa_noise.py); refused when a job's image is not pinned by digest."""
    c = policy.confirm
    entries = []
    for job in jobs:
        points = list(job["points"])[: c.max_points]
        side = job_side(job, None)
        if side is None:
            msg = f"job {job['id']}: its image {job['image']} is not pinned by digest"
            raise ResultsError(msg)
        try:
            derived = derive({**job, "points": points})
        except NotDerived as e:
            msg = f"job {job['id']}: no job of the catalogs measures its points: {e}"
            raise ResultsError(msg) from e
        event = f"aa-{job['id']}"
        entries.append(
            entry(job, derived, points, policy, event, [THROUGHPUT], (side, side, []), None)
        )
    return entries


def markdown(entries: Sequence[ConfirmationEntry], skipped: Sequence[Skipped]) -> list[str]:
    if not entries and not skipped:
        return []
    lines = ["### A/B confirmation jobs", ""]
    for e in entries:
        conf = e["confirmation"]
        lines.append(
            f"- {code(e['id'])} on {code(e['runner'])} for event {code(conf['event'])}: "
            f"{len(e['points'])} point(s) x {conf['repeats']} repeats, "
            f"A {code(conf['a']['image'])} (run {code(conf['a']['run'])}), "
            f"B {code(conf['b']['image'])}, "
            f"{len(conf['candidates'])} nightly image(s) between"
        )
    lines += [
        f"- event {code(s.event)} ({text(s.config)}) has no A/B: {text(s.reason)}" for s in skipped
    ]
    return [*lines, ""]
