"""libyaml's parser building the round-trip objects ruamel.yaml builds, for plain catalogs.

ruamel.yaml's round-trip loader stays the reference. `compose` returns None for anything it
does not build exactly as that loader does: any libyaml error, an alias, anchor, tag or
directive, several documents, a top level that is not a mapping, a key that is not a scalar,
a repeated key, a merge key, a timestamp, an empty value (nothing after `key:`), a block
scalar that starts with a blank line, a tab, a carriage return or a Unicode line break.
The caller then loads the text with ruamel.yaml, which reports errors as it always did.

Plain scalars are resolved with ruamel.yaml's own YAML 1.2 resolver table, in its order, and
built as its round-trip constructor builds them (`yes` stays a string, `012` is 12).
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.resolver import implicit_resolvers
from ruamel.yaml.scalarstring import FoldedScalarString, LiteralScalarString
from yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)

_TAG = "tag:yaml.org,2002:"
# Characters where libyaml and ruamel.yaml's scanner may count lines or columns differently.
_UNUSUAL_TEXT = re.compile("[\t\r\x85\u2028\u2029\ufeff]")
_BOOLS = {"true": True, "false": False}
# A block scalar header as ruamel.yaml reads it; libyaml also takes a comment right after it.
_BLOCK_HEADER = re.compile(r"[|>](?:[-+][1-9]?|[1-9][-+]?)?(?: |\n|$)")


class _Unusual(Exception):
    """Something ruamel.yaml should load (or refuse) itself."""


def _resolvers() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    """ruamel.yaml's YAML 1.2 implicit resolvers by first character, in its order."""
    out: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
    for versions, tag, regexp, first in implicit_resolvers:
        if (1, 2) in versions:
            # ruamel.yaml compiles its table lazily; lazy_self() gives the compiled pattern.
            lazy = getattr(regexp, "lazy_self", None)
            compiled = lazy() if lazy is not None else regexp
            if not isinstance(compiled, re.Pattern):
                compiled = re.compile(compiled.pattern, compiled.flags)
            for ch in first:
                out.setdefault(ch, []).append((tag.removeprefix(_TAG), compiled))
    return out


_RESOLVERS = _resolvers()


def _int(text: str) -> int:
    """As RoundTripConstructor.construct_yaml_int reads YAML 1.2 (its subclasses are ints)."""
    digits = text.replace("_", "")
    sign = -1 if digits[0] == "-" else 1
    if digits[0] in "+-":
        digits = digits[1:]
    for prefix, base in (("0b", 2), ("0x", 16), ("0o", 8)):
        if digits.startswith(prefix):
            if len(digits) == 2:
                raise _Unusual  # ruamel.yaml fails on it in its own way
            return sign * int(digits[2:], base)
    return sign * int(digits)


def _float(text: str) -> float:
    """As RoundTripConstructor.construct_yaml_float reads YAML 1.2 (ScalarFloat is a float)."""
    digits = text.replace("_", "").lower()
    sign = -1 if digits[0] == "-" else 1
    if digits[0] in "+-":
        digits = digits[1:]
    if digits == ".inf":
        return sign * math.inf
    if digits == ".nan":
        return math.nan
    return sign * float(digits)


def plain(text: str) -> Any:
    """The value of a plain (unquoted, untagged) scalar."""
    for tag, regexp in _RESOLVERS.get(text[:1], ()):
        if regexp.match(text):
            try:
                if tag == "bool":
                    return _BOOLS[text.lower()]
                if tag == "null":
                    return None
                if tag == "int":
                    return _int(text)
                if tag == "float":
                    return _float(text)
            except (ValueError, IndexError) as e:
                raise _Unusual from e
            raise _Unusual  # merge, timestamp, value: rare enough to leave to ruamel.yaml
    return text


def _scalar(event: ScalarEvent, seen: dict[str, Any], source: str) -> Any:
    if event.anchor is not None or event.tag is not None:
        raise _Unusual
    style = event.style
    text = event.value
    if style == "":
        if not text:
            raise _Unusual  # ruamel.yaml places an empty value where the next token starts
        if text in seen:
            return seen[text]
        value = seen[text] = plain(text)
        return value
    if style == "|" or style == ">":
        assert event.start_mark is not None
        if not _BLOCK_HEADER.match(source, event.start_mark.index):
            raise _Unusual
        if not text or text[0] == "\n":
            raise _Unusual  # ruamel.yaml refuses some leading blank lines that libyaml takes
        return LiteralScalarString(text) if style == "|" else FoldedScalarString(text)
    return text


def _collection(event: MappingStartEvent | SequenceStartEvent) -> Any:
    if event.anchor is not None or event.tag is not None:
        raise _Unusual
    node: Any = CommentedMap() if isinstance(event, MappingStartEvent) else CommentedSeq()
    mark = event.start_mark
    assert mark is not None
    lc = node.lc
    lc.line, lc.col = mark.line, mark.column
    return node


def _build(parser: yaml.CBaseLoader, source: str) -> Any:
    """The document as CommentedMap/CommentedSeq with ruamel.yaml's line/column data."""
    # Open collections: [node, lc.data, pending key or _NO_KEY, the key's mark].
    stack: list[list[Any]] = []
    root: Any = None
    documents = 0
    seen: dict[str, Any] = {}
    while (event := parser.get_event()) is not None:
        kind = type(event)
        if kind is ScalarEvent:
            node = _scalar(event, seen, source)  # type: ignore[arg-type]
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            node = _collection(event)  # type: ignore[arg-type]
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            done = stack.pop()
            if done[1]:
                done[0].lc.data = done[1]
            continue
        elif kind is DocumentStartEvent:
            documents += 1
            if documents > 1 or event.version or event.tags:  # type: ignore[attr-defined]
                raise _Unusual
            continue
        elif kind is StreamStartEvent or kind is DocumentEndEvent or kind is StreamEndEvent:
            continue
        else:  # AliasEvent, or anything new
            raise _Unusual
        mark = event.start_mark
        assert mark is not None
        if stack:
            top = stack[-1]
            parent = top[0]
            if type(parent) is CommentedSeq:
                top[1][len(top[1])] = [mark.line, mark.column]
                list.append(parent, node)
            elif top[2] is _NO_KEY:
                if kind is not ScalarEvent or node in parent:
                    raise _Unusual  # a collection as key, or a repeated key
                top[2], top[3] = node, mark
            else:
                key, key_mark = top[2], top[3]
                top[1][key] = [key_mark.line, key_mark.column, mark.line, mark.column]
                parent[key] = node
                top[2] = _NO_KEY
        else:
            root = node
        if kind is not ScalarEvent:
            stack.append([node, {}, _NO_KEY, None])
    if type(root) is not CommentedMap:
        raise _Unusual
    return root


_NO_KEY = object()


def compose(text: str) -> CommentedMap | None:
    """The document ruamel.yaml's round-trip loader would give, or None (see the module doc)."""
    if not yaml.__with_libyaml__ or _UNUSUAL_TEXT.search(text):
        return None  # without libyaml, ruamel.yaml loads everything
    parser = yaml.CBaseLoader(text)
    try:
        doc: CommentedMap = _build(parser, text)
    except (yaml.YAMLError, _Unusual):
        return None
    finally:
        parser.dispose()
    return doc
