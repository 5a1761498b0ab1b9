"""The events of `results compare --json` (schema sglang-ci/verdicts/2, docs/results.md),
typed: the one place that reads that contract for confirmation, bisection and tracking
issues. Unknown keys are ignored; a missing key reads as empty."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from generator.catalog.regression import weight
from generator.core import jsonread
from generator.results.record import ResultsError
from generator.results.verdicts_json import SCHEMA_PREFIX

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from generator.results.history import ServerDoc
    from generator.results.verdicts_json import EventDoc, MetricDoc, PointDoc, VerdictsDoc

SUSPECTED, CONFIRMED = "suspected", "confirmed"
# Point verdicts that say the point was measured (its server was judged this run).
UNMEASURED = ("missing", "invalid")
_Value = TypeVar("_Value")


@dataclass(frozen=True, kw_only=True)
class EventServer:
    config: str
    fingerprint: str | None
    runner_label: str | None
    image_family: str | None

    def key(self) -> tuple[str, str | None, str | None, str | None]:
        return (self.config, self.fingerprint, self.runner_label, self.image_family)

    def as_dict(self) -> dict[str, str | None]:
        return dict(self.__dict__)


@dataclass(frozen=True, kw_only=True)
class EventChange:
    change: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True, kw_only=True)
class EventPoint:
    isl: int
    osl: int
    concurrency: int

    @property
    def label(self) -> str:
        return f"{self.isl}x{self.osl} c{self.concurrency}"


@dataclass(frozen=True, kw_only=True)
class ConfirmEvent:
    id: str
    state: str
    confirmed_by: str | None
    cause: str | None
    server: EventServer
    first_bad_run: str | None
    last_good_run: str | None
    runs: int
    points: tuple[EventPoint, ...]
    metrics: tuple[str, ...]
    changes: dict[str, EventChange]
    differences: dict[str, tuple[str | None, str | None]]


def by_weight(changes: Mapping[str, EventChange]) -> list[tuple[str, EventChange]]:
    """An event's changes, the metric that defines it first (regression.weight)."""
    return sorted(changes.items(), key=lambda item: weight(item[0], item[1].change))


def defining_metric(event: ConfirmEvent) -> str | None:
    """The metric that defines `event`: its first by weight."""
    first = next(iter(by_weight(event.changes)), None)
    return first[0] if first else None


@dataclass(frozen=True, kw_only=True)
class CompareEvents:
    """What confirmation needs of one `results compare --json` output."""

    current: str
    events: tuple[ConfirmEvent, ...]
    measured: frozenset[tuple[str, str | None, str | None, str | None]]
    # (server key, isl, osl, concurrency) -> metric -> relative change of the point
    point_changes: dict[tuple[Any, ...], dict[str, float]]
    # (server key, isl, osl, concurrency) -> metric -> the point's value in this run
    point_values: dict[tuple[Any, ...], dict[str, float]] = field(default_factory=dict)
    # (server key, isl, osl, concurrency) -> metric -> the metric's verdict in this run
    point_verdicts: dict[tuple[Any, ...], dict[str, str]] = field(default_factory=dict)

    def back(self, event: ConfirmEvent, metric: str) -> bool:
        """Whether this run measured `metric` at every point of the event and judged it
        `ok` or `improved` at each: the event is reported, its points are back."""
        keys = [(event.server.key(), p.isl, p.osl, p.concurrency) for p in event.points]
        found = [self.point_verdicts.get(k, {}).get(metric) for k in keys]
        return bool(found) and all(v in ("ok", "improved") for v in found)

    def tonight(
        self, event: ConfirmEvent, metric: str
    ) -> list[tuple[EventPoint, float | None, float]]:
        """The event's points as this run measured them: (point, value, change) of
        `metric`, for the points this run judged."""
        out = []
        for p in event.points:
            key = (event.server.key(), p.isl, p.osl, p.concurrency)
            change = self.point_changes.get(key, {}).get(metric)
            if change is not None:
                out.append((p, self.point_values.get(key, {}).get(metric), change))
        return out

    def suspected(self) -> list[ConfirmEvent]:
        """Events suspected and not yet confirmed: each gets an A/B, again every night it stays
        suspected (its image A from before its first bad run)."""
        return [e for e in self.events if e.state == SUSPECTED]


