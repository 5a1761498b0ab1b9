"""generator.core.console: what the launcher prints to the job log, tool output and
command-like text framed so the runner acts on no workflow command in it."""

from __future__ import annotations

import re

from generator.core import console

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pytest

FRAME = re.compile(r"::stop-commands::([0-9a-f]{32})\n(.*)\n::\1::\n", re.DOTALL)


def test_a_token_never_occurs_in_the_text_it_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    tokens = iter(["ab" * 16, "cd" * 16])
    monkeypatch.setattr("generator.core.console.secrets.token_hex", lambda _n: next(tokens))
    assert console.token_for("x " + "ab" * 16 + " y") == "cd" * 16


def test_framed_text_is_between_the_stop_and_its_token(capsys: pytest.CaptureFixture[str]) -> None:
    console.framed("::error::x\nline 2")
    out, err = capsys.readouterr()
    match = FRAME.fullmatch(out)
    assert match is not None, out
    assert (match[2], err) == ("::error::x\nline 2", "")
    console.framed("tail", stderr=True)
    out, err = capsys.readouterr()
    assert out == ""
    assert FRAME.fullmatch(err) is not None, err


def test_two_frames_get_two_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    console.framed("a")
    console.framed("a")
    first, second = FRAME.findall(capsys.readouterr().out)
    assert first[0] != second[0]


def test_plain_text_is_printed_as_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    console.say("server ready: 127.0.0.1:30000 :: ok")
    console.say("to stderr", stderr=True)
    assert capsys.readouterr() == ("server ready: 127.0.0.1:30000 :: ok\n", "to stderr\n")


def test_text_holding_a_command_line_is_framed(capsys: pytest.CaptureFixture[str]) -> None:
    for text in ("gpu 0\n  ::add-mask::x", "a\r::error::b", "name ##[group]x"):
        console.say(text)
        match = FRAME.fullmatch(capsys.readouterr().out)
        assert match is not None, text
        assert match[2] == text


def test_a_log_line_is_stamped_and_marked_as_the_launcher_s(
    capsys: pytest.CaptureFixture[str],
) -> None:
    console.log("starting the server")
    out = capsys.readouterr().out
    assert re.fullmatch(r"\[launcher \d\d:\d\d:\d\d\] starting the server\n", out), out


def test_a_closed_job_log_does_not_stop_the_launcher(monkeypatch: pytest.MonkeyPatch) -> None:
    def closed(*_args: object, **_kwargs: object) -> None:
        raise BrokenPipeError

    monkeypatch.setattr("builtins.print", closed)
    console.say("x")
    console.framed("x")
