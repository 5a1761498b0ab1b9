"""Write the flag tables of the SGLang and lm-eval releases the runners' images carry.

    .venv/bin/python scripts/flag_tables.py [--cache DIR] [--out DIR] [--check] [--newest]
    .venv/bin/python scripts/flag_tables.py --parser ARCHIVE   # scripts/sglang_parser.py's

`make flag-tables` runs it with `--newest`. For every release the committed index lists
(and, with `--newest`, every final or post release on the package index newer than its
newest: generator/catalog/pypi.py), `pip download <name>==<version> --no-deps` fetches the
published wheel (or sdist) into the cache, and the argument parsers are read from its
source with `ast`, never imported (SGLang needs a GPU stack to import):

- sglang: the server's parser (`ServerArgs.add_cli_args` in `sglang/srt/server_args.py`:
  its `parser.add_argument` calls and, from 0.5.14, the fields `add_cli_args_from_dataclass`
  turns into flags), `python -m sglang.bench_serving`'s parser (`sglang/bench_serving.py`,
  from 0.5.15 `sglang/benchmark/serving.py`) and `sglang.test.few_shot_gsm8k`'s;
- lm-eval: the `lm_eval` command's parser (`lm_eval/__main__.py`, from 0.4.10
  `lm_eval/_cli/run.py`) and the keyword arguments `local-completions` takes through
  `--model_args` (`LocalCompletionsAPI.__init__` and `TemplateAPI.__init__`).

Value counts follow argparse: a `nargs` the call passes (None included) over the default
of the action class's `__init__` (SGLang 0.5.23's `--monokernel-backend` passes
`nargs=None` to an action whose default is 0: it takes a value). The server parser's
retired flags are recorded with what SGLang says of them (`deprecated`: the flag to use,
the date a comment gives for its removal, whether the launch refuses it). Each server
table is then compared, action for action, with the parser SGLang's own code builds when
run with its other imports stubbed (scripts/sglang_parser.py); a difference stops the
script (exit 2) before anything is written.

Each release becomes one file `<name>-<version>.json` under generator/catalog/flagtables/
(package data); `index.json` merges them, oldest release first, as the catalog's loader reads
them (generator/catalog/upstream.py): every option string with the runs of releases that
have it, so a catalog load reads one small file. An action is written as
`[nargs, dest, option, option...]`: nargs as argparse counts values ("0" a switch, "1",
"?", "*", "+" or a number), dest "" where argparse derives it from the options (the first
long one, dashes as underscores).

The supported set: SGLang from 0.5.9 (the release `lmsysorg/sglang-rocm:v0.5.9-rocm700-mi35x`
carries, the image the sglang-mori examples of SPEC.md and the README name, the oldest in
use) to the newest release on PyPI, post releases included; lm-eval from 0.4.5 (the oldest
that takes every model argument the accuracy catalog passes) to the newest. RELEASES is the
list a first run starts from; `--check` exits 1 when a committed table differs from what
the script writes.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.catalog.pypi import INDEX_ENV, OFF, index_url, newer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sglang_parser import server_actions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "generator" / "catalog" / "flagtables"
CACHE = ROOT / ".flag-cache"

RELEASES: dict[str, tuple[str, ...]] = {
    "sglang": (
        "0.5.9",
        "0.5.10",
        "0.5.10.post1",
        "0.5.11",
        "0.5.12",
        "0.5.12.post1",
        "0.5.13",
        "0.5.13.post1",
        "0.5.14",
        "0.5.15",
        "0.5.15.post1",
        "0.5.16",
        "0.5.17",
        "0.5.18",
        "0.5.19",
        "0.5.20",
        "0.5.21",
        "0.5.22",
        "0.5.23",
    ),
    "lm-eval": (
        "0.4.5",
        "0.4.7",
        "0.4.8",
        "0.4.9",
        "0.4.9.1",
        "0.4.9.2",
        "0.4.10",
        "0.4.11",
        "0.4.12",
        "0.4.13",
    ),
}

# argparse actions that take no value; BooleanOptionalAction adds `--no-<name>` too.
SWITCH_ACTIONS = (
    "store_true",
    "store_false",
    "store_const",
    "append_const",
    "count",
    "help",
    "version",
)
BOOLEAN_OPTIONAL = "BooleanOptionalAction"
Action = list[str]  # [nargs, dest, option, ...]


class TableError(Exception):
    """The source does not have the shape this script reads: say where, write nothing."""


@dataclass(frozen=True, kw_only=True)
class Archive:
    """The Python files of one downloaded release, by their path inside the package tree."""

    name: str
    sha256: str
    files: dict[str, str]

    def source(self, path: str) -> str:
        if path not in self.files:
            msg = f"{self.name}: no {path}"
            raise TableError(msg)
        return self.files[path]

    def tree(self, path: str) -> ast.Module:
        return ast.parse(self.source(path), filename=path)


def _archives(name: str, version: str, cache: Path) -> list[Path]:
    stem = name.replace("-", "_")
    return sorted(
        p
        for p in cache.glob(f"{stem}-{version}*")
        if (p.name.startswith(f"{stem}-{version}-") and p.suffix == ".whl")
        or p.name == f"{stem}-{version}.tar.gz"
    )


def download(name: str, version: str, cache: Path) -> Path:
    """The release's wheel or sdist in `cache`, downloaded once."""
    found = _archives(name, version, cache)
    if not found:
        cache.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", f"{name}=={version}", "--no-deps"]
        subprocess.run([*command, "--quiet", "--dest", str(cache)], check=True)
        found = _archives(name, version, cache)
    if not found:
        msg = f"pip downloaded no archive of {name}=={version} into {cache}"
        raise TableError(msg)
    return found[0]


