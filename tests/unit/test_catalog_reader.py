"""generator.catalog.reader: raw YAML values to flags, env and selectors, errors at a line."""

from __future__ import annotations

from typing import Any

import pytest

from generator.catalog.reader import Reader
from generator.catalog.yamlio import parse_mapping
from generator.errors import CatalogError

SHOWN = "catalogs/benchmark.yaml"


def reader(text: str) -> Reader:
    return Reader(parse_mapping(text, SHOWN), SHOWN)


def refusal(text: str, *path: str | int) -> str:
    r = reader(text)
    node: Any = r.doc
    for part in path:
        node = node[part]
    with pytest.raises(CatalogError) as info:
        r.flags(node, list(path))
    return str(info.value)


def test_values_ranges_and_switches_become_tokens_at_their_lines() -> None:
    r = reader(
        "args:\n"
        "  --trust-remote-code: true\n"
        "  --cuda-graph-bs: [1..3, 16]\n"
        "  --mem-fraction-static: 0.85\n"
    )
    flags = r.flags(r.doc["args"], ["args"])
    assert [(f.name, f.values, f.loc.line) for f in flags] == [
        ("--trust-remote-code", (), 2),
        ("--cuda-graph-bs", ("1", "2", "3", "16"), 3),
        ("--mem-fraction-static", ("0.85",), 4),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a:\n  --port: 8000\n", ("catalogs/benchmark.yaml:2: --port is set by the launcher on "
          "every server: remove it from the catalog")),
        ("a:\n  --x: [9..1]\n", ("catalogs/benchmark.yaml:2: range '9..1' must go up and span at "
          "most 65536")),
        ("a:\n  --x: --y\n", ("catalogs/benchmark.yaml:2: the value '--y' starts with '--': write "
          "each flag as a key of its own")),
        ('a:\n  --x: "a\\u2028b"\n', ("catalogs/benchmark.yaml:2: a flag value holds the "
          "character U+2028; a value is one line of printable text")),
    ],
    ids=["launcher-flag", "range-down", "flag-as-value", "line-separator"],
)  # fmt: skip
def test_a_bad_flag_is_refused_at_its_line(text: str, message: str) -> None:
    assert refusal(text, "a") == message


def test_fragments_expand_in_place_and_an_unknown_one_is_named() -> None:
    r = reader("args: [common, {--page-size: 1}]\nbad: [comon]\n")
    fragments = {"common": r.flags({"--trust-remote-code": True}, ["args"])}
    used: list[str] = []
    items = r.items(r.doc["args"], ["args"], fragments, "args", used)
    assert [f.tokens() for f in items] == [["--trust-remote-code"], ["--page-size", "1"]]
    assert used == ["common"]
    with pytest.raises(CatalogError) as info:
        r.items(r.doc["bad"], ["bad"], fragments, "args", used)
    assert str(info.value) == (
        "catalogs/benchmark.yaml:2: unknown args fragment 'comon' (did you mean 'common'?)"
    )


def test_selectors_take_known_values_only() -> None:
    r = reader("select:\n  - {family: deepseek, precision: [fp8, fp4]}\n  - {family: qwn}\n")
    known = {"family": {"deepseek", "qwen"}, "precision": {"fp8", "fp4"}}
    with pytest.raises(CatalogError) as info:
        r.selectors(r.doc["select"], ["select"], known)
    assert str(info.value) == (
        "catalogs/benchmark.yaml:3: no config has family 'qwn' (did you mean 'qwen'?)"
    )
    [one] = r.selectors(r.doc["select"][0], ["select", 0], known)
    assert one.fields == (("family", ("deepseek",)), ("precision", ("fp8", "fp4")))
