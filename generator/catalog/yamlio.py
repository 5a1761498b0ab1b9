"""The one YAML set-up: ruamel.yaml, the project's only YAML library. Catalogs are loaded
round trip, with line numbers and limits; documents that need no line numbers (a rendered
workflow read back, the action pins) as plain data. Both read YAML 1.2, where `on:` is the
key GitHub reads, not the `true` of YAML 1.1."""

from __future__ import annotations

import math
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, MaxDepthExceededError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent, CollectionStartEvent, ScalarEvent
from ruamel.yaml.nodes import MappingNode
from ruamel.yaml.reader import ReaderError

from generator.errors import CatalogError, Loc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ruamel.yaml.nodes import Node

# Room for catalogs of ten thousand configs and more; larger files are refused unread.
MAX_CATALOG_BYTES = 16 * 1024 * 1024
# A catalog nests a few levels (configs, a config, its args, a flag's values); anything
# deeper is refused before a recursive reader (ruamel.yaml's composer, jsonschema) meets it.
MAX_NESTING = 32
# A catalog's numbers are sizes, counts, minutes and ratios: none needs more digits, and
# arithmetic on (or printing of) a number of thousands of digits is what a hostile file
# would make us do (Python itself refuses to read an int of more than 4,300).
MAX_NUMBER_DIGITS = 30
_MAX_INT = 10**MAX_NUMBER_DIGITS
_NUMBER = re.compile(r"^[-+]?(0[xob])?[0-9_.]+(e[-+]?[0-9]+)?$", re.IGNORECASE)


class _Refused(Exception):
    """What the composer refuses, at its line: parse_mapping names the file."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message, line)
        self.message = message
        self.line = line


class _RefusingComposer(Composer):
    """ruamel.yaml's composer, refusing an alias where it meets one: composing is one linear
    pass over the parse, so an alias bomb is refused before anything is built from it. A
    mapping or list as a key is refused there too (no catalog has one, and a mapping key
    cannot be built: the constructor would fail with no line). The composer asks for a
    mapping's key with no index, for its value with the key."""

    def compose_node(self, parent: Node | None, index: object) -> Node:
        event = self.parser.peek_event()
        line = event.start_mark.line + 1 if event.start_mark else 1
        key = isinstance(parent, MappingNode) and index is None
        if isinstance(event, AliasEvent):
            msg = f"YAML alias '*{event.anchor}' is not supported"
            raise _Refused(msg + "; write the value out or use a fragment", line)
        if key and isinstance(event, CollectionStartEvent):
            msg = "a mapping or list as a key; a key is a plain value"
            raise _Refused(msg, line)
        node: Node = super().compose_node(parent, index)
        return node


def _yaml() -> YAML:
    yaml = YAML(typ="rt", pure=True)
    yaml.Composer = _RefusingComposer
    yaml.allow_duplicate_keys = False
    # Refused where it is met, before the composer recurses deeper or the scanner (whose
    # work per token grows with the flow depth) goes on.
    yaml.max_depth = MAX_NESTING
    return yaml


# Any YAML document, of whatever shape: each caller reads the shape it expects.
def load_data(text: str) -> Any:  # noqa: ANN401 (arbitrary YAML, see above)
    """A YAML document as plain dicts, lists and scalars (YAML 1.2, no line numbers),
    parsed by libyaml (ruamel.yaml.clib) where it is installed: ruamel.yaml resolves the
    scalars itself, so both parsers give the same data."""
    return YAML(typ="safe", pure=False).load(text)


def _decode(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        msg = f"not valid UTF-8 (byte 0x{data[e.start]:02x})"
        raise CatalogError(msg, Loc(shown, line)) from e


def dotted(path: Sequence[str | int]) -> str:
    """`configs[3].args`: a path as an error names it."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def check_values(root: object, shown: str) -> None:
    """Every value within MAX_NESTING levels, every number finite and of at most
    MAX_NUMBER_DIGITS digits (`.nan` and `.inf` would pass every bound check). Iterative,
    so no document can exhaust the stack here."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if len(path) > MAX_NESTING:
            msg = f"{dotted(path[:3])}...: nested deeper than {MAX_NESTING} levels"
            raise CatalogError(msg, Loc(shown, line_of(root, path)))
        if isinstance(node, float) and not math.isfinite(node):
            msg = f"{dotted(path)}: {node!r} is not a number the catalog takes"
            msg += "; write a finite value"
            raise CatalogError(msg, Loc(shown, line_of(root, path)))
        if isinstance(node, int) and not isinstance(node, bool) and abs(node) >= _MAX_INT:
            msg = f"{dotted(path)}: a number of more than {MAX_NUMBER_DIGITS} digits"
            raise CatalogError(msg, Loc(shown, line_of(root, path)))
        if isinstance(node, dict):
            stack.extend((value, (*path, key)) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, (*path, i)) for i, value in enumerate(node))


