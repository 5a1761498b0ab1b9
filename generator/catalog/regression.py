"""The `regression:` section of catalogs/benchmark.yaml, typed: how `sglang-ci results`
calls a regression. Every knob has a default, so the section may be absent.

The catalog loader calls `build_policy(doc.get("regression"), shown)` on the loaded
mapping; the results commands take the policy from the catalog under `--root`, or from
`--policy FILE` (a YAML or JSON file holding the section, or a mapping with a
`regression:` key, such as a benchmark catalog).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal, cast

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from generator.catalog.confirm import Confirm, build_confirm
from generator.catalog.verdicts import ChangePoints, Pooled, build_change_points, build_pooled
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
class Policy:
    runs: int = 7  # N: a full baseline holds N values
    min_runs: int = 6  # fewer values: insufficient-history (the noise is not known)
    window: int = 30  # a verdict reads the last `window` values of a series
    k: float = 2.7  # a point: robust standard deviations of its own noise
    consistency: float = 2.0  # the runs after a point's onset may be this much better
    min_change: tuple[tuple[str, float], ...] = tuple(DEFAULT_MIN_CHANGE.items())
    server: Pooled = field(default_factory=Pooled)  # regression.server (verdicts.py)
    change_points: ChangePoints = field(default_factory=ChangePoints)
    on_regression: Action = "fail"
    on_gate: Action = "fail"
    thresholds: ThresholdRule = field(default_factory=ThresholdRule)
    confirm: Confirm = field(default_factory=Confirm)  # regression.confirm (confirm.py)

    @property
    def history(self) -> int:
        """Runs of a server a verdict reads: a window for the references and a window
        more in which a worsening can stay open."""
        return 2 * self.window

    def change(self, metric: str) -> float:
        return dict(self.min_change)[metric]

    def as_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "min_runs": self.min_runs,
            "window": self.window,
            "k": self.k,
            "consistency": self.consistency,
            "min_change": dict(self.min_change),
            "server": self.server.as_dict(),
            "change_points": self.change_points.as_dict(),
            "on_regression": self.on_regression,
            "on_gate": self.on_gate,
            "thresholds": {
                "floor": self.thresholds.floor,
                "margin": self.thresholds.margin,
                "min_runs": self.thresholds.min_runs,
            },
            "confirm": self.confirm.as_dict(),
        }


@functools.cache
def section_schema() -> dict[str, Any]:
    """The JSON Schema of the section (schemas/regression.schema.json)."""
    text = resources.files("generator.catalog").joinpath("schemas/regression.schema.json")
    data: dict[str, Any] = json.loads(text.read_text())
    return data


def build_policy(raw: object, shown: str) -> Policy:
    """The Policy of a loaded `regression:` mapping (None: every default). Errors name
    `shown` and the line (ruamel mappings carry their lines; plain dicts give line 1)."""
    if raw is None:
        return Policy()
    error = best_match(Draft202012Validator(section_schema()).iter_errors(raw))
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
    runs = int(doc.get("runs", Policy.runs))
    min_runs = int(doc.get("min_runs", Policy.min_runs))
    if min_runs > runs:
        message = f"{SECTION}.min_runs {min_runs} is more than runs {runs}: no baseline could do"
        raise CatalogError(message, Loc(shown, line_of(doc, ["min_runs"])))
    window = int(doc.get("window", Policy.window))
    if runs > window:
        message = f"{SECTION}.runs {runs} is more than window {window}: no baseline could be full"
        raise CatalogError(message, Loc(shown, line_of(doc, ["runs"])))
    changes = {
        **DEFAULT_MIN_CHANGE,
        **{str(k): float(v) for k, v in (doc.get("min_change") or {}).items()},
    }
    t = doc.get("thresholds") or {}
    defaults = ThresholdRule()
    return Policy(
        runs=runs,
        min_runs=min_runs,
        window=window,
        k=float(doc.get("k", Policy.k)),
        consistency=float(doc.get("consistency", Policy.consistency)),
        min_change=tuple(changes.items()),
        server=build_pooled(doc.get("server")),
        change_points=build_change_points(doc.get("change_points")),
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
