"""The size of generator/ as issue reviews measure it: modules, their median and largest
length in lines, its code lines (no blank line, comment or docstring) and the lines of its
declared documents (classes of field annotations alone: TypedDicts), at a git ref or in the
working tree.

    python scripts/code_size.py [REF ...]
"""

from __future__ import annotations

import ast
import io
import statistics
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}


def code_lines(source: str, leave_out: set[int] | None = None) -> int:
    """Lines holding a token of code: blank lines, comments, docstrings and the lines of
    `leave_out` left out."""
    docs: set[int] = set(leave_out or ())
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = body[0] if body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in SKIP and tok.type != tokenize.ENDMARKER:
            lines.update(n for n in range(tok.start[0], tok.end[0] + 1) if n not in docs)
    return len(lines)


def declared(source: str) -> set[int]:
    """The lines of classes whose body is field annotations alone (and a docstring): the
    documents' declarations (TypedDicts)."""
    return {
        n
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ClassDef)
        and all(
            isinstance(b, ast.AnnAssign)
            or (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))
            for b in node.body
        )
        and any(isinstance(b, ast.AnnAssign) for b in node.body)
        and not node.decorator_list
        for n in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }


def sources(ref: str | None) -> dict[str, str]:
    """Each module of generator/ at `ref` (the working tree when None), by path."""
    if ref is None:
        return {
            p.relative_to(ROOT).as_posix(): p.read_text() for p in ROOT.glob("generator/**/*.py")
        }
    git = ["git", "-C", str(ROOT)]
    names = subprocess.run([*git, "ls-tree", "-r", "--name-only", ref, "generator"],
                           check=True, capture_output=True, text=True).stdout.split()  # fmt: skip
    return {
        n: subprocess.run(
            [*git, "show", f"{ref}:{n}"], check=True, capture_output=True, text=True
        ).stdout
        for n in names
        if n.endswith(".py")
    }


def main(refs: list[str | None]) -> None:
    for ref in [*refs] or [None]:
        found = sources(ref)
        sizes = [text.count("\n") for text in found.values()]
        code = sum(code_lines(text) for text in found.values())
        rest = sum(code_lines(text, declared(text)) for text in found.values())
        print(f"{ref or 'working tree'}: {len(sizes)} modules, median {statistics.median(sizes)} "
              f"lines, largest {max(sizes)}; {sum(sizes)} lines, {code} of them code, "
              f"{code - rest} of those in declared documents")  # fmt: skip


if __name__ == "__main__":
    main([*sys.argv[1:]])