def read_archive(path: Path, package: str) -> Archive:
    """Every .py file under `package/` in a wheel or an sdist (whose tree may sit under
    `<name>-<version>/` and `python/`)."""
    data = path.read_bytes()
    files: dict[str, str] = {}

    def keep(member: str, read: bytes) -> None:
        parts = member.split("/")
        if package in parts and member.endswith(".py"):
            files["/".join(parts[parts.index(package) :])] = read.decode("utf-8")

    if path.suffix == ".whl":
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for member in z.namelist():
                if member.endswith(".py"):
                    keep(member, z.read(member))
    else:
        with tarfile.open(fileobj=io.BytesIO(data)) as t:
            for info in t.getmembers():
                handle = t.extractfile(info) if info.isfile() else None
                if handle is not None and info.name.endswith(".py"):
                    keep(info.name, handle.read())
    return Archive(name=path.name, sha256=hashlib.sha256(data).hexdigest(), files=files)


def _const(node: ast.expr | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _keywords(call: ast.Call) -> dict[str, ast.expr]:
    return {k.arg: k.value for k in call.keywords if k.arg is not None}


def _nargs_code(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if value in ("?", "*", "+"):
        return str(value)
    msg = f"nargs {value!r} is not one argparse takes"
    raise TableError(msg)


def _action_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


@dataclass(frozen=True, kw_only=True)
class ActionClasses:
    """`nargs` defaults of the argparse.Action subclasses a module set defines."""

    defaults: dict[str, str]

    @staticmethod
    def from_trees(trees: list[ast.Module]) -> ActionClasses:
        """Each class's `nargs` default: its `__init__`'s, else its base class's (one defined
        here), else argparse.Action's (None: one value)."""
        own: dict[str, str | None] = {}
        bases: dict[str, str | None] = {}
        for tree in trees:
            for node in ast.walk(tree):
                if not isinstance(node, ast.ClassDef):
                    continue
                bases[node.name] = _action_name(node.bases[0]) if node.bases else None
                own[node.name] = None
                init = next(
                    (
                        f
                        for f in node.body
                        if isinstance(f, ast.FunctionDef) and f.name == "__init__"
                    ),
                    None,
                )
                if init is None:
                    continue
                own[node.name] = "1"
                args = init.args
                positional = [*args.posonlyargs, *args.args]
                pairs = list(
                    zip(
                        positional[len(positional) - len(args.defaults) :],
                        args.defaults,
                        strict=True,
                    )
                )
                pairs += [
                    (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d
                ]
                for arg, default in pairs:
                    if arg.arg == "nargs":
                        own[node.name] = _nargs_code(_const(default)) or "1"

        def resolved(name: str, depth: int = 0) -> str:
            base = bases.get(name)
            if own.get(name) is None and base in own and depth < len(own):
                return resolved(str(base), depth + 1)
            return own.get(name) or "1"

        return ActionClasses(defaults={name: resolved(name) for name in own})


def _options_and_nargs(
    options: list[str],
    action: str | None,
    nargs: object,
    classes: ActionClasses,
    where: str,
    *,
    given: bool,
) -> tuple[list[str], str]:
    """The option strings and value count of one action, as argparse makes it: a `nargs`
    the call passes (`given`, None included) is the Action's own, over the default of the
    action class's `__init__` (`nargs=None` on a class whose default is 0 takes one value)."""
    code = _nargs_code(nargs)
    if action == BOOLEAN_OPTIONAL:
        negated = ["--no-" + o[2:] for o in options if o.startswith("--")]
        return [*options, *negated], "0"
    if action in SWITCH_ACTIONS:
        return options, "0"
    if given:
        return options, code or "1"
    if action is None or action in ("store", "append", "extend"):
        return options, "1"
    if action in classes.defaults:
        return options, classes.defaults[action]
    msg = f"{where}: action {action!r} is neither argparse's nor defined here"
    raise TableError(msg)


def derived_dest(options: list[str]) -> str:
    """The dest argparse gives an option without one: its first long name, else its first."""
    long = next((o for o in options if o.startswith("--")), options[0])
    return long.lstrip("-").replace("-", "_")


def _dest(options: list[str], explicit: object) -> str:
    """The action's dest, written "" when argparse derives it from the options."""
    if isinstance(explicit, str) and explicit != derived_dest(options):
        return explicit
    return ""


def add_argument_calls(node: ast.AST) -> Iterator[ast.Call]:
    """Every `<something>.add_argument(...)` call under `node`, in source order."""
    calls = [
        n
        for n in ast.walk(node)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "add_argument"
    ]
    yield from sorted(calls, key=lambda c: (c.lineno, c.col_offset))


def explicit_actions(node: ast.AST, classes: ActionClasses, where: str) -> list[Action]:
    """The actions of the add_argument calls under `node` (positionals left out)."""
    out: list[Action] = []
    for call in add_argument_calls(node):
        options = [_const(a) for a in call.args]
        if not options or not all(isinstance(o, str) for o in options):
            msg = f"{where}:{call.lineno}: add_argument without literal option names"
            raise TableError(msg)
        names = [str(o) for o in options]
        if not names[0].startswith("-"):
            continue  # a positional argument
        kw = _keywords(call)
        action = _action_name(kw["action"]) if "action" in kw else None
        nargs = _const(kw.get("nargs"))
        if "nargs" in kw and not isinstance(kw["nargs"], ast.Constant):
            msg = f"{where}:{call.lineno}: nargs is not a literal"
            raise TableError(msg)
        all_names, code = _options_and_nargs(
            names, action, nargs, classes, f"{where}:{call.lineno}", given="nargs" in kw
        )
        out.append([code, _dest(names, _const(kw.get("dest"))), *all_names])
    return out


_REMOVE_AFTER = re.compile(r"\bafter (\d{4}-\d{2}-\d{2})\b")
_USE = re.compile(r"\b[Uu]se (--[A-Za-z0-9][A-Za-z0-9-]*(?:=[^\s,.;)]+| <[^<>]+>)?)")
_DEPRECATED = ("Deprecated", "(Deprecated", "[Deprecated")
Note = dict[str, object]  # {"use": str | None, "remove_after": str | None, "refused": bool}


def _help_text(node: ast.expr | None) -> str:
    """A help string as written: a literal, or the literal parts of an f-string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(_const(v)) for v in node.values if isinstance(v, ast.Constant))
    return ""


def _comments(lines: list[str], first: int, last: int) -> str:
    """The comments on source lines `first` to `last` (1-based, inclusive)."""
    return "\n".join(line.split("#", 1)[1] for line in lines[first - 1 : last] if "#" in line)


def _note(
    action: str | None, keywords: dict[str, ast.expr], help_text: str, comments: str
) -> Note | None:
    """What SGLang says of a retired flag, or None when it is not one: an action class
    named `Deprecated...` (sglang/srt/arg_groups/argparse_actions.py) or a help text that
    begins "Deprecated", "(Deprecated" or "[Deprecated". `use`: the call's `new_flag`, else
    the flag the help text says to use; `remove_after`: a date in the comments above it
    ("... after 2026-12-31"); `refused`: an `error_message` given (SGLang's
    `DeprecatedAction` then stops the launch with it)."""
    text = help_text.lstrip()
    if not (text.startswith(_DEPRECATED) or (action or "").startswith("Deprecated")):
        return None
    use = _const(keywords.get("new_flag"))
    said = _USE.search(text)
    found = _REMOVE_AFTER.search(comments)
    return {
        "use": use if isinstance(use, str) else (said[1] if said else None),
        "remove_after": found[1] if found else None,
        "refused": "error_message" in keywords,
    }


def deprecations(node: ast.AST, source: str) -> dict[str, Note]:
    """The add_argument calls under `node` that retire a flag, by option string."""
    lines = source.splitlines()
    out: dict[str, Note] = {}
    previous = 0
    for call in add_argument_calls(node):
        comments = _comments(lines, previous + 1, call.lineno - 1)
        previous = call.end_lineno or call.lineno
        kw = _keywords(call)
        action = _action_name(kw["action"]) if "action" in kw else None
        note = _note(action, kw, _help_text(kw.get("help")), comments)
        if note is None:
            continue
        for option in call.args:
            name = _const(option)
            if isinstance(name, str) and name.startswith("-"):
                out[name] = note
    return out


def field_deprecations(cls: ast.ClassDef, source: str) -> dict[str, Note]:
    """The annotated fields of `cls` that retire a flag, by option string."""
    lines = source.splitlines()
    out: dict[str, Note] = {}
    previous = cls.lineno
    for stmt in cls.body:
        comments = _comments(lines, previous + 1, stmt.lineno - 1)
        previous = stmt.end_lineno or stmt.lineno
        field = _field(stmt)
        if field is None:
            continue
        _, names, meta, help_text = field
        action = _action_name(meta["action"]) if "action" in meta else None
        note = _note(action, meta, help_text, comments)
        for name in names:  # a later declaration of the field decides
            out.pop(name, None)
        if note is not None:
            out |= dict.fromkeys(names, note)
    return out


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _unwrap_optional(node: ast.expr) -> ast.expr:
    """X of `Optional[X]`, `X | None` and `Union[X, None]`."""
    if isinstance(node, ast.Subscript) and _action_name(node.value) == "Optional":
        return node.slice
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [s for s in (node.left, node.right) if not _is_none(s)]
        if len(sides) == 1:
            return sides[0]
    if isinstance(node, ast.Subscript) and _action_name(node.value) == "Union":
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        rest = [e for e in elts if not _is_none(e)]
        if len(rest) == 1:
            return rest[0]
    return node


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _field(stmt: ast.stmt) -> tuple[str, list[str], dict[str, ast.expr], str] | None:
    """(field name, option strings, Arg keywords, help text) of one class-body statement
    that `add_cli_args_from_dataclass` turns into a flag; None for any other."""
    if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
        return None
    ann = stmt.annotation
    if not (isinstance(ann, ast.Subscript) and _action_name(ann.value) in ("A", "Annotated")):
        return None
    elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    meta: dict[str, ast.expr] | None = None
    help_text = ""
    for extra in elts[1:]:
        if isinstance(extra, ast.Constant) and isinstance(extra.value, str):
            meta, help_text = {}, extra.value
            break
        if isinstance(extra, ast.Call) and _action_name(extra.func) == "Arg":
            meta = _keywords(extra)
            help_text = _help_text(meta.get("help"))
            break
    if meta is None or _const(meta.get("no_cli")) is True:
        return None
    field = stmt.target.id
    cli_name = _const(meta.get("cli_name")) or "--" + field.replace("_", "-")
    aliases = meta.get("aliases")
    names = [str(cli_name)]
    if aliases is not None:
        if not isinstance(aliases, ast.List | ast.Tuple):
            msg = f"line {stmt.lineno}: aliases is not a literal list"
            raise TableError(msg)
        names += [str(_const(a)) for a in aliases.elts]
    return field, names, meta, help_text


def field_actions(cls: ast.ClassDef, classes: ActionClasses, where: str) -> list[Action]:
    """The flags `add_cli_args_from_dataclass` makes of a class's `A[T, ...]` fields
    (sglang/srt/arg_groups/arg_utils.py): `--field-name` (or `cli_name`) and `aliases`;
    none for `no_cli`; `action` as given; Literal and scalars one value; lists `+` unless
    `nargs` says otherwise or a `type_parser` reads the whole string; bool a switch. A field
    declared twice is one field, the later declaration's (as Python builds the class)."""
    out: dict[str, Action] = {}
    for stmt in cls.body:
        try:
            found = _field(stmt)
        except TableError as e:
            msg = f"{where}:{e}"
            raise TableError(msg) from None
        if found is None:
            continue
        assert isinstance(stmt, ast.AnnAssign)
        field, names, meta, _ = found
        ann = stmt.annotation
        assert isinstance(ann, ast.Subscript)
        elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        at = f"{where}:{stmt.lineno}"
        if "nargs" in meta and not isinstance(meta["nargs"], ast.Constant):
            msg = f"{at}: nargs is not a literal"
            raise TableError(msg)
        nargs = _const(meta.get("nargs"))
        if "action" in meta:
            # arg_utils passes the action and its `action_kwargs`, never the Arg's nargs.
            given, nargs = False, None
            action_kwargs = meta.get("action_kwargs")
            if isinstance(action_kwargs, ast.Dict):
                for key, value in zip(action_kwargs.keys, action_kwargs.values, strict=True):
                    if _const(key) == "nargs":
                        given, nargs = True, _const(value)
            all_names, code = _options_and_nargs(
                names, _action_name(meta["action"]), nargs, classes, at, given=given
            )
            out[field] = [code, _dest(names, field), *all_names]
            continue
        inner = _unwrap_optional(elts[0])
        origin = _action_name(inner.value) if isinstance(inner, ast.Subscript) else None
        if origin == "Literal":
            code = "1"
        elif origin in ("list", "List") and "type_parser" not in meta:
            code = _nargs_code(nargs) or "+"
        elif _action_name(inner) == "bool":
            code = "0"
        else:
            code = _nargs_code(nargs) or "1"
        out[field] = [code, _dest(names, field), *names]
    return list(out.values())


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def server_parser(archive: Archive) -> dict[str, object]:
    """SGLang's server parser: `ServerArgs.add_cli_args` and the dataclass fields it adds."""
    path = "sglang/srt/server_args.py"
    tree = archive.tree(path)
    action_trees = [tree]
    if "sglang/srt/arg_groups/argparse_actions.py" in archive.files:
        action_trees.append(archive.tree("sglang/srt/arg_groups/argparse_actions.py"))
    classes = ActionClasses.from_trees(action_trees)
    add = _function(tree, "add_cli_args")
    if add is None:
        msg = f"{archive.name}: {path} has no add_cli_args"
        raise TableError(msg)
    actions = explicit_actions(add, classes, path)
    retired = deprecations(add, archive.source(path))
    uses_fields = any(
        isinstance(n, ast.Call) and _action_name(n.func) == "add_cli_args_from_dataclass"
        for n in ast.walk(add)
    )
    if uses_fields:
        for where, cls in _field_classes(archive, tree):
            actions += field_actions(cls, classes, where)
            retired |= field_deprecations(cls, archive.source(where))
    prepare = _function(tree, "prepare_server_args")
    abbrev = True
    for call in ast.walk(prepare or tree):
        if isinstance(call, ast.Call) and _action_name(call.func) == "ArgumentParser":
            value = _const(_keywords(call).get("allow_abbrev"))
            abbrev = abbrev and value is not False
    return {
        "source": path,
        "allow_abbrev": abbrev,
        "actions": actions,
        "deprecated": dict(sorted(retired.items())),
    }


def _field_classes(archive: Archive, tree: ast.Module) -> list[tuple[str, ast.ClassDef]]:
    """The classes whose fields become ServerArgs' flags: the ServerArgs class itself, or
    (0.5.20 on) the namespace classes `_INPUT_NAMESPACES` names, in arg_groups/fields/."""
    own = _classes(tree).get("ServerArgs")
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_INPUT_NAMESPACES" for t in node.targets
        ):
            if not isinstance(node.value, ast.List | ast.Tuple):
                msg = f"{archive.name}: _INPUT_NAMESPACES is not a literal list"
                raise TableError(msg)
            names = [str(_action_name(e)) for e in node.value.elts]
    out: list[tuple[str, ast.ClassDef]] = []
    if own is not None and not names:
        out.append(("sglang/srt/server_args.py", own))
    found: dict[str, tuple[str, ast.ClassDef]] = {}
    for path in sorted(archive.files):
        if path.startswith("sglang/srt/arg_groups/fields/"):
            for name, cls in _classes(archive.tree(path)).items():
                found[name] = (path, cls)
    for name in names:
        if name not in found:
            msg = f"{archive.name}: namespace class {name} not in arg_groups/fields/"
            raise TableError(msg)
        out.append(found[name])
    if not out:
        msg = f"{archive.name}: no ServerArgs fields found"
        raise TableError(msg)
    return out


def module_parser(archive: Archive, path: str) -> dict[str, object]:
    """The one parser a module builds: every add_argument call in it."""
    classes = ActionClasses.from_trees([archive.tree(path)])
    return {
        "source": path,
        "allow_abbrev": True,
        "actions": explicit_actions(archive.tree(path), classes, path),
    }


def sglang_table(archive: Archive) -> dict[str, object]:
    serving = (
        "sglang/benchmark/serving.py"
        if "sglang/benchmark/serving.py" in archive.files
        else "sglang/bench_serving.py"
    )
    bench = module_parser(archive, serving)
    parsers: dict[str, object] = {
        "server": server_parser(archive),
        "sglang.bench_serving": bench,
        "sglang.test.few_shot_gsm8k": module_parser(archive, "sglang/test/few_shot_gsm8k.py"),
    }
    if serving == "sglang/benchmark/serving.py":
        parsers["sglang.benchmark.serving"] = bench
    return parsers


def _init_params(tree: ast.Module, cls: str) -> list[str]:
    node = _classes(tree).get(cls)
    init = (
        next(
            (f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"),
            None,
        )
        if node
        else None
    )
    if init is None:
        msg = f"no {cls}.__init__"
        raise TableError(msg)
    args = init.args
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg != "self"]


def lm_eval_table(archive: Archive) -> dict[str, object]:
    cli = "lm_eval/_cli/run.py" if "lm_eval/_cli/run.py" in archive.files else "lm_eval/__main__.py"
    completions = _init_params(
        archive.tree("lm_eval/models/openai_completions.py"), "LocalCompletionsAPI"
    )
    template = _init_params(archive.tree("lm_eval/models/api_models.py"), "TemplateAPI")
    return {
        "lm_eval": module_parser(archive, cli),
        "local-completions": {
            "source": "lm_eval/models/openai_completions.py, lm_eval/models/api_models.py",
            "keywords": sorted(set(completions) | set(template)),
        },
    }


def table(name: str, version: str, archive: Archive) -> dict[str, object]:
    parsers = sglang_table(archive) if name == "sglang" else lm_eval_table(archive)
    for parser in parsers.values():
        if isinstance(parser, dict) and "actions" in parser:
            parser["actions"] = sorted(parser["actions"], key=lambda a: a[2])
    return {
        "name": name,
        "version": version,
        "archive": archive.name,
        "sha256": archive.sha256,
        "parsers": parsers,
    }


def dump(data: object, indent: int = 0) -> str:
    """JSON with one action or keyword list per line, so a new release diffs by flag."""
    pad = " " * indent
    if isinstance(data, dict):
        if not data:
            return "{}"
        items = [f"{pad}  {json.dumps(k)}: {dump(v, indent + 2)}" for k, v in data.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(data, list) and data and isinstance(data[0], list):
        rows = [f"{pad}  {json.dumps(row)}" for row in data]
        return "[\n" + ",\n".join(rows) + f"\n{pad}]"
    return json.dumps(data)


Segment = list[object]  # [nargs, dest, first release index, last release index]


def merge(tables: list[dict[str, Any]]) -> dict[str, Any]:
    """One tool's tables as the loader reads them: its releases, oldest first, and for each
    parser every option string with the runs of consecutive releases that have it with one
    value count and dest (`[nargs, dest, first, last]`, dest spelled out); for each keyword
    list, every keyword with its runs (`[first, last]`); for each parser, every retired
    option string with the runs of releases that say one thing of it
    (`[first, last, use, remove_after, refused]`)."""
    parsers: dict[str, dict[str, list[Segment]]] = {}
    keywords: dict[str, dict[str, list[list[int]]]] = {}
    retired: dict[str, dict[str, list[list[object]]]] = {}
    for i, data in enumerate(tables):
        for name, parser in data["parsers"].items():
            if "keywords" in parser:
                for word in parser["keywords"]:
                    runs = keywords.setdefault(name, {}).setdefault(word, [])
                    if runs and runs[-1][1] == i - 1:
                        runs[-1][1] = i
                    else:
                        runs.append([i, i])
                continue
            for nargs, dest, *options in parser["actions"]:
                resolved = dest or derived_dest(options)
                for option in options:
                    segments = parsers.setdefault(name, {}).setdefault(option, [])
                    last = segments[-1] if segments else None
                    if last is not None and last[:2] == [nargs, resolved] and last[3] == i - 1:
                        last[3] = i
                    else:
                        segments.append([nargs, resolved, i, i])
            for option, note in parser.get("deprecated", {}).items():
                said = [note["use"], note["remove_after"], note["refused"]]
                notes = retired.setdefault(name, {}).setdefault(option, [])
                if notes and notes[-1][2:] == said and notes[-1][1] == i - 1:
                    notes[-1][1] = i
                else:
                    notes.append([i, i, *said])
    return {
        "releases": [data["version"] for data in tables],
        "parsers": {k: dict(sorted(v.items())) for k, v in parsers.items()},
        "keywords": {k: dict(sorted(v.items())) for k, v in keywords.items()},
        "deprecated": {k: dict(sorted(v.items())) for k, v in retired.items()},
    }


def dump_index(index: dict[str, dict[str, Any]]) -> str:
    """The index with one option or keyword per line."""
    lines = ["{"]
    keys = ("parsers", "keywords", "deprecated")
    for t, (tool, merged) in enumerate(index.items()):
        lines.append(f"  {json.dumps(tool)}: {{")
        lines.append(f'    "releases": {json.dumps(merged["releases"])},')
        for k, key in enumerate(keys):
            groups = list(merged[key].items())
            lines.append(f'    "{key}": {{' + ("" if groups else "}" + ("," if k < 2 else "")))
            if not groups:
                continue
            for g, (name, entries) in enumerate(groups):
                lines.append(f"      {json.dumps(name)}: {{")
                rows = [f"        {json.dumps(o)}: {json.dumps(r)}" for o, r in entries.items()]
                lines.append(",\n".join(rows))
                lines.append("      }" + ("," if g < len(groups) - 1 else ""))
            lines.append("    }" + ("," if k < len(keys) - 1 else ""))
        lines.append("  }" + ("," if t < len(index) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def listed_releases(out: Path) -> dict[str, list[str]]:
    """The releases the committed index lists (RELEASES where there is none yet)."""
    path = out / "index.json"
    if not path.is_file():
        return {name: list(versions) for name, versions in RELEASES.items()}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {name: list(data[name]["releases"]) for name in RELEASES}


def with_newest(listed: dict[str, list[str]], index: str) -> dict[str, list[str]]:
    """`listed` with each package's releases on the index newer than its newest."""
    out = {}
    for name, versions in listed.items():
        found = newer(name, versions[-1], index, timeout=30)
        if found is None:
            msg = f"cannot read the releases of {name} from {index}"
            raise TableError(msg)
        out[name] = [*versions, *found]
    return out


def verify(data: dict[str, Any], archive: Archive) -> None:
    """TableError unless the server table read with `ast` is the parser SGLang's own code
    builds when run (scripts/sglang_parser.py), action for action."""
    read = [[n, d or derived_dest(o), *o] for n, d, *o in data["parsers"]["server"]["actions"]]
    built = server_actions(archive.files)
    if read != built:
        differ = [a for a in read if a not in built] + [a for a in built if a not in read]
        msg = (
            f"the table read from the source differs from the parser SGLang's code builds "
            f"({len(differ)} actions differ, first {differ[:2]})"
        )
        raise TableError(msg)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=CACHE, help="where archives are kept")
    parser.add_argument("--out", type=Path, default=OUT, help="where the tables are written")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a committed table differs"
    )
    parser.add_argument(
        "--newest",
        action="store_true",
        help="add the releases on the package index newer than the newest table",
    )
    parser.add_argument(
        "--parser",
        type=Path,
        metavar="ARCHIVE",
        help="print the server parser SGLang's own code builds from ARCHIVE, an action a line",
    )
    args = parser.parse_args(argv)
    if args.parser is not None:
        for action in server_actions(read_archive(args.parser, "sglang").files):
            print(json.dumps(action))
        return 0
    texts: dict[str, str] = {}
    index: dict[str, dict[str, Any]] = {}
    listed = listed_releases(args.out)
    try:
        if args.newest:
            where = index_url(os.environ)
            if where is None:
                msg = f"--newest asks the package index, which {INDEX_ENV}={OFF} turns off"
                raise TableError(msg)
            listed = with_newest(listed, where)
        for name, versions in listed.items():
            package = "sglang" if name == "sglang" else "lm_eval"
            tables = []
            for version in versions:
                archive = read_archive(download(name, version, args.cache), package)
                try:
                    data = table(name, version, archive)
                    if name == "sglang":
                        verify(data, archive)
                except TableError as e:
                    msg = f"{name} {version}: {e}"
                    raise TableError(msg) from None
                tables.append(data)
                texts[f"{name}-{version}.json"] = dump(data) + "\n"
            index[name] = merge(tables)
    except TableError as e:
        print(f"flag_tables.py: {e}", file=sys.stderr)
        return 2
    texts["index.json"] = dump_index(index)
    stale = [
        n
        for n, t in texts.items()
        if not (args.out / n).is_file() or (args.out / n).read_text(encoding="utf-8") != t
    ]
    extra = sorted(p.name for p in args.out.glob("*.json") if p.name not in texts)
    if args.check:
        for n in [*stale, *extra]:
            print(f"flag_tables.py: {args.out / n} is not what the script writes", file=sys.stderr)
        return 1 if stale or extra else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for n in stale:
        (args.out / n).write_text(texts[n], encoding="utf-8")
    for n in extra:
        print(f"flag_tables.py: {args.out / n} is no longer written; delete it if it is ours")
    print(f"flag_tables.py: {len(texts)} files, {len(stale)} written under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
