"""Speculative decoding (MTP): every point records the server's acceptance length, read
before the flush that resets it, and the rate; a case gates on its minimum rate."""

from __future__ import annotations

from typing import Any

import pytest

from tests.launchers.support import (
    CATALOG_SGLANG,
    Harness,
    assert_valid_record,
    fixture_case,
    fixture_job,
)

NO_ACCEPTANCE = "the speculative-decoding server reported no acceptance length"


def mtp_decode_job() -> dict[str, Any]:
    """The fixture's MTP job of 1x1024 points (3 drafted tokens), plus a point of one
    output token, which decodes nothing."""
    job = fixture_job("--preset", "ds-fp4-tp4-mtp", index=1)
    assert (job["spec"], job["draft_tokens"]) == ("mtp3", 3)
    first, second = job["points"][:2]
    job["points"] = [
        {**first, "num_prompts": 2, "num_warmups": 1},
        {**second, "num_prompts": 2, "num_warmups": 1},
        {**first, "id": f"{job['id']}-osl1", "osl": 1, "num_prompts": 2, "num_warmups": 1},
    ]
    return job


def test_every_mtp_point_records_the_acceptance_read_before_the_flush(harness: Harness) -> None:
    job = mtp_decode_job()
    run = harness.run("run_benchmark.sh", harness.write_json("job.json", job), CATALOG_SGLANG)

    assert run.returncode == 0, run.stdout + run.stderr
    records = [harness.result(point["id"]) for point in job["points"]]
    for record in records:
        assert_valid_record(record)
    # The stand-in server reports 2.5 once it has decoded since the last flush, which
    # resets it: a value read after the flush would be missing.
    assert [
        (
            r["status"],
            r["validity"]["valid"],
            r["metrics"]["accept_length"],
            r["metrics"]["acceptance_rate"],
        )
        for r in records
    ] == [("ok", True, 2.5, 0.5), ("ok", True, 2.5, 0.5), ("ok", True, None, None)]
    log = (harness.logs / f"{job['id']}.server.log").read_text(encoding="utf-8")
    assert log.count('"POST /flush_cache HTTP/1.1" 200') == 2


@pytest.mark.fault
def test_an_mtp_point_without_an_acceptance_length_fails_unless_it_has_one_output_token(
    harness: Harness,
) -> None:
    job = mtp_decode_job()
    run = harness.run(
        "run_benchmark.sh",
        harness.write_json("job.json", job),
        {"SGLANG_STANDIN_ACCEPT_LENGTH": "none", **CATALOG_SGLANG},
    )

    assert run.returncode == 1, run.stdout + run.stderr
    records = [harness.result(point["id"]) for point in job["points"]]
    assert [(r["status"], r["error"], r["validity"]["valid"]) for r in records] == [
        ("failed", NO_ACCEPTANCE, False),
        ("failed", NO_ACCEPTANCE, False),
        ("ok", None, True),
    ]


@pytest.mark.parametrize(
    ("accept", "exit_code", "status", "error"),
    [
        ("2.5", 1, "failed", "acceptance rate 0.5000 < min_acceptance_rate 0.6"),
        ("none", 2, "error", NO_ACCEPTANCE),
    ],
    ids=["below-minimum", "no-acceptance-length"],
)
def test_an_mtp_case_gates_on_its_minimum_acceptance_rate(
    harness: Harness, accept: str, exit_code: int, status: str, error: str
) -> None:
    case = fixture_case("deepseek-r1-mxfp4-tp4-mtp-rocm720")
    case["min_acceptance_rate"] = 0.6
    run = harness.run(
        "run_accuracy.sh",
        harness.write_json("case.json", case),
        {"SGLANG_STANDIN_ACCEPT_LENGTH": accept},
    )

    assert run.returncode == exit_code, run.stdout + run.stderr
    record = harness.result(case["id"])
    assert_valid_record(record)
    assert (record["status"], record["error"]) == (status, error)
    metrics = record["metrics"]
    expected = (2.5, 0.5) if accept == "2.5" else (None, None)
    assert (metrics["accept_length"], metrics["acceptance_rate"]) == expected
    assert (metrics["score"], metrics["min_acceptance_rate"]) == (
        0.95 if status == "failed" else None,
        0.6,
    )
