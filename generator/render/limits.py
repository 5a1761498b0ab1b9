"""GitHub Actions limits, checked once on render's in-memory output (never on files).

Sources, GitHub Actions docs: "A matrix can generate a maximum of 256 jobs per workflow
run"; job outputs hold "a maximum of 1 MB per job" (a matrix travels as the select job's
output); workflow_dispatch takes "a maximum of 25 top-level properties" for inputs; an
expression may be at most 21,000 characters.
"""

from __future__ import annotations

import re
from typing import Any

from generator.errors import LimitError, Loc
from generator.jsonio import compact_size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.images.matrix import EntryT, Matrix

MAX_MATRIX_JOBS = 256
MAX_OUTPUT_BYTES = 1024 * 1024
MAX_DISPATCH_INPUTS = 25
MAX_EXPRESSION_CHARS = 21_000
_EXPRESSION = re.compile(r"\$\{\{.*?\}\}", re.DOTALL)


def check_matrix(what: str, loc: Loc, matrix: Matrix[EntryT]) -> None:
    jobs = len(matrix["include"])
    if jobs > MAX_MATRIX_JOBS:
        msg = f"{what} makes {jobs} jobs; a GitHub matrix holds at most {MAX_MATRIX_JOBS}: split it"
        raise LimitError(msg, loc)
    size = compact_size(matrix)
    if size > MAX_OUTPUT_BYTES:
        msg = (
            f"{what} is {size} bytes of matrix JSON; a job output holds at most "
            f"{MAX_OUTPUT_BYTES}: split it"
        )
        raise LimitError(msg, loc)


def check_dispatch_inputs(path: str, doc: Mapping[str, Any], loc: Loc) -> None:
    """The workflow at `path` (`doc`, read back) declares at most 25 dispatch inputs."""
    on = doc.get("on") or {}
    dispatch = on.get("workflow_dispatch") or {}
    count = len(dispatch.get("inputs") or {})
    if count > MAX_DISPATCH_INPUTS:
        msg = (
            f"{path} would have {count} dispatch inputs; GitHub allows {MAX_DISPATCH_INPUTS}: "
            "merge suites"
        )
        raise LimitError(msg, loc)


def check_expressions(path: str, text: str) -> None:
    for m in _EXPRESSION.finditer(text):
        if len(m[0]) > MAX_EXPRESSION_CHARS:
            line = text.count("\n", 0, m.start()) + 1
            msg = (
                f"an expression of {len(m[0])} characters; GitHub allows "
                f"{MAX_EXPRESSION_CHARS}: move the data into a committed JSON file"
            )
            raise LimitError(msg, Loc(path, line))
