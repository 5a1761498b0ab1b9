"""`generator.lint.rules.flag_uses`: each written flag of the fixture catalogs with the
servers that pass it."""

from __future__ import annotations

from generator.lint.rules.base import context
from generator.lint.rules.flag_uses import uses

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


def test_a_flag_parallel_writes_is_one_use_over_every_config_and_case(fixture: Expanded) -> None:
    found = uses(fixture.catalog, context(fixture).servers)
    assert len(found) == 311
    written = {u.name: (u.shown, len(u.servers)) for u in found if "parallel:" in u.shown}
    more = "here and in {} more configs and cases"
    assert written == {
        "--tensor-parallel-size": (
            f"--tensor-parallel-size (written from parallel: {more.format(37)})",
            48,
        ),
        "--data-parallel-size": (
            f"--data-parallel-size (written from parallel: {more.format(12)})",
            19,
        ),
        "--expert-parallel-size": (
            f"--expert-parallel-size (written from parallel: {more.format(12)})",
            19,
        ),
        "--enable-dp-attention": (
            f"--enable-dp-attention (written from parallel: {more.format(12)})",
            19,
        ),
    }


def test_a_flag_a_config_writes_is_shown_by_its_name_at_its_line(fixture: Expanded) -> None:
    found = uses(fixture.catalog, context(fixture).servers)
    page = next(u for u in found if u.name == "--page-size")
    assert page.shown == "--page-size"
    assert page.at.loc.file.endswith("catalogs/benchmark.yaml")
    assert page.at.loc.line == 76
