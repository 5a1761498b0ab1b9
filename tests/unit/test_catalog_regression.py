from __future__ import annotations

import re

import pytest

from generator.catalog.regression import Policy, build_policy, policy_file, policy_for
from generator.catalog.yamlio import parse_mapping
from generator.errors import CatalogError
from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_an_absent_section_gives_the_defaults() -> None:
    policy = build_policy(None, "catalogs/benchmark.yaml")
    assert policy == Policy()
    assert (policy.runs, policy.min_runs, policy.window, policy.k) == (7, 6, 30, 2.7)
    assert policy.change("output_throughput_per_gpu") == 0.05
    assert policy.server.limit("output_throughput_per_gpu") == 2.8
    assert policy.server.limit("median_tpot_ms") is None  # pooled, never confirms alone
    assert (policy.change_points.p_value, policy.change_points.permutations) == (0.05, 100)


def test_a_partial_section_keeps_the_other_defaults() -> None:
    doc = parse_mapping("regression:\n  runs: 10\n  min_change: {median_ttft_ms: 0.2}\n", "b.yaml")
    policy = build_policy(doc["regression"], "b.yaml")
    assert policy.runs == 10
    assert policy.change("median_ttft_ms") == 0.2
    assert policy.change("median_tpot_ms") == 0.10


def test_an_unknown_knob_names_its_line() -> None:
    doc = parse_mapping("x: 1\nregression:\n  runs: 7\n  kk: 3\n", "b.yaml")
    with pytest.raises(CatalogError) as error:
        build_policy(doc["regression"], "b.yaml")
    assert str(error.value) == "b.yaml:4: regression.kk: unknown key 'kk' (did you mean 'k'?)"


def test_a_bad_value_names_its_line() -> None:
    doc = parse_mapping("regression:\n  min_change:\n    median_tpot_ms: 2\n", "b.yaml")
    with pytest.raises(CatalogError, match=re.escape("b.yaml:3: regression.min_change.median")):
        build_policy(doc["regression"], "b.yaml")


def test_the_server_and_change_point_knobs_read_with_their_defaults() -> None:
    doc = parse_mapping(
        "regression:\n  server:\n    limits: {median_tpot_ms: 3.5}\n    suspect: 1.5\n"
        "  change_points: {p_value: 0.01}\n",
        "b.yaml",
    )
    policy = build_policy(doc["regression"], "b.yaml")
    assert policy.server.limits == (("median_tpot_ms", 3.5),)
    assert (policy.server.suspect, policy.server.allowance, policy.server.expire) == (1.5, 1.0, 6)
    assert (policy.change_points.p_value, policy.change_points.min_z) == (0.01, 3.0)


def test_a_suspicion_that_never_expires_is_zero_and_a_fraction_is_refused_at_its_line() -> None:
    doc = parse_mapping("regression:\n  server:\n    expire: 0\n", "b.yaml")
    assert build_policy(doc["regression"], "b.yaml").server.expire == 0
    doc = parse_mapping("regression:\n  server:\n    expire: 2.5\n", "b.yaml")
    with pytest.raises(CatalogError, match=re.escape("b.yaml:3: regression.server.expire")):
        build_policy(doc["regression"], "b.yaml")


def test_an_unknown_pooled_metric_names_its_line() -> None:
    doc = parse_mapping("regression:\n  server:\n    limits: {median_ttf_ms: 3}\n", "b.yaml")
    with pytest.raises(CatalogError) as error:
        build_policy(doc["regression"], "b.yaml")
    assert str(error.value) == (
        "b.yaml:3: regression.server.limits.median_ttf_ms: unknown key 'median_ttf_ms' "
        "(did you mean 'median_ttft_ms'?)"
    )


def test_a_full_baseline_longer_than_the_window_is_refused() -> None:
    doc = parse_mapping("regression:\n  runs: 40\n  window: 30\n", "b.yaml")
    with pytest.raises(CatalogError) as error:
        build_policy(doc["regression"], "b.yaml")
    assert str(error.value) == (
        "b.yaml:2: regression.runs 40 is more than window 30: no baseline could be full"
    )


def test_min_runs_above_runs_is_refused() -> None:
    doc = parse_mapping("regression:\n  runs: 3\n  min_runs: 5\n", "b.yaml")
    with pytest.raises(CatalogError) as error:
        build_policy(doc["regression"], "b.yaml")
    assert str(error.value) == (
        "b.yaml:3: regression.min_runs 5 is more than runs 3: no baseline could do"
    )


def test_the_documented_section_is_valid() -> None:
    text = (ROOT / "docs" / "results.md").read_text()
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    policy = build_policy(parse_mapping(block, "docs/results.md")["regression"], "docs")
    assert policy == Policy()


def test_a_policy_file_holds_the_section_or_a_mapping_with_it(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("on_regression: warn\n")
    assert policy_file(tmp_path / "p.yaml").on_regression == "warn"
    (tmp_path / "c.yaml").write_text("regression:\n  on_gate: warn\n")
    assert policy_file(tmp_path / "c.yaml").on_gate == "warn"


def test_a_directory_without_catalogs_uses_the_defaults(tmp_path: Path) -> None:
    assert policy_for(tmp_path, None) == (Policy(), "defaults")
