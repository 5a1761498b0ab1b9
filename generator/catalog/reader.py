"""Raw-YAML readers shared by the catalog builders: values, flags, env, fragments, selectors."""

from __future__ import annotations

import re
from typing import Any

from generator.catalog.catalog_types import Selector
from generator.catalog.flag_checks import flag_problem
from generator.catalog.parallel_layout import MARKER, layout_flags, layout_problem
from generator.catalog.server_types import EnvVar, Flag, Parallel
from generator.catalog.upstream import SERVER
from generator.catalog.yamlio import line_of
from generator.core.field_checks import MODEL_FLAGS, model_path_problem
from generator.errors import CatalogError, Loc, did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

_RANGE = re.compile(r"^(\d+)\.\.(\d+)$")
MAX_RANGE = 65536
# What a flag value may not hold: control characters, Unicode line and paragraph
# separators, bidirectional controls.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f\u0085\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class Reader:
    """Reads one catalog document; every error it raises names the file and line."""

    def __init__(self, doc: Mapping[str, Any], shown: str) -> None:
        self.doc = doc
        self.shown = shown

    def loc(self, path: Sequence[str | int]) -> Loc:
        return Loc(self.shown, line_of(self.doc, path))

    def fail(self, message: str, path: Sequence[str | int]) -> CatalogError:
        return CatalogError(message, self.loc(path))

    def known(
        self, value: str, known: Collection[str], what: str, path: Sequence[str | int]
    ) -> str:
        """`value`, or a refusal at `path` naming the closest of the `known` ones."""
        if value not in known:
            msg = f"unknown {what} '{value}'{did_you_mean(value, known)}"
            raise self.fail(msg, path)
        return value

    def values(self, raw: object, path: Sequence[str | int]) -> tuple[str, ...]:
        out = self._values(raw, path)
        for value in out:
            if value.startswith("--"):
                msg = f"the value '{value}' starts with '--': write each flag as a key of its own"
                raise self.fail(msg, path)
            bad = _UNPRINTABLE.search(value)
            if bad:
                msg = (
                    f"a flag value holds the character U+{ord(bad[0]):04X}; a value is one line "
                    "of printable text"
                )
                raise self.fail(msg, path)
        return out

    def _values(self, raw: object, path: Sequence[str | int]) -> tuple[str, ...]:
        if raw is True:
            return ()
        items = raw if isinstance(raw, list) else [raw]
        out: list[str] = []
        for item in items:
            match = _RANGE.match(item) if isinstance(item, str) and isinstance(raw, list) else None
            if match:
                low, high = int(match[1]), int(match[2])
                if low > high or high - low > MAX_RANGE:
                    msg = f"range '{item}' must go up and span at most {MAX_RANGE}"
                    raise self.fail(msg, path)
                out.extend(str(n) for n in range(low, high + 1))
            else:
                out.append(str(item))
        return tuple(out)

    def flags(
        self, mapping: Mapping[str, Any], path: Sequence[str | int], *, parser: str | None = SERVER
    ) -> tuple[Flag, ...]:
        """`mapping`'s flags, each one a flag of `parser` (SGLang's server by default; a
        client module's parser; None: not checked) with as many values as it takes. The
        server's may not set the flags the launcher owns, nor abbreviate them."""
        out = []
        for name, raw in mapping.items():
            at = [*path, name]
            flag = Flag(name=str(name), values=self.values(raw, at), loc=self.loc(at))
            problem = layout_problem(flag.name) if parser == SERVER else None
            if problem:
                raise self.fail(problem, at)
            if parser == SERVER and flag.name in MODEL_FLAGS:
                problem = next(filter(None, map(model_path_problem, flag.values)), None)
                if problem:
                    msg = f"{flag.name}: {problem}"
                    raise self.fail(msg, at)
            if parser is not None:
                problem = flag_problem(parser, flag.name, len(flag.values), server=parser == SERVER)
                if problem:
                    raise self.fail(problem, at)
            out.append(flag)
        return tuple(out)

    def env(self, mapping: Mapping[str, Any], path: Sequence[str | int]) -> tuple[EnvVar, ...]:
        return tuple(
            EnvVar(name=str(name), value=str(value), loc=self.loc([*path, name]))
            for name, value in mapping.items()
        )

    def items(
        self,
        raw: list[Any],
        path: Sequence[str | int],
        fragments: dict[str, Any],
        kind: str,
        used: list[str],
        layout: tuple[Flag, ...] | None = None,
    ) -> list[Any]:
        """Expand a list of fragment names and inline mappings into flags or env vars; in a
        config's or case's own args, `parallel` stands for the `layout` flags."""
        out: list[Any] = []
        for i, item in enumerate(raw):
            if item == MARKER and kind == "args":
                if layout is None or raw.index(item) != i:
                    msg = (
                        "'parallel' places the layout's flags once, in the args of a config or "
                        "of a case with a parallel: of its own"
                    )
                    raise self.fail(msg, [*path, i])
                out.extend(layout)
            elif isinstance(item, str):
                used.append(self.known(item, fragments, f"{kind} fragment", [*path, i]))
                out.extend(fragments[item])
            elif kind == "args":
                out.extend(self.flags(item, [*path, i]))
            else:
                out.extend(self.env(item, [*path, i]))
        return out

    def server_args(
        self,
        raw: list[Any],
        path: Sequence[str | int],
        fragments: dict[str, Any],
        used: list[str],
        parallel: Parallel,
    ) -> list[Flag]:
        """The `args` of a config (or case) at `path`, with the flags its `parallel:` writes
        (at that key's line): the tensor-parallel size first, then the DP, EP and
        DP-attention flags where the list names `parallel`, else right after it."""
        tp, rest = layout_flags(parallel, self.loc([*path, "parallel"]))
        flags = self.items(raw, [*path, "args"], fragments, "args", used, layout=rest)
        return [tp, *flags] if MARKER in raw else [tp, *rest, *flags]

    def selectors(
        self,
        raw: Mapping[str, Any] | list[Mapping[str, Any]],
        path: Sequence[str | int],
        known: dict[str, set[str]],
    ) -> tuple[Selector, ...]:
        raw_list = raw if isinstance(raw, list) else [raw]
        out = []
        for i, sel in enumerate(raw_list):
            sel_path = [*path, i] if isinstance(raw, list) else list(path)
            fields = []
            for field, value in sel.items():
                values = tuple(value) if isinstance(value, list) else (str(value),)
                for v in values:
                    if v not in known[field]:
                        hint = did_you_mean(v, known[field])
                        msg = f"no config has {field} '{v}'{hint}"
                        raise self.fail(msg, [*sel_path, field])
                fields.append((str(field), values))
            out.append(Selector(fields=tuple(fields)))
        return tuple(out)
