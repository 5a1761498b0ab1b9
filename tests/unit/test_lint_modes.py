"""`generator.lint.rules.modes`: a server mode and a config that set one flag to different
values, with the value the mode's precedence keeps (L106)."""

from __future__ import annotations

import dataclasses

from tests.helpers import FIXTURE
from tests.lint_helpers import BENCH, by_rule, line_of, relinted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded
    from generator.lint.findings import LintFinding


def test_the_config_s_value_wins_in_sglang_mori_and_the_mode_s_is_named(
    fixture_findings: list[LintFinding],
) -> None:
    assert [(f.severity, f.loc.line, f.message) for f in by_rule(fixture_findings, "L106")] == [
        (
            "warning",
            line_of(BENCH, '--mem-fraction-static: "0.85"', FIXTURE),
            (
                "server mode 'sglang-mori' sets --mem-fraction-static to '0.8' and the config "
                "to '0.85': the config's '0.85' is used, '0.8' is not (precedence: config)"
            ),
        )
    ]


def test_with_the_mode_s_precedence_the_mode_s_value_is_the_one_used(fixture: Expanded) -> None:
    catalog = fixture.catalog
    modes = tuple(
        dataclasses.replace(m, precedence="mode") if m.name == "sglang-mori" else m
        for m in catalog.server_modes
    )
    found = by_rule(relinted(dataclasses.replace(catalog, server_modes=modes)), "L106")
    assert [f.message for f in found] == [
        (
            "server mode 'sglang-mori' sets --mem-fraction-static to '0.8' and the config to "
            "'0.85': the mode's '0.8' is used, '0.85' is not (precedence: mode)"
        )
    ]
