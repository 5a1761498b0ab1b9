"""`results events`, `diff`, `thresholds` and `replay` (generator/report/history_queries.py):
`replay`'s lines and exit code, `thresholds` under a policy file; the answers themselves are
tested with eventlog, rundiff, thresholds and rejudge, the commands in tests/acceptance
(test_results_report, test_results_thresholds, test_results_replay)."""

from __future__ import annotations

import json

import pytest

from generator.report import history_queries
from generator.report.history_queries import print_replay, print_thresholds
from generator.verdicts.rejudge import Replayed
from tests.results_gen import Run, case_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SAME = Replayed(run="r1", same=True, differences=())
DIFFERS = Replayed(run="r2", same=False, differences=(
    "event ev-1: regression -> suspected", "point c=4: ok -> regression\n(x)"))  # fmt: skip


class Replay:
    """replay_history answering `answer` (the test sets it), each call's history and
    policy source kept."""

    def __init__(self) -> None:
        self.answer: list[Replayed] = []
        self.calls: list[tuple[Path, str]] = []

    def __call__(self, history: Path, _policy: object, source: str) -> list[Replayed]:
        self.calls.append((history, source))
        return list(self.answer)


@pytest.fixture
def replayed(monkeypatch: pytest.MonkeyPatch) -> Replay:
    replay = Replay()
    monkeypatch.setattr(history_queries, "replay_history", replay)
    return replay


def test_replay_says_each_run_same_or_what_differs_and_exits_1(
    tmp_path: Path, replayed: Replay, capsys: pytest.CaptureFixture[str]
) -> None:
    replayed.answer += [SAME, DIFFERS]
    code = print_replay(tmp_path, history=tmp_path / "h", policy_path=None, as_json=False)
    assert code == 1
    assert capsys.readouterr().out == (
        "r1: same\n"
        "r2: differs: event ev-1: regression -> suspected; point c=4: ok -> regression\\n(x)\n"
        "replayed 2 runs: 1 differ\n"
    )
    # no catalog under the root: the default policy
    assert replayed.calls == [(tmp_path / "h", "defaults")]


def test_replay_as_json_and_exit_0_when_every_run_is_the_same(
    tmp_path: Path, replayed: Replay, capsys: pytest.CaptureFixture[str]
) -> None:
    replayed.answer += [SAME, DIFFERS]
    assert print_replay(tmp_path, history=tmp_path, policy_path=None, as_json=True) == 1
    assert json.loads(capsys.readouterr().out) == [SAME.as_dict(), DIFFERS.as_dict()]
    replayed.answer.remove(DIFFERS)
    assert print_replay(tmp_path, history=tmp_path, policy_path=None, as_json=False) == 0
    assert capsys.readouterr().out == "r1: same\nreplayed 1 runs: 0 differ\n"


def test_thresholds_follow_the_policy_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for day in range(2):
        run = Run(day=day)
        write_run(tmp_path / "history", run, [case_record(run, score=0.95 - day / 100)])
    policy = tmp_path / "policy.yaml"
    policy.write_text("thresholds: {floor: 0.5, margin: 0.0, min_runs: 2}\n")
    code = print_thresholds(tmp_path, history=tmp_path / "history", policy_path=policy,
                            as_json=True)  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["floor"], data["margin"], data["min_runs"]) == (0.5, 0.0, 2)
    [case] = data["cases"]
    assert (case["case"], case["threshold"]["runs"]) == ("gsm8k-ds-fp8", 2)
    assert case["threshold"]["proposed"] == pytest.approx(0.9425 - 1.5 * 0.005)
