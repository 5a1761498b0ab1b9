"""A lint finding, the order findings are shown in, and the text and JSON they are shown as."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from generator.catalog.cron import describe
from generator.jsonio import dumps
from generator.lint.rules.rule_table import ERROR, RULES, WARNING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from generator.catalog.catalog_types import Catalog
    from generator.errors import Loc


@dataclass(frozen=True, kw_only=True)
class LintFinding:
    rule: str  # e.g. "L101"
    name: str  # e.g. "dp-attention-divisible"
    severity: str  # "error" | "warning"
    loc: Loc
    message: str  # says what to change
    waived: str | None = None  # the written reason, when the catalog waives the rule

    @property
    def counts(self) -> bool:
        """An unwaived error: it fails `lint` and stops `render`/`check`."""
        return self.severity == ERROR and self.waived is None


def finding(rule: str, loc: Loc, message: str, waived: str | None = None) -> LintFinding:
    name, severity = RULES[rule]
    return LintFinding(
        rule=rule, name=name, severity=severity, loc=loc, message=message, waived=waived
    )


def ordered(findings: Iterable[LintFinding]) -> list[LintFinding]:
    return sorted(findings, key=lambda f: (f.loc.file, f.loc.line, f.rule, f.message))


def errors(findings: Iterable[LintFinding]) -> list[LintFinding]:
    """The findings that fail the command (unwaived errors)."""
    return [f for f in findings if f.counts]


def notes(catalog: Catalog) -> list[str]:
    """Information for the summary: what each cron string means."""
    lines = [f"cron '{s.cron}' ({s.name}): {describe(s.cron)}" for s in catalog.schedules]
    cron, level = catalog.accuracy_schedule
    lines.append(f"cron '{cron}' (accuracy, {level}): {describe(cron)}")
    return lines


def _line(f: LintFinding) -> str:
    text = f"{f.loc}: {f.severity} {f.rule} {f.name}: {f.message}"
    return f"{text} [waived: {f.waived}]" if f.waived else text


def format_text(findings: Sequence[LintFinding], catalog: Catalog | None = None) -> str:
    """One line per finding, the cron descriptions, then a summary line with the counts."""
    lines = [_line(f) for f in findings]
    if catalog is not None:
        lines += notes(catalog)
    n_err = len(errors(findings))
    n_warn = sum(1 for f in findings if f.severity == WARNING and f.waived is None)
    n_waived = sum(1 for f in findings if f.waived is not None)
    verdict = "failed" if n_err else "passed"
    lines.append(
        f"lint {verdict}: {n_err} error{'s' * (n_err != 1)}, "
        f"{n_warn} warning{'s' * (n_warn != 1)}, {n_waived} waived"
    )
    return "\n".join(lines) + "\n"


def format_json(findings: Sequence[LintFinding]) -> str:
    """A JSON list of findings (file and line as separate keys)."""
    data = []
    for f in findings:
        item = asdict(f)
        item["loc"] = {"file": f.loc.file, "line": f.loc.line}
        data.append(item)
    return dumps(data)
