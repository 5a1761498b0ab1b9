"""Write the flag tables of the SGLang and lm-eval releases the runners' images carry.

    .venv/bin/python scripts/flag_tables.py [--cache DIR] [--out DIR] [--check]

For every release in RELEASES, `pip download <name>==<version> --no-deps` fetches the
published wheel (or sdist) into the cache, and the argument parsers are read from its
source with `ast`, never imported (SGLang needs a GPU stack to import):

- sglang: the server's parser (`ServerArgs.add_cli_args` in `sglang/srt/server_args.py`:
  its `parser.add_argument` calls and, from 0.5.14, the fields `add_cli_args_from_dataclass`
  turns into flags), `python -m sglang.bench_serving`'s parser (`sglang/bench_serving.py`,
  from 0.5.15 `sglang/benchmark/serving.py`) and `sglang.test.few_shot_gsm8k`'s;
- lm-eval: the `lm_eval` command's parser (`lm_eval/__main__.py`, from 0.4.10
  `lm_eval/_cli/run.py`) and the keyword arguments `local-completions` takes through
  `--model_args` (`LocalCompletionsAPI.__init__` and `TemplateAPI.__init__`).

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
that takes every model argument the accuracy catalog passes) to the newest. Add a release
to RELEASES and run the script; `--check` exits 1 when a committed table differs from what
the script writes.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
SWITCH_ACTIONS = ("store_true", "store_false", "store_const", "count", "help", "version")
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
        out: dict[str, str] = {}
        for tree in trees:
            for node in ast.walk(tree):
                if not isinstance(node, ast.ClassDef):
                    continue
                init = next(
                    (
                        f
                        for f in node.body
                        if isinstance(f, ast.FunctionDef) and f.name == "__init__"
                    ),
                    None,
                )
                out[node.name] = "1"
                if init is None:
                    continue
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
                        out[node.name] = _nargs_code(_const(default)) or "1"
        return ActionClasses(defaults=out)


def _options_and_nargs(
    options: list[str], action: str | None, nargs: object, classes: ActionClasses, where: str
) -> tuple[list[str], str]:
    code = _nargs_code(nargs)
    if action == BOOLEAN_OPTIONAL:
        negated = ["--no-" + o[2:] for o in options if o.startswith("--")]
        return [*options, *negated], "0"
    if code is not None:
        return options, code
    if action is None or action in ("store", "append", "extend"):
        return options, "1"
    if action in SWITCH_ACTIONS:
        return options, "0"
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
            names, action, nargs, classes, f"{where}:{call.lineno}"
        )
        out.append([code, _dest(names, _const(kw.get("dest"))), *all_names])
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


def field_actions(cls: ast.ClassDef, classes: ActionClasses, where: str) -> list[Action]:
    """The flags `add_cli_args_from_dataclass` makes of a class's `A[T, ...]` fields
    (sglang/srt/arg_groups/arg_utils.py): `--field-name` (or `cli_name`) and `aliases`;
    none for `no_cli`; `action` as given; Literal and scalars one value; lists `+` unless
    `nargs` says otherwise or a `type_parser` reads the whole string; bool a switch."""
    out: list[Action] = []
    for stmt in cls.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        ann = stmt.annotation
        if not (isinstance(ann, ast.Subscript) and _action_name(ann.value) in ("A", "Annotated")):
            continue
        elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        meta: dict[str, ast.expr] | None = None
        for extra in elts[1:]:
            if isinstance(extra, ast.Constant) and isinstance(extra.value, str):
                meta = {}
                break
            if isinstance(extra, ast.Call) and _action_name(extra.func) == "Arg":
                meta = _keywords(extra)
                break
        if meta is None or _const(meta.get("no_cli")) is True:
            continue
        field = stmt.target.id
        at = f"{where}:{stmt.lineno}"
        cli_name = _const(meta.get("cli_name")) or "--" + field.replace("_", "-")
        aliases = meta.get("aliases")
        names = [str(cli_name)]
        if aliases is not None:
            if not isinstance(aliases, ast.List | ast.Tuple):
                msg = f"{at}: aliases is not a literal list"
                raise TableError(msg)
            names += [str(_const(a)) for a in aliases.elts]
        if "nargs" in meta and not isinstance(meta["nargs"], ast.Constant):
            msg = f"{at}: nargs is not a literal"
            raise TableError(msg)
        nargs = _const(meta.get("nargs"))
        if "action" in meta:
            action_kwargs = meta.get("action_kwargs")
            if isinstance(action_kwargs, ast.Dict):
                for key, value in zip(action_kwargs.keys, action_kwargs.values, strict=True):
                    if _const(key) == "nargs":
                        nargs = _const(value)
            all_names, code = _options_and_nargs(
                names, _action_name(meta["action"]), nargs, classes, at
            )
            out.append([code, _dest(names, field), *all_names])
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
        out.append([code, _dest(names, field), *names])
    return out


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
    uses_fields = any(
        isinstance(n, ast.Call) and _action_name(n.func) == "add_cli_args_from_dataclass"
        for n in ast.walk(add)
    )
    if uses_fields:
        for where, cls in _field_classes(archive, tree):
            actions += field_actions(cls, classes, where)
    prepare = _function(tree, "prepare_server_args")
    abbrev = True
    for call in ast.walk(prepare or tree):
        if isinstance(call, ast.Call) and _action_name(call.func) == "ArgumentParser":
            value = _const(_keywords(call).get("allow_abbrev"))
            abbrev = abbrev and value is not False
    return {"source": path, "allow_abbrev": abbrev, "actions": actions}


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
    list, every keyword with its runs (`[first, last]`)."""
    parsers: dict[str, dict[str, list[Segment]]] = {}
    keywords: dict[str, dict[str, list[list[int]]]] = {}
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
    return {
        "releases": [data["version"] for data in tables],
        "parsers": {k: dict(sorted(v.items())) for k, v in parsers.items()},
        "keywords": {k: dict(sorted(v.items())) for k, v in keywords.items()},
    }


def dump_index(index: dict[str, dict[str, Any]]) -> str:
    """The index with one option or keyword per line."""
    lines = ["{"]
    for t, (tool, merged) in enumerate(index.items()):
        lines.append(f"  {json.dumps(tool)}: {{")
        lines.append(f'    "releases": {json.dumps(merged["releases"])},')
        for k, key in enumerate(("parsers", "keywords")):
            lines.append(f'    "{key}": {{')
            groups = list(merged[key].items())
            for g, (name, entries) in enumerate(groups):
                lines.append(f"      {json.dumps(name)}: {{")
                rows = [f"        {json.dumps(o)}: {json.dumps(r)}" for o, r in entries.items()]
                lines.append(",\n".join(rows))
                lines.append("      }" + ("," if g < len(groups) - 1 else ""))
            lines.append("    }" + ("," if k == 0 else ""))
        lines.append("  }" + ("," if t < len(index) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=CACHE, help="where archives are kept")
    parser.add_argument("--out", type=Path, default=OUT, help="where the tables are written")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a committed table differs"
    )
    args = parser.parse_args(argv)
    texts: dict[str, str] = {}
    index: dict[str, dict[str, Any]] = {}
    for name, versions in RELEASES.items():
        package = "sglang" if name == "sglang" else "lm_eval"
        tables = []
        for version in versions:
            archive = read_archive(download(name, version, args.cache), package)
            try:
                data = table(name, version, archive)
            except TableError as e:
                print(f"flag_tables.py: {name} {version}: {e}", file=sys.stderr)
                return 2
            tables.append(data)
            texts[f"{name}-{version}.json"] = dump(data) + "\n"
        index[name] = merge(tables)
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
