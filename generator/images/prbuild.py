"""A pull request's own image (docs/images.md, "Pull request images"): the select step
plans it, the builder builds and pushes it, and the pin job puts its digest in the
entries that run on it (pushed_image.py).

`plan` says what the builder builds (the PR head's Dockerfile on the base, pinned, with the
catalog's build arguments), where it pushes it (`<repository>:pr-<N>-<head>`), and the ids
of the cases and jobs that run on it: the select job's `build` output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from generator.core.contract import ImageBuildEntry
from generator.core.logtext import md_code, one_line
from generator.errors import SelectionError
from generator.imageref.allowed import is_pinned

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from generator.catalog.server_types import ImageBuild

MAX_PR = 10**9


class BuildOutput(ImageBuildEntry):
    """A plan as the select job's `build` output carries it (`read_plan` reads it back)."""

    repository: str
    tag: str
    context: str
    args: dict[str, str]
    server_mode: str
    cases: list[str]
    jobs: list[str]


@dataclass(frozen=True, kw_only=True)
class Plan:
    """One PR image to build and the entries that run on it."""

    pr: int
    head: str
    repository: str
    base: str  # pinned by digest (unless image resolution is off)
    dockerfile: str
    context: str
    args: tuple[tuple[str, str], ...]
    server_mode: str
    cases: tuple[str, ...]
    jobs: tuple[str, ...]

    @property
    def tag(self) -> str:
        return f"pr-{self.pr}-{self.head[:12]}"

    def as_json(self) -> BuildOutput:
        return {
            "pr": self.pr,
            "head": self.head,
            "repository": self.repository,
            "tag": self.tag,
            "base": self.base,
            "dockerfile": self.dockerfile,
            "context": self.context,
            "args": dict(self.args),
            "server_mode": self.server_mode,
            "cases": list(self.cases),
            "jobs": list(self.jobs),
        }


def plan(
    build: ImageBuild,
    *,
    pr: int,
    head: str,
    base: str,
    cases: Iterable[str],
    jobs: Iterable[str],
) -> Plan:
    """The plan for PR `pr` at commit `head`, on `base` (the build's base as pinned)."""
    if not 1 <= pr <= MAX_PR:
        msg = f"pull request number {pr} is not one GitHub gives"
        raise SelectionError(msg)
    return Plan(
        pr=pr,
        head=head,
        repository=build.repository,
        base=base,
        dockerfile=build.dockerfile,
        context=build.context,
        args=build.args,
        server_mode=build.server_mode,
        cases=tuple(cases),
        jobs=tuple(jobs),
    )


def read_plan(text: str) -> Plan:
    """The select job's `build` output back as a plan (SelectionError when it is none)."""
    try:
        raw = json.loads(text)
        found = Plan(
            pr=int(raw["pr"]),
            head=str(raw["head"]),
            repository=str(raw["repository"]),
            base=str(raw["base"]),
            dockerfile=str(raw["dockerfile"]),
            context=str(raw["context"]),
            args=tuple((str(k), str(v)) for k, v in dict(raw["args"]).items()),
            server_mode=str(raw["server_mode"]),
            cases=tuple(str(i) for i in raw["cases"]),
            jobs=tuple(str(i) for i in raw["jobs"]),
        )
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        msg = f"the build plan is not the select job's ({one_line(str(exc))})"
        raise SelectionError(msg) from None
    if found.tag != raw.get("tag"):
        msg = f"the build plan's tag {one_line(str(raw.get('tag')))!r} is not {found.tag!r}"
        raise SelectionError(msg)
    return found


def summary_markdown(p: Plan, *, runner: str | None = None, digest: str | None = None) -> str:
    """The step summary's block: what is built, where, on what, and what runs on it."""
    pinned = "pinned by digest" if is_pinned(p.base) else "not pinned: image resolution is off"
    where = f"`{p.repository}@{digest}`" if digest else md_code(f"{p.repository}:{p.tag}")
    lines = [
        "### The pull request's image",
        "",
        (
            f"PR #{p.pr}'s {md_code(p.dockerfile)} at {md_code(p.head)}, built"
            + (f" on the builder {md_code(runner)}" if runner else "")
            + f" over {md_code(p.context)} on the base "
            f"{md_code(p.base)} ({pinned}), pushed as {where}."
        ),
    ]
    if p.args:
        lines += ["", "Build arguments: " + ", ".join(md_code(f"{k}={v}") for k, v in p.args)]
    lines += [
        "",
        f"Run on it: {len(p.cases)} accuracy case(s) and {len(p.jobs)} benchmark job(s)"
        + (": " + ", ".join(md_code(i) for i in (*p.cases, *p.jobs)) if p.cases or p.jobs else "."),
        "",
    ]
    return "\n".join(lines) + "\n"
