"""An A/B job's outcome, read back and written as Markdown (generator/confirm/outcome.py)."""

from __future__ import annotations

from generator.confirm.outcome import (
    MISSING,
    Outcome,
    Step,
    from_dict,
    judgement_text,
    markdown,
    short,
)
from generator.core.ab_verdict import CONFIRMED, Judgement
from generator.core.abjob import SideImage

A = SideImage(image="rocm/atom@sha256:" + "a" * 64, image_requested="rocm/atom:n1",
              image_tag="n1", image_digest="sha256:" + "a" * 64, run="run-06")  # fmt: skip
B = SideImage(image="rocm/atom@sha256:" + "b" * 64, image_requested="rocm/atom:n2",
              image_tag="", image_digest="sha256:" + "b" * 64, run=None)  # fmt: skip
WORSE = Judgement(metric="output_throughput_per_gpu", verdict=CONFIRMED, ratio=0.9,
                     low=0.88, high=0.92, level=0.95, repeats=3, pairs=3,
                     threshold=0.95)  # fmt: skip
STEP = Step(step=0, candidate=None, a=A, b=B, verdict=CONFIRMED, judgements=(WORSE,),
            turns=6, expected=6, points=(("p1", (WORSE,)),))  # fmt: skip
OUTCOME = Outcome(event="ev-1", job_id="job-1", config="ds-tp4", mode="restart", repeats=3,
                  result=CONFIRMED, steps=(STEP,), first_bad=B, exact=True, between=(A, B),
                  versions={B["image_digest"]: {"sglang_version": "0.5.7"}})  # fmt: skip


def test_an_outcome_reads_back_as_it_was_written() -> None:
    assert from_dict(OUTCOME.as_dict()) == OUTCOME


def test_an_image_is_named_by_its_tag_and_short_digest_else_its_digest() -> None:
    assert short(A) == "`n1` (`aaaaaaaaaaaa`)"
    assert short(B) == "`rocm/atom:n2` (`bbbbbbbbbbbb`)"
    digest = "sha256:" + "c" * 64
    untagged = SideImage(
        image=f"r@{digest}", image_requested="", image_tag="", image_digest=digest, run=None
    )
    assert short(untagged) == "`sha256:cccccccccccc`"
    assert short(None) == "-"


def test_a_judgement_shows_its_ratio_and_interval() -> None:
    assert judgement_text(WORSE) == (f"{WORSE.what} B/A 0.900 [0.880, 0.920] at 95%: confirmed")


def test_the_summary_names_each_step_and_the_first_bad_image() -> None:
    missing = Outcome(event="ev-2", job_id="job-2", config="ds-tp8", mode=None, repeats=3,
                      result=MISSING)  # fmt: skip
    assert markdown([OUTCOME, missing]) == [
        "### A/B confirmation",
        "",
        "- **ds-tp4** (event `ev-1`): **confirmed**, 3 repeats each, restart",
        f"  - A/B: A {short(A)} against B {short(B)}, 6 of 6 turns measured; "
        + judgement_text(WORSE),
        f"  - first bad image: {short(B)}",
        (
            "- **ds-tp8** (event `ev-2`): **missing**: the A/B job left no measurement; the "
            "event stays suspected"
        ),
        "",
    ]
    assert markdown([]) == []
