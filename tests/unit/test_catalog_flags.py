"""generator.catalog.flags: a flag (or env name) is set once per server, spelled either way."""

from __future__ import annotations

import pytest

from generator.catalog.flags import (
    argv,
    canonical,
    env_dict,
    merge_env,
    merge_flags,
    override_env,
    override_flags,
)
from generator.catalog.server_types import EnvVar, Flag
from generator.errors import CatalogError, Loc


def flag(name: str, *values: str, line: int = 1) -> Flag:
    return Flag(name=name, values=values, loc=Loc("catalogs/benchmark.yaml", line))


def var(name: str, value: str, line: int = 1) -> EnvVar:
    return EnvVar(name=name, value=value, loc=Loc("catalogs/benchmark.yaml", line))


def test_an_alias_is_the_same_flag_as_its_long_name() -> None:
    assert canonical("--tp-size") == "--tensor-parallel-size"
    assert canonical("--ep") == "--expert-parallel-size"
    assert canonical("--mem-fraction-static") == "--mem-fraction-static"


def test_a_flag_repeated_with_its_values_is_kept_once_in_first_place() -> None:
    merged = merge_flags(
        [flag("--tp-size", "8"), flag("--trust-remote-code"), flag("--tensor-parallel-size", "8")]
    )
    assert argv(merged) == ["--tp-size", "8", "--trust-remote-code"]


def test_a_flag_set_to_two_values_is_refused_at_the_second() -> None:
    with pytest.raises(CatalogError) as info:
        merge_flags([flag("--mem-fraction-static", "0.85", line=3), flag("--disable-radix-cache"),
                     flag("--mem-fraction-static", "0.9", line=9)])  # fmt: skip
    assert str(info.value) == (
        "catalogs/benchmark.yaml:9: --mem-fraction-static is set to '0.85' (line 3) and to "
        "'0.9' (line 9); a flag is set once (override: replaces it for every pair, per_pair: "
        "for one)"
    )


def test_a_switch_and_a_valued_flag_of_one_name_disagree() -> None:
    with pytest.raises(CatalogError, match=r"set to \(no value\) \(line 1\) and to '1'"):
        merge_flags([flag("--enable-x"), flag("--enable-x", "1", line=2)])


def test_overrides_replace_in_place_and_new_flags_go_last() -> None:
    base = (flag("--tp-size", "4"), flag("--chunked-prefill-size", "16384"))
    out = override_flags(base, [flag("--chunked-prefill-size", "65536"), flag("--page-size", "1")])
    assert argv(out) == ["--tp-size", "4", "--chunked-prefill-size", "65536", "--page-size", "1"]


def test_an_env_name_is_set_once_and_overrides_replace_it() -> None:
    assert env_dict(merge_env([var("A", "1"), var("B", ""), var("A", "1")])) == {"A": "1", "B": ""}
    with pytest.raises(CatalogError) as info:
        merge_env([var("A", "1", line=2), var("A", "2", line=5)])
    assert str(info.value) == (
        "catalogs/benchmark.yaml:5: A is set to '1' (line 2) and to '2' (line 5); an env name "
        "is set once (override: replaces it for every pair, per_pair: for one)"
    )
    assert env_dict(override_env([var("A", "1"), var("B", "2")], [var("A", "3")])) == {
        "A": "3",
        "B": "2",
    }
