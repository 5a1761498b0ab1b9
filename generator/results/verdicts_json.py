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
from dataclasses import dataclass
from typing import Any

from generator.launch import jsonread
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SCHEMA_PREFIX = "sglang-ci/verdicts/"
REGRESSION = "regression"
SUSPECTED = "suspected"
# Verdicts a dashboard marks on its charts, most severe first.
MARKED = (REGRESSION, SUSPECTED)


@dataclass(frozen=True, kw_only=True)
class MetricVerdict:
    metric: str
    verdict: str
    change: float | None


@dataclass(frozen=True, kw_only=True)
class PointVerdict:
    config: str
    isl: int
    osl: int
    concurrency: int
    verdict: str
    reason: str | None
    metrics: tuple[MetricVerdict, ...]

    @property
    def pair(self) -> str:
        return f"{self.isl}x{self.osl}"

    def worst_metrics(self) -> tuple[MetricVerdict, ...]:
        """The metrics that carry the point's verdict."""
        return tuple(m for m in self.metrics if m.verdict == self.verdict)


@dataclass(frozen=True, kw_only=True)
class CurveVerdict:
    config: str
    isl: int
    osl: int
    verdict: str
    interactivity: float | None
    change: float | None

    @property
    def pair(self) -> str:
        return f"{self.isl}x{self.osl}"


@dataclass(frozen=True, kw_only=True)
class Move:
    """How much one metric of an event moved: the change and its interval (relative)."""

    metric: str
    change: float
    low: float | None
    high: float | None

    @property
    def text(self) -> str:
        """`-8.1% [-9.0%, -7.2%]`."""
        interval = (
            f" [{self.low:+.1%}, {self.high:+.1%}]"
            if self.low is not None and self.high is not None
            else ""
        )
        return f"{self.change:+.1%}{interval}"


@dataclass(frozen=True, kw_only=True)
class Event:
    id: str
    config: str
    verdict: str
    first_bad_run: str | None
    last_good_run: str | None
    points: tuple[str, ...]
    metrics: tuple[str, ...]
    changes: tuple[tuple[str, str], ...]
    # (isl, osl, concurrency) of its points, concurrency None for a curve
    at: tuple[tuple[int, int, int | None], ...] = ()
    state: str | None = None  # the engine's state: suspected, confirmed, cleared, ...
    confirmed_by: str | None = None
    runs: int = 1  # runs that reported it, as the run that wrote this says
    # the metrics that moved, the one that defines the event first
    moves: tuple[Move, ...] = ()
    # what differs between the last good and the first bad run: (what, before, after)
    differences: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, kw_only=True)
class Verdicts:
    outcome: str
    reason: str | None
    points: tuple[PointVerdict, ...]
    curves: tuple[CurveVerdict, ...]
    events: tuple[Event, ...]
    gates: tuple[str, ...]
    missing_cases: tuple[str, ...]
    causes: tuple[str, ...] = ()  # why the run fails, a line each

    @property
    def regressions(self) -> int:
        return sum(p.verdict == REGRESSION for p in self.points) + sum(
            c.verdict == REGRESSION for c in self.curves
        )


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _pair(item: Mapping[str, Any]) -> tuple[int, int]:
    if isinstance(item.get("isl"), int) and isinstance(item.get("osl"), int):
        return int(item["isl"]), int(item["osl"])
    isl, _, osl = str(item.get("pair") or "0x0").partition("x")
    return (int(isl), int(osl)) if isl.isdigit() and osl.isdigit() else (0, 0)


def _metrics(raw: Mapping[str, Any] | Iterable[Any] | None) -> tuple[MetricVerdict, ...]:
    items = raw.items() if isinstance(raw, Mapping) else ((None, m) for m in raw or ())
    out = []
    for name, m in items:
        if isinstance(m, Mapping):
            out.append(
                MetricVerdict(
                    metric=str(m.get("metric") or name),
                    verdict=str(m.get("verdict")),
                    change=_number(m.get("change")),
                )
            )
    return tuple(out)


def _point(p: Mapping[str, Any]) -> PointVerdict:
    isl, osl = _pair(p)
    return PointVerdict(
        config=str(p.get("config")),
        isl=isl,
        osl=osl,
        concurrency=int(p.get("concurrency") or 0),
        verdict=str(p.get("verdict")),
        reason=p.get("reason"),
        metrics=_metrics(p.get("metrics")),
    )


def _curve(c: Mapping[str, Any]) -> CurveVerdict:
    isl, osl = _pair(c)
    return CurveVerdict(
        config=str(c.get("config")),
        isl=isl,
        osl=osl,
        verdict=str(c.get("verdict")),
        interactivity=_number(c.get("interactivity")),
        change=_number(c.get("change")),
    )


# An event's `state` (the verdicts engine's contract) as the verdict it is marked with.
_STATE = {
    "confirmed": REGRESSION,
    "suspected": SUSPECTED,
    "improved": "improved",
    "cleared": "cleared",
}


