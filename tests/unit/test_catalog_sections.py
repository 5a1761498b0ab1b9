"""generator.catalog.sections: pairs, models, estimates and layouts from validated YAML."""

from __future__ import annotations

import pytest

from generator.catalog.catalog_types import Pair
from generator.catalog.reader import Reader
from generator.catalog.sections import (
    POINT_TIMEOUT_FACTOR,
    build_estimates,
    build_models,
    build_parallel,
    parse_pair,
)
from generator.catalog.server_types import Parallel, StartupRule
from generator.catalog.yamlio import parse_mapping
from generator.errors import CatalogError

SHOWN = "catalogs/benchmark.yaml"
ESTIMATES = """\
estimates:
  max_job_minutes: 120
  job_timeout_minutes: 180
  startup:
    - {up_to_params_b: 100, minutes: 10}
    - {up_to_params_b: 500, minutes: 25}
    - {minutes: 35}
  point:
    overhead_minutes: 1
    prefill_tokens_per_gpu_second: 5000
    decode_step_ms: 20
    decode_step_ms_per_request: 0.05
"""


def reader(text: str) -> Reader:
    return Reader(parse_mapping(text, SHOWN), SHOWN)


def test_a_pair_and_a_layout_read_as_written() -> None:
    assert parse_pair("8192x1") == Pair(isl=8192, osl=1)
    assert build_parallel({"tp": 8, "dp": 8, "ep": 8}) == Parallel(tp=8, dp=8, ep=8)
    assert build_parallel({"tp": 4}) == Parallel(tp=4, dp=1, ep=1)


def test_models_keep_their_line_and_optional_sizes() -> None:
    r = reader(
        "models:\n"
        "  ds: {path: org/DS, family: deepseek, precision: fp8, params_b: 671}\n"
        "  tiny: {path: org/T, family: qwen, precision: bf16, startup_minutes: 3}\n"
    )
    models = build_models(r, r.doc["models"])
    assert [(m.name, m.params_b, m.startup_minutes, m.loc.line) for m in models.values()] == [
        ("ds", 671.0, None, 2),
        ("tiny", None, 3.0, 3),
    ]


def test_estimates_take_the_default_timeout_factor_and_rules_in_order() -> None:
    r = reader(ESTIMATES)
    est = build_estimates(r, r.doc["estimates"])
    assert (est.max_job_minutes, est.job_timeout_minutes) == (120.0, 180)
    assert est.point_timeout_factor == POINT_TIMEOUT_FACTOR == 3.0
    assert est.startup == (
        StartupRule(up_to_params_b=100.0, minutes=10.0),
        StartupRule(up_to_params_b=500.0, minutes=25.0),
        StartupRule(up_to_params_b=None, minutes=35.0),
    )
    assert est.point.decode_step_ms_per_request == 0.05


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("    - {minutes: 35}\n", "", ("catalogs/benchmark.yaml:6: every start-up rule but the "
          "last needs up_to_params_b; the last has none")),
        ("up_to_params_b: 500", "up_to_params_b: 50", ("catalogs/benchmark.yaml:6: start-up "
          "rules must go up in size (50 after 100)")),
        ("max_job_minutes: 120", "max_job_minutes: 200", ("catalogs/benchmark.yaml:2: "
          "max_job_minutes 200 is longer than job_timeout_minutes 180")),
    ],
    ids=["no-catch-all", "down-in-size", "bound-over-timeout"],
)  # fmt: skip
def test_inconsistent_estimates_are_refused_at_their_line(old: str, new: str, message: str) -> None:
    r = reader(ESTIMATES.replace(old, new))
    with pytest.raises(CatalogError) as info:
        build_estimates(r, r.doc["estimates"])
    assert str(info.value) == message
