"""Every git call of the generator (the runner side's provenance aside: `launch/`, standard
library only, reads its own): `git -C ROOT ARGS`, one error, one way to read a file at a
ref."""

from __future__ import annotations

import subprocess

from generator.errors import SglangCIError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


class GitError(SglangCIError):
    """A git command failed: its arguments and git's own last line (exit 2)."""


def git(root: Path, *args: str) -> bytes:
    """The output of `git -C root ARGS`; GitError with git's own words on failure."""
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        msg = f"git {' '.join(args)}: {said[-1] if said else 'failed'}"
        raise GitError(msg)
    return done.stdout


def output(root: Path, *args: str) -> str:
    """`git` decoded as UTF-8."""
    return git(root, *args).decode("utf-8", errors="replace")


def show(root: Path, ref: str, rel: str) -> bytes:
    """The file `rel` as commit `ref` holds it."""
    return git(root, "show", f"{ref}:{rel}")
