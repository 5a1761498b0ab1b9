"""Stage 3, lint: named rules over the expanded catalogs, with written waivers.

`lint(expanded)` returns every finding; rules read what expand computed and never the
generated files (their limits are checked on render's output).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from generator.catalog.cron import describe
from generator.catalog.pypi import index_url, newer
from generator.catalog.upstream import SGLANG, index
from generator.errors import Loc, did_you_mean
from generator.jsonio import dumps
from generator.lint.rules import CHECKS, RETIRED, RULES, Hit
from generator.lint.rules.base import ERROR, WARNING, Owner, context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from generator.catalog.catalog_types import Catalog
    from generator.expand.expanded import Expanded


@dataclass(frozen=True, kw_only=True)
class Finding:
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


def _waiver(owner: Owner | None, rule: str) -> str | None:
    if owner is None:
        return None
    return dict(owner.waivers).get(rule)


def _merge(hits: Iterable[Hit]) -> tuple[list[Finding], set[tuple[int, str]]]:
    """One finding per (rule, place, message); waived only when every owner waives it.

    A fragment's variable reached through several configs is one finding; it is waived
    when each of those configs waives the rule. Also returns the (owner, rule) waivers used.
    """
    grouped: dict[tuple[str, Loc, str], list[Owner | None]] = {}
    for hit in hits:
        grouped.setdefault((hit.rule, hit.loc, hit.message), []).append(hit.owner)
    used: set[tuple[int, str]] = set()
    out = []
    for (rule, loc, message), owners in grouped.items():
        reasons = [_waiver(o, rule) for o in owners]
        waived = reasons[0] if all(reasons) else None
        if waived is not None:
            used.update((id(o), rule) for o in owners)
        name, severity = RULES[rule]
        out.append(
            Finding(
                rule=rule, name=name, severity=severity, loc=loc, message=message, waived=waived
            )
        )
    return out, used


def _finding(rule: str, loc: Loc, message: str) -> Finding:
    name, severity = RULES[rule]
    return Finding(rule=rule, name=name, severity=severity, loc=loc, message=message)


def waiver_findings(catalog: Catalog, used: set[tuple[int, str]]) -> list[Finding]:
    """L001: a waiver names an unknown rule. L002 (warning): a waiver excuses nothing."""
    out = []
    owners: list[Owner] = [*catalog.configs, *catalog.cases]
    for owner in owners:
        for rule, _ in owner.waivers:
            if rule not in RULES:
                hint = did_you_mean(rule, RULES)
                retired = ""
                if rule in RETIRED:
                    hint, retired = "", f" ({rule} is retired: {RETIRED[rule]})"
                out.append(
                    _finding(
                        "L001",
                        owner.loc,
                        (
                            f"waive names unknown rule '{rule}'{hint}{retired}; "
                            "docs/lint.md lists the rule ids"
                        ),
                    )
                )
            elif (id(owner), rule) not in used:
                out.append(
                    _finding(
                        "L002",
                        owner.loc,
                        (
                            f"the waiver for {rule} ({RULES[rule][0]}) excuses no finding here; "
                            f"delete it"
                        ),
                    )
                )
    return out


def lint(expanded: Expanded) -> list[Finding]:
    """Every finding, ordered by file, line and rule."""
    ctx = context(expanded)
    findings, used = _merge(hit for check in CHECKS for hit in check(ctx))
    findings += waiver_findings(expanded.catalog, used)
    return ordered(findings)


TABLES_INDEX = Loc("generator/catalog/flagtables/index.json", 3)  # SGLang's release list


def newer_sglang(environ: Mapping[str, str]) -> list[Finding]:
    """L800 (warning): the package index has an SGLang release newer than the newest flag
    table. Asked by `sglang-ci lint` only; an index that cannot be read (offline) or
    `SGLANG_CI_PACKAGE_INDEX=off` gives no finding."""
    where = index_url(environ)
    if where is None:
        return []
    newest = index(SGLANG).releases[-1]
    found = newer("sglang", newest, where)
    if not found:
        return []
    message = (
        f"SGLang {', '.join(found)} {'is' if len(found) == 1 else 'are'} on {where}, newer "
        f"than the newest flag table ({newest}): run make flag-tables, then make workflows"
    )
    return [_finding("L800", TABLES_INDEX, message)]


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.loc.file, f.loc.line, f.rule, f.message))


def errors(findings: Iterable[Finding]) -> list[Finding]:
    """The findings that fail the command (unwaived errors)."""
    return [f for f in findings if f.counts]


def notes(catalog: Catalog) -> list[str]:
    """Information for the summary: what each cron string means."""
    lines = [f"cron '{s.cron}' ({s.name}): {describe(s.cron)}" for s in catalog.schedules]
    cron, level = catalog.accuracy_schedule
    lines.append(f"cron '{cron}' (accuracy, {level}): {describe(cron)}")
    return lines


def _line(f: Finding) -> str:
    text = f"{f.loc}: {f.severity} {f.rule} {f.name}: {f.message}"
    return f"{text} [waived: {f.waived}]" if f.waived else text


def format_text(findings: Sequence[Finding], catalog: Catalog | None = None) -> str:
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


def format_json(findings: Sequence[Finding]) -> str:
    """A JSON list of findings (file and line as separate keys)."""
    data = []
    for f in findings:
        item = asdict(f)
        item["loc"] = {"file": f.loc.file, "line": f.loc.line}
        data.append(item)
    return dumps(data)
