"""`generator.lint.rules.base`: a resolved argv as flags, a hit on its owner, and every server
the catalog starts (each config's pairs and modes, then each case)."""

from __future__ import annotations

import pytest

from generator.errors import Loc
from generator.lint.rules.base import context, flag_map, hit, int_flag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


def test_an_argv_becomes_canonical_flags_with_their_values_the_last_one_winning() -> None:
    argv = (
        "--tp-size",
        "4",
        "--enable-dp-attention",
        "--cuda-graph-bs",
        "1",
        "2",
        "--tp-size",
        "8",
    )
    assert flag_map(argv) == {
        "--tensor-parallel-size": ("8",),
        "--enable-dp-attention": (),
        "--cuda-graph-bs": ("1", "2"),
    }


def test_values_before_the_first_flag_and_after_a_bare_double_dash_are_no_flag_s() -> None:
    assert flag_map(("serve", "--port", "30000", "--", "extra")) == {"--port": ("30000",)}
    assert flag_map(()) == {}


@pytest.mark.parametrize(
    ("values", "expected"),
    [(None, 7), ((), 7), (("auto",), 7), (("4", "8"), 4), (("-2",), -2)],
    ids=["absent", "no-value", "not-a-number", "first-value", "negative"],
)
def test_an_int_flag_is_its_first_value_or_the_default(
    values: tuple[str, ...] | None, expected: int
) -> None:
    flags = {} if values is None else {"--dp": values}
    assert int_flag(flags, "--dp", default=7) == expected


def test_the_default_of_an_int_flag_is_one() -> None:
    assert int_flag({}, "--tensor-parallel-size") == 1


def test_a_hit_points_at_its_owner_unless_told_where(fixture: Expanded) -> None:
    config = fixture.catalog.configs[0]
    at_owner = hit("L101", config, "a message")
    assert (at_owner.rule, at_owner.loc, at_owner.owner, at_owner.message) == (
        "L101",
        config.loc,
        config,
        "a message",
    )
    elsewhere = Loc("catalogs/benchmark.yaml", 3)
    assert hit("L101", config, "a message", elsewhere).loc == elsewhere


def test_a_config_is_one_server_per_pair_and_mode_named_with_both(fixture: Expanded) -> None:
    servers = context(fixture).servers
    mesh = [r.where for r in servers if r.name == "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp'"]
    assert mesh == [
        "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp' (sglang-atom, 8192x1)",
        "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp' (sglang-atom, 1x1024)",
        "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp' (sglang-mori, 8192x1)",
        "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp' (sglang-mori, 1x1024)",
    ]
    assert len(servers) == 74


def test_a_case_is_named_without_a_pair_after_every_config(fixture: Expanded) -> None:
    servers = context(fixture).servers
    kinds = [r.name.split(" ")[0] for r in servers]
    assert kinds == ["config"] * 58 + ["case"] * 16
    case = next(r for r in servers if r.name == "case 'deepseek-r1-mxfp4-tp4-mtp'")
    assert (case.where, case.pair) == ("case 'deepseek-r1-mxfp4-tp4-mtp'", None)
    assert case.flags["--speculative-num-steps"] == ("3",)
    assert case.flags["--tensor-parallel-size"] == ("4",)
    assert case.hit("L305", "m").loc == case.owner.loc


def test_the_context_lists_the_runners_by_label(fixture: Expanded) -> None:
    assert sorted(context(fixture).runners) == [
        "atom-mi355-8gpu-aac-runner",
        "linux-atom-mi35x-4",
        "linux-atom-mi35x-8",
    ]
