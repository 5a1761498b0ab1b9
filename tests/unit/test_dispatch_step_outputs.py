"""generator.dispatch.step_outputs: what the select step appends to $GITHUB_OUTPUT and
$GITHUB_STEP_SUMMARY, and `dispatch built` without a build plan."""

from __future__ import annotations

import pytest

from generator.dispatch.step_outputs import append, write_built
from generator.errors import SelectionError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_a_github_file_is_appended_to_only_when_its_variable_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "output"
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    append("GITHUB_OUTPUT", "lost=1\n")
    assert not target.exists()
    monkeypatch.setenv("GITHUB_OUTPUT", str(target))
    append("GITHUB_OUTPUT", "a=1\n")
    append("GITHUB_OUTPUT", "b=2\n")
    assert target.read_text(encoding="utf-8") == "a=1\nb=2\n"


def test_without_a_build_plan_the_selection_runs_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "matrix.json").write_text('{"include": [{"id": "c1"}]}', encoding="utf-8")
    (tmp_path / "jobs.json").write_text('{"include": []}', encoding="utf-8")
    (tmp_path / "build.json").write_text("\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "output"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    write_built(
        matrix_file=tmp_path / "matrix.json",
        jobs_file=tmp_path / "jobs.json",
        build_file=tmp_path / "build.json",
        digest="",
    )
    assert (tmp_path / "output").read_text(encoding="utf-8") == (
        'matrix={"include":[{"id":"c1"}]}\ncount=1\njobs={"include":[]}\njobs_count=0\nbuild=\n'
    )
    assert capsys.readouterr().out == "1 cases and 0 jobs run on their own images (nothing built)\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "not a matrix (no 'include' list)"),
        ('{"include": {}}', "not a matrix (no 'include' list)"),
        ("{", "not a matrix ("),
    ],
)
def test_a_file_that_is_no_matrix_is_bad_input_naming_it(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "matrix.json").write_text(text, encoding="utf-8")
    with pytest.raises(SelectionError) as info:
        write_built(
            matrix_file=tmp_path / "matrix.json",
            jobs_file=tmp_path / "matrix.json",
            build_file=tmp_path / "matrix.json",
            digest="",
        )
    assert str(info.value).startswith(f"{tmp_path / 'matrix.json'}: {message}")
