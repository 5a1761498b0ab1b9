"""generator/verdicts/ab.py: the night's A/B outcomes as the verdicts take them."""

from __future__ import annotations

import json

import pytest

from generator.results.record import ResultsError
from generator.verdicts.ab import load_outcomes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_each_event_takes_its_result(tmp_path: Path) -> None:
    outcomes = [{"event": "ev-1", "result": "confirmed"}, {"event": "ev-2", "result": "cleared"}]
    (tmp_path / "ab.json").write_text(json.dumps(outcomes))
    assert load_outcomes(tmp_path / "ab.json") == {"ev-1": "confirmed", "ev-2": "cleared"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[", "cannot read the A/B outcomes"),
        ('{"event": "ev-1"}', "not A/B outcomes"),
        ('[{"result": "confirmed"}]', "not A/B outcomes"),
    ],
)
def test_what_is_not_outcomes_is_refused(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "ab.json").write_text(text)
    with pytest.raises(ResultsError, match=message):
        load_outcomes(tmp_path / "ab.json")
