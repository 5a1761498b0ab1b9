"""The launcher runs on the job container's own python3, where only the standard library
is installed: generator/launch/ and generator/core/ (and what loads them) import nothing else."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER_FILES = [
    *sorted((ROOT / "generator" / "launch").rglob("*.py")),
    *sorted((ROOT / "generator" / "core").rglob("*.py")),
    ROOT / "generator" / "__init__.py",
    ROOT / "scripts" / "launch.py",
    ROOT / "scripts" / "few_shot_gsm8k.py",  # and the image's own sglang
]


def imported_modules(path: Path) -> list[str]:
    """Every module an `import` or `from ... import` in `path` names, at any depth."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append("." * node.level + (node.module or ""))
    return names


def allowed(module: str) -> bool:
    if module in ("generator.launch", "generator.core") or module.startswith(
        ("generator.launch.", "generator.core.", ".")
    ):
        return True
    if module == "sglang" or module.startswith("sglang."):
        return True  # the image's SGLang, imported by the few-shot evaluation only
    return module.split(".", maxsplit=1)[0] in sys.stdlib_module_names


def test_the_launcher_files_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in LAUNCHER_FILES}
    assert {"generator/core/commands.py", "generator/launch/main.py"} <= names


@pytest.mark.parametrize("path", LAUNCHER_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_launcher_module_imports_only_the_standard_library_launch_and_core(
    path: Path,
) -> None:
    assert [module for module in imported_modules(path) if not allowed(module)] == []
