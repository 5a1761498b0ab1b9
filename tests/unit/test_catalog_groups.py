"""generator.catalog.groups: cron groups and presets, selectors over the configs' fields."""

from __future__ import annotations

import pytest

from generator.catalog import load
from generator.catalog.catalog_types import Selector
from tests.helpers import FIXTURE, refusal_after_edit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_schedules_keep_their_crons_and_their_union_of_selectors() -> None:
    catalog = load(FIXTURE)
    mtp_qwen = catalog.schedules[1]
    assert (mtp_qwen.name, mtp_qwen.cron, mtp_qwen.server_mode, mtp_qwen.packing) == (
        "oob-deepseek-mtp-qwen",
        "0 14 * * 2,4",
        None,
        "per-server",
    )
    assert mtp_qwen.select == (
        Selector(
            fields=(
                ("suite", ("SGLang-OOB",)),
                ("family", ("deepseek",)),
                ("spec", ("mtp1", "mtp3")),
            )
        ),
        Selector(fields=(("suite", ("SGLang-OOB",)), ("family", ("qwen",)))),
    )


def test_every_config_has_a_preset_of_its_own_before_the_declared_ones() -> None:
    catalog = load(FIXTURE)
    own = [p for p in catalog.presets if p.per_config]
    assert [p.name for p in own] == [c.preset for c in catalog.configs]
    assert own[0].select == (Selector(fields=(("prefix", ("deepseek-r1-fp8-tp4",)),)),)
    declared = [p for p in catalog.presets if not p.per_config]
    assert catalog.presets.index(declared[0]) == len(own)
    ds_all = next(p for p in declared if p.name == "ds-all")
    assert (ds_all.suite, ds_all.aliases, ds_all.select) == (
        "SGLang-Mesh",
        ("all",),
        (Selector(fields=()),),
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('    cron: "0 14 * * 6"\n', '    cron: "0 14 * * 5"\n',
         "schedule cron repeats the one at line 563"),
        ("    - {name: mtp, select:", "    - {name: fp4-all, select:",
         "preset name 'fp4-all' is already used at line 583"),
        ("select: {suite: SGLang-Mesh}", "select: {suite: SGLang-Mash}",
         "no config has suite 'SGLang-Mash' (did you mean 'SGLang-Mesh'?)"),
        ("    - {name: all-qwen, select: {family: qwen}}",
         "    - {name: all-qwen, select: {family: qwen}, packing: per-box}",
         "presets.SGLang-OOB[3].packing: 'per-box' is not one of ['per-server', 'per-cell']"),
    ],
    ids=["repeated-cron", "repeated-preset-name", "unknown-value", "unknown-packing"],
)  # fmt: skip
def test_a_group_that_repeats_or_names_nothing_is_refused_at_its_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert refusal_after_edit(tmp_path, old, new) == message
