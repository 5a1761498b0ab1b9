"""An event's A/B on the regressions pages: each step's ratios B / A, the first bad image."""

from __future__ import annotations

from typing import TypedDict

from generator.confirm.outcome import MISSING, Outcome, judgement_text
from generator.report.markdown import SHORT
from generator.results.provenance import VERSION_NAMES, VERSIONS, short_digest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.core import ab_verdict
    from generator.core.abjob import SideImage


class AbPoint(TypedDict):
    point: str
    metric: str
    ratio: str
    interval: str
    verdict: str


class AbStep(TypedDict):
    what: str
    a: str
    b: str
    measured: str
    verdict: str
    judgements: list[str]
    points: list[AbPoint]


class AbResult(TypedDict):
    """An event's A/B as the regressions page shows it."""

    result: str
    missing: bool
    mode: str
    repeats: int
    steps: list[AbStep]
    first_bad: str | None


def _image(image: SideImage, outcome: Outcome) -> str:
    """An image of an A/B: its tag, short digest and the versions its records named."""
    digest = str(image.get("image_digest") or "")
    versions = outcome.versions.get(digest) or {}
    found = [f"{VERSION_NAMES[k]} {versions[k]}" for k in VERSIONS if versions.get(k)]
    tag = image.get("image_tag") or image.get("image_requested") or "-"
    return f"{tag} ({short_digest(digest)})" + (f", {', '.join(found)}" if found else "")


def _interval(j: ab_verdict.Judgement) -> str:
    return "-" if j.low is None or j.high is None else f"[{j.low:.3f}, {j.high:.3f}]"


def ab_result(outcome: Outcome | None, labels: Mapping[str, str]) -> AbResult | None:
    if outcome is None:
        return None
    steps: list[AbStep] = [
        {
            "what": "A/B" if s.candidate is None else f"bisection step {s.step}",
            "a": _image(s.a, outcome),
            "b": _image(s.b, outcome),
            "measured": f"{s.turns} of {s.expected} turns measured",
            "verdict": s.verdict,
            # Over the points; each point's own judgement is in its row below.
            "judgements": [judgement_text(j) for j in s.judgements if j.point is None],
            "points": [
                {
                    "point": labels.get(point, point),
                    "metric": SHORT.get(j.metric, j.metric),
                    "ratio": "-" if j.ratio is None else f"{j.ratio:.3f}",
                    "interval": _interval(j),
                    "verdict": j.verdict,
                }
                for point, judged in s.points
                for j in judged
            ],
        }
        for s in outcome.steps
    ]
    first_bad = None
    if outcome.first_bad is not None:
        first_bad = _image(outcome.first_bad, outcome)
    elif outcome.between is not None:
        first_bad = (
            f"after {_image(outcome.between[0], outcome)}, "
            f"at or before {_image(outcome.between[1], outcome)}"
        )
    return {
        "result": outcome.result,
        "missing": outcome.result == MISSING,
        "mode": outcome.mode or "-",
        "repeats": outcome.repeats,
        "steps": steps,
        "first_bad": first_bad,
    }
