"""What the dashboard reads of the runs' confirmation folders (generator/report/
confirmations.py): A/Bs judged again from their documents, issues from `issues.json`."""

from __future__ import annotations

import json
from typing import Any

from generator.confirm import tracked
from generator.confirm.tracked import Tracked
from generator.report import confirmations
from tests import confirm_gen as cg
from tests import results_gen as gen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

EVENT = "ev-0a1b2c3d4e5f"


def side(name: str) -> dict[str, Any]:
    digest = cg.digest(name)
    return {"image": f"{cg.FAMILY}@{digest}", "image_requested": cg.REQUESTED,
            "image_tag": name, "image_digest": digest, "run": None}  # fmt: skip


def folder(run: Path, *, b_lower: float, issue: Tracked | None = None) -> Path:
    """`run`'s confirmation folder: an A/B of `old` against `new`, B `b_lower` times A."""
    entry = cg.ab_entry(cg.qwen_job((4,)), EVENT, side("old"), side("new"))

    def measured(turn: str, p: dict[str, Any], repeat: int) -> dict[str, Any]:
        point = gen.Point(config=entry["config"], concurrency=p["concurrency"], gpus=4)
        shape = gen.Shape(throughput=1.0 if turn == "A" else b_lower)
        return gen.point_record(gen.Run(day=repeat), point, shape)

    where = run / "confirmation"
    for rel, doc in cg.ab_documents(entry, measured).items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_text(json.dumps(doc))
    (where / "matrix.json").write_text(json.dumps({"include": [entry]}))
    if issue is not None:
        issues = tracked.document(run=run.name, repository="o/r", enabled=True, issues=[issue])
        (where / tracked.FILE).write_text(json.dumps(issues))
    return where


def issue(number: int, url: str | None, action: str | None) -> Tracked:
    return Tracked(event=EVENT, number=number, url=url, open=True, action=action)


def test_the_newest_run_s_outcome_and_issue_of_an_event_are_shown(tmp_path: Path) -> None:
    url = "https://github.com/o/r/issues/3"
    folder(tmp_path / "r1", b_lower=0.92, issue=issue(3, url, "opened"))
    folder(tmp_path / "r2", b_lower=1.0, issue=issue(3, url, "commented"))
    found = confirmations.read([tmp_path / "r1", tmp_path / "r2"])
    assert found.problems == []
    [(event, outcome)] = found.outcomes.items()
    assert (event, outcome.result, outcome.repeats) == (EVENT, "cleared", 3)
    [step] = outcome.steps
    [(point, [judged])] = step.points
    assert (found.points[EVENT][point], judged.verdict, f"{judged.ratio:.3f}") == (
        "1024x1024 c=4",
        "cleared",
        "1.000",
    )
    assert found.issues == {EVENT: ("r2", issue(3, url, "commented"))}
    older = confirmations.read([tmp_path / "r1"])
    assert older.outcomes[EVENT].result == "confirmed"
    assert f"{older.outcomes[EVENT].steps[0].judgements[0].ratio:.3f}" == "0.920"


def test_a_matrix_entry_that_is_not_one_is_a_problem_and_a_link_only_https(
    tmp_path: Path,
) -> None:
    where = folder(tmp_path / "r1", b_lower=0.92, issue=issue(3, "javascript:alert(1)", None))
    matrix = json.loads((where / "matrix.json").read_text())
    del matrix["include"][0]["confirmation"]["a"]
    (where / "matrix.json").write_text(json.dumps(matrix))
    found = confirmations.read([tmp_path / "r1", tmp_path / "no-confirmation"])
    assert found.problems == [
        (
            f"{where / 'matrix.json'}: include[0]: confirmation.a must be an object: "
            "its A/B is not shown"
        )
    ]
    assert found.outcomes == {}
    assert found.issues == {EVENT: ("r1", issue(3, None, None))}
