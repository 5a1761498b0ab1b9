"""generator.catalog.yamlio: the one YAML set-up: catalogs with lines and limits, plain data."""

from __future__ import annotations

import pytest

from generator.catalog.yamlio import (
    MAX_CATALOG_BYTES,
    line_of,
    load_data,
    load_mapping,
    parse_mapping,
)
from generator.errors import CatalogError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SHOWN = "catalogs/benchmark.yaml"


def refusal(text: str) -> str:
    with pytest.raises(CatalogError) as info:
        parse_mapping(text, SHOWN)
    return str(info.value)


def test_plain_data_reads_yaml_1_2_so_on_is_a_key_and_yes_a_string() -> None:
    assert load_data("on:\n  push:\nflag: yes\nn: 010\n") == {
        "on": {"push": None},
        "flag": "yes",
        "n": 10,
    }


def test_line_of_finds_keys_and_list_items() -> None:
    doc = parse_mapping("a: 1\nb:\n  - x\n  - {c: 2,\n     d: 3}\n", SHOWN)
    paths: list[list[str | int]] = [["a"], ["b"], ["b", 1], ["b", 1, "d"], ["zz"]]
    assert [line_of(doc, p) for p in paths] == [
        1,
        2,
        4,
        5,
        1,
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\na: 2\n", "catalogs/benchmark.yaml:2: YAML error: duplicate key 'a'"),
        ("a: &x 1\nb: *x\n", ("catalogs/benchmark.yaml:2: YAML alias '*x' is not supported; write "
          "the value out or use a fragment")),
        ("- 1\n", ("catalogs/benchmark.yaml:1: the top level must be a mapping, found "
          "CommentedSeq")),
        ("a: 'open\nb: 2\n\nc: 3\n", ("catalogs/benchmark.yaml:1: YAML error: a quote opened on "
          "this line is never closed")),
        ("a:\n\tb: 1\n", "catalogs/benchmark.yaml:2: YAML error: a tab: indent with spaces"),
        ("a:\n  b: 1\n c: 2\n", ("catalogs/benchmark.yaml:3: YAML error: this line is indented "
          "differently from the lines before it: indent it as far as the keys beside it, with "
          "spaces")),
        ("a:\n  b: 1\n    c: 2\n", ("catalogs/benchmark.yaml:3: YAML error: a ':' where a value "
          "was expected: indent this line as far as the keys beside it, or quote a value that "
          "holds ': '")),
        ("a:\n  b: 1\n  - c\n", ("catalogs/benchmark.yaml:3: YAML error: a list item ('-') among "
          "the keys of a mapping: indent it under a key, or write it as a key")),
        ("a: {tp: 4, dp: 4\nb: 1\n", ("catalogs/benchmark.yaml:1: YAML error: a '{' opened on "
          "this line is not closed with '}', or its items are not separated by ','")),
        ("a: [1\nb: 1\n", ("catalogs/benchmark.yaml:1: YAML error: a '[' opened on this line is "
          "not closed with ']', or its items are not separated by ','")),
        ('a: 1\nb: "x\\qy"\n', ("catalogs/benchmark.yaml:2: YAML error: found unknown escape "
          "character 'q'")),
        ("a: 1\nb: \x00\n", ("catalogs/benchmark.yaml:2: YAML error: unacceptable character "
          "#x0000: special characters are not allowed")),
        ("a: 1\nb:\n  {c: 1}: 2\n", ("catalogs/benchmark.yaml:3: a mapping or list as a key; a "
          "key is a plain value")),
        ("a: 1\n? [b, c]\n: 2\n", ("catalogs/benchmark.yaml:2: a mapping or list as a key; a "
          "key is a plain value")),
    ],
    ids=[
        "duplicate", "alias", "not-a-mapping", "unclosed-quote", "tab", "indented-less",
        "indented-more", "list-item-among-keys", "unclosed-brace", "unclosed-bracket", "escape",
        "nul",
        "mapping-key", "list-key",
    ],
)  # fmt: skip
def test_bad_yaml_is_refused_at_its_line(text: str, message: str) -> None:
    assert refusal(text) == message


def test_a_catalog_file_is_refused_unparsed_when_huge_empty_or_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    for data, message in [
        (b" " * (MAX_CATALOG_BYTES + 1), (f"catalog is {MAX_CATALOG_BYTES + 1} bytes; the limit "
          f"is {MAX_CATALOG_BYTES} bytes")),
        (b"\n \n", "catalog is empty"),
        (b"a: 1\nb: \xff\n", "not valid UTF-8 (byte 0xff)"),
        (b"a: .nan\n", "a: nan is not a number the catalog takes; write a finite value"),
    ]:  # fmt: skip
        path.write_bytes(data)
        with pytest.raises(CatalogError) as info:
            load_mapping(path, SHOWN)
        line = 2 if b"\xff" in data else 1
        assert str(info.value) == f"{SHOWN}:{line}: {message}"


def test_a_plain_value_in_a_flow_collection_may_hold_colons_as_yaml_1_2_reads_it() -> None:
    """An image reference or a URL in a flow list or mapping is one value (YAML 1.1's
    flow rules, libyaml's, would refuse `[rocm/atom:v0.1]`)."""
    text = "images: [rocm/atom:v0.1, 'x']\nurls: {docs: http://x/y, k: a:b}\nflags: [--x=a:b]\n"
    assert parse_mapping(text, SHOWN) == {
        "images": ["rocm/atom:v0.1", "x"],
        "urls": {"docs": "http://x/y", "k": "a:b"},
        "flags": ["--x=a:b"],
    }
