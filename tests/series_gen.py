"""Small synthetic server series for the verdict rules' unit tests (history.py's shape).

A server has points on one throughput-interactivity curve (tests/results_gen.curve); each
run scales every point's speed (throughput and interactivity together, TTFT and TPOT
against them) by a shared factor and each point's by its own, with seeded Gaussian noise;
`speed[(run, point)]` multiplies one point of one run on top.
"""

from __future__ import annotations

import random

from generator.results.history import PointKey, RunInfo, Sample, ServerKey, ServerSeries
from tests.results_gen import TTFT_MS, curve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

POINTS = tuple(PointKey(isl=1024, osl=1024, concurrency=c) for c in (4, 8, 16, 32, 64))
KEY = ServerKey(
    config="ds-fp8-tp8", fingerprint="fp-a", runner_label="mi355", image_family="rocm/x"
)


def run_info(i: int, *, fingerprint: str = "fp-a", digest: str | None = None) -> RunInfo:
    return RunInfo(
        name=f"run-{i:03d}",
        fingerprint=fingerprint,
        provenance=(
            ("image_digest", digest or f"sha256:{i:04d}"),
            ("sglang_version", "0.5.6"),
            ("catalog_commit", "c0ffee"),
        ),
    )


def sample(p: PointKey, speed: float) -> Sample:
    i, t = curve(p.concurrency)
    return Sample(
        values={
            "output_throughput_per_gpu": t * speed,
            "median_tpot_ms": 1000.0 / (i * speed),
            "median_ttft_ms": TTFT_MS * (1 + p.concurrency / 32) / speed,
        },
        interactivity=i * speed,
    )


def server(
    runs: int,
    *,
    shared: Sequence[float] | None = None,
    speed: Mapping[tuple[int, PointKey], float] | None = None,
    noise: float = 0.01,
    points: Sequence[PointKey] = POINTS,
    fingerprints: Mapping[int, str] | None = None,
    digests: Mapping[int, str] | None = None,
    seed: int = 1,
    key: ServerKey = KEY,
) -> ServerSeries:
    """`runs` runs of one server (the last is the run being judged): run r's points all
    run at `shared[r]` of their speed, times `speed[(r, point)]`, with `noise` (relative
    standard deviation, half of its variance shared by the run's points)."""
    rng = random.Random(seed)
    half = noise / 2**0.5
    samples: dict[PointKey, list[Sample | None]] = {p: [] for p in points}
    for r in range(runs):
        common = (shared[r] if shared else 1.0) * (1 + rng.gauss(0, half))
        for p in points:
            factor = common * (1 + rng.gauss(0, half)) * (speed or {}).get((r, p), 1.0)
            samples[p].append(sample(p, factor))
    fp = fingerprints or {}
    infos = tuple(
        run_info(r, fingerprint=fp.get(r, key.fingerprint or ""), digest=(digests or {}).get(r))
        for r in range(runs)
    )
    return ServerSeries(key=key, runs=infos, samples={p: tuple(v) for p, v in samples.items()})


def upto(series: ServerSeries, runs: int) -> ServerSeries:
    """The same series with only its first `runs` runs (the last of them judged)."""
    return ServerSeries(
        key=series.key,
        runs=series.runs[:runs],
        samples={p: v[:runs] for p, v in series.samples.items()},
        acceptance=series.acceptance,
    )
