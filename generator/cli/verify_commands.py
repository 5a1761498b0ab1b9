"""`sglang-ci verify ...`: the caller check of the reusable GPU workflows (dispatch/verify.py).

Exit codes: 0 verified; 1 refused (a caller or an entry the default branch's code does
not allow); 2 bad input (an entry file that is no entry, a commit that is not there).
"""

from __future__ import annotations

import click

from generator import settings
from generator.catalog.at_ref import load_at
from generator.cli.options import FILE
from generator.context import run
from generator.core.entry_checks import check_case, check_job
from generator.core.exits import InputError
from generator.core.field_checks import load_object
from generator.core.logtext import one_line
from generator.dispatch import verify
from generator.dispatch.step_outputs import append
from generator.errors import SglangCIError
from generator.expand import expand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from generator.context import Context


class EntryError(SglangCIError):
    """The entry file holds no job or case (exit 2)."""


def _run(ctx: click.Context, work: Callable[[Path], str]) -> None:
    def done(c: Context) -> None:
        click.echo(f"verified: {one_line(work(c.root))}")

    run(ctx, done)


@click.group(name="verify")
def verify_group() -> None:
    """The caller check of the reusable GPU workflows (docs/security.md): who called, and
    whether what it handed is what the default branch's code derives. Run it in a
    checkout of the default branch."""


@verify_group.command(name="caller")
@click.option("--workflow-ref", required=True, help="github.workflow_ref")
@click.option("--repository", required=True, help="github.repository (OWNER/NAME)")
@click.option("--default-branch", required=True, help="The repository's default branch.")
@click.option("--allow", "allowed", multiple=True, required=True, help="A caller's file name.")
@click.pass_context
def caller_cmd(
    ctx: click.Context,
    workflow_ref: str,
    repository: str,
    default_branch: str,
    allowed: tuple[str, ...],
) -> None:
    """Refuse any caller but ALLOWED workflows of REPOSITORY on DEFAULT_BRANCH."""
    _run(
        ctx,
        lambda _root: (
            "called from "
            + verify.check_caller(
                workflow_ref, repository=repository, default_branch=default_branch, allowed=allowed
            )
        ),
    )


def _entry_command(kind: str, what: str) -> None:
    """`verify job|case|confirm`: `what` (an entry file) against the catalogs at --at."""

    @verify_group.command(name=kind, help=f"{what} (JSON file) against the catalogs at --at.")
    @click.argument("entry_file", type=FILE)
    @click.option("--at", "ref", required=True, help="The requested commit (its catalogs).")
    @click.option(
        "--allow-unpinned",
        is_flag=True,
        help="Accept an image tag (a dispatch that turned image resolution off).",
    )
    @click.pass_context
    def command(ctx: click.Context, entry_file: Path, ref: str, allow_unpinned: bool) -> None:
        def work(root: Path) -> str:
            try:
                data = load_object(entry_file)
                (check_case if kind == "case" else check_job)(data, str(entry_file))
            except InputError as e:
                raise EntryError(str(e)) from None
            sha, catalog = load_at(root, ref)
            expanded = expand(catalog)
            if kind == "job":
                said = verify.verify_job(expanded, data, sha, unpinned_ok=allow_unpinned)
            elif kind == "case":
                said = verify.verify_case(expanded, data, sha, unpinned_ok=allow_unpinned)
            else:
                said = verify.verify_confirm(expanded, data, sha)
            append("GITHUB_OUTPUT", f"commit={sha}\n")
            return said

        _run(ctx, work)


_entry_command("job", "A benchmark job entry")
_entry_command("case", "An accuracy case entry")
_entry_command("confirm", "An A/B confirmation entry")


@verify_group.command(name="settings")
@click.option("--repo", required=True, help="OWNER/REPO of this repository.")
@click.option("--org", default=None, help="The organisation of the runner groups (OWNER).")
@click.option("--default-branch", default="main", show_default=True, help="The default branch.")
@click.pass_context
def settings_cmd(ctx: click.Context, repo: str, org: str | None, default_branch: str) -> None:
    """Read the two boundaries of docs/security.md through `gh api` (an admin's token):
    the `gpu` environment (the default branch only, HF_TOKEN its secret alone) and the
    runner group of the catalog's GPU labels (restricted to the default branch's three
    reusable GPU workflows). One line per check; exit 1 when one is missing."""

    def work(c: Context) -> int:
        labels = [r.label for r in c.expanded().catalog.runners]
        checks = settings.verify_settings(
            settings.Api(),
            repo=repo,
            org=org or repo.split("/", maxsplit=1)[0],
            default_branch=default_branch,
            labels=labels,
        )
        for check in checks:
            click.echo(one_line(check.line()))
        return 0 if all(check.ok for check in checks) else 1

    run(ctx, work)