def _size(value: object) -> str:
    """A change as text: `-10.1% [-11.8%, -8.4%]`, a pair as `before -> after`."""
    if isinstance(value, Mapping) and _number(value.get("change")) is not None:
        low, high = _number(value.get("low")), _number(value.get("high"))
        interval = f" [{low:+.1%}, {high:+.1%}]" if low is not None and high is not None else ""
        return f"{value['change']:+.1%}{interval}"
    if isinstance(value, list | tuple) and len(value) == 2:
        return f"{value[0]} -> {value[1]}"
    return str(value)


def _event(e: Mapping[str, Any]) -> Event:
    pairs: list[tuple[str, str]] = []
    for key in ("changes", "differences"):
        found = e.get(key) or {}
        if isinstance(found, Mapping):
            pairs += [(str(k), _size(v)) for k, v in found.items()]
        elif isinstance(found, list):
            pairs += [
                (str(i.get("what")), f"{i.get('before')} -> {i.get('after')}")
                if isinstance(i, Mapping)
                else (str(i), "")
                for i in found
            ]
    points = [*(e.get("points") or ()), *(e.get("curves") or ())]
    verdict = e.get("verdict") or _STATE.get(str(e.get("state")), REGRESSION)
    moves = tuple(
        Move(
            metric=str(k),
            change=float(v["change"]),
            low=_number(v.get("low")),
            high=_number(v.get("high")),
        )
        for k, v in (e.get("changes") or {}).items()
        if isinstance(e.get("changes"), Mapping)
        and isinstance(v, Mapping)
        and _number(v.get("change")) is not None
    )
    found = e.get("differences")
    differences = tuple(
        (str(k), "-" if v[0] is None else str(v[0]), "-" if v[1] is None else str(v[1]))
        for k, v in (found.items() if isinstance(found, Mapping) else ())
        if isinstance(v, list | tuple) and len(v) == 2
    )
    state, runs, by = e.get("state"), e.get("runs"), e.get("confirmed_by")
    return Event(
        id=str(e.get("id")),
        config=str(e.get("config")),
        verdict=str(verdict),
        first_bad_run=e.get("first_bad_run"),
        last_good_run=e.get("last_good_run"),
        points=tuple(
            (
                f"{p.get('isl')}x{p.get('osl')} c={p['concurrency']}"
                if "concurrency" in p
                else f"{p.get('isl')}x{p.get('osl')} curve"
            )
            if isinstance(p, Mapping)
            else str(p)
            for p in points
        ),
        metrics=tuple(str(m) for m in e.get("metrics") or ()),
        changes=tuple(pairs),
        at=tuple(
            (*_pair(p), int(p["concurrency"]) if isinstance(p.get("concurrency"), int) else None)
            for p in points
            if isinstance(p, Mapping)
        ),
        state=str(state) if isinstance(state, str) else None,
        confirmed_by=str(by) if isinstance(by, str) else None,
        runs=runs if isinstance(runs, int) and not isinstance(runs, bool) else 1,
        moves=moves,
        differences=differences,
    )


def _made_up_events(
    run: str | None, points: tuple[PointVerdict, ...], curves: tuple[CurveVerdict, ...]
) -> tuple[Event, ...]:
    """One event per config with marked points or curves (compare without events)."""
    configs = sorted(
        {p.config for p in points if p.verdict in MARKED}
        | {c.config for c in curves if c.verdict in MARKED}
    )
    out = []
    for config in configs:
        mine = [p for p in points if p.config == config and p.verdict in MARKED]
        bent = [c for c in curves if c.config == config and c.verdict in MARKED]
        verdicts = [p.verdict for p in mine] + [c.verdict for c in bent]
        worst = REGRESSION if REGRESSION in verdicts else SUSPECTED
        out.append(
            Event(
                id=f"{config}@{run}",
                config=config,
                verdict=worst,
                first_bad_run=run,
                last_good_run=None,
                points=tuple(f"{p.pair} c={p.concurrency}" for p in mine)
                + tuple(f"{c.pair} curve" for c in bent),
                metrics=tuple(
                    sorted({m.metric for p in mine for m in p.metrics if m.verdict in MARKED})
                ),
                changes=(),
                at=tuple((p.isl, p.osl, p.concurrency) for p in mine)
                + tuple((c.isl, c.osl, None) for c in bent),
            )
        )
    return tuple(out)


def read(data: object) -> Verdicts:
    """The verdicts of one `results compare --json` document."""
    if not isinstance(data, Mapping):
        msg = "verdicts are a JSON object"
        raise ValueError(msg)
    points = tuple(_point(p) for p in data.get("points") or () if isinstance(p, Mapping))
    curves = tuple(_curve(c) for c in data.get("curves") or () if isinstance(c, Mapping))
    if "events" in data:
        events = tuple(_event(e) for e in data.get("events") or () if isinstance(e, Mapping))
    else:
        events = _made_up_events(data.get("current"), points, curves)
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


def load(path: Path) -> dict[str, Any]:
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
    return data
