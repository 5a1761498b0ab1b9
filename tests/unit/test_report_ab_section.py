"""The regressions page's A/B section (generator/report/ab_section.py) of a bisection:
each step, and the first bad image named or bounded."""

from __future__ import annotations

import dataclasses

from generator.confirm.outcome import Outcome, Step
from generator.core import ab_verdict
from generator.core.abjob import SideImage
from generator.report.ab_section import ab_result
from tests import confirm_gen as cg


def image(name: str) -> SideImage:
    d = cg.digest(name)
    return SideImage(image=f"{cg.FAMILY}@{d}", image_requested=cg.REQUESTED, image_tag=name,
                     image_digest=d, run=None)  # fmt: skip


def step(number: int, b: str, verdict: str, ratio: float) -> Step:
    judged = ab_verdict.Judgement(metric="output_throughput_per_gpu", verdict=verdict, ratio=ratio,
                          low=ratio - 0.01, high=ratio + 0.01, level=0.95, repeats=3, pairs=3,
                          threshold=0.95)  # fmt: skip
    return Step(step=number, candidate=None if number == 0 else 0, a=image("good"), b=image(b),
                verdict=verdict, judgements=(judged,), turns=6, expected=6,
                points=(("p4", (judged,)),))  # fmt: skip


def short(name: str) -> str:
    return f"{name} (sha256:{cg.digest(name)[7:19]})"


def test_a_bisection_shows_each_step_and_names_the_first_bad_image() -> None:
    outcome = Outcome(event="ev-0a1b2c3d4e5f", job_id="j", config="c", mode="restart",
                      repeats=3, result="confirmed",
                      steps=(step(0, "current", "confirmed", 0.92),
                             step(1, "n1", "confirmed", 0.91)),
                      candidates=(image("n1"),), first_bad=image("n1"), exact=True,
                      between=(image("good"), image("n1")))  # fmt: skip
    shown = ab_result(outcome, {"p4": "1024x1024 c=4"})
    assert shown is not None
    assert [(s["what"], s["b"], s["verdict"]) for s in shown["steps"]] == [
        ("A/B", short("current"), "confirmed"),
        ("bisection step 1", short("n1"), "confirmed"),
    ]
    assert shown["steps"][1]["points"] == [
        {"point": "1024x1024 c=4", "metric": "tok/s/GPU", "ratio": "0.910",
         "interval": "[0.900, 0.920]", "verdict": "confirmed"}
    ]  # fmt: skip
    assert shown["first_bad"] == short("n1")
    bounded = dataclasses.replace(outcome, first_bad=None, exact=False)
    again = ab_result(bounded, {})
    assert again is not None
    assert again["first_bad"] == f"after {short('good')}, at or before {short('n1')}"
    assert ab_result(None, {}) is None
