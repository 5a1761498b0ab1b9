"""A server's history as the verdicts read it: pure data, no I/O (docs/results.md,
"Verdicts").

A *server* is a config's server on one runner label and image family with one
fingerprint (what makes the server: model, args, env, mode). Its *series* is every run of
it in the history, oldest first, the run being judged last, each with the valid values of
its points: only the runs of that server, however many runs of other configs and suites
lie between them in the history. When the fingerprint changed not long ago, the series
starts with runs of the previous fingerprint (same config, runner label and image family)
so that the first values of the new one are compared with the old level; an image change
never starts a new series (the image family is part of the key, the digest is not).

`series.py` reads these from the store; the benchmark (bench/bench_verdicts.py) builds them
in memory; `judge.py` judges them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# What differs between two runs of a server, in the order an event lists it.
DIFFERENCES = (
    "image_digest", "sglang_version", "sglang_commit", "atom_version", "aiter_version",
    "rocm_version", "catalog_commit", "runner_name", "fingerprint",
)  # fmt: skip


class ServerDoc(TypedDict):
    """A server in the verdicts JSON (ServerKey)."""

    config: str
    fingerprint: str | None
    runner_label: str | None
    image_family: str | None


class PairDoc(TypedDict):
    isl: int
    osl: int


class PointKeyDoc(PairDoc):
    concurrency: int


@dataclass(frozen=True, kw_only=True, order=True)
class ServerKey:
    config: str
    fingerprint: str | None
    runner_label: str | None
    image_family: str | None

    def as_dict(self) -> ServerDoc:
        return {
            "config": self.config,
            "fingerprint": self.fingerprint,
            "runner_label": self.runner_label,
            "image_family": self.image_family,
        }


@dataclass(frozen=True, kw_only=True, order=True)
class PointKey:
    isl: int
    osl: int
    concurrency: int

    @property
    def pair(self) -> str:
        return f"{self.isl}x{self.osl}"

    def as_dict(self) -> PointKeyDoc:
        return {"isl": self.isl, "osl": self.osl, "concurrency": self.concurrency}


@dataclass(frozen=True, kw_only=True)
class RunInfo:
    """One run of a server: its name in the history and what it ran on."""

    name: str
    fingerprint: str | None = None
    # DIFFERENCES -> value (image digest, versions, catalog commit, runner name)
    provenance: tuple[tuple[str, str | None], ...] = ()
    # What the run is whatever its directory is called: its GitHub run id (the same for
    # each attempt, and before and after `results admit` names it), else its name.
    identity: str | None = None

    @property
    def key(self) -> str:
        return self.identity or self.name

    def get(self, what: str) -> str | None:
        if what == "fingerprint":
            return self.fingerprint
        return dict(self.provenance).get(what)


@dataclass(frozen=True, kw_only=True)
class Sample:
    """One valid measurement of a point: the judged metrics it has (finite, positive where
    the metric's scale needs it) and its interactivity (the curves' x)."""

    values: Mapping[str, float]
    interactivity: float | None = None


@dataclass(frozen=True, kw_only=True)
class ServerSeries:
    """The runs of one server, oldest first, the run being judged last; for each point,
    its sample in each run (None: no valid value in that run)."""

    key: ServerKey
    runs: tuple[RunInfo, ...]
    samples: Mapping[PointKey, tuple[Sample | None, ...]]
    # Points whose acceptance rate is judged (MTP points with more than one output token).
    acceptance: frozenset[PointKey] = field(default_factory=frozenset)

    @property
    def current(self) -> int:
        return len(self.runs) - 1

    @property
    def boundary(self) -> int:
        """Index of the first run of this fingerprint (0 when the series holds no run of a
        previous fingerprint)."""
        for i, run in enumerate(self.runs):
            if run.fingerprint == self.key.fingerprint:
                return i
        return 0

    def values(self, point: PointKey, metric: str) -> list[float | None]:
        return [None if s is None else s.values.get(metric) for s in self.samples[point]]
