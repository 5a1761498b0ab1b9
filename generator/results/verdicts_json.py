"""The verdicts JSON of `results compare --json`, as the run summary and the dashboard read
it: the one adapter between compare's output and what shows it.

It reads the output contract of docs/results.md ("The verdicts JSON": `outcome`; `points`
with config, isl, osl, concurrency, verdict and per metric its verdict and change; `curves`;
`events`) and the earlier shape (`exit_code` for the outcome, curves with a `pair`, no
events: one event per config with regressed or suspected points or curves is made up for
them). A verdicts file kept in a manifest years ago still reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypedDict, cast

from generator.catalog.regression import PolicyDoc
from generator.core import jsonread
from generator.results.expected import PointIdentity
from generator.results.history import ServerDoc
from generator.results.record import ResultsError
from generator.results.shown_events import event_of, made_up_events
from generator.results.shown_verdicts import (
    MetricVerdict,
    PointVerdict,
    ShownCurveVerdict,
    Verdicts,
    number,
    pair_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.results.gates import GateDoc
    from generator.results.history import PairDoc, PointKeyDoc

SCHEMA_PREFIX = "sglang-ci/verdicts/"


class MetricDoc(TypedDict):
    """One metric of a point (verdicts/point_verdicts.py judges it)."""

    metric: str
    verdict: str
    current: float
    baseline: float | None
    band: float | None
    change: float | None
    low: float | None
    high: float | None
    runs: int  # the reference's runs
    previous: float | None
    note: str | None


class PointDoc(PointIdentity):
    verdict: str
    reason: str | None
    metrics: dict[str, MetricDoc]


class CurveDoc(ServerDoc):
    """One ISL/OSL pair of a server; `interactivity` and `compared` are always null."""

    pair: str
    isl: int
    osl: int
    verdict: str
    interactivity: None
    change: float | None
    compared: None
    note: str | None


class EventDoc(TypedDict):
    id: str
    state: str
    confirmed_by: str | None
    confirmed_in: str | None
    new_confirmation: bool
    cause: str | None
    config: str
    server: ServerDoc
    first_bad_run: str
    last_good_run: str | None
    runs: int
    points: list[PointKeyDoc]
    curves: list[PairDoc]
    metrics: list[str]
    changes: dict[str, dict[str, float]]  # metric -> change, low, high
    differences: dict[str, list[str | None]]  # what -> [before, after]
    how: list[str]


class VerdictsPolicy(PolicyDoc):
    source: str


class MissingCase(TypedDict):
    id: str
    case: str


class VerdictsDoc(TypedDict):
    """The verdicts JSON of `results compare --json` (verdicts/comparison.py writes it)."""

    schema: str
    current: str
    history_runs: int
    policy: VerdictsPolicy
    exit_code: int
    outcome: Literal["pass", "fail"]
    reason: str | None
    causes: list[str]
    missing: int
    regressions: int
    confirmed: list[str]
    invalid: list[str]
    counts: dict[str, dict[str, int]]
    events: list[EventDoc]
    gates: list[GateDoc]
    missing_cases: list[MissingCase]
    problems: list[str]
    points: list[PointDoc]
    curves: list[CurveDoc]


def _metrics(raw: Mapping[str, Any] | Iterable[Any] | None) -> tuple[MetricVerdict, ...]:
    items = raw.items() if isinstance(raw, Mapping) else ((None, m) for m in raw or ())
    out = []
    for name, m in items:
        if isinstance(m, Mapping):
            out.append(
                MetricVerdict(
                    metric=str(m.get("metric") or name),
                    verdict=str(m.get("verdict")),
                    change=number(m.get("change")),
                )
            )
    return tuple(out)


def _point(p: Mapping[str, Any]) -> PointVerdict:
    isl, osl = pair_of(p)
    return PointVerdict(
        config=str(p.get("config")),
        isl=isl,
        osl=osl,
        concurrency=int(p.get("concurrency") or 0),
        verdict=str(p.get("verdict")),
        reason=p.get("reason"),
        metrics=_metrics(p.get("metrics")),
    )


def _curve(c: Mapping[str, Any]) -> ShownCurveVerdict:
    isl, osl = pair_of(c)
    return ShownCurveVerdict(
        config=str(c.get("config")),
        isl=isl,
        osl=osl,
        verdict=str(c.get("verdict")),
        interactivity=number(c.get("interactivity")),
        change=number(c.get("change")),
    )


def read(data: object) -> Verdicts:
    """The verdicts of one `results compare --json` document."""
    if not isinstance(data, Mapping):
        msg = "verdicts are a JSON object"
        raise ValueError(msg)
    points = tuple(_point(p) for p in data.get("points") or () if isinstance(p, Mapping))
    curves = tuple(_curve(c) for c in data.get("curves") or () if isinstance(c, Mapping))
    if "events" in data:
        events = tuple(event_of(e) for e in data.get("events") or () if isinstance(e, Mapping))
    else:
        events = made_up_events(data.get("current"), points, curves)
    outcome = data.get("outcome") or ("fail" if data.get("exit_code") else "pass")
    gates = tuple(
        f"{g.get('gate')} gate: {g.get('kind')} {g.get('id')}: {g.get('message')}"
        if isinstance(g, Mapping)
        else str(g)
        for g in data.get("gates") or ()
    )
    return Verdicts(
        outcome=str(outcome),
        reason=data.get("reason"),
        points=points,
        curves=curves,
        events=events,
        gates=gates,
        missing_cases=tuple(
            str(c.get("id")) if isinstance(c, Mapping) else str(c)
            for c in data.get("missing_cases") or ()
        ),
        causes=tuple(str(c) for c in data.get("causes") or () if isinstance(c, str)),
    )


def load(path: Path) -> VerdictsDoc:
    """A verdicts file as written by `results compare --json --out`: refused (exit 2)
    unless it is that (the Markdown an earlier workflow wrote there is not)."""
    try:
        data = jsonread.load(path)
    except (OSError, UnicodeDecodeError) as e:
        msg = f"{path}: cannot read the verdicts: {e}"
        raise ResultsError(msg) from e
    except ValueError as e:
        msg = f"{path}: not valid JSON ({e}); write it with --json --out"
        raise ResultsError(msg) from e
    if not isinstance(data, dict) or not str(data.get("schema", "")).startswith(SCHEMA_PREFIX):
        msg = f"{path}: not the verdicts of results compare --json"
        raise ResultsError(msg)
    return cast("VerdictsDoc", data)  # written by `results compare --json` (Comparison)
