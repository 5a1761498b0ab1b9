"""A loopback front for the test registry that adds what distribution 2.8 does not do:
the bearer token flow (401 with `WWW-Authenticate: Bearer realm=...,service=...,scope=...`,
an anonymous token from the realm) and tag lists in pages (`?n=`, `&last=`, and a
`Link: <...>; rel="next"` header, as the registry API describes; distribution 2.8 lists
every tag at once). Everything else is forwarded to the registry as it is."""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import cast
from urllib.error import HTTPError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

SERVICE = "test-registry"
_ROUTE = re.compile(r"/v2/(?P<name>.+)/(?P<kind>tags/list|manifests/[^/]+|blobs/[^/]+)")
_FORWARDED = ("Content-Type", "Docker-Content-Digest", "Link")


@dataclass
class Behaviour:
    """What the front does; tests change it and put it back."""

    strip_digest: bool = False  # drop Docker-Content-Digest from manifest answers
    busy: int = 0  # answer this many registry requests with 503 first
    challenge: str | None = None  # a WWW-Authenticate to send instead of the Bearer one
    token: str = "token-1"  # the one token the realm gives and the front accepts
    log: list[str] = field(default_factory=list)  # "METHOD path?query" of each request


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    backend: str
    behaviour: Behaviour


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, _format: str, *args: object) -> None:  # quiet
        return

    def do_GET(self) -> None:
        self._handle(body=True)

    def do_HEAD(self) -> None:
        self._handle(body=False)

    def _reply(self, status: int, headers: dict[str, str], data: bytes, body: bool) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _handle(self, body: bool) -> None:
        behaviour = self.server.behaviour
        behaviour.log.append(f"{self.command} {self.path}")
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/token":
            ok = query.get("service") == SERVICE and query.get("scope", "").endswith(":pull")
            answer = json.dumps({"token": behaviour.token} if ok else {}).encode()
            status = 200 if ok else 400
            return self._reply(status, {"Content-Type": "application/json"}, answer, body)
        route = _ROUTE.fullmatch(url.path)
        if route is None:
            return self._reply(404, {}, b"", body)
        if self.headers.get("Authorization") != f"Bearer {behaviour.token}":
            host, port = cast("tuple[str, int]", self.server.server_address)
            challenge = behaviour.challenge or (
                f'Bearer realm="http://{host}:{port}/token",service="{SERVICE}",'
                f'scope="repository:{route["name"]}:pull"'
            )
            return self._reply(401, {"WWW-Authenticate": challenge}, b"{}", body)
        if behaviour.busy > 0:
            behaviour.busy -= 1
            return self._reply(503, {}, b"", body)
        if route["kind"] == "tags/list" and "n" in query:
            return self._page(route["name"], int(query["n"]), query.get("last"), body)
        accept = self.headers.get("Accept", "")
        status, headers, data = self._forward(self.command, url.path, accept)
        if behaviour.strip_digest:
            headers.pop("Docker-Content-Digest", None)
        return self._reply(status, headers, data, body)

    def _forward(self, method: str, path: str, accept: str) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(
            self.server.backend + path, method=method, headers={"Accept": accept}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                status, headers, data = answer.status, answer.headers, answer.read()
        except HTTPError as error:
            with error:
                status, headers, data = error.code, error.headers, error.read()
        kept = {key: headers[key] for key in _FORWARDED if headers.get(key)}
        return status, kept, data

    def _page(self, name: str, n: int, last: str | None, body: bool) -> None:
        status, headers, data = self._forward("GET", f"/v2/{name}/tags/list", "")
        if status != 200:
            return self._reply(status, headers, data, body)
        tags = sorted(json.loads(data)["tags"])
        after = [t for t in tags if last is None or t > last]
        page = after[:n]
        headers = {"Content-Type": "application/json"}
        if len(after) > n:
            link = f"/v2/{name}/tags/list?{urllib.parse.urlencode({'n': n, 'last': page[-1]})}"
            headers["Link"] = f'<{link}>; rel="next"'
        return self._reply(200, headers, json.dumps({"name": name, "tags": page}).encode(), body)


@dataclass(frozen=True)
class Front:
    host: str
    behaviour: Behaviour


@contextmanager
def running_front(backend_host: str) -> Iterator[Front]:
    """A front for the registry at `backend_host`, on its own loopback port."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.backend = f"http://{backend_host}"
    server.behaviour = Behaviour()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        host, port = cast("tuple[str, int]", server.server_address)
        yield Front(host=f"{host}:{port}", behaviour=server.behaviour)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
