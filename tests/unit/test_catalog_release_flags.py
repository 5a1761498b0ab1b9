"""generator.catalog.release_flags: one supported release's spelling of a catalog flag, and
the flags of an argv."""

from __future__ import annotations

from generator.catalog.release_flags import argv_flags, release_at, spelling
from generator.catalog.upstream import SERVER


def test_a_supported_release_is_found_with_or_without_its_v() -> None:
    assert release_at("0.5.9") == release_at("v0.5.9") == 0
    assert release_at("0.4.0") is None


def test_a_release_spells_a_renamed_flag_as_it_reads_it() -> None:
    assert spelling(SERVER, "--cuda-graph-bs", release_at("0.5.19") or 0) == "--cuda-graph-bs"
    new = release_at("0.5.20")
    assert new is not None
    assert spelling(SERVER, "--cuda-graph-bs", new) == "--cuda-graph-bs-decode"


def test_each_flag_of_an_argv_comes_with_the_count_of_its_values() -> None:
    assert argv_flags(
        ["x", "--tp-size", "8", "--trust-remote-code", "--cuda-graph-bs", "1", "2"]
    ) == [
        ("--tp-size", 1),
        ("--trust-remote-code", 0),
        ("--cuda-graph-bs", 2),
    ]
