"""The `python` that the stand-in setup-python action puts on PATH: the test's own Python
(which has every pinned requirement installed), where `python -m pip install` does what the
workflows need of it without a package index. `pip install -r FILE` checks that FILE is
there and names only pinned requirements (as `==` or with hashes); `pip install [--no-deps]
DIR` makes DIR's sglang-ci the one the `sglang-ci` on PATH runs (DIR must hold a
pyproject.toml). Anything else runs as it is.

    python_shim.py TOOLS_DIR ARGS...
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def pip_install(tools: Path, args: list[str]) -> int:
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-r", "--requirement"):
            path = Path(args[i + 1])
            if not path.is_file():
                print(
                    "ERROR: Could not open requirements file: [Errno 2] No such file or "
                    f"directory: '{path}'",
                    file=sys.stderr,
                )
                return 1
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        target = Path(arg).resolve()
        if not (target / "pyproject.toml").is_file():
            print(
                f"ERROR: Directory '{arg}' is not installable. Neither 'setup.py' nor "
                "'pyproject.toml' found.",
                file=sys.stderr,
            )
            return 1
        (tools / "installed").write_text(str(target), encoding="utf-8")
        i += 1
    return 0


def main() -> int:
    tools, args = Path(sys.argv[1]), sys.argv[2:]
    if args[:3] == ["-m", "pip", "install"]:
        return pip_install(tools, args[3:])
    os.execv(sys.executable, [sys.executable, *args])
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main())
