"""generator.catalog.pypi and `sglang-ci lint`'s L800: the package index asked for SGLang's
releases, here a stand-in index on loopback (the tests reach no network)."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from generator.catalog.pypi import OFF, index_url, newer, releases
from generator.catalog.upstream import SGLANG, index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.conftest import Invoke

NEWEST = index(SGLANG).releases[-1]


class _Index(BaseHTTPRequestHandler):
    """`GET /pypi/<name>/json` as PyPI's JSON API answers it: `releases` maps each version
    to its files, each file with its `yanked` flag."""

    releases: ClassVar[dict[str, list[dict[str, object]]]] = {}
    asked: ClassVar[list[str]] = []

    def log_message(self, _format: str, *args: object) -> None:  # quiet
        return

    def do_GET(self) -> None:
        self.asked.append(self.path)
        if self.path != "/pypi/sglang/json":
            self.send_response(404)
            self.end_headers()
            return
        body = json.dumps({"info": {"name": "sglang"}, "releases": self.releases}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def wheel(*, yanked: bool = False) -> list[dict[str, object]]:
    return [{"filename": "sglang.whl", "yanked": yanked}]


@contextmanager
def stand_in_index(listed: dict[str, list[dict[str, object]]]) -> Iterator[str]:
    _Index.releases = listed
    _Index.asked = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Index)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


LISTED = {
    "0.5.9": wheel(),
    NEWEST: wheel(),
    "0.5.10": wheel(),
    "0.9.1": wheel(yanked=True),
    "0.9.0rc1": wheel(),
    "0.9.0.dev3": wheel(),
    "0.8.0": [],
    "0.6.0": wheel(),
    "0.6.0.post1": wheel(),
}


def test_the_releases_are_final_or_post_not_yanked_oldest_first() -> None:
    with stand_in_index(LISTED) as where:
        assert releases("sglang", where) == ["0.5.9", "0.5.10", NEWEST, "0.6.0", "0.6.0.post1"]
        assert newer("sglang", NEWEST, where) == ["0.6.0", "0.6.0.post1"]


def test_an_index_that_cannot_be_read_answers_none() -> None:
    with stand_in_index(LISTED) as where:
        assert releases("vllm", where) is None  # 404
    assert releases("sglang", where, timeout=2) is None  # nobody listens any more


def test_the_index_is_named_by_the_environment_and_off_asks_none() -> None:
    assert index_url({}) == "https://pypi.org"
    assert index_url({"SGLANG_CI_PACKAGE_INDEX": "http://127.0.0.1:9/"}) == "http://127.0.0.1:9"
    assert index_url({"SGLANG_CI_PACKAGE_INDEX": OFF}) is None


def test_lint_warns_when_the_index_has_a_newer_sglang_than_the_tables(cli: Invoke) -> None:
    with stand_in_index(LISTED) as where:
        result = cli("lint", env={"SGLANG_CI_PACKAGE_INDEX": where})
    assert result.exit_code == 0
    assert [line for line in result.stdout.splitlines() if " L800 " in line] == [
        (
            f"generator/catalog/flagtables/index.json:3: warning L800 flag-tables-current: "
            f"SGLang 0.6.0, 0.6.0.post1 are on {where}, newer than the newest flag table "
            f"({NEWEST}): run make flag-tables, then make workflows"
        )
    ]
    quiet = cli("lint")
    warnings = int(quiet.stdout.rsplit(", ", 2)[1].split()[0])
    assert result.stdout.splitlines()[-1] == quiet.stdout.splitlines()[-1].replace(
        f"{warnings} warnings", f"{warnings + 1} warnings"
    )
    assert _Index.asked == ["/pypi/sglang/json"]


@pytest.mark.parametrize("listed", [{NEWEST: wheel()}, None], ids=["current", "unreachable"])
def test_lint_adds_nothing_when_the_tables_are_current_or_the_index_is_out_of_reach(
    cli: Invoke, listed: dict[str, list[dict[str, object]]] | None
) -> None:
    quiet = cli("lint")  # SGLANG_CI_PACKAGE_INDEX=off, as every test runs
    if listed is None:
        with stand_in_index({}) as where:
            pass  # stopped: nothing answers there now
    else:
        with stand_in_index(listed) as where:
            result = cli("lint", env={"SGLANG_CI_PACKAGE_INDEX": where})
            assert _Index.asked == ["/pypi/sglang/json"]
    if listed is None:
        result = cli("lint", env={"SGLANG_CI_PACKAGE_INDEX": where})
    assert (result.exit_code, result.stdout) == (quiet.exit_code, quiet.stdout)
    assert "L800" not in result.stdout
