"""generator.launch.ab_steps: an A/B job's steps on the runner, the confirmation then, when
it confirms, the bisection among the nightlies between; each turn's confirmation document
and the job's ab.json."""

from __future__ import annotations

import json
from typing import Any, cast

from generator.core import ab_order, ab_verdict
from generator.launch import ab_steps
from generator.launch.ab_side import SideContext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from generator.core.abjob import ConfirmationEntry, SideImage


def image(name: str) -> SideImage:
    digest = "sha256:" + name[0] * 64
    return cast(
        "SideImage",
        {
            "image": f"r@{digest}",
            "image_requested": "r:t",
            "image_tag": "t",
            "image_digest": digest,
            "run": name,
        },
    )


CANDIDATES = [image(f"{i}") for i in range(4)]


def context(tmp_path: Path, **confirmation: Any) -> SideContext:
    entry = {
        "id": "qwen-tp4",
        "gpus": 4,
        "points": [{"id": "p1"}, {"id": "p2"}],
        "confirmation": {
            "event": "ev-1",
            "repeats": 3,
            "level": 0.95,
            "metrics": {"output_throughput": {"higher_is_better": True, "min_change": 0.05}},
            "a": image("a"),
            "b": image("b"),
            "candidates": CANDIDATES,
            "max_bisect_steps": 3,
            **confirmation,
        },
    }
    return SideContext(
        entry=cast("ConfirmationEntry", entry),
        environ={},
        workspace=str(tmp_path),
        scratch=tmp_path,
        devices=[],
        results=tmp_path / "results",
        passed=[],
        poll_s=1.0,
    )


class FakeRun:
    """A side's container that measured `value` at every turn (None: no valid record)."""

    def __init__(self, value: float | None) -> None:
        self.value = value

    def measurement(self, turn: ab_order.Turn) -> tuple[dict[str, Any] | None, Any]:
        metrics = None if self.value is None else {"output_throughput": self.value}
        data = None if metrics is None else {"id": turn.tag, "metrics": metrics}
        return data, ab_verdict.Measurement(
            side=turn.side, repeat=turn.repeat, point=turn.point, metrics=metrics
        )


def run_sides(monkeypatch: pytest.MonkeyPatch, b_value: float | None) -> list[int]:
    """The sides' containers replaced: A measures 100 (with a little noise), B `b_value`."""
    steps: list[int] = []

    def restart(
        ctx: SideContext, step: int, images: dict[str, SideImage], order: list[ab_order.Turn]
    ) -> list[tuple[FakeRun, ab_order.Turn]]:
        del ctx, images
        steps.append(step)
        runs = {ab_order.A: 0, ab_order.B: b_value}
        return [
            (FakeRun(None if runs[t.side] is None else (runs[t.side] or 100.0) + t.repeat), t)
            for t in order
        ]

    monkeypatch.setattr(ab_steps, "restart", restart)
    return steps


def test_a_step_writes_a_document_per_turn_and_judges_b_against_a(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_RUN_ATTEMPT", "2")
    run_sides(monkeypatch, 70.0)
    ctx = context(tmp_path)
    verdict, judgements = ab_steps.measure(ctx, 0, image("a"), image("b"))
    assert verdict == ab_verdict.CONFIRMED
    assert next((j.what, j.verdict) for j in judgements) == ("output_throughput", "confirmed")
    folder = tmp_path / "results" / "confirmation" / "qwen-tp4" / "step-0"
    names = sorted(p.name for p in folder.iterdir())
    assert len(names) == 12  # 3 repeats x 2 points x 2 sides
    first = ab_order.turns(3, ["p1", "p2"], ab_order.RESTART)[0]
    doc = json.loads((folder / f"{first.side.lower()}-{first.tag}.json").read_text())
    assert doc == {
        "schema": "sglang-ci/confirmation/1",
        "event": "ev-1",
        "job_id": "qwen-tp4",
        "run_attempt": "2",
        "step": 0,
        "order": 1,
        "mode": "restart",
        "side": first.side,
        "repeat": first.repeat,
        "point": first.point,
        "images": {"A": dict(image("a")), "B": dict(image("b"))},
        "record": {"id": first.tag, "metrics": doc["record"]["metrics"]},
    }
    assert ctx.failed_turns == 0


def test_turns_without_a_valid_record_are_counted_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_sides(monkeypatch, None)
    ctx = context(tmp_path)
    verdict, _ = ab_steps.measure(ctx, 0, image("a"), image("b"))
    assert (verdict, ctx.failed_turns) == (ab_verdict.INCONCLUSIVE, 6)


def verdicts(monkeypatch: pytest.MonkeyPatch, first_bad: int) -> list[str]:
    """`measure` replaced: B and every candidate from `first_bad` on are confirmed slower;
    the runs measured, in order."""
    measured: list[str] = []

    def measure(
        ctx: SideContext, step: int, a: SideImage, b: SideImage
    ) -> tuple[str, list[ab_verdict.Judgement]]:
        del ctx, a
        measured.append(f"{step}:{b['run']}")
        bad = b["run"] == "b" or int(str(b["run"])) >= first_bad
        return (ab_verdict.CONFIRMED if bad else ab_verdict.CLEARED), []

    monkeypatch.setattr(ab_steps, "measure", measure)
    return measured


def test_a_confirmed_event_bisects_to_the_first_bad_candidate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured = verdicts(monkeypatch, 2)
    summary = ab_steps.run_steps(context(tmp_path))
    assert measured == ["0:b", "1:1", "2:2"]
    assert summary["verdict"] == ab_verdict.CONFIRMED
    assert [(s["step"], s["candidate"], s["verdict"]) for s in summary["steps"]] == [
        (0, None, "confirmed"),
        (1, 1, "cleared"),
        (2, 2, "confirmed"),
    ]
    assert summary["bisect"] == {
        "candidates": [dict(c) for c in CANDIDATES],
        "good": 1,
        "bad": 2,
        "exact": True,
    }
    assert (summary["schema"], summary["event"], summary["mode"], summary["repeats"]) == (
        "sglang-ci/ab/1",
        "ev-1",
        "restart",
        3,
    )


def test_the_bisection_stops_when_its_steps_are_spent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured = verdicts(monkeypatch, 0)
    summary = ab_steps.run_steps(context(tmp_path, max_bisect_steps=1))
    assert measured == ["0:b", "1:1"]
    assert (summary["bisect"]["good"], summary["bisect"]["bad"], summary["bisect"]["exact"]) == (
        -1,
        1,
        False,
    )


def test_a_cleared_event_or_a_broken_side_is_not_bisected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured = verdicts(monkeypatch, 10)
    ctx = context(tmp_path, b=image("9"))
    assert ab_steps.run_steps(ctx)["verdict"] == ab_verdict.CLEARED
    ctx = context(tmp_path)
    ctx.broken = True
    summary = ab_steps.run_steps(ctx)
    assert measured == ["0:9", "0:b"]
    assert (summary["verdict"], summary["bisect"]["good"], summary["bisect"]["bad"]) == (
        ab_verdict.CONFIRMED,
        -1,
        4,
    )
