from __future__ import annotations

from generator.results.verdict import (
    IMPROVED,
    INSUFFICIENT,
    INVALID,
    MISSING,
    NEW,
    OK,
    REGRESSION,
    SEVERITY,
    SUSPECTED,
    TRADE_OFF,
    worst,
)


def test_the_worst_verdict_wins() -> None:
    assert worst([OK, SUSPECTED, IMPROVED]) == SUSPECTED
    assert worst([SUSPECTED, REGRESSION]) == REGRESSION
    assert worst([NEW, INSUFFICIENT, OK]) == INSUFFICIENT
    assert worst([]) == OK


def test_missing_data_is_more_severe_than_any_judgement() -> None:
    assert SEVERITY == (
        MISSING, INVALID, REGRESSION, SUSPECTED, TRADE_OFF, INSUFFICIENT, NEW, IMPROVED, OK,
    )  # fmt: skip
