"""`confirm triage` and `confirm issues`: the marks read from the tracking issues, and the
issues opened, commented on, reopened and closed (gh); each writes its document even when
gh fails half way."""

from __future__ import annotations

import click

from generator.catalog.regression import policy_for
from generator.confirm import events, issue_gh, tracked, triage
from generator.confirm.issue_gh import Gh, IssueError
from generator.confirm.issues import plan
from generator.confirm.outcome import load as load_outcomes
from generator.confirm.tracking_issue import Issue, IssueRun
from generator.confirm.triaged import load as load_marks
from generator.jsonio import dumps
from generator.results.output import JSON, check_file, write_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def _warn(line: str) -> None:
    click.echo(f"warning: {line}", err=True)


def _listed(
    gh: Gh, label: str, found: events.CompareEvents, bot: str, *, open_issues: bool = False
) -> list[Issue]:
    """The tracking issues of the run's events (and with `open_issues`, every open one)."""
    return issue_gh.issues(
        gh,
        label,
        {e.id for e in found.events},
        bot=bot,
        servers=frozenset(e.server.key() for e in found.events),
        open_issues=open_issues,
        warn=_warn,
    )


def read_triage(
    root: Path, *, verdicts: Path, repo: str, out: Path, bot: str, policy_path: Path | None
) -> int:
    check_file(out, JSON, "confirm triage")
    policy, _ = policy_for(root, policy_path)
    found = events.load(verdicts)
    marks: list[triage.Mark] = []
    error: str | None = None
    try:
        if policy.confirm.issues:
            gh = Gh(repo)
            listed = _listed(gh, policy.confirm.issue_label, found, bot, open_issues=True)
            marks = triage.marks(listed, lambda n: gh.api_list(f"issues/{n}/events"), _warn)
            for m in triage.newest(marks).values():
                click.echo(f"{m.event} (#{m.issue}): {m.text}")
        return 0
    except IssueError as exc:
        error = str(exc)
        raise
    finally:
        doc = triage.document(found.current, marks)
        doc["error"] = error
        write_file(out, dumps(doc), JSON, "confirm triage")


def sync_issues(
    root: Path,
    *,
    verdicts: Path,
    outcomes_path: Path | None,
    repo: str,
    run_url: str | None,
    out: Path | None,
    triage_path: Path | None,
    bot: str,
    policy_path: Path | None,
) -> int:
    if out is not None:
        check_file(out, JSON, "confirm issues")
    policy, _ = policy_for(root, policy_path)
    found = events.load(verdicts)
    enabled = policy.confirm.issues
    known = load_outcomes(outcomes_path) if outcomes_path and enabled else {}
    marks = triage.newest(load_marks(triage_path) if triage_path else [])
    settled = frozenset(e for e, m in marks.items() if m.state in triage.SETTLED)
    listed: list[Issue] = []
    done: list[tracked.Tracked] = []
    error: str | None = None
    try:
        if not enabled:
            click.echo("tracking issues are off (regression.confirm.issues)")
            return 0
        gh = Gh(repo)
        label = policy.confirm.issue_label
        listed = _listed(gh, label, found, bot)
        run = IssueRun(name=found.current, url=run_url)
        actions = plan(found, known, listed, run, settled)
        for line in issue_gh.apply(gh, actions, label, done):
            click.echo(line)
        return 0
    except IssueError as exc:
        error = str(exc)
        raise
    finally:
        if out is not None:
            kept = issue_gh.tracked(found, listed, done)
            doc = tracked.document(
                run=found.current, repository=repo, enabled=enabled, issues=kept, error=error
            )
            write_file(out, dumps(doc), JSON, "confirm issues")
