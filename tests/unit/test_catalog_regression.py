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
    assert (policy.min_runs, policy.window, policy.noise) == (3, 30, 0.03)
    z = policy.significance
    assert (z.suspect, z.confirm, z.point) == (1.5, 3.2, 3.5)
    assert policy.change("output_throughput_per_gpu") == 0.05


def test_a_partial_section_keeps_the_other_defaults() -> None:
    doc = parse_mapping(
        "regression:\n  significance: {confirm: 4}\n  min_change: {median_ttft_ms: 0.2}\n",
        "b.yaml",
    )
    policy = build_policy(doc["regression"], "b.yaml")
    assert (policy.significance.confirm, policy.significance.suspect) == (4.0, 1.5)
    assert policy.change("median_ttft_ms") == 0.2
    assert policy.change("median_tpot_ms") == 0.10


def test_an_unknown_knob_names_its_line() -> None:
    doc = parse_mapping("x: 1\nregression:\n  window: 7\n  nois: 3\n", "b.yaml")
    with pytest.raises(CatalogError) as error:
        build_policy(doc["regression"], "b.yaml")
    assert (
        str(error.value) == "b.yaml:4: regression.nois: unknown key 'nois' (did you mean 'noise'?)"
    )


def test_a_bad_value_names_its_line() -> None:
    doc = parse_mapping("regression:\n  min_change:\n    median_tpot_ms: 2\n", "b.yaml")
    with pytest.raises(CatalogError, match=re.escape("b.yaml:3: regression.min_change.median")):
        build_policy(doc["regression"], "b.yaml")


def test_a_significance_out_of_range_names_its_line() -> None:
    doc = parse_mapping("regression:\n  significance:\n    suspect: 0\n", "b.yaml")
    with pytest.raises(CatalogError, match=re.escape("b.yaml:3: regression.significance.suspect")):
        build_policy(doc["regression"], "b.yaml")


def test_min_runs_above_the_window_is_refused() -> None:
    doc = parse_mapping("regression:\n  window: 5\n  min_runs: 6\n", "b.yaml")
    with pytest.raises(CatalogError) as error:
        build_policy(doc["regression"], "b.yaml")
    assert str(error.value) == (
        "b.yaml:3: regression.min_runs 6 is more than window 5: no reference could do"
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