def _unreadable(text: str, shown: str, error: Exception) -> CatalogError:
    """Why ruamel.yaml could not build the document: an integer of more digits than Python
    reads, found by one pass over the parse events (only a failed load pays for it)."""
    for event in _yaml().parse(text):
        if isinstance(event, ScalarEvent) and event.style is None and _NUMBER.match(event.value):
            digits = sum(c.isdigit() for c in event.value)
            if digits > MAX_NUMBER_DIGITS:
                line = event.start_mark.line + 1 if event.start_mark else 1
                msg = f"a number of {digits} digits; a catalog number has at most "
                return CatalogError(msg + str(MAX_NUMBER_DIGITS), Loc(shown, line))
    return CatalogError(f"YAML the loader cannot hold: {error}", Loc(shown, 1))


def load_mapping(path: Path, shown: str) -> CommentedMap:
    """Load one catalog file; every failure is a CatalogError naming file and line."""
    try:
        data = path.read_bytes()
    except OSError as e:
        msg = f"cannot read catalog: {e.strerror}"
        raise CatalogError(msg, Loc(shown, 1)) from e
    if len(data) > MAX_CATALOG_BYTES:
        msg = f"catalog is {len(data)} bytes; the limit is {MAX_CATALOG_BYTES} bytes"
        raise CatalogError(msg, Loc(shown, 1))
    text = _decode(data, shown)
    if not text.strip():
        msg = "catalog is empty"
        raise CatalogError(msg, Loc(shown, 1))
    doc = parse_mapping(text, shown)
    check_values(doc, shown)
    return doc


def parse_mapping(text: str, shown: str) -> CommentedMap:
    """The document in `text` (named `shown` in errors)."""
    try:
        doc = _yaml().load(text)
    except _Refused as e:
        raise CatalogError(e.message, Loc(shown, e.line)) from None
    except MaxDepthExceededError as e:
        line = e.problem_mark.line + 1 if e.problem_mark else 1
        msg = f"nested deeper than {MAX_NESTING} levels"
        raise CatalogError(msg, Loc(shown, line)) from e
    except ValueError as e:
        raise _unreadable(text, shown, e) from e
    except MarkedYAMLError as e:
        context = (e.context or "").strip()
        # An unclosed quote or bracket is reported where it was opened, not where the
        # parser gave up (which can be many lines later).
        opened = context.startswith(("while scanning a quoted", "while parsing a flow"))
        mark = (e.context_mark if opened else None) or e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = (e.problem or context or "invalid YAML").strip()
        if opened:
            problem = f"{problem} {context}"
        if "duplicate key" in problem or "found duplicate key" in str(e):
            problem = f"duplicate key {_dup_key(str(e))}".rstrip()
        msg = f"YAML error: {_plain(problem)}"
        raise CatalogError(msg, Loc(shown, line)) from e
    except ReaderError as e:
        # A character YAML does not allow in a document, at the line it is on.
        line = text.count("\n", 0, e.position) + 1
        msg = f"YAML error: unacceptable character #x{e.character:04x}: {e.reason}"
        raise CatalogError(msg, Loc(shown, line)) from e
    except YAMLError as e:
        msg = f"YAML error: {e}"
        raise CatalogError(msg, Loc(shown, 1)) from e
    if not isinstance(doc, CommentedMap):
        kind = type(doc).__name__ if doc is not None else "nothing"
        msg = f"the top level must be a mapping, found {kind}"
        raise CatalogError(msg, Loc(shown, 1))
    return doc


# The parser's words for the mistakes people make (the start of its problem, with the
# context of an unclosed quote or bracket), and what they mean.
_PLAIN = (
    ("expected <block end>, but found '-'", (
        "a list item ('-') among the keys of a mapping: indent it under a key, or write it as "
        "a key")),
    ("expected <block end>", (
        "this line is indented differently from the lines before it: indent it as far as the "
        "keys beside it, with spaces")),
    ("mapping values are not allowed here", (
        "a ':' where a value was expected: indent this line as far as the keys beside it, or "
        "quote a value that holds ': '")),
    ("could not find expected ':'", (
        "a key without its ':', or a line indented as if it continued the one above")),
    ("expected ',' or '}'", (
        "a '{' opened on this line is not closed with '}', or its items are not separated by "
        "','")),
    ("expected ',' or ']'", (
        "a '[' opened on this line is not closed with ']', or its items are not separated by "
        "','")),
    ("found character '\\t' that cannot start any token", "a tab: indent with spaces"),
    ("found unexpected end of stream while scanning a quoted scalar", (
        "a quote opened on this line is never closed")),
)  # fmt: skip


def _plain(problem: str) -> str:
    """The parser's problem in plain words, when it is one people make."""
    return next((words for start, words in _PLAIN if problem.startswith(start)), problem)


def _dup_key(text: str) -> str:
    marker = 'found duplicate key "'
    start = text.find(marker)
    if start < 0:
        return ""
    start += len(marker)
    return "'" + text[start : text.find('"', start)] + "'"


def line_of(root: object, path: Sequence[str | int], *, key: bool = True) -> int:
    """The 1-based line of the node at `path` (its key's line for mapping entries)."""
    node: Any = root
    line = 1
    for part in path:
        if isinstance(node, CommentedMap) and part in node:
            pos = node.lc.key(part) if key else node.lc.value(part)
            line = pos[0] + 1
            node = node[part]
        elif isinstance(node, CommentedSeq) and isinstance(part, int) and 0 <= part < len(node):
            line = node.lc.item(part)[0] + 1
            node = node[part]
        else:
            break
    return line
