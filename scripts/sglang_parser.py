"""SGLang's server parser rebuilt by running its own source, with every other import stubbed.

    .venv/bin/python scripts/flag_tables.py --parser ARCHIVE    # one JSON action a line

scripts/flag_tables.py reads the parsers with `ast`; this runs them. From a downloaded wheel
or sdist it imports, from the archive's own text, `sglang.srt.server_args` and the
`sglang.srt.arg_groups` package (the annotated fields and argparse actions of 0.5.14 on),
and nothing else of SGLang: every other `sglang` module, and every module this Python does
not have (torch and the GPU stack), is a stub whose attributes are stubs. msgspec, which
the fields of 0.5.20 on are built with, is imported for real. `ServerArgs.add_cli_args`
then fills a real `argparse.ArgumentParser`, and each `add_argument` call's Action (what
argparse itself made of the call: option strings, dest, nargs) is recorded as the tables
write it: `[nargs, dest, option, ...]`, nargs as argparse counts values ("1" for None).
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

# The modules run from the archive's text; `sglang` and `sglang.srt` are empty packages.
REAL = ("sglang.srt.server_args", "sglang.srt.arg_groups")
EMPTY = ("sglang", "sglang.srt")
SERVER_ARGS = "sglang/srt/server_args.py"


class _StubType(type):
    """A stub class: any attribute, call, item, operator or base is another stub."""

    def __getattr__(cls, name: str) -> type[Stub]:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Stub

    def __call__(cls, *args: object, **kwargs: object) -> type[Stub]:
        return Stub

    def __getitem__(cls, item: object) -> type[Stub]:
        return Stub

    def __or__(cls, other: object) -> type[Stub]:
        return Stub

    def __ror__(cls, other: object) -> type[Stub]:
        return Stub

    def __add__(cls, other: object) -> type[Stub]:
        return Stub

    def __radd__(cls, other: object) -> type[Stub]:
        return Stub

    def __iter__(cls) -> Iterator[object]:
        return iter(())

    def __len__(cls) -> int:
        return 0

    def __contains__(cls, item: object) -> bool:
        return False

    def __bool__(cls) -> bool:
        return False

    def __mro_entries__(cls, bases: tuple[object, ...]) -> tuple[type, ...]:
        return (object,)


class Stub(metaclass=_StubType):
    """What a stubbed module holds under every name."""


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> type[Stub]:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Stub


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves SGLang's modules from `files` (the archive's .py text by path) or as stubs,
    and stubs any other module no finder after it can find."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = files
        self.loaded: list[str] = []

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".", maxsplit=1)[0] != "sglang":
            others = (f for f in sys.meta_path if f is not self)
            for finder in others:
                if finder.find_spec(fullname, path, target) is not None:
                    return None
        package = f"{fullname.replace('.', '/')}/__init__.py" in self.files
        spec = importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        spec.has_location = False
        if not package:
            spec.submodule_search_locations = []
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        self.loaded.append(spec.name)
        name = spec.name
        if name in EMPTY or self._source(name) is not None:
            module = types.ModuleType(name)
        else:
            module = _StubModule(name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        if module.__name__ in EMPTY:
            return
        source = self._source(module.__name__)
        if source is not None:
            path, text = source
            exec(compile(text, path, "exec"), module.__dict__)

    def _source(self, name: str) -> tuple[str, str] | None:
        if not any(name == real or name.startswith(real + ".") for real in REAL):
            return None
        base = name.replace(".", "/")
        for path in (f"{base}.py", f"{base}/__init__.py"):
            if path in self.files:
                return path, self.files[path]
        return None


class _Recording(argparse.ArgumentParser):
    """A parser that keeps every Action its public `add_argument` returns."""

    def __init__(self) -> None:
        self.recorded: list[argparse.Action] = []
        super().__init__(prog="sglang serve", add_help=False)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.recorded.append(action)
        return action


def _nargs(action: argparse.Action) -> str:
    return "1" if action.nargs is None else str(action.nargs)


def server_actions(files: Mapping[str, str]) -> list[list[str]]:
    """The server parser's actions, `[nargs, dest, option, ...]`, as argparse built them,
    sorted by their first option string; sys.modules is left as it was."""
    if SERVER_ARGS not in files:
        msg = f"no {SERVER_ARGS} in the archive"
        raise LookupError(msg)
    before = set(sys.modules)
    finder = _Finder(files)
    sys.meta_path.insert(0, finder)
    try:
        module = importlib.import_module("sglang.srt.server_args")
        parser = _Recording()
        module.ServerArgs.add_cli_args(parser)
    finally:
        sys.meta_path.remove(finder)
        for name in set(sys.modules) - before:
            del sys.modules[name]
    out = [[_nargs(a), a.dest, *a.option_strings] for a in parser.recorded if a.option_strings]
    return sorted(out, key=lambda a: a[2])
