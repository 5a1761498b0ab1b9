"""The run summary's headline and event lines (generator/report/oncall.py), against the
golden files under tests/fixtures/summary/: a red night, a green night whose suspicions the
A/B cleared, and a recovery night. SGLANG_CI_UPDATE_GOLDEN=1 writes them anew."""

from __future__ import annotations

import os
import re
from typing import Any, cast

import pytest

from generator.confirm.outcome import Outcome, Step
from generator.confirm.tracked import Tracked
from generator.core import ab_verdict
from generator.report import oncall
from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from generator.core.abjob import SideImage
    from generator.results.verdicts_json import EventDoc, VerdictsDoc

GOLDEN = ROOT / "tests" / "fixtures" / "summary"
RUN = "2026-03-06T14-00-00Z-benchmark-1006-1"
GOOD = "2026-03-05T14-00-00Z-benchmark-1005-1"
EARLIER = "2026-02-20T14-00-00Z-benchmark-991-1"
DS, QWEN = "deepseek-r1-fp8-tp8", "qwen3-5-397b-a17b-fp8-tp4"
FAMILY = "rocm/atom-dev"
OLD, NEW = "sha256:" + "0a1b2c3d4e5f" * 5 + "0a1b", "sha256:" + "5f4e3d2c1b0a" * 5 + "5f4e"
CTX = oncall.OncallContext(
    run=RUN,
    title="Benchmark #6",
    dashboard="https://example.github.io/sglang-ci/",
    images={DS: f"{FAMILY}@{NEW}", QWEN: f"{FAMILY}@{NEW}"},
)


def event(config: str, state: str, **extra: Any) -> EventDoc:
    data = {
        "id": f"ev-{config[:4]}{state[:4]}",
        "state": state,
        "config": config,
        "server": {
            "config": config,
            "fingerprint": "fp",
            "runner_label": "mi355",
            "image_family": FAMILY,
        },
        "first_bad_run": RUN,
        "last_good_run": GOOD,
        "runs": 1,
        "points": [{"isl": 1024, "osl": 1024, "concurrency": c} for c in (4, 8, 16, 32, 64)],
        "changes": {"output_throughput_per_gpu": {"change": -0.081, "low": -0.09, "high": -0.072}},
        "differences": {"image_digest": [OLD, NEW], "aiter_version": ["0.1.6", "0.1.7"]},
        "confirmed_by": None,
        **extra,
    }
    return cast("EventDoc", data)


def side(digest: str) -> SideImage:
    return {
        "image": f"{FAMILY}@{digest}",
        "image_requested": f"{FAMILY}:sglang-latest",
        "image_tag": "sglang-latest",
        "image_digest": digest,
        "run": None,
    }


def outcome(event_id: str, result: str, ratio: float, low: float, high: float) -> Outcome:
    judged = ab_verdict.Judgement(
        metric="output_throughput_per_gpu",
        verdict=result,
        ratio=ratio,
        low=low,
        high=high,
        level=0.95,
        repeats=3,
        pairs=15,
        threshold=0.95,
    )
    step = Step(
        step=0,
        candidate=None,
        a=side(OLD),
        b=side(NEW),
        verdict=result,
        judgements=(judged,),
        turns=30,
        expected=30,
    )
    return Outcome(
        event=event_id,
        job_id="j",
        config=DS,
        mode="parallel",
        repeats=3,
        result=result,
        steps=(step,),
    )


def rendered(
    result: str,
    events: list[EventDoc],
    outcomes: dict[str, Outcome] | None = None,
    issues: Sequence[Tracked] = (),
) -> str:
    verdicts = cast("VerdictsDoc", {"current": RUN, "outcome": result, "events": events})
    headline, lines = oncall.section(verdicts, CTX, outcomes=outcomes, issues=issues)
    return "\n".join([f"## {headline} · {CTX.title}", "", *lines]) + "\n"


