"""The hash-locked requirements match the pins they were compiled from (`make check`).

    python scripts/check_lock.py [ROOT]

Each job of the generated workflows that holds a secret or a write token, or decides what
a GPU host runs, installs from `requirements.lock` and `requirements-build.lock` with
`pip install --require-hashes` (docs/security.md). `make lock` writes both with
`uv pip compile --generate-hashes` from `requirements.txt` and `requirements-build.txt`,
which pin every package by version. This check needs no network: each lock must name
exactly the packages and versions its source pins (a package the lock adds is a
dependency the source forgot to pin), each with at least one SHA-256. Exit 0 when they
match, 1 with one line per difference and the command that fixes them, 2 when a file
cannot be read.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

PAIRS = (
    ("requirements.txt", "requirements.lock"),
    ("requirements-build.txt", "requirements-build.lock"),
)
FIX = "run `make lock` and commit the locks"
_ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")
_HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


class Unreadable(Exception):
    """A file that cannot be read or parsed: exit 2."""


def pins(path: Path) -> dict[str, str]:
    """name -> version of every requirement of `path` (each must be `name==version`)."""
    found: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        msg = f"{path}: cannot read ({exc.strerror or exc})"
        raise Unreadable(msg) from exc
    for number, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-r "):
            continue
        try:
            req = Requirement(line)
        except InvalidRequirement as exc:
            msg = f"{path}:{number}: {exc}"
            raise Unreadable(msg) from exc
        specs = list(req.specifier)
        if len(specs) != 1 or specs[0].operator != "==":
            msg = f"{path}:{number}: {req.name} is not pinned with =="
            raise Unreadable(msg)
        found[canonicalize_name(req.name)] = specs[0].version
    return found


def locked(path: Path) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) of every entry of the lock `path`."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        msg = f"{path}: cannot read ({exc.strerror or exc})"
        raise Unreadable(msg) from exc
    found: dict[str, tuple[str, int]] = {}
    name = ""
    for raw in text.splitlines():
        entry = _ENTRY.match(raw)
        if entry:
            name = canonicalize_name(entry[1])
            found[name] = (entry[2], 0)
        elif name and _HASH.search(raw):
            version, hashes = found[name]
            found[name] = (version, hashes + len(_HASH.findall(raw)))
    return found


def problems(root: Path) -> list[str]:
    out = []
    for source, lock in PAIRS:
        wanted = pins(root / source)
        have = locked(root / lock)
        for name in sorted(set(wanted) | set(have)):
            if name not in have:
                out.append(f"{lock}: {name}=={wanted[name]} of {source} is not locked")
            elif name not in wanted:
                version = have[name][0]
                out.append(f"{lock}: {name}=={version} is locked but {source} does not pin it")
            elif have[name][0] != wanted[name]:
                out.append(f"{lock}: {name} is {have[name][0]}, {source} pins {wanted[name]}")
            elif have[name][1] == 0:
                out.append(f"{lock}: {name}=={wanted[name]} has no --hash")
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path(__file__).resolve().parents[1]
    try:
        found = problems(root)
    except Unreadable as exc:
        print(f"check_lock.py: error: {exc}", file=sys.stderr)
        return 2
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        print(f"check_lock.py: the locks differ from the pins: {FIX}", file=sys.stderr)
        return 1
    print(f"check_lock.py: {', '.join(lock for _, lock in PAIRS)} match the pins")
    return 0


if __name__ == "__main__":
    sys.exit(main())
