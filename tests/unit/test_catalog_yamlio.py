"""generator.catalog.yamlio: the one YAML set-up: catalogs with lines and limits, plain data."""

from __future__ import annotations

from typing import Any

import pytest
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from generator.catalog.yamlio import (
    MAX_CATALOG_BYTES,
    line_of,
    load_data,
    load_mapping,
    parse_mapping,
)
from generator.errors import CatalogError
from tests.helpers import FIXTURE

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
        ("a: 'open\nb: 2\n\nc: 3\n", ("catalogs/benchmark.yaml:1: YAML error: found unexpected end "
          "of stream while scanning a quoted scalar")),
        ("a:\n\tb: 1\n", ("catalogs/benchmark.yaml:2: YAML error: found character '\\t' that "
          "cannot start any token")),
        ('a: 1\nb: "x\\qy"\n', ("catalogs/benchmark.yaml:2: YAML error: found unknown escape "
          "character 'q'")),
        ("a: 1\nb: \x00\n", ("catalogs/benchmark.yaml:2: YAML error: unacceptable character "
          "#x0000: control characters are not allowed")),
    ],
    ids=["duplicate", "alias", "not-a-mapping", "unclosed-quote", "tab", "escape", "nul"],
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


# Every kind of scalar and collection a catalog may hold, beside the fixture catalogs.
KINDS = """\
on: {push: null}
ints: [0, -7, 0x1f, 0o17, 1_000, 010]
floats: [1.5, -2e3, .5, 1.0e-3]
words: [yes, no, on, off, ~, true, FALSE, "quoted", 'single', plain words]
block: |
  two
  lines
folded: >-
  one
  line
nested:
  - {a: [1, {b: c}]}
  -
    - x
    - y
empty: {map: {}, seq: []}
"""


@pytest.mark.parametrize("name", ["benchmark.yaml", "accuracy.yaml", "kinds"])
def test_a_catalog_loads_as_ruamel_yamls_own_round_trip_reader_loads_it(name: str) -> None:
    """libyaml reads the catalogs; the data, its types and every key's, value's and item's
    line and column are what ruamel.yaml's pure-Python round-trip loader gives."""
    text = KINDS if name == "kinds" else (FIXTURE / "catalogs" / name).read_text()
    ours = parse_mapping(text, name)
    theirs = YAML(typ="rt", pure=True).load(text)
    stack: list[tuple[Any, Any]] = [(ours, theirs)]
    compared = 0
    while stack:
        a, b = stack.pop()
        assert type(a) is type(b)
        compared += 1
        if isinstance(a, CommentedMap):
            assert list(a) == list(b)
            for key in a:
                assert (a.lc.key(key), a.lc.value(key)) == (b.lc.key(key), b.lc.value(key))
                stack.append((a[key], b[key]))
        elif isinstance(a, CommentedSeq):
            assert len(a) == len(b)
            for i in range(len(a)):
                assert a.lc.item(i) == b.lc.item(i)
                stack.append((a[i], b[i]))
        else:
            assert a == b
    assert compared == {"benchmark.yaml": 918, "accuracy.yaml": 296, "kinds": 40}[name]
