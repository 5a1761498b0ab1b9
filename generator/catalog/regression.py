"""The `regression:` section of catalogs/benchmark.yaml, typed: how `sglang-ci results`
calls a regression. Every knob has a default, so the section may be absent.

The catalog loader calls `build_policy(doc.get("regression"), shown)` on the loaded
mapping; the results commands take the policy from the catalog under `--root`, or from
`--policy FILE` (a YAML or JSON file holding the section, or a mapping with a
`regression:` key, such as a benchmark catalog).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, cast

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from generator.catalog.confirm_section import Confirm, ConfirmDoc, build_confirm
from generator.catalog.schema import schema_of
from generator.catalog.yamlio import line_of, load_mapping
from generator.errors import CatalogError, Loc, did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

SECTION = "regression"
Action = Literal["fail", "warn"]
# The metrics a verdict is made on: name -> whether a higher value is better.
METRICS: dict[str, bool] = {
    "output_throughput_per_gpu": True,
    "median_ttft_ms": False,
    "median_tpot_ms": False,
    "acceptance_rate": True,
}


def weight(metric: str, change: float | None) -> tuple[int, float, str]:
    """Sort key of an event's metrics, the one that defines it first: throughput per GPU
    when it moved, then the catalog's metrics by the size of their change, then others."""
    rank = 0 if metric == next(iter(METRICS)) else 1 if metric in METRICS else 2
    return rank, -abs(change or 0.0), metric


DEFAULT_MIN_CHANGE = {
    "output_throughput_per_gpu": 0.05,
    "median_ttft_ms": 0.10,
    "median_tpot_ms": 0.10,
    "acceptance_rate": 0.05,
}


@dataclass(frozen=True, kw_only=True)
class ThresholdRule:
    """`results thresholds`: max(floor, Q1 - 1.5 x IQR - margin) over at least min_runs."""

    floor: float = 0.0
    margin: float = 0.01
    min_runs: int = 5


@dataclass(frozen=True, kw_only=True)
class Significance:
    """How far beyond its noise a change must lie, in standard errors (z): the verdicts'
    tuned values, chosen on the first generator's tuning seeds and reported on held-out
    ones (docs/results.md, "The rule"; `make bench` prints the figures)."""

    # One run of a server's level (the mean over its points) this far worse is suspected,
    # and gets an A/B: a -5% config-wide step (2.2 standard errors at CV 3%) on its first
    # run in about three cases of four, at some 6% of clean runs suspected.
    suspect: float = 1.5
    # A stretch of two runs or more this far worse is confirmed; so is an event whose
    # history and A/B together are (verdicts/ab.py).
    confirm: float = 3.2
    # One point, beyond what its server's level explains: this far worse on one run is
    # suspected, on two runs confirmed (a point's noise has heavier tails).
    point: float = 3.5

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


class ThresholdsDoc(TypedDict):
    floor: float
    margin: float
    min_runs: int


class PolicyDoc(TypedDict):
    """The policy with its defaults, as the verdicts JSON shows it (Policy)."""

    window: int
    min_runs: int
    significance: dict[str, float]
    noise: float
    min_change: dict[str, float]
    on_regression: Action
    on_gate: Action
    thresholds: ThresholdsDoc
    confirm: ConfirmDoc


@dataclass(frozen=True, kw_only=True)
class Policy:
    window: int = 30  # a reference reads at most this many runs of its server
    # A server judged with fewer runs of its own before the run is insufficient-history
    # (with the history's noise, three runs give a level).
    min_runs: int = 3
    significance: Significance = field(default_factory=Significance)
    # The noise (standard deviation on a log scale) a history too short to measure its own
    # is judged with: a prior the history's measured noise soon outweighs.
    noise: float = 0.03
    # A confirmed change this large or larger fails the run; a smaller one is reported.
    min_change: tuple[tuple[str, float], ...] = tuple(DEFAULT_MIN_CHANGE.items())
    on_regression: Action = "fail"
    on_gate: Action = "fail"
    thresholds: ThresholdRule = field(default_factory=ThresholdRule)
    confirm: Confirm = field(default_factory=Confirm)  # regression.confirm (confirm_section.py)

    @property
    def history(self) -> int:
        """Runs of a server a verdict reads: a window for the references and a window
        more in which a worsening can stay open."""
        return 2 * self.window

    def change(self, metric: str) -> float:
        return dict(self.min_change)[metric]

    def as_dict(self) -> PolicyDoc:
        t = self.thresholds
        return {
            "window": self.window,
            "min_runs": self.min_runs,
            "significance": self.significance.as_dict(),
            "noise": self.noise,
            "min_change": dict(self.min_change),
            "on_regression": self.on_regression,
            "on_gate": self.on_gate,
            "thresholds": {"floor": t.floor, "margin": t.margin, "min_runs": t.min_runs},
            "confirm": self.confirm.as_dict(),
        }


