"""A cron group's estimated run ends before the next run on its runners starts."""

from __future__ import annotations

import bisect

from generator.catalog.cron import fire_times
from generator.lint.rules.base import Hit, LintContext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from datetime import datetime

    from generator.expand.expanded import Selection

# Five weeks: every weekly pattern repeats in it, and the gap after a monthly run is
# seen from the run before it.
SPAN_DAYS = 35


def check(ctx: LintContext) -> Iterator[Hit]:
    """L707: a cron group's packed wall time (docs/planning.md) is shorter than the time
    until the next run of any cron group (itself included) sharing one of its runner labels;
    otherwise runs queue behind each other and every later run starts late."""
    groups: list[tuple[Selection, set[str], float, list[datetime]]] = []
    for s in ctx.expanded.schedules:
        labels = {c.runner for c in s.configs}
        wall = s.default_run.packed.wall_hours
        groups.append((s, labels, wall, fire_times(str(s.cron), SPAN_DAYS)))
    for s, labels, wall, times in groups:
        starts = sorted(
            (t, other.name)
            for other, theirs, _, their_times in groups
            if theirs & labels
            for t in their_times
        )
        for t in times:
            # The first start after this run's, or at the same minute by another group.
            later = (x for x in starts[bisect.bisect_left(starts, (t, "")) :] if x != (t, s.name))
            found = next(later, None)
            if found is None:
                continue
            nxt, name = found
            gap = (nxt - t).total_seconds() / 3600
            if wall > gap:
                who = "its next run" if name == s.name else f"cron group '{name}'"
                yield Hit(
                    rule="L707",
                    loc=s.loc,
                    message=(
                        f"cron group '{s.name}' is estimated at {wall:.1f} h of wall time on "
                        f"its runners, but {who} starts {gap:.1f} h after it "
                        f"(`sglang-ci plan --group {s.name}`)"
                    ),
                )
                break
