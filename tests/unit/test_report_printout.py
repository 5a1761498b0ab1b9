"""generator.report.printout: a results command's JSON or Markdown on stdout and in full in
--out, the Markdown cut to --max-bytes, and each warning printed once."""

from __future__ import annotations

import json

import pytest

from generator.report.printout import Output, Warnings, warn_problems
from generator.results.output import OutputRefused

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_json_goes_to_stdout_and_whole_to_the_out_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "verdicts.json"
    Output("results compare", as_json=True, out=out).emit({"a": 1}, ["ignored"])
    assert capsys.readouterr().out == '{\n  "a": 1\n}\n'
    assert json.loads(out.read_text(encoding="utf-8")) == {"a": 1}


def test_markdown_on_stdout_is_cut_and_names_the_file_with_the_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "summary.md"
    lines = [f"line {n} " + "x" * 100 for n in range(30)]
    Output("results summarize", out=out, max_bytes=1000).emit({}, lines)
    shown = capsys.readouterr().out
    assert shown.startswith("line 0 ")
    assert len(shown.encode()) <= 1000
    assert f"the full text is in `{out}`" in shown
    assert "line 29 " in out.read_text(encoding="utf-8")


def test_without_out_the_markdown_is_printed_whole_when_it_fits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Output("results events").emit({"events": []}, ["# Events", "none"])
    assert capsys.readouterr().out == "# Events\nnone\n"


def test_an_out_file_of_the_wrong_kind_is_refused_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(OutputRefused, match=r"a JSON output is written to a \.json file"):
        Output("results compare", as_json=True, out=tmp_path / "verdicts.md").check()
    Output("results compare", out=tmp_path / "verdicts.md").check()


def test_each_warning_is_printed_once(capsys: pytest.CaptureFixture[str]) -> None:
    warn = Warnings()
    warn(["a broken\nrecord", "another"])
    warn(["a broken\nrecord"])
    warn.one("another")
    warn_problems(["said twice", "said twice"])
    assert capsys.readouterr().err == (
        "warning: a broken\\nrecord\nwarning: another\nwarning: said twice\nwarning: said twice\n"
    )
