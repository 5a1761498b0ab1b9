"""`run_in_container.py confirm`: the A/B of two images on one runner, end to end against
the stand-in docker, server and client (generator/launch/confirm_job.py)."""

from __future__ import annotations

from tests.launchers.confirm_support import confirmation_job, documents, image, run_confirm, summary
from tests.launchers.support import Harness, assert_valid_record

GOOD, BAD = image("nightly-20261201"), image("nightly-20261203", version="0.5.24")


def test_two_servers_at_once_take_turns_on_their_own_gpu_halves_and_confirm_a_slower_image(
    harness: Harness,
) -> None:
    # Three repeats: two give Student's t a factor of 12.7, too wide to confirm 8% (ab_verdict.py).
    job = confirmation_job(GOOD, BAD, repeats=3)
    proc, calls = run_confirm(harness, job, [GOOD, BAD], gpus=8, slower={BAD["image_digest"]: 8})

    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The two containers start at once: the stand-in docker records them in either order.
    runs = {c["name"]: c for c in calls if c["command"] == "run"}
    assert {name: r["image"] for name, r in runs.items()} == {
        "sglang-ci-mi355-1-a": GOOD["image"],
        "sglang-ci-mi355-1-b": BAD["image"],
    }
    assert runs["sglang-ci-mi355-1-a"]["devices"] == ["/dev/kfd"] + [
        f"/dev/dri/renderD{n}" for n in (128, 136, 144, 152)
    ]
    assert runs["sglang-ci-mi355-1-b"]["devices"] == ["/dev/kfd"] + [
        f"/dev/dri/renderD{n}" for n in (160, 168, 176, 184)
    ]
    assert len([c for c in calls if c["command"] == "run"]) == 2
    assert len(harness.server_records()) == 2  # two server launches, none restarted
    docs = documents(harness, job["id"])
    point = job["points"][0]["id"]
    assert [(d["side"], d["repeat"], d["point"]) for d in docs] == [
        ("A", 1, point),
        ("B", 1, point),
        ("B", 2, point),
        ("A", 2, point),
        ("A", 3, point),
        ("B", 3, point),
    ]
    for d in docs:
        assert d["schema"] == "sglang-ci/confirmation/1"
        assert d["event"] == "ev-qwen-tp4-r7"
        assert d["mode"] == "parallel"
        assert d["images"] == {"A": job["confirmation"]["a"], "B": job["confirmation"]["b"]}
        assert_valid_record(d["record"])
        assert d["record"]["validity"]["valid"] is True
        assert (
            d["record"]["provenance"]["image"]["digest"] == d["images"][d["side"]]["image_digest"]
        )
    versions = {d["side"]: d["record"]["provenance"]["sglang_version"] for d in docs}
    assert versions == {"A": "0.5.23", "B": "0.5.24"}
    result = summary(harness, job["id"])
    assert result["verdict"] == "confirmed"
    [judgement] = result["steps"][0]["judgements"]
    assert round(judgement["ratio"], 4) == 0.92


def test_a_layout_that_fills_the_runner_restarts_per_block_and_clears_equal_images(
    harness: Harness,
) -> None:
    same = image("nightly-20261202")
    job = confirmation_job(GOOD, same, repeats=3)
    proc, calls = run_confirm(harness, job, [GOOD, same], gpus=4)

    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = [c for c in calls if c["command"] == "run"]
    assert [r["image"] for r in runs] == [
        GOOD["image"],
        same["image"],
        GOOD["image"],
        same["image"],
    ]
    assert len(harness.server_records()) == 4  # K + 1 launches: A | B B | A A | B
    docs = documents(harness, job["id"])
    assert [(d["side"], d["repeat"]) for d in docs] == [
        ("A", 1),
        ("B", 1),
        ("B", 2),
        ("A", 2),
        ("A", 3),
        ("B", 3),
    ]
    assert {d["mode"] for d in docs} == {"restart"}
    result = summary(harness, job["id"])
    assert result["verdict"] == "cleared"
    assert result["steps"][0]["judgements"][0]["ratio"] == 1.0


def test_a_confirmed_event_bisects_the_nightlies_between_to_the_first_bad_one(
    harness: Harness,
) -> None:
    between = tuple(image(f"nightly-2026120{d}") for d in (2, 3, 4))
    last = image("nightly-20261205")
    job = confirmation_job(GOOD, last, candidates=between, max_bisect_steps=3, repeats=3)
    slow = {im["image_digest"]: 10.0 for im in (between[1], between[2], last)}
    proc, _ = run_confirm(harness, job, [GOOD, *between, last], gpus=8, slower=slow)

    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = summary(harness, job["id"])
    assert [(s["candidate"], s["verdict"]) for s in result["steps"]] == [
        (None, "confirmed"),
        (1, "confirmed"),
        (0, "cleared"),
    ]
    assert result["bisect"]["good"] == 0
    assert result["bisect"]["bad"] == 1
    assert result["bisect"]["exact"] is True
    assert len(harness.server_records()) == 6  # three A/Bs of two launches each
