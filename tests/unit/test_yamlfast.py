"""libyaml's documents equal ruamel.yaml's round-trip documents: values, types and lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from generator import yamlfast
from generator.errors import CatalogError
from generator.yamlio import parse_mapping
from tests.acceptance.test_invalid_catalogs import CASES, apply
from tests.catalog_gen import catalog_specs, dump
from tests.helpers import ROOT, copy_repo

MANY = settings(max_examples=300, deadline=None, database=None)
BASES = (bool, int, float, str, type(None))


def base(value: Any) -> type:
    return next(t for t in BASES if isinstance(value, t))


def assert_same(fast: Any, ref: Any, path: tuple[Any, ...] = ()) -> None:
    """Equal values, base types, key order, and line/column of every node, key and item."""
    if isinstance(ref, CommentedMap):
        assert isinstance(fast, CommentedMap), path
        assert [(base(k), repr(k)) for k in fast] == [(base(k), repr(k)) for k in ref], path
        assert (fast.lc.line, fast.lc.col) == (ref.lc.line, ref.lc.col), path
        assert [fast.lc.data[k] for k in fast] == [ref.lc.data[k] for k in ref], path
        for k_fast, k_ref in zip(fast, ref, strict=True):
            assert_same(fast[k_fast], ref[k_ref], (*path, k_ref))
    elif isinstance(ref, CommentedSeq):
        assert isinstance(fast, CommentedSeq), path
        assert len(fast) == len(ref), path
        assert (fast.lc.line, fast.lc.col) == (ref.lc.line, ref.lc.col), path
        assert [fast.lc.data[i] for i in range(len(fast))] == [
            ref.lc.data[i] for i in range(len(ref))
        ], path
        for i, (a, b) in enumerate(zip(fast, ref, strict=True)):
            assert_same(a, b, (*path, i))
    else:
        assert (base(fast), repr(fast)) == (base(ref), repr(ref)), path


def reference(text: str) -> CommentedMap | str:
    """ruamel.yaml's document, or the one-line error the loader reports."""
    try:
        return parse_mapping(text, "catalog.yaml", fast=False)
    except CatalogError as e:
        return str(e)


def assert_equivalent(text: str, *, fast_expected: bool = False) -> None:
    """When libyaml builds a document, ruamel.yaml builds the same one."""
    fast = yamlfast.compose(text)
    if fast_expected:
        assert fast is not None
    if fast is None:
        return
    ref = reference(text)
    assert not isinstance(ref, str), f"libyaml loads what ruamel.yaml refuses: {ref}"
    assert_same(fast, ref)


@pytest.mark.parametrize("name", ["benchmark.yaml", "accuracy.yaml"])
def test_the_shipped_catalogs_load_the_same_both_ways(name: str) -> None:
    assert_equivalent((ROOT / "catalogs" / name).read_text(), fast_expected=True)


@pytest.mark.parametrize("case_file", CASES, ids=[c.stem for c in CASES])
def test_every_broken_catalog_loads_or_fails_the_same_both_ways(
    tmp_path: Path, case_file: Path
) -> None:
    case = yaml.safe_load(case_file.read_text())
    root = copy_repo(tmp_path, generated=False)
    apply(root, case)
    try:
        text = (root / "catalogs" / f"{case['file']}.yaml").read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return  # refused before any parser sees it
    if text.strip():
        assert_equivalent(text)


@settings(max_examples=40, deadline=None, database=None)
@given(catalog_specs())
def test_generated_catalogs_load_the_same_both_ways(spec: Any) -> None:
    assert_equivalent(dump(spec.benchmark), fast_expected=True)
    assert_equivalent(dump(spec.accuracy), fast_expected=True)


# Plain scalars whose type YAML 1.1 and 1.2 disagree on, and ones that are easy to get wrong.
PLAIN = (
    "yes", "no", "on", "off", "y", "n", "Yes", "NO", "true", "True", "TRUE", "tRUE",
    "false", "False", "FALSE", "null", "Null", "NULL", "nULL", "~", "0", "00", "012",
    "-012", "0o12", "0o", "0x", "0x1F", "0x1f", "0X1F", "0b101", "1_000", "1__", "_1", "+1", "-0",
    "+0.5", "0.8", "0.80", ".5", "5.", "-5.", "1e3", "1E3", "1.0e+3", "1e-3", "-1.5E-3",
    ".5e+3", "1_0.2_5", "-.inf", ".Inf", ".INF", "+.inf", ".inf", ".nan", ".NaN", ".NAN",
    "nan", "inf", "1:30", "190:20:30", "2024-1-1", "8192x1024", "1.2.3", "0.1_2", "1,000",
    "-", "a:b", "http://x.y/z", "foo#bar", "foo # bar", "é", "日本", "e3", ".e3", "+", "1e",
    "0.", "-.5", "12e", "9" * 30, "a b  c", "trust_remote_code", "--page-size",
)  # fmt: skip
# Plain scalars the fast path leaves to ruamel.yaml.
ODD = ("<<", "=", "2024-01-01", "2001-12-14t21:59:43.10-05:00", "0o_", "0b_", "-_", "._")
QUOTED = (
    '"yes"', "'012'", '"a\\tb"', '"\\x41\\u00e9\\U0001F600"', '"\\/"', '"\\N\\_\\L\\P"',
    '"\\e\\0\\a\\b\\v\\f"', '"a\\\n  b"', "'it''s'", '"multi\n  line"', "''", '""',
    "'# not a comment'", '"\\ "',
)  # fmt: skip
BLOCK = ("|", "|-", "|+", ">", ">-", ">+", "|2", ">1-")
LINES = ("one", "two three", "", "  ", "    ", "  indented", "four: five", "# hash", "- dash")


