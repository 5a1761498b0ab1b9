"""`confirm noise` and `confirm outcomes` (generator/confirm/ab_jobs.py): each A/A job's
noise pooled beside the history, an A/B refused there, the matrix's confirmation jobs
checked as the launcher checks them, the outcomes as Markdown or JSON."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from generator.confirm.ab_jobs import pool_noise, print_outcomes
from generator.results.record import ResultsError
from tests import confirm_gen as cg
from tests import results_gen as gen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

JOB = cg.qwen_job()
LABEL = JOB["runner"]


def side(image: str, run: str) -> dict[str, Any]:
    return {"image": f"{cg.FAMILY}@{cg.digest(image)}", "image_requested": cg.REQUESTED,
            "image_tag": "sglang-latest", "image_digest": cg.digest(image), "run": run}  # fmt: skip


AA = cg.ab_entry(JOB, "aa-1", side("current", "r1"), side("current", "r1"))
AB = cg.ab_entry(JOB, "ev-1", side("old", "r0"), side("current", "r1"))


def matrix(tmp_path: Path, *entries: dict[str, Any]) -> Path:
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps({"include": list(entries)}))
    return path


def measured(results: Path) -> None:
    """The A/A's documents under `results`: both sides the same image, 2% noise."""
    rng = random.Random(3)
    run = gen.Run(day=1, image=cg.REQUESTED, digest=cg.digest("current"))

    def record(_side: str, p: dict[str, Any], _repeat: int) -> dict[str, Any]:
        at = gen.Point(config=JOB["config"], isl=p["isl"], osl=p["osl"],
                       concurrency=p["concurrency"], gpus=4)  # fmt: skip
        rec = gen.point_record(run, at, gen.Shape(noise=0.02), rng)
        rec.update(id=p["id"], job_id=JOB["id"], server_fingerprint=JOB["server_fingerprint"],
                   runner_label=LABEL)  # fmt: skip
        return rec

    for rel, doc in cg.ab_documents(AA, record).items():
        (results / rel).parent.mkdir(parents=True, exist_ok=True)
        (results / rel).write_text(json.dumps(doc))


def test_an_a_a_measured_is_pooled_into_its_labels_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    measured(tmp_path / "results")
    # an entry without points (an accuracy case) is no job
    given = matrix(tmp_path, AA, {"id": "gsm8k-nightly"})
    pool_noise(matrices=(given,), results=tmp_path / "results", history=tmp_path / "runs",
               run_name="r9")  # fmt: skip
    path = tmp_path / "ab-noise" / f"{LABEL}.json"
    data = json.loads(path.read_text())
    [one] = data["measurements"]
    assert (one["run"], one["job_id"]) == ("r9", JOB["id"])
    noise = data["noise"]
    assert noise["source"] == f"A/A of {LABEL}, 1 run(s)"
    assert capsys.readouterr().out == (
        f"{path}: launch {noise['launch']:.4f}, point {noise['point']:.4f} ({noise['source']})\n"
    )
    assert 0 < noise["point"] < noise["launch"] < 0.05


def test_an_a_a_without_results_is_not_yet_measurable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    given = matrix(tmp_path, AA)
    pool_noise(matrices=(given,), results=tmp_path / "none", history=tmp_path / "runs",
               run_name="r9")  # fmt: skip
    path = tmp_path / "ab-noise" / f"{LABEL}.json"
    assert capsys.readouterr().out == f"{path}: not yet measurable (too few points or repeats)\n"
    assert json.loads(path.read_text())["noise"] is None


@pytest.mark.parametrize("order", ["A/B first", "A/A first"])
def test_an_a_b_is_no_a_a_and_nothing_is_written(tmp_path: Path, order: str) -> None:
    given = matrix(tmp_path, *((AB, AA) if order == "A/B first" else (AA, AB)))
    refused = f"^matrix: {JOB['id']} is an A/B of two images, not an A/A$"
    with pytest.raises(ResultsError, match=refused):
        pool_noise(matrices=(given,), results=tmp_path, history=tmp_path / "runs", run_name="r")
    assert not (tmp_path / "ab-noise").exists()


def test_a_confirmation_the_launcher_would_refuse_is_refused(tmp_path: Path) -> None:
    bad = {**AB, "confirmation": {**AB["confirmation"], "repeats": 1}}
    with pytest.raises(ResultsError, match=r"^matrix: confirmation: 'repeats' must be an integer"):
        print_outcomes(matrices=(matrix(tmp_path, bad),), results=None, confirmation=None,
                       as_json=False)  # fmt: skip


def test_an_a_b_that_left_nothing_is_missing_as_markdown_or_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    given = (matrix(tmp_path, AB),)
    print_outcomes(matrices=given, results=None, confirmation=None, as_json=False)
    assert capsys.readouterr().out == (
        "### A/B confirmation\n\n"
        f"- **{JOB['id']}** (event `ev-1`): **missing**: the A/B job left no measurement; the "
        "event stays suspected\n\n"
    )
    out = tmp_path / "confirmation.json"
    print_outcomes(matrices=given, results=None, confirmation=out, as_json=True)
    [shown] = json.loads(capsys.readouterr().out)
    assert {k: shown[k] for k in ("event", "job_id", "result", "repeats", "steps")} == {
        "event": "ev-1", "job_id": JOB["id"], "result": "missing", "repeats": 3, "steps": [],
    }  # fmt: skip
    assert json.loads(out.read_text()) == []  # nothing decided for compare to take


def test_a_confirmation_file_not_json_is_refused_before_anything(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match=re.escape(str(tmp_path / "c.md"))):
        print_outcomes(matrices=(tmp_path / "no-matrix.json",), results=None,
                       confirmation=tmp_path / "c.md", as_json=False)  # fmt: skip
