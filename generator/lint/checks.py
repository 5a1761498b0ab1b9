"""Running lint: the rules' hits become findings, the catalog's waivers excuse them
(L001/L002 check the waivers themselves), and L800 asks the package index for a newer SGLang.
"""

from __future__ import annotations

from generator.catalog.pypi import index_url, newer
from generator.catalog.upstream import SGLANG, index
from generator.errors import Loc, did_you_mean
from generator.lint.findings import LintFinding, finding, ordered
from generator.lint.rules import CHECKS
from generator.lint.rules.base import Hit, Owner, context
from generator.lint.rules.rule_table import RETIRED, RULES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from generator.catalog.catalog_types import Catalog
    from generator.expand.expanded import Expanded


def _waiver(owner: Owner | None, rule: str) -> str | None:
    if owner is None:
        return None
    return dict(owner.waivers).get(rule)


def _merge(hits: Iterable[Hit]) -> tuple[list[LintFinding], set[tuple[int, str]]]:
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
        out.append(finding(rule, loc, message, waived))
    return out, used


def waiver_findings(catalog: Catalog, used: set[tuple[int, str]]) -> list[LintFinding]:
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
                    finding(
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
                    finding(
                        "L002",
                        owner.loc,
                        (
                            f"the waiver for {rule} ({RULES[rule][0]}) excuses no finding here; "
                            f"delete it"
                        ),
                    )
                )
    return out


def lint(expanded: Expanded) -> list[LintFinding]:
    """Every finding, ordered by file, line and rule."""
    ctx = context(expanded)
    findings, used = _merge(hit for check in CHECKS for hit in check(ctx))
    findings += waiver_findings(expanded.catalog, used)
    return ordered(findings)


TABLES_INDEX = Loc("generator/catalog/flagtables/index.json", 3)  # SGLang's release list


def newer_sglang(environ: Mapping[str, str]) -> list[LintFinding]:
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
    return [finding("L800", TABLES_INDEX, message)]