@st.composite
def scalars(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 99))
    if kind < 50:
        return draw(st.sampled_from(PLAIN))
    if kind < 52:
        return draw(st.sampled_from(ODD))
    if kind < 75:
        return draw(st.sampled_from(QUOTED))
    alphabet = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))
    return draw(st.text(alphabet, min_size=1, max_size=8))


# Mostly distinct keys; a repeated one (`0` and `-0`, `null` and `~`) is left to ruamel.yaml.
_named = st.integers(0, 999).map(lambda i: f"key{i}")
keys = st.one_of(st.sampled_from(PLAIN + QUOTED), _named, _named)


@st.composite
def flow(draw: st.DrawFn, depth: int = 0) -> str:
    if depth > 1 or draw(st.booleans()):
        return draw(scalars())
    items = draw(st.lists(flow(depth + 1), max_size=3))
    if draw(st.booleans()):
        return "[" + ", ".join(items) + "]"
    names = draw(st.lists(keys, max_size=3))
    sep = draw(st.sampled_from([", ", ",\n    ", ","]))
    return "{" + sep.join(f"{k}: {v}" for k, v in zip(names, items, strict=False)) + "}"


@st.composite
def block(draw: st.DrawFn, indent: int, depth: int) -> list[str]:
    """Lines of a block mapping (or, nested, a sequence) at `indent`."""
    pad = " " * indent
    out: list[str] = []
    sequence = depth > 0 and draw(st.booleans())
    for _ in range(draw(st.integers(1, 4))):
        head = f"{pad}- " if sequence else f"{pad}{draw(keys)}: "
        if draw(st.integers(0, 9)) == 0:
            out.append(f"{pad}# a comment")
        kind = draw(st.sampled_from(["scalar", "flow", "block", "nested", "nested"]))
        if kind == "nested" and depth < 3:
            out.append(head.rstrip())
            out += draw(block(indent + draw(st.sampled_from([2, 4])), depth + 1))
        elif kind == "block":
            out.append(head + draw(st.sampled_from(BLOCK)))
            out += [f"{pad}  {line}" for line in draw(st.lists(st.sampled_from(LINES)))]
        elif kind == "flow":
            out.append(head + draw(flow()))
        else:
            comment = draw(st.sampled_from(["", "", " # trailing"]))
            out.append(head + draw(scalars()) + comment)
    return out


# Each is loaded by ruamel.yaml alone: what libyaml takes differently, or ruamel.yaml refuses.
STEP_ASIDE = (
    "a: |\n  \n    text\n",  # ruamel.yaml: more indented follow up line than first
    "a: |-\n  \n    \nb: 1\n",
    "a: >#\n  x\n",  # ruamel.yaml: expected chomping or indentation indicators
    "a:\nb: 1\n",  # ruamel.yaml puts the empty value where `b` starts
    "a: {b: , c: 1}\n",
    "a: 1\na: 2\n",
    "1: a\n1.0: b\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "%YAML 1.1\n---\na: yes\n",
    "a: 1\n---\nb: 2\n",
    "? [a]\n: 1\n",
    "<<: {a: 1}\n",
    "a: 2024-01-01\n",
    "a: 0o_\n",
    "a:\tb\n",
    "a: 1\r\nb: 2\r\n",
    "- a\n",
    "# only a comment\n",
)


@pytest.mark.parametrize("text", STEP_ASIDE)
def test_libyaml_steps_aside_for_what_ruamel_yaml_reads_its_own_way(text: str) -> None:
    assert yamlfast.compose(text) is None


@MANY
@given(block(0, 0), st.sampled_from(["", "---\n", "# head\n\n"]))
def test_hand_written_documents_load_the_same_both_ways(lines: list[str], start: str) -> None:
    assert_equivalent(start + "\n".join(lines) + "\n")


SMALL = """\
# A small catalog with most of what catalogs use.
version: 1
suites:
  gsm:  # trailing comment
    timeout_minutes: 60
    evaluator: {kind: lm-eval, task: gsm8k, num_fewshot: 3, metric: "exact_match,flex"}
schedule:
  cron: "0 16 * * *"
  level: nightly
cases:
  - id: acc-case
    name: 'Accuracy case'
    parallel: {tp: 2}
    args: [trust, {--page-size: 1}]
    env:
      - common
      - {SGLANG_USE_AITER: "1", EMPTY: ""}
    levels: [nightly, pr]
    threshold: 0.9
    note: >-
      folded text
      over two lines
    waive:
      L304: |
        kept as written
"""
EDITS = (
    " ", "-", ":", "#", "'", '"', "[", "]", "{", "}", ",", "\n", "? ", "!", "&a ", "*a",
    "|", ">", "%", "@", "`", "é", "\\", "\t", "  ", "<<: ", "\n- ", ": ", "0x", ".5",
)  # fmt: skip


@MANY
@given(st.data())
def test_edited_catalogs_load_the_same_both_ways_or_libyaml_steps_aside(
    data: st.DataObject,
) -> None:
    text = SMALL
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        if data.draw(st.booleans()):
            text = text[:at] + data.draw(st.sampled_from(EDITS)) + text[at:]
        else:
            text = text[:at] + text[at + data.draw(st.integers(1, 3)) :]
    assert_equivalent(text)
