"""generator.launch.server: one SGLang server's command and environment, the answers it is
read through (the served model, the acceptance length), and the decisions taken on them."""

from __future__ import annotations

import socket
from typing import cast

import pytest

from generator.core.exits import NotReady
from generator.launch import server as server_module
from generator.launch.knobs import read_knobs
from generator.launch.process import Supervisor
from generator.launch.server import ServerProcess, http_json, http_status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.core.contract import ServerEntry

ENTRY = cast(
    "ServerEntry",
    {
        "id": "qwen-tp4",
        "model_path": "Qwen/Qwen3",
        "server_args": ["--tp", "4", "--chat-template", "a b"],
        "env": {"SGLANG_X": "1", "QUOTED": "it's"},
    },
)


def make(tmp_path: Path, **environ: str) -> ServerProcess:
    knobs = read_knobs({"LOG_DIR": "logs", "SGLANG_PORT": "30005", **environ}, tmp_path, tmp_path)
    knobs.log_dir.mkdir()
    return ServerProcess(ENTRY, knobs, Supervisor(1.0))


def answers(monkeypatch: pytest.MonkeyPatch, by_path: dict[str, object]) -> list[str]:
    """Serve `by_path` to the server's JSON reads; the URLs read, in order."""
    asked: list[str] = []

    def read(url: str, *, timeout_s: float) -> object | None:
        del timeout_s
        asked.append(url)
        return by_path.get(url.removeprefix("http://127.0.0.1:30005"))

    monkeypatch.setattr(server_module, "http_json", read)
    return asked


def test_the_server_is_the_entry_s_command_on_the_port_its_log_emptied(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "qwen-tp4.server.log").write_text("old run\n", encoding="utf-8")
    knobs = read_knobs({"LOG_DIR": "logs", "SGLANG_PORT": "30005"}, tmp_path, tmp_path)
    server = ServerProcess(ENTRY, knobs, Supervisor(1.0))
    assert server.argv[:3] == ["python3", "-m", "sglang.launch_server"]
    assert server.argv[-4:] == ["--tp", "4", "--chat-template", "a b"]
    assert (server.base_url, server.model) == ("http://127.0.0.1:30005", "Qwen/Qwen3")
    assert server.env_added == {"SGLANG_X": "1", "QUOTED": "it's"}
    assert server.log_path.read_text(encoding="utf-8") == ""
    assert (server.starts, server.start_s, server.alive(), server.exit_status()) == (
        0,
        None,
        False,
        None,
    )


def test_the_command_is_printed_shell_quoted_after_its_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(tmp_path).print_command()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("] server environment additions and command:")
    assert lines[1:3] == ["SGLANG_X=1", "QUOTED='it'\"'\"'s'"]
    assert lines[3].endswith(" --tp 4 --chat-template 'a b'")


def test_a_port_that_already_answers_is_never_started_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "http_status", lambda *_a, **_k: 404)
    server = make(tmp_path)
    with pytest.raises(NotReady) as info:
        server.launch()
    assert str(info.value) == "port 30005 already answers HTTP before the server was started"
    assert (info.value.infrastructure, server.starts) == (True, 0)


def test_the_served_model_is_read_from_either_info_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = make(tmp_path)
    asked = answers(monkeypatch, {"/get_model_info": {"model_path": "Qwen/Qwen3"}})
    assert server._served_model() == "Qwen/Qwen3"
    assert [u.rsplit("/", 1)[1] for u in asked] == ["model_info", "get_model_info"]
    answers(monkeypatch, {"/model_info": {"model_path": 3}})
    assert server._served_model() is None


@pytest.mark.parametrize(
    ("info", "length"),
    [
        ({"internal_states": [{"avg_spec_accept_length": 2.75}]}, 2.75),
        ({"decode": [{"internal_states": [{"avg_spec_accept_length": 3}]}]}, 3.0),
        ({"internal_states": [{"avg_spec_accept_length": 0.5}]}, None),
        ({"internal_states": [{"avg_spec_accept_length": float("nan")}]}, None),
        ({"internal_states": []}, None),
        ({"decode": []}, None),
        ([1], None),
    ],
)
def test_the_acceptance_length_is_the_first_state_s_when_it_is_at_least_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, info: object, length: float | None
) -> None:
    server = make(tmp_path)
    answers(monkeypatch, {"/server_info": info})
    assert server.accept_length() == length


def test_older_servers_answer_the_acceptance_length_at_the_other_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = make(tmp_path)
    answers(monkeypatch, {"/get_server_info": {"internal_states": [{"avg_spec_accept_length": 2}]}})
    assert server.accept_length() == 2.0


@pytest.mark.parametrize(
    ("status", "warned"), [(200, False), (204, False), (500, True), (None, True)]
)
def test_a_failed_flush_is_only_a_warning(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    status: int | None,
    warned: bool,
) -> None:
    server = make(tmp_path)
    monkeypatch.setattr(server_module, "http_status", lambda *_a, **_k: status)
    server.flush()
    out = capsys.readouterr().out
    assert out.endswith(f"] warning: POST /flush_cache failed ({status}); continuing\n") == warned
    assert bool(out) == warned


def test_nothing_listening_answers_neither_json_nor_a_status() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/health"
    assert http_json(url, timeout_s=1.0) is None
    assert http_status(url, method="GET", timeout_s=1.0) is None
