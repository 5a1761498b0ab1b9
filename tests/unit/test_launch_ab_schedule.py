"""generator.launch.ab_schedule: the turns of one A/B step, both sides' containers at once
on their own GPU halves, each turn given through the gate files, or one container a block
of turns at a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from generator.core import ab_order
from generator.launch import ab_schedule, turns
from generator.launch.ab_side import SideContext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.abjob import ConfirmationEntry, SideImage

DEVICES = [f"--device=/dev/dri/renderD{128 + i}" for i in range(4)]


def image(name: str) -> dict[str, str]:
    return {
        "image": name,
        "image_requested": "r:t",
        "image_tag": "t",
        "image_digest": f"sha256:{name}",
    }


IMAGES = cast("dict[str, SideImage]", {ab_order.A: image("a"), ab_order.B: image("b")})


def context(tmp_path: Path) -> SideContext:
    entry = {"id": "job", "gpus": 2, "points": [{"id": "p1"}, {"id": "p2"}], "confirmation": {}}
    return SideContext(
        entry=cast("ConfirmationEntry", entry),
        environ={},
        workspace=str(tmp_path),
        scratch=tmp_path,
        devices=DEVICES,
        results=tmp_path / "results",
        passed=[],
        poll_s=0.0,
    )


class FakeRun:
    """A side's container: it serves (writes `ready`) and does every turn (`.done`) at
    once, unless `serves` is False; it has ended unless `alive`."""

    made: list[FakeRun]
    serves = True

    def __init__(
        self, ctx: SideContext, job: dict[str, Any], side: str, devices: list[str]
    ) -> None:
        del ctx
        self.job, self.side, self.devices, self.waited = job, side, devices, False
        gate = job.get("turns")
        if gate is not None and self.serves:
            Path(gate, turns.READY).write_text("", encoding="utf-8")
            for point in job["points"]:
                Path(gate, f"{point['id']}.done").write_text("", encoding="utf-8")
        FakeRun.made.append(self)

    def alive(self) -> bool:
        return False

    def wait(self) -> int:
        self.waited = True
        return 0


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[FakeRun]:
    FakeRun.made = []
    FakeRun.serves = True
    monkeypatch.setattr(ab_schedule, "SideRun", FakeRun)
    return FakeRun.made


ORDER = ab_order.turns(2, ["p1"], ab_order.PARALLEL)


def test_both_sides_run_at_once_on_their_halves_and_take_every_turn(
    tmp_path: Path, runs: list[FakeRun]
) -> None:
    done = ab_schedule.parallel(context(tmp_path), 1, IMAGES, ORDER)
    a, b = runs
    assert (a.side, a.devices, a.job["id"]) == (ab_order.A, DEVICES[:2], "job-ab1-a")
    assert (b.side, b.devices, b.job["id"]) == (ab_order.B, DEVICES[2:], "job-ab1-b")
    assert (a.job["image"], b.job["image"]) == ("a", "b")
    assert [cast("FakeRun", run) for run, _ in done] == [
        a if t.side == ab_order.A else b for t in ORDER
    ]
    assert [t for _, t in done] == ORDER
    for side in ("a", "b"):
        gate = tmp_path / "ab" / f"turns-1-{side}"
        names = {p.name for p in gate.iterdir()}
        assert {turns.READY, turns.STOP, "p1-r1.go", "p1-r2.go"} <= names
    assert a.waited
    assert b.waited


def test_a_side_that_never_serves_stops_the_step_before_any_turn(
    tmp_path: Path, runs: list[FakeRun]
) -> None:
    FakeRun.serves = False
    ctx = context(tmp_path)
    ab_schedule.parallel(ctx, 0, IMAGES, ORDER)
    assert ctx.broken
    gate = tmp_path / "ab" / "turns-0-a"
    assert sorted(p.name for p in gate.iterdir()) == [turns.STOP]
    assert all(r.waited for r in runs)


def test_one_container_at_a_time_runs_each_block_of_turns(
    tmp_path: Path, runs: list[FakeRun]
) -> None:
    order = ab_order.turns(2, ["p1", "p2"], ab_order.RESTART)
    done = ab_schedule.restart(context(tmp_path), 0, IMAGES, order)
    blocks = ab_order.blocks(order)
    assert [r.job["id"] for r in runs] == [
        f"job-ab0-{block[0].side.lower()}{n}" for n, block in enumerate(blocks, 1)
    ]
    assert [[p["id"] for p in r.job["points"]] for r in runs] == [
        [t.tag for t in block] for block in blocks
    ]
    assert all(r.devices == DEVICES and "turns" not in r.job and r.waited for r in runs)
    assert [t for _, t in done] == order
