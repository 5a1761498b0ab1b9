"""`results diff` (generator/report/rundiff.py): the provenance of two runs of a config
side by side, what changed marked, each value as the pages show it."""

from __future__ import annotations

from generator.report.rundiff import page_name, provenance_rows, shown


def test_a_value_is_shown_short_and_unknown_as_a_dash() -> None:
    assert shown("image_digest", "digest", {"image_digest": "sha256:" + "0a" * 32}) == (
        "sha256:0a0a0a0a0a0a"
    )
    assert shown("catalog_commit", "commit", {"catalog_commit": "0123456789abcdef"}) == (
        "0123456789ab"
    )
    assert [shown("runner_name", "", None), shown("runner_name", "", {"runner_name": None})] == [
        "-", "-",
    ]  # fmt: skip


def test_a_row_changed_only_when_both_runs_know_the_config() -> None:
    a = {"sglang_version": "0.5.6"}
    b = {"sglang_version": "0.5.7"}
    both = {r["what"]: r for r in provenance_rows(a, b)}
    assert both["SGLang"] == {"what": "SGLang", "a": "0.5.6", "b": "0.5.7", "changed": True}
    assert both["ROCm"]["changed"] is False
    assert not any(r["changed"] for r in provenance_rows(a, None))


def test_the_pair_page_is_named_by_both_runs() -> None:
    assert page_name("r1", "r2") == "compare/r1--r2.html"
