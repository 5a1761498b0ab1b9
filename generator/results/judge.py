"""The verdicts of one server's run against its series (history.py): pure, no I/O.

Per metric, on its badness scale (scales.py):

- **the server**: each run's pooled worsening is the median over its points of each
  point's badness less the point's median over the series. Half the noise of a run is
  shared by all points of a config, so a config-wide step and that shared noise move this
  pooled value alike; its own scale measures both, and its rule (`server` below) suspects
  a worsening on the first run at a low threshold and confirms it only when the runs since
  then lie well beyond the reference together. E-Divisive change points on the same pooled
  series (changepoint.py) add the slow worsenings: small steps, staircases and drift.
- **each point**: its residual, the point less its server's pooled value in the same run,
  carries only the point's own noise; a single-point step shows there (`point` rule, the
  catalog's k and minimum change).

A point's verdict then says whether a finding of the server (that moved this point) or of
the point itself is open at the run being judged, else whether the point improved.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, replace

from generator.results.changepoint import Detector, Slow, edivisive, slow_finding
from generator.results.curve import CurveResult, judge_curve
from generator.results.history import PointKey, Sample, ServerKey, ServerSeries
from generator.results.scales import Scale
from generator.results.track import (
    Finding,
    Level,
    Rule,
    Tracker,
    inflate,
    pooled,
    robust,
    spread,
    trimmed,
)
from generator.results.verdict import (
    IMPROVED,
    INSUFFICIENT,
    NEW,
    OK,
    REGRESSION,
    SUSPECTED,
    worst,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence

    from generator.catalog.regression import Policy

Z95 = 1.959964
CURVE_METRIC = "output_throughput_per_gpu"
SERVER = "server"
POINT = "point"
CURVE = "curve"
# A point moved with its server's finding when its own mean worsening over the finding's
# runs is at least this share of the server's.
AFFECTED = 0.5
# Fewer points than this in a server: its points are judged through the server alone
# (a residual against the median of one or two points says nothing).
MIN_POINTS = 3
# A point whose own residual scale is this many times its server's median is judged in
# its own.
LOUDER = 1.5
# The change points are looked for only when the mean of the last LOOK runs of the pooled
# series lies 0.75 scales (and half the minimum change) worse than the window's median.
LOOK = 3
# Metrics whose single-point values have too heavy a tail to be confirmed from two runs
# (a TTFT spike at one point): a point's finding of these stays suspected; they are
# confirmed through the server's pooled series, which one point's spike does not move.
HEAVY = frozenset({"median_ttft_ms"})


@dataclass(frozen=True, kw_only=True)
class Rules:
    point: Rule
    point_alone: Rule  # HEAVY metrics: never confirmed by one point
    server: Rule
    slow: Slow
    policy: Policy

    def floor(self, metric: str) -> float:
        return self.policy.change(metric)


def rules(policy: Policy, detector: Detector = edivisive) -> Rules:
    window, least = policy.window, policy.min_runs
    point = Rule(
        suspect=policy.k,
        agree=policy.k,
        confirm=policy.k,
        follow=policy.k,
        consistent=policy.consistency,
        min_runs=least,
        full=policy.runs,
        window=window,
    )
    return Rules(
        point=point,
        point_alone=replace(point, confirm=math.inf),
        server=Rule(
            suspect=policy.server.suspect,
            agree=policy.server.agree,
            confirm=math.inf,
            follow=math.inf,
            consistent=policy.consistency,
            min_runs=least,
            full=policy.runs,
            window=window,
            allowance=policy.server.allowance,
            expire=policy.server.expire,
        ),
        slow=Slow(
            p_value=policy.change_points.p_value,
            permutations=policy.change_points.permutations,
            full=policy.runs,
            min_z=policy.change_points.min_z,
            detector=detector,
        ),
        policy=policy,
    )


@dataclass(frozen=True, kw_only=True)
class Found:
    """An open finding of the server being judged."""

    metric: str
    scope: str  # SERVER | POINT | CURVE
    point: PointKey | None
    finding: Finding
    change: float  # relative change of the metric's value over the finding's runs
    low: float
    high: float
    how: str  # "runs": the sequential rule; "change point": E-Divisive
    # Run index that confirmed it, known when the finding is confirmed.
    points: tuple[PointKey, ...] = ()

    @property
    def onset(self) -> int:
        return self.finding.onset

    @property
    def confirmed(self) -> bool:
        return self.finding.confirmed_at is not None


@dataclass(frozen=True, kw_only=True)
class MetricResult:
    metric: str
    verdict: str
    current: float
    baseline: float | None
    band: float | None
    change: float | None
    low: float | None
    high: float | None
    runs: int
    previous: float | None
    note: str | None = None

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


@dataclass(frozen=True, kw_only=True)
class ServerJudgement:
    series: ServerSeries
    points: dict[PointKey, tuple[MetricResult, ...]] = field(default_factory=dict)
    curves: dict[tuple[int, int], CurveResult] = field(default_factory=dict)
    found: tuple[Found, ...] = ()


def _interval(scale: Scale, ref: float, worse: float, se: float) -> tuple[float, float, float]:
    change = scale.relative(worse, ref)
    a, b = scale.relative(worse - Z95 * se, ref), scale.relative(worse + Z95 * se, ref)
    return change, min(a, b), max(a, b)


def _found(
    metric: str, scope: str, point: PointKey | None, f: Finding, scale: Scale, ref: float, how: str
) -> Found:
    change, low, high = _interval(scale, ref, f.change, f.se)
    return Found(
        metric=metric,
        scope=scope,
        point=point,
        finding=f,
        change=change,
        low=low,
        high=high,
        how=how,
    )


def _median(values: Sequence[float | None]) -> float | None:
    found = [v for v in values if v is not None]
    return statistics.median(found) if found else None


class _Metric:
    """One metric of one server: its badness series, pooled series and findings."""

    def __init__(
        self,
        series: ServerSeries,
        metric: str,
        r: Rules,
        known: Collection[int] = (),
        noise: Noise | None = None,
    ) -> None:
        self.series, self.metric, self.r = series, metric, r
        self.known = known
        self.noise = noise or Noise()
        self.scale = Scale(metric=metric)
        n = series.current
        wanted = [
            p
            for p in sorted(series.samples)
            if metric != "acceptance_rate" or p in series.acceptance
        ]
        self.w = {p: [self.scale.badness(v) for v in series.values(p, metric)] for p in wanted}
        self.center = {p: _median(w[:n]) for p, w in self.w.items()}
        centered = {p: c for p, c in self.center.items() if c is not None}
        pairs = [(self.w[p], c) for p, c in centered.items()]
        self.pooled: list[float | None] = []
        for i in range(n + 1):
            devs = [v - c for v, c in ((w[i], c) for w, c in pairs) if v is not None]
            self.pooled.append(statistics.median(devs) if devs else None)
        typical = statistics.median(centered.values()) if centered else 0.0
        self.typical = typical

    def floor(self, fraction: float, ref: float) -> float:
        return self.scale.units(fraction, ref)

    def server(self) -> Found | None:
        n, r, scale = self.series.current, self.r, self.scale
        # A metric without a limit of its own is pooled but never confirms alone: its
        # findings join its server's events (TPOT moves with throughput per GPU).
        limit = r.policy.server.limit(self.metric) or math.inf
        if self.pooled[n] is None:
            return None
        magnitude = self.floor(r.policy.server.share * r.floor(self.metric), self.typical)
        fast = Tracker(
            replace(r.server, limit=limit),
            self.pooled,
            boundary=self.series.boundary,
            floor=lambda _ref: magnitude,
            scale_floor=scale.floor(self.typical),
            known=self.known,
            prior=self.noise.server,
        ).run()
        if fast is not None and fast.stretch[-1] != n:
            fast = None
        slow = self._slow(n, magnitude)
        if fast is None and slow is None:
            return None
        if fast is not None and (
            fast.confirmed_at is not None or slow is None or len(fast.stretch) < 2
        ):
            return _found(self.metric, SERVER, None, fast, scale, self.typical, "runs")
        assert slow is not None
        if fast is not None:
            # The run rule saw it first: its onset stays, the change points confirm it.
            merged = Finding(
                onset=fast.onset,
                reference=fast.reference,
                stretch=fast.stretch,
                worse=fast.worse,
                confirmed_at=n if slow.confirmed_at is not None else None,
            )
            return _found(self.metric, SERVER, None, merged, scale, self.typical, "change point")
        return _found(self.metric, SERVER, None, slow, scale, self.typical, "change point")

    def _slow(self, n: int, magnitude: float) -> Finding | None:
        r = self.r
        start = max(0, n + 1 - r.policy.window)
        idx = [i for i in range(start, n + 1) if self.pooled[i] is not None]
        vals = [v for v in (self.pooled[i] for i in idx) if v is not None]
        if len(vals) < r.slow.full + LOOK or idx[-1] != n:
            return None
        # Worth a look only when the last runs lie on the bad side of the window.
        level, scale, _ = robust(vals, self.scale.floor(self.typical))
        if statistics.fmean(vals[-LOOK:]) - level < max(0.75 * scale, magnitude / 2):
            return None
        found = slow_finding(
            r.slow,
            idx,
            vals,
            floor=lambda _ref: magnitude,
            scale_floor=self.scale.floor(self.typical),
        )
        if found is None:
            return None
        return Finding(
            onset=found.onset,
            reference=found.reference,
            stretch=found.stretch,
            worse=found.worse,
            confirmed_at=n,
        )

    def residuals(self) -> dict[PointKey, list[float | None]]:
        out: dict[PointKey, list[float | None]] = {}
        for p, w in self.w.items():
            c = self.center[p]
            out[p] = [
                None if c is None or v is None or d is None else v - c - d
                for v, d in zip(w, self.pooled, strict=True)
            ]
        return out

    def points(self) -> dict[PointKey, Found]:
        n, r = self.series.current, self.r
        measured = [p for p, w in self.w.items() if self.center[p] is not None]
        if len(measured) < MIN_POINTS:
            return {}
        residuals = self.residuals()
        # The points of a server share their noise level: a point's residual is judged
        # in the median of their scales (with all their degrees of freedom), unless its
        # own scale is clearly larger.
        own = {p: spread([v for v in e[:n] if v is not None]) for p, e in residuals.items()}
        shared = statistics.median(s for s, _ in own.values())
        pooled_df = sum(df for _, df in own.values())
        rule = r.point if self.metric not in HEAVY else r.point_alone
        out = {}
        for p, e in residuals.items():
            if e[n] is None:
                continue
            c = self.center[p]
            assert c is not None
            mine = own[p] if own[p][0] > LOUDER * shared else (shared, pooled_df)
            f = Tracker(
                rule,
                e,
                boundary=self.series.boundary,
                floor=_constant(self.floor(r.floor(self.metric), c)),
                scale_floor=self.scale.floor(c),
                scale=mine,
                prior=self.noise.point,
            ).run()
            if f is not None and f.stretch[-1] == n and self._worse(p, f):
                out[p] = _found(self.metric, POINT, p, f, self.scale, c, "runs")
        return out

    def _worse(self, p: PointKey, f: Finding) -> bool:
        """Whether the point itself got worse over `f`'s runs (not only less better than
        its server: a change that moves every point, unevenly, leaves no point finding)."""
        w = self.w[p]
        ref = self.reference(p, f.reference.runs)
        if ref is None:
            return False
        worse = [v - ref.level for v in (w[i] for i in f.stretch) if v is not None]
        floor = self.floor(self.r.floor(self.metric), ref.level)
        return bool(worse) and statistics.fmean(worse) >= floor

    def reference(self, p: PointKey, runs: Sequence[int] | None) -> Level | None:
        """The point's own reference: over `runs` (a finding's), else its segment's last
        `window` valid values before the current run; the scale from its whole series."""
        w = self.w[p]
        n = self.series.current
        past = [v for v in w[:n] if v is not None]
        if not past:
            return None
        if runs is None:
            b = self.series.boundary
            fresh = [i for i in range(b, n) if w[i] is not None]
            if len(fresh) >= self.r.policy.min_runs or not b:
                runs = fresh
            else:
                runs = [i for i in range(b) if w[i] is not None]
            runs = runs[-self.r.policy.window :]
        found = [i for i in runs if w[i] is not None]
        if not found:
            return None
        values = [v for v in (w[i] for i in found) if v is not None]
        _, scale, df = robust(past, self.scale.floor(statistics.median(values)))
        return Level(level=trimmed(values), scale=scale, runs=tuple(found), df=df)

    def affected(self, p: PointKey, server: Found) -> bool:
        w, f = self.w[p], server.finding
        ref = self.reference(p, f.reference.runs)
        if ref is None:
            return False
        worse = [v - ref.level for v in (w[i] for i in f.stretch) if v is not None]
        return bool(worse) and statistics.fmean(worse) >= AFFECTED * f.change


def _constant(value: float) -> Callable[[float], float]:
    return lambda _ref: value


def _metrics(s: Sample | None) -> tuple[str, ...]:
    return tuple(s.values) if s is not None else ()


def _previous(values: Sequence[float | None], n: int) -> float | None:
    return next((v for v in reversed(values[:n]) if v is not None), None)


@dataclass(frozen=True)
class Noise:
    """A metric's noise over the other servers of the history, as (scale, degrees of
    freedom): of a server's pooled run, and of one point about its server's run."""

    server: tuple[float, float] = (0.0, 0.0)
    point: tuple[float, float] = (0.0, 0.0)


def history_noise(
    all_series: Sequence[ServerSeries], r: Rules
) -> dict[ServerKey, dict[str, Noise]]:
    """For each server, each metric's noise over the history's other servers (their runs
    before the one judged): what a server with few runs of its own is judged with."""
    spreads: dict[str, list[tuple[ServerKey, tuple[float, float], list[tuple[float, float]]]]] = {}
    for series in all_series:
        n = series.current
        for metric in sorted({m for s in series.samples.values() for m in _metrics(s[n])}):
            m = _Metric(series, metric, r)
            own = spread([v for v in m.pooled[:n] if v is not None])
            points = [spread([v for v in e[:n] if v is not None]) for e in m.residuals().values()]
            spreads.setdefault(metric, []).append((series.key, own, points))
    out: dict[ServerKey, dict[str, Noise]] = {s.key: {} for s in all_series}
    for metric, found in spreads.items():
        for key, _, _ in found:
            others = [(o, p) for k, o, p in found if k != key]
            out[key][metric] = Noise(
                server=pooled(o for o, _ in others),
                point=pooled(x for _, p in others for x in p),
            )
    return out


def judge_server(
    series: ServerSeries,
    r: Rules,
    confirmed: Collection[str] = frozenset(),
    noise: Mapping[str, Noise] | None = None,
) -> ServerJudgement:
    """The verdict of each metric of each point of the current run, and the findings open
    at it; `confirmed`: the first bad runs of this server's events an earlier night
    confirmed (carry.Memory.known): a pooled worsening that opens on one of them is
    confirmed from its onset (track.py)."""
    n = series.current
    known = frozenset(i for i, run in enumerate(series.runs) if run.name in confirmed)
    found: list[Found] = []
    results: dict[PointKey, list[MetricResult]] = {p: [] for p in series.samples}
    metrics = sorted({m for s in series.samples.values() for m in _metrics(s[n])})
    for metric in metrics:
        m = _Metric(series, metric, r, known, (noise or {}).get(metric))
        server = m.server()
        points = m.points()
        moved = (
            tuple(p for p in m.w if m.w[p][n] is not None and m.affected(p, server))
            if server
            else ()
        )
        if server is not None:
            found.append(Found(**{**server.__dict__, "points": moved}))
        found.extend(points.values())
        for p, w in m.w.items():
            if w[n] is None:
                continue
            own = points.get(p)
            via = server if p in moved else None
            results[p].append(_result(m, p, own, via))
    curves = _curves(series, r)
    for pair, c in curves.items():
        if c.finding is not None:
            f = c.finding
            change, low, high = _interval(
                Scale(metric=CURVE_METRIC),
                0.0,
                f.change,
                f.reference.scale * math.sqrt(1 / len(f.worse) + 1 / max(f.reference.n, 1)),
            )
            found.append(
                Found(
                    metric=CURVE_METRIC,
                    scope=CURVE,
                    point=PointKey(isl=pair[0], osl=pair[1], concurrency=0),
                    finding=f,
                    change=change,
                    low=low,
                    high=high,
                    how="curve",
                )
            )
    return ServerJudgement(
        series=series,
        points={p: tuple(v) for p, v in results.items() if v},
        curves=curves,
        found=tuple(found),
    )


def _curves(series: ServerSeries, r: Rules) -> dict[tuple[int, int], CurveResult]:
    n = series.current
    pairs = sorted(
        {
            (p.isl, p.osl)
            for p, s in series.samples.items()
            if (now := s[n]) is not None and now.interactivity and CURVE_METRIC in now.values
        }
    )
    out = {}
    for pair in pairs:
        measured = [
            p for p, s in series.samples.items() if (p.isl, p.osl) == pair and s[n] is not None
        ]
        if len(measured) < 2:
            continue
        out[pair] = judge_curve(
            series,
            pair,
            k=r.policy.k,
            floor=Scale(metric=CURVE_METRIC).units(r.floor(CURVE_METRIC), 0.0),
            window=r.policy.window,
            min_runs=r.policy.min_runs,
        )
    return out


def _state(f: Found | None) -> str | None:
    if f is None:
        return None
    return REGRESSION if f.confirmed else SUSPECTED


def _result(m: _Metric, p: PointKey, own: Found | None, via: Found | None) -> MetricResult:
    series, scale, r = m.series, m.scale, m.r
    n = series.current
    w = m.w[p]
    value = w[n]
    assert value is not None
    current = scale.value(value)
    previous = _previous(w, n)
    if all(v is None for v in w[:n]):
        return MetricResult(
            metric=m.metric, verdict=NEW, current=current, baseline=None, band=None,
            change=None, low=None, high=None, runs=0, previous=None,
        )  # fmt: skip
    opened = own or via
    ref = m.reference(p, opened.finding.reference.runs if opened else None)
    if ref is None or ref.n < r.policy.min_runs:
        return MetricResult(
            metric=m.metric, verdict=INSUFFICIENT, current=current,
            baseline=scale.value(ref.level) if ref else None, band=None, change=None,
            low=None, high=None, runs=ref.n if ref else 0,
            previous=None if previous is None else scale.value(previous),
        )  # fmt: skip
    worse = value - ref.level
    band = max(inflate(r.policy.k, ref.df) * ref.scale, m.floor(r.floor(m.metric), ref.level))
    change, low, high = _interval(scale, ref.level, worse, ref.scale * math.sqrt(1 + 1 / ref.n))
    # A point back within half its band is not held by an event still open.
    verdicts = [v for v in (_state(own), _state(via)) if v is not None and worse > band / 2]
    if not verdicts:
        verdicts = [IMPROVED if -worse > band else OK]
    boundary = series.boundary
    note = None
    if boundary and ref.runs and max(ref.runs) < boundary:
        note = "changed with the config: compared with the previous fingerprint's level"
    return MetricResult(
        metric=m.metric,
        verdict=worst(verdicts),
        current=current,
        baseline=scale.value(ref.level),
        band=abs(scale.relative(band, ref.level)),
        change=change,
        low=low,
        high=high,
        runs=ref.n,
        previous=None if previous is None else scale.value(previous),
        note=note,
    )
