"""generator.launch.ab_side: how an A/B runs on the runner's GPUs, and one side's job."""

from __future__ import annotations

from typing import Any, cast

from generator.core import ab_order
from generator.launch.ab_side import choose_mode, render_devices, side_job

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.abjob import ConfirmationEntry, SideImage

RENDER = [f"--device=/dev/dri/renderD{128 + i}" for i in range(8)]


def image(digest: str) -> SideImage:
    return cast(
        "SideImage",
        {
            "image": f"repo@sha256:{digest * 64}",
            "image_requested": "repo:tag",
            "image_tag": "tag",
            "image_digest": f"sha256:{digest * 64}",
            "run": None,
        },
    )


def entry(gpus: int, a: str = "a", b: str = "b") -> ConfirmationEntry:
    data: dict[str, Any] = {
        "id": "job",
        "gpus": gpus,
        "points": [{"id": "p1", "isl": 1}, {"id": "p2", "isl": 2}],
        "confirmation": {"a": image(a), "b": image(b)},
    }
    return cast("ConfirmationEntry", data)


def test_only_render_nodes_can_be_split_between_two_servers() -> None:
    assert render_devices(RENDER) == RENDER
    assert render_devices(["--device=/dev/dri"]) is None
    assert render_devices([]) is None


def test_two_servers_run_at_once_when_they_fit_unless_both_sides_are_one_image() -> None:
    assert choose_mode(entry(4), RENDER) == ab_order.PARALLEL
    assert choose_mode(entry(8), RENDER) == ab_order.RESTART
    assert choose_mode(entry(4, b="a"), RENDER) == ab_order.RESTART
    assert choose_mode(entry(4), ["--device=/dev/dri"]) == ab_order.RESTART


def test_a_side_job_runs_its_image_on_the_turns_points_in_order() -> None:
    order = [
        ab_order.Turn(side="B", repeat=1, point="p2"),
        ab_order.Turn(side="B", repeat=2, point="p1"),
    ]
    job = side_job(entry(4), name="job-ab0-b", image=image("b"), order=order, gate="/gate")
    assert "confirmation" not in job
    assert (job["id"], job["image"], job["image_resolution"], job["turns"]) == (
        "job-ab0-b",
        f"repo@sha256:{'b' * 64}",
        "digest",
        "/gate",
    )
    assert job["points"] == [{"id": "p2-r1", "isl": 2}, {"id": "p1-r2", "isl": 1}]
    assert "turns" not in side_job(entry(4), name="x", image=image("a"), order=[], gate=None)
