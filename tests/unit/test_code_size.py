"""The house rules on generator/'s modules (issue reviews measure them with
scripts/code_size.py): none over 400 lines, half of them at most 120, no file name and no
class name used twice, a unit test file named for each, and raw documents
(`dict[str, Any]`) only in the readers that check them."""

from __future__ import annotations

import re
import statistics
from collections import Counter

from tests.helpers import ROOT

MODULES = sorted((ROOT / "generator").rglob("*.py"))


def test_no_module_is_over_400_lines_and_the_median_is_at_most_120() -> None:
    sizes = {p.relative_to(ROOT).as_posix(): p.read_text().count("\n") for p in MODULES}
    assert {name: n for name, n in sizes.items() if n > 400} == {}
    assert statistics.median(sizes.values()) <= 120


def test_no_two_modules_share_a_file_name_and_no_two_classes_a_name() -> None:
    names = Counter(p.name for p in MODULES if p.name != "__init__.py")
    assert {name: n for name, n in names.items() if n > 1} == {}
    classes = Counter(
        name
        for p in MODULES
        for name in re.findall(r"^class (\w+)", p.read_text(encoding="utf-8"), re.MULTILINE)
    )
    assert {name: n for name, n in classes.items() if n > 1} == {}


# The modules tested under another file's name, each with the file that holds its tests.
TESTED_ELSEWHERE = {
    "cli/catalog_commands.py": "tests/acceptance/test_plan.py, test_servers.py: options only",
    "cli/confirm_commands.py": "tests/acceptance/test_confirm_end_to_end.py: options only",
    "cli/results_commands.py": "tests/acceptance/test_results_*.py: options only",
    "cli/verify_commands.py": "tests/acceptance/test_verify.py: options only",
    "core/contract.py": "TypedDicts alone, checked by mypy; tests/unit/test_core_entry_checks.py",
    "render/drift.py": "tests/acceptance/test_drift.py: the drift check on a copy of the repo",
    "render/workflows.py": "tests/acceptance/test_workflows.py: actionlint and zizmor on them",
}


def test_each_module_has_a_unit_test_file_named_for_it() -> None:
    """generator/<package>/[...]/<name>.py -> tests/unit/test_<package>_<name>.py
    (a top-level module: test_<name>.py), unless TESTED_ELSEWHERE says where."""
    files = {p.name for p in (ROOT / "tests" / "unit").glob("test_*.py")}
    untested = []
    for path in MODULES:
        rel = path.relative_to(ROOT / "generator")
        if path.name in ("__init__.py", "__main__.py") or rel.as_posix() in TESTED_ELSEWHERE:
            continue
        name = "_".join((rel.parts[0], path.name) if len(rel.parts) > 1 else rel.parts)
        if f"test_{name}" not in files:
            untested.append(rel.as_posix())
    assert untested == []
    assert all((ROOT / "generator" / rel).is_file() for rel in TESTED_ELSEWHERE)


# The modules that may hold a raw document (`dict[str, Any]`, `Mapping[str, Any]`): the
# readers of a value before (or while) they check it, by what they read. Past them,
# documents are typed (TypedDicts, dataclasses).
RAW_READERS = {
    "the catalog's YAML, schema-valid, before it is built into dataclasses": (
        "catalog/reader.py", "catalog/config_section.py", "catalog/sections.py",
        "catalog/benchmark_catalog.py", "catalog/accuracy_catalog.py",
        "catalog/image_sections.py", "catalog/at_ref.py", "catalog/regression.py",
        "catalog/confirm_section.py",
    ),
    "the JSON Schema documents": ("catalog/schema.py",),
    "a job, case or confirmation file's JSON as given, checked field by field": (
        "core/field_checks.py", "core/entry_checks.py", "core/abjob.py", "dispatch/verify.py",
        "expand/rederive.py",
    ),
    "records read from artifacts or a history, before their JSON Schema check": (
        "results/record.py", "results/load.py", "results/artifact_files.py",
        "results/admit_images.py", "confirm/ab_images.py",
    ),
    "rows of DuckDB queries whose columns are named at run time, or SELECT *": (
        "results/store.py", "results/series.py", "results/gates.py", "verdicts/compare.py",
        "report/summarize.py", "report/timeline.py",
    ),
    "verdicts of every schema version (old manifests), before they are dataclasses": (
        "results/verdicts_json.py", "results/shown_verdicts.py", "results/shown_events.py",
        "verdicts/rejudge.py", "report/timeline.py",
    ),
    "`confirm outcomes --json` of every version": ("confirm/outcome.py",),
    "the rendered workflows read back as YAML and checked": (
        "render/boundary.py", "render/integrity.py", "render/limits.py",
    ),
    "a JSON reply of gh, the GitHub API or a registry": (
        "confirm/issue_gh.py", "confirm/triage.py", "confirm/tracking_issue.py",
        "results/jobs.py", "images/registry.py",
    ),
}  # fmt: skip


def test_raw_documents_stay_in_their_readers() -> None:
    readers = {module for modules in RAW_READERS.values() for module in modules}
    raw = {
        p.relative_to(ROOT / "generator").as_posix()
        for p in MODULES
        if re.search(r"\b(?:dict|Mapping)\[str, Any\]", p.read_text(encoding="utf-8"))
    }
    assert sorted(raw - readers) == []  # a document past its reader: type it
    assert sorted(readers - raw) == []  # a reader that no longer holds one
