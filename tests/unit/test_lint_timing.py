"""`generator.lint.rules.timing`: a cron group's estimated run ends before the next run on its
runners starts (L707)."""

from __future__ import annotations

import dataclasses

from generator.expand import expand
from generator.lint.checks import lint
from tests.helpers import FIXTURE
from tests.lint_helpers import BENCH, by_rule, line_of, relinted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded
    from generator.lint.findings import LintFinding


def test_a_cron_group_outrunning_the_next_run_on_its_runners_warns(fixture: Expanded) -> None:
    catalog = fixture.catalog
    one = dataclasses.replace(catalog.runners[0], count=1)
    per_cell = dataclasses.replace(catalog.schedules[0], packing="per-cell")
    expanded = expand(
        dataclasses.replace(
            catalog,
            runners=(one, *catalog.runners[1:]),
            schedules=(per_cell, *catalog.schedules[1:]),
        )
    )
    found = by_rule(lint(expanded), "L707")
    line = line_of(BENCH, "- name: oob-deepseek-non-mtp", FIXTURE)
    # 60 one-cell jobs, one after another on the one machine.
    assert len(expanded.schedules[0].default_run.jobs) == 60
    assert [(f.loc.line, f.severity, f.message) for f in found] == [
        (
            line,
            "warning",
            (
                "cron group 'oob-deepseek-non-mtp' is estimated at 41.2 h of wall time on its "
                "runners, but cron group 'oob-deepseek-mtp-qwen' starts 24.0 h after it "
                "(`sglang-ci plan --group oob-deepseek-non-mtp`)"
            ),
        )
    ]


def test_a_daily_group_longer_than_a_day_outruns_itself(fixture: Expanded) -> None:
    catalog = fixture.catalog
    daily = dataclasses.replace(catalog.schedules[3], cron="0 14 * * *")
    small = dataclasses.replace(catalog.runners[0], count=1)
    catalog = dataclasses.replace(
        catalog, schedules=(daily,), runners=(small, *catalog.runners[1:])
    )
    assert by_rule(relinted(catalog), "L707") == []
    per_cell = dataclasses.replace(daily, packing="per-cell")
    [finding] = by_rule(relinted(dataclasses.replace(catalog, schedules=(per_cell,))), "L707")
    assert finding.loc == daily.loc
    assert finding.message.startswith("cron group 'oob-all' is estimated at ")
    assert finding.message.endswith(
        " h of wall time on its runners, but its next run starts 24.0 h after it "
        "(`sglang-ci plan --group oob-all`)"
    )


def test_packed_fixture_groups_end_before_the_next_run(fixture_findings: list[LintFinding]) -> None:
    assert by_rule(fixture_findings, "L707") == []
