"""`results summarize`, `compare`, `admit` and `report` (generator/report/night_run.py):
the refusals of their own; what each writes is tested end to end in tests/acceptance
(test_results_summarize, test_results_compare, test_results_admit, test_results_report)."""

from __future__ import annotations

import pytest

from generator.report.night_run import build_dashboard, print_summary
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_a_history_without_a_record_has_no_dashboard_and_leaves_no_site(tmp_path: Path) -> None:
    (tmp_path / "history").mkdir()
    refused = f"^{tmp_path / 'history'}: no run with a record, nothing to report$"
    with pytest.raises(ResultsError, match=refused):
        build_dashboard(tmp_path, history=tmp_path / "history", current=(),
                        site=tmp_path / "site", verdicts=None, expected=(),
                        policy_path=None)  # fmt: skip
    assert [p.name for p in tmp_path.iterdir()] == ["history"]


def test_tracking_issues_that_do_not_read_are_one_line(tmp_path: Path) -> None:
    issues = tmp_path / "issues.json"
    issues.write_text("{oops")
    refused = (
        f"^{issues}: cannot read the tracking issues: not valid JSON: Expecting property name "
        "enclosed in double quotes: line 1 column 2 \\(char 1\\)$"
    )
    with pytest.raises(ResultsError, match=refused):
        print_summary(run_dirs=(tmp_path / "run",), expected=(), jobs_path=None, verdicts=None,
                      outcomes_path=None, issues_path=issues, dashboard=None, awaiting_ab=False,
                      as_json=False, out=None, max_bytes=100_000)  # fmt: skip
