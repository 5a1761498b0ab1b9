"""generator.launch.process: how an exit is described, a stop signal held while a file is
written, which processes a stop is about, and a client run to its exit code."""

from __future__ import annotations

import signal
from types import SimpleNamespace
from typing import cast

import pytest

from generator.launch.proc_table import Proc
from generator.launch.process import Cancelled, Child, Supervisor, describe_exit

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from pathlib import Path


def test_an_exit_is_its_status_or_the_signal_that_ended_it() -> None:
    assert describe_exit(0) == "status 0"
    assert describe_exit(3) == "status 3"
    assert describe_exit(-signal.SIGKILL) == "signal SIGKILL"
    assert describe_exit(-200) == "signal 200"


def test_a_cancel_carries_its_signal() -> None:
    cancel = Cancelled(signal.SIGTERM)
    assert (str(cancel), cancel.signum) == ("SIGTERM", signal.SIGTERM)
    assert not isinstance(cancel, Exception)


def test_a_signal_outside_a_shield_cancels_at_once_and_a_second_is_ignored() -> None:
    supervisor = Supervisor(1.0)
    with pytest.raises(Cancelled, match=r"^SIGINT$"):
        supervisor._on_signal(signal.SIGINT, None)
    supervisor._on_signal(signal.SIGTERM, None)


def test_a_signal_inside_a_shield_cancels_when_the_outermost_shield_ends() -> None:
    supervisor = Supervisor(1.0)
    done = []

    def shielded_twice() -> None:
        with supervisor.shielded():
            with supervisor.shielded():
                supervisor._on_signal(signal.SIGHUP, None)
                done.append("inner")
            done.append("outer")

    with pytest.raises(Cancelled) as info:
        shielded_twice()
    assert (done, info.value.signum) == (["inner", "outer"], signal.SIGHUP)
    with supervisor.shielded():
        pass  # the owed cancel was paid once


def child(pid: int) -> Child:
    return Child("client", cast("subprocess.Popen[bytes]", SimpleNamespace(pid=pid)))


# The launcher is 100; 10 leads a group whose 11 started 12 in a session of its own (12's
# child 13 is a zombie); 30 is an orphan the launcher adopted; 40 is in 10's group but
# outside the launcher's tree; 50 is another child.
TABLE = {
    100: Proc(100, 1, 100, zombie=False),
    10: Proc(10, 100, 10, zombie=False),
    11: Proc(11, 10, 10, zombie=False),
    12: Proc(12, 11, 12, zombie=False),
    13: Proc(13, 12, 13, zombie=True),
    30: Proc(30, 100, 30, zombie=False),
    40: Proc(40, 1, 10, zombie=False),
    50: Proc(50, 100, 50, zombie=False),
}
MINE = {10, 11, 12, 13, 30, 50}


def targets(children: list[Child], *, strays: bool = False, everything: bool = False) -> set[int]:
    supervisor = Supervisor(1.0)
    supervisor._me = 100
    supervisor._children = [child(10), child(50)]
    return supervisor._targets(TABLE, MINE, children, strays=strays, everything=everything)


def test_a_stop_is_about_the_child_s_tree_and_group_within_the_launcher_s_own() -> None:
    assert targets([child(10)]) == {10, 11, 12}


def test_a_stop_with_strays_adds_the_orphans_the_launcher_adopted() -> None:
    assert targets([child(10)], strays=True) == {10, 11, 12, 30}


def test_the_final_stop_is_about_every_running_descendant() -> None:
    assert targets([], everything=True) == {10, 11, 12, 30, 50}


def test_a_client_runs_to_its_exit_code_with_its_output_appended(tmp_path: Path) -> None:
    output = tmp_path / "client.log"
    output.write_text("before\n", encoding="utf-8")
    supervisor = Supervisor(1.0)
    code = supervisor.run("client", ["sh", "-c", "echo out; echo err >&2; exit 3"], output=output)
    assert code == 3
    assert output.read_text(encoding="utf-8") == "before\nout\nerr\n"
    assert supervisor._children == []