def red() -> str:
    new = event(DS, "confirmed", new_confirmation=True, confirmed_by="ab")
    still = event(
        QWEN,
        "confirmed",
        new_confirmation=False,
        confirmed_by="re-run",
        runs=9,
        first_bad_run=EARLIER,
        last_good_run="2026-02-19T14-00-00Z-benchmark-990-1",
        points=[{"isl": 8192, "osl": 1024, "concurrency": 16}],
        changes={"median_ttft_ms": {"change": 0.35, "low": 0.31, "high": 0.39}},
        differences={"sglang_version": ["0.5.22", "0.5.23"]},
    )
    issues = [
        Tracked(
            event=new["id"],
            number=14,
            url="https://github.com/o/r/issues/14",
            open=True,
            action="opened",
        ),
        Tracked(
            event=still["id"],
            number=9,
            url="https://github.com/o/r/issues/9",
            open=True,
            action="commented",
        ),
    ]
    return rendered(
        "fail",
        [still, new],
        {new["id"]: outcome(new["id"], "confirmed", 0.919, 0.88, 0.95)},
        issues,
    )


def green() -> str:
    one = event(DS, "cleared")
    two = event(
        QWEN,
        "cleared",
        changes={"output_throughput_per_gpu": {"change": -0.061, "low": -0.08, "high": -0.042}},
    )
    found = {
        one["id"]: outcome(one["id"], "cleared", 0.996, 0.962, 1.031),
        two["id"]: outcome(two["id"], "cleared", 1.004, 0.97, 1.039),
    }
    return rendered("pass", [one, two], found)


def recovery() -> str:
    # The event is reported still, but its issue was closed this run (every point back);
    # an older event's issue closed too, its event no longer reported.
    back = event(
        DS, "confirmed", new_confirmation=False, confirmed_by="ab", runs=4, first_bad_run=GOOD
    )
    closed = [
        Tracked(
            event=back["id"],
            number=14,
            url="https://github.com/o/r/issues/14",
            open=False,
            action="closed",
        ),
        Tracked(
            event="ev-3f2a9c41d07b",
            number=9,
            url="https://github.com/o/r/issues/9",
            open=False,
            action="closed",
        ),
    ]
    return rendered("pass", [back], issues=closed)


@pytest.mark.parametrize("night", ["red", "green", "recovery"])
def test_the_summary_of_a_night_matches_its_golden_file(night: str) -> None:
    text = {"red": red, "green": green, "recovery": recovery}[night]()
    golden = GOLDEN / f"{night}.md"
    if os.environ.get("SGLANG_CI_UPDATE_GOLDEN") == "1":
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_the_headline_agrees_with_the_colour_and_each_line_reads_in_200_characters() -> None:
    lines = red().splitlines()
    assert lines[0] == (f"## red: 1 new regression ({DS} -8.1%), 1 still open · Benchmark #6")
    assert green().splitlines()[0] == (
        "## green: 2 suspected, confirmation cleared both · Benchmark #6"
    )
    assert recovery().splitlines()[0] == "## green: 2 recovered · Benchmark #6"
    first = lines[2]
    before_links = first.split(" · ")[0]
    assert len(before_links) < 200, before_links
    # what, how much, where, since when, what changed, what the A/B said
    assert re.fullmatch(
        rf"- \*\*new\*\* {DS} tok/s/GPU -8\.1% \[-9\.0%, -7\.2%\] at 1024x1024 c4\.\.c64 since "
        r"this run: digest 0a1b2c3d4e5f -> 5f4e3d2c1b0a, AITER 0\.1\.6 -> 0\.1\.7; A/B "
        r"0\.919 \[0\.880, 0\.950\] confirmed",
        before_links,
    )
    links = first.split(" · ")[1:]
    assert links == [
        "[issue #14](https://github.com/o/r/issues/14)",
        "[event](https://example.github.io/sglang-ci/event/ev-deepconf.html)",
        f"[last good vs first bad](https://example.github.io/sglang-ci/compare/{GOOD}--{RUN}.html)",
        f"`sglang-ci explain {DS} --image {FAMILY}@{NEW}`",
    ]
    # new events first, then the ones still open
    assert [line.split("**")[1] for line in lines[2:]] == ["new", "still open"]
