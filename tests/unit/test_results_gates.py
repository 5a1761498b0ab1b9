"""generator/results/gates.py: the accuracy and acceptance gates, applied to the records."""

from __future__ import annotations

from generator.results.gates import gates
from generator.results.load import open_store
from tests.results_gen import Point, Run, Shape, case_record, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_a_low_score_a_low_acceptance_rate_and_an_mtp_point_without_length_fail(
    tmp_path: Path,
) -> None:
    run = Run(day=0)
    records = [
        point_record(
            run, Point(config="ds-mtp", spec="mtp", draft_tokens=3), Shape(accept_length=None)
        ),
        point_record(run, Point()),
        case_record(run, "low", score=0.5),
        case_record(
            run, "mtp-case", spec="mtp", draft_tokens=3, accept_length=2.0, min_acceptance_rate=0.9
        ),
        case_record(run, "fine"),
    ]
    found = gates(open_store(current=[write_run(tmp_path, run, records)]))
    assert [(g.gate, g.kind, g.id, g.message) for g in found] == [
        (
            "accuracy",
            "case",
            "low-nightly",
            "exact_match,flexible-extract 0.5 below the threshold 0.93",
        ),
        (
            "acceptance",
            "case",
            "mtp-case-nightly",
            "acceptance rate 0.3333 below min_acceptance_rate 0.9",
        ),
        ("acceptance", "point", "ds-mtp-1024-1024-4", "MTP point without acceptance length"),
    ]
