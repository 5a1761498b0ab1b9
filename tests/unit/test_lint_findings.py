"""`generator.lint.findings`: the text and JSON a finding is shown as."""

from __future__ import annotations

import json

from generator.errors import Loc
from generator.lint.findings import LintFinding, format_json, format_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded

BENCH = "catalogs/benchmark.yaml"
ACC = "catalogs/accuracy.yaml"


def test_text_output_has_one_line_per_finding_and_a_summary(fixture: Expanded) -> None:
    finding = LintFinding(
        rule="L101",
        name="dp-attention-divisible",
        severity="error",
        loc=Loc(BENCH, 42),
        message="use TP8 DP8",
    )
    catalog = fixture.catalog
    lines = format_text([finding], catalog).splitlines()
    assert lines == [
        "catalogs/benchmark.yaml:42: error L101 dp-attention-divisible: use TP8 DP8",
        (
            "cron '0 14 * * 1,3' (oob-deepseek-non-mtp): At 02:00 PM, only on Monday and Wednesday "
            "(UTC)"
        ),
        (
            "cron '0 14 * * 2,4' (oob-deepseek-mtp-qwen): At 02:00 PM, only on Tuesday and "
            "Thursday (UTC)"
        ),
        "cron '0 14 * * 5' (mesh-all): At 02:00 PM, only on Friday (UTC)",
        "cron '0 14 * * 6' (oob-all): At 02:00 PM, only on Saturday (UTC)",
        "cron '0 18 * * *' (accuracy, nightly): At 06:00 PM (UTC)",
        "lint failed: 1 error, 0 warnings, 0 waived",
    ]


def test_json_output_lists_every_field() -> None:
    finding = LintFinding(
        rule="L503",
        name="env-retired",
        severity="warning",
        loc=Loc(ACC, 7),
        message="m",
        waived="because",
    )
    assert json.loads(format_json([finding])) == [
        {
            "rule": "L503",
            "name": "env-retired",
            "severity": "warning",
            "loc": {"file": ACC, "line": 7},
            "message": "m",
            "waived": "because",
        }
    ]
    assert format_json([]) == "[]\n"