def build_policy(raw: object, shown: str) -> Policy:
    """The Policy of a loaded `regression:` mapping (None: every default). Errors name
    `shown` and the line (ruamel mappings carry their lines; plain dicts give line 1)."""
    if raw is None:
        return Policy()
    error = best_match(Draft202012Validator(schema_of(SECTION)).iter_errors(raw))
    if error is not None:
        path: list[str | int] = [p if isinstance(p, int) else str(p) for p in error.absolute_path]
        message = str(error.message)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = error.schema.get("properties", {})
            extra = [str(k) for k in error.instance if k not in allowed]
            path.append(extra[0])
            message = f"unknown key '{extra[0]}'{did_you_mean(extra[0], allowed)}"
        where = ".".join(str(p) for p in [SECTION, *path])
        msg = f"{where}: {message}"
        raise CatalogError(msg, Loc(shown, line_of(raw, path)))
    doc = cast("Mapping[str, Any]", raw)  # schema-valid: a mapping
    min_runs = int(doc.get("min_runs", Policy.min_runs))
    window = int(doc.get("window", Policy.window))
    if min_runs > window:
        message = (
            f"{SECTION}.min_runs {min_runs} is more than window {window}: no reference could do"
        )
        raise CatalogError(message, Loc(shown, line_of(doc, ["min_runs"])))
    changes = {
        **DEFAULT_MIN_CHANGE,
        **{str(k): float(v) for k, v in (doc.get("min_change") or {}).items()},
    }
    t = doc.get("thresholds") or {}
    defaults = ThresholdRule()
    z = doc.get("significance") or {}
    zd = Significance()
    return Policy(
        min_runs=min_runs,
        window=window,
        significance=Significance(
            suspect=float(z.get("suspect", zd.suspect)),
            confirm=float(z.get("confirm", zd.confirm)),
            point=float(z.get("point", zd.point)),
        ),
        noise=float(doc.get("noise", Policy.noise)),
        min_change=tuple(changes.items()),
        on_regression="warn" if doc.get("on_regression") == "warn" else "fail",
        on_gate="warn" if doc.get("on_gate") == "warn" else "fail",
        thresholds=ThresholdRule(
            floor=float(t.get("floor", defaults.floor)),
            margin=float(t.get("margin", defaults.margin)),
            min_runs=int(t.get("min_runs", defaults.min_runs)),
        ),
        confirm=build_confirm(doc.get("confirm")),
    )


def policy_file(path: Path) -> Policy:
    """The policy of `--policy FILE`: the section itself, or a mapping with the section."""
    doc = load_mapping(path, str(path))
    raw = doc.get(SECTION, doc)
    return build_policy(raw, str(path))


def policy_for(root: Path, path: Path | None) -> tuple[Policy, str]:
    """The policy and where it came from: `--policy FILE`, else the benchmark catalog under
    `root` (through the catalog loader, so the catalog is validated as everywhere), else
    the defaults (a directory without catalogs)."""
    # Imported here: the catalog loader imports this module for the policy section.
    from generator.catalog import BENCHMARK, load  # noqa: PLC0415 (import cycle)

    if path is not None:
        return policy_file(path), str(path)
    if not (root / BENCHMARK).is_file():
        return Policy(), "defaults"
    return load(root).regression, str(root / BENCHMARK)
