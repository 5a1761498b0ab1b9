"""Every module of generator/ imports first, and the modules import one another without a
cycle: a tool, a test or a user may import any of them on its own (`python -c 'import
generator.verdicts.compare'`)."""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys

from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

PACKAGE = ROOT / "generator"

# One fresh interpreter imports each module first among generator's: before each import
# every generator module is dropped from sys.modules, so the import runs every module it
# needs in the order a fresh interpreter would (the third-party libraries stay loaded: none
# of them imports generator). `generator.__main__` is run as `python -m generator --help`.
FIRST_IMPORTS = """
import importlib, json, pkgutil, runpy, sys, traceback
import generator

names = sorted(m.name for m in pkgutil.walk_packages(generator.__path__, "generator."))
failed = {}
for name in ["generator", *names]:
    for loaded in [m for m in sys.modules if m == "generator" or m.startswith("generator.")]:
        del sys.modules[loaded]
    try:
        if name == "generator.__main__":
            sys.argv = ["sglang-ci", "--help"]
            try:
                runpy.run_module("generator", run_name="__main__")
            except SystemExit as stop:
                if stop.code != 0:
                    raise
        else:
            importlib.import_module(name)
    except BaseException:
        failed[name] = traceback.format_exc(limit=-3)
print(json.dumps({"imported": len(names) + 1, "failed": failed}))
"""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@functools.cache
def syntax_tree(path: Path) -> ast.Module:
    """The module's syntax tree, parsed once for the tests that read it (none changes it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imported(name: str, path: Path, *, module_level: bool) -> set[str]:
    """The generator modules `name` imports: at module level (not under TYPE_CHECKING), or
    anywhere in it. `from package import name` counts as the submodule when it is one."""
    tree = syntax_tree(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    nodes: list[ast.AST] = []
    pending: list[ast.AST] = list(tree.body) if module_level else [tree]
    while pending:
        node = pending.pop()
        if module_level and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        nodes.append(node)
        if module_level:
            if isinstance(node, ast.If | ast.Try | ast.With):
                pending += [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
        else:
            pending += list(ast.iter_child_nodes(node))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    return found & MODULES.keys()


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_every_module_imports_first_in_a_fresh_interpreter() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", FIRST_IMPORTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result == {"imported": len(MODULES), "failed": {}}


def test_no_module_level_import_cycle() -> None:
    graph = {name: imported(name, path, module_level=True) for name, path in MODULES.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_and_leaves_a_chain_alone() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_subcommand_modules_share_the_cli_context_and_never_import_the_main_cli() -> None:
    importers = {
        name
        for name, path in MODULES.items()
        if "generator.cli.sglang_ci" in imported(name, path, module_level=False)
    }
    assert importers == {"generator.__main__"}
    for name, path in MODULES.items():
        if name.startswith("generator.cli.") and name.endswith("_commands"):
            assert "generator.context" in imported(name, path, module_level=True), name
