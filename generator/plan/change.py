"""`sglang-ci plan --week --base REF`: the server launches and GPU-hours a change adds to
the week, or removes from it.

The base is the catalogs committed at the merge base of REF and HEAD (as `sglang-ci diff`
takes it), planned by this checkout's generator, so the difference is the catalogs'; the
head is the working tree's catalogs. Both are planned as `plan --week` plans them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TypedDict

from generator.catalog import ACCURACY, BENCHMARK, load
from generator.catalog.cron import runs_per_week
from generator.errors import CatalogError, Loc
from generator.expand import expand
from generator.expand.cost import shape
from generator.git import output, show
from generator.plan.week import plan_week, tidy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded
    from generator.plan.week import GroupPlan, ShapeColumn

Delta = dict[str, float | int]  # base, head and change


class GroupChange(TypedDict):
    name: str
    runs_per_week: dict[str, float | int]  # base and head
    launches: Delta
    gpu_hours: Delta


class ConfigChange(TypedDict):
    prefix: str
    launches: Delta
    gpu_hours: Delta
    groups: dict[str, float | int]  # the head's cron groups that run it: their runs a week


class WeekChange(TypedDict):
    """`sglang-ci plan --week --base REF`: per week, per cron group and per changed config."""

    kind: str
    groups: list[GroupChange]
    configs: list[ConfigChange]
    launches_per_week: Delta
    gpu_hours_per_week: Delta
    cells_per_week: Delta


class ChangeReport(WeekChange):
    """A week's change as the command shows it: against REF, from their merge base."""

    base: str
    merge_base: str


def expanded_at_base(root: Path, ref: str) -> tuple[str, Expanded]:
    """(the merge base's commit, its catalogs expanded by this generator)."""
    commit = output(root, "merge-base", ref, "HEAD").strip()
    with tempfile.TemporaryDirectory(prefix="sglang-ci-base-") as tmp:
        base = Path(tmp)
        (base / "catalogs").mkdir()
        for rel in (BENCHMARK, ACCURACY):
            (base / rel).write_bytes(show(root, commit, rel))
        try:
            return commit, expand(load(base))
        except CatalogError as e:
            loc = e.loc
            if loc is not None:
                rel = BENCHMARK if loc.file.endswith(BENCHMARK) else ACCURACY
                loc = Loc(f"{ref}:{rel}", loc.line)
            msg = f"{e.message} (the catalogs at {ref})"
            raise CatalogError(msg, loc) from e


def _per_config(
    expanded: Expanded,
) -> tuple[dict[str, tuple[float, float]], dict[str, dict[str, float | int]]]:
    """Each config's launches and GPU-hours in a week of the cron groups, and the cron
    groups that run it, with their runs a week."""
    runners = {r.label: r for r in expanded.catalog.runners}
    out: dict[str, tuple[float, float]] = {}
    groups: dict[str, dict[str, float | int]] = {}
    for s in expanded.schedules:
        runs = runs_per_week(str(s.cron))
        for config in s.configs:
            jobs = [j for j in s.default_run.jobs if j.config is config]
            cost = shape(runners, jobs)
            launches, hours = out.get(config.prefix, (0.0, 0.0))
            out[config.prefix] = (launches + runs * cost.jobs, hours + runs * cost.gpu_hours)
            groups.setdefault(config.prefix, {})[s.name] = tidy(runs)
    return out, groups


def _delta(base: float, head: float) -> Delta:
    return {
        "base": tidy(round(base, 1)),
        "head": tidy(round(head, 1)),
        "change": tidy(round(head - base, 1)),
    }


def _weekly(group: GroupPlan | None, key: ShapeColumn) -> float:
    """A cron group's packed launches or GPU-hours a week (0 on the side without it)."""
    return group["runs_per_week"] * group["packed"][key] if group else 0


def week_change(base: Expanded, head: Expanded) -> WeekChange:
    """Launches and GPU-hours per week, per cron group and per config, base and head."""
    weeks = {"base": plan_week(base), "head": plan_week(head)}
    groups: dict[str, dict[str, GroupPlan]] = {}
    for side, week in weeks.items():
        for g in week["groups"]:
            groups.setdefault(g["name"], {})[side] = g
    group_rows: list[GroupChange] = []
    for name, sides in groups.items():
        b, h = sides.get("base"), sides.get("head")
        group_rows.append(
            {
                "name": name,
                "runs_per_week": {s: sides[s]["runs_per_week"] if s in sides else 0 for s in weeks},
                "launches": _delta(_weekly(b, "launches"), _weekly(h, "launches")),
                "gpu_hours": _delta(_weekly(b, "gpu_hours"), _weekly(h, "gpu_hours")),
            }
        )
    (old, _), (new, runs_by) = _per_config(base), _per_config(head)
    configs: list[ConfigChange] = []
    for prefix in dict.fromkeys([*old, *new]):
        (bl, bh), (hl, hh) = old.get(prefix, (0.0, 0.0)), new.get(prefix, (0.0, 0.0))
        if (round(bl, 1), round(bh, 1)) != (round(hl, 1), round(hh, 1)):
            configs.append(
                {
                    "prefix": prefix,
                    "launches": _delta(bl, hl),
                    "gpu_hours": _delta(bh, hh),
                    "groups": runs_by.get(prefix, {}),
                }
            )
    was, now = weeks["base"], weeks["head"]
    return {
        "kind": "week-change",
        "groups": group_rows,
        "configs": configs,
        "launches_per_week": _delta(was["launches_per_week"], now["launches_per_week"]),
        "gpu_hours_per_week": _delta(was["gpu_hours_per_week"], now["gpu_hours_per_week"]),
        "cells_per_week": _delta(was["cells_per_week"], now["cells_per_week"]),
    }