def _server(data: ServerDoc | PointDoc, config: str) -> EventServer:
    return EventServer(
        config=config,
        fingerprint=data.get("fingerprint"),
        runner_label=data.get("runner_label"),
        image_family=data.get("image_family"),
    )


def _event(data: EventDoc) -> ConfirmEvent:
    config = str(data.get("config") or "")
    changes = {
        str(k): EventChange(change=v.get("change"), low=v.get("low"), high=v.get("high"))
        for k, v in (data.get("changes") or {}).items()
        if isinstance(v, dict)
    }
    differences = {
        str(k): (v[0], v[1])
        for k, v in (data.get("differences") or {}).items()
        if isinstance(v, list) and len(v) == 2
    }
    return ConfirmEvent(
        id=str(data["id"]),
        state=str(data.get("state") or SUSPECTED),
        confirmed_by=data.get("confirmed_by"),
        cause=data.get("cause"),
        server=_server(data.get("server") or {}, config),
        first_bad_run=data.get("first_bad_run"),
        last_good_run=data.get("last_good_run"),
        runs=int(data.get("runs") or 1),
        points=tuple(
            EventPoint(isl=int(p["isl"]), osl=int(p["osl"]), concurrency=int(p["concurrency"]))
            for p in data.get("points") or ()
            if "concurrency" in p
        ),
        metrics=tuple(str(m) for m in data.get("metrics") or ()),
        changes=changes,
        differences=differences,
    )


def _each(
    metrics: Mapping[str, MetricDoc], key: str, kind: type[_Value] | tuple[type[_Value], ...]
) -> dict[str, _Value]:
    """Each metric's `key` of a point, where it is of `kind`."""
    return {
        str(m): value
        for m, v in metrics.items()
        if isinstance(v, dict) and isinstance(value := v.get(key), kind)
    }


def parse(data: object, where: str) -> CompareEvents:
    """The verdicts of a `results compare --json` object; ResultsError when it is not one."""
    if not isinstance(data, dict) or not str(data.get("schema", "")).startswith(SCHEMA_PREFIX):
        msg = f"{where}: not the JSON of `sglang-ci results compare --json`"
        raise ResultsError(msg)
    doc = cast("VerdictsDoc", data)  # checked as verdicts_json.load checks it
    events = tuple(_event(e) for e in doc.get("events") or () if isinstance(e, dict))
    measured = set()
    changes: dict[tuple[Any, ...], dict[str, float]] = {}
    values: dict[tuple[Any, ...], dict[str, float]] = {}
    verdicts: dict[tuple[Any, ...], dict[str, str]] = {}
    for p in doc.get("points") or ():
        server = _server(p, str(p.get("config") or ""))
        if p.get("verdict") not in UNMEASURED:
            measured.add(server.key())
        key = (server.key(), p.get("isl"), p.get("osl"), p.get("concurrency"))
        metrics = p.get("metrics") or {}
        changes[key] = {m: float(v) for m, v in _each(metrics, "change", (int, float)).items()}
        values[key] = {m: float(v) for m, v in _each(metrics, "current", (int, float)).items()}
        verdicts[key] = {m: str(v) for m, v in _each(metrics, "verdict", str).items()}
    return CompareEvents(
        current=str(doc.get("current") or ""),
        events=events,
        measured=frozenset(measured),
        point_changes=changes,
        point_values=values,
        point_verdicts=verdicts,
    )


def load(path: Path) -> CompareEvents:
    try:
        data = jsonread.load(path)
    except (OSError, ValueError) as exc:
        msg = f"{path}: cannot read the verdicts: {exc}"
        raise ResultsError(msg) from exc
    return parse(data, str(path))
