"""How the registry client speaks HTTP: plain HTTP to loopback registries (as Docker
does), HTTPS to every other; retries when a registry is busy or unreachable; the anonymous
bearer token a registry's 401 challenge points at (Docker Hub's), kept per repository."""

from __future__ import annotations

import ipaddress
import json
import re
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from urllib.error import HTTPError, URLError

from generator.imageref.reference import ImageError, Reference

TYPE_CHECKING = False
if TYPE_CHECKING:
    from email.message import Message

_TRANSIENT = frozenset({429, 500, 502, 503, 504})
_CHALLENGE_PARAM = re.compile(r'(\w+)="([^"]*)"')


class RegistryError(ImageError):
    """A registry request failed; the message says which and how (exit 2)."""


class RegistryUnreachable(RegistryError):
    """No answer from the registry at all: offline, or a name that does not resolve."""


@dataclass(frozen=True)
class _Response:
    status: int
    headers: Message
    body: bytes


def _is_loopback(registry: str) -> bool:
    host = urllib.parse.urlsplit(f"//{registry}").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def base_url(registry: str) -> str:
    return f"{'http' if _is_loopback(registry) else 'https'}://{registry}"


class Transport:
    """Anonymous requests to registries; keeps the bearer token of each repository it read.

    `timeout` bounds every request (seconds); a request that fails to connect, or gets 429
    or a 5xx, is tried `attempts` times in all, `backoff` seconds apart (doubling).
    `page_size` asks for tag lists in pages of that many (`?n=`); None leaves it to the
    registry."""

    def __init__(
        self,
        *,
        timeout: float = 20.0,
        attempts: int = 3,
        backoff: float = 1.0,
        page_size: int | None = None,
    ) -> None:
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.backoff = backoff
        self.page_size = page_size
        self._tokens: dict[tuple[str, str], str] = {}

    @staticmethod
    def _expect_ok(response: _Response, what: str) -> None:
        if response.status == 401:
            msg = f"{what}: access denied (no such repository, or not public)"
            raise RegistryError(msg)
        if response.status != 200:
            msg = f"{what}: HTTP {response.status}"
            raise RegistryError(msg)

    def _request(self, ref: Reference, method: str, url: str, accept: str) -> _Response:
        """One request, with the repository's bearer token if it has one; a 401 gets a new
        token (the first, or one that replaces an expired one) and the request once more."""
        key = (ref.registry, ref.repository)
        headers = {"Accept": accept, "User-Agent": "sglang-ci"}
        if key in self._tokens:
            headers["Authorization"] = f"Bearer {self._tokens[key]}"
        response = self._send(method, url, headers, ref.registry)
        if response.status != 401:
            return response
        self._tokens[key] = self._token(ref, response.headers.get("WWW-Authenticate", ""))
        headers["Authorization"] = f"Bearer {self._tokens[key]}"
        return self._send(method, url, headers, ref.registry)

    def _token(self, ref: Reference, challenge: str) -> str:
        scheme, _, params_text = challenge.strip().partition(" ")
        if scheme.lower() != "bearer":
            msg = (
                f"{ref.registry} asks for credentials ({scheme or 'no challenge'}); "
                "only anonymous pulls are supported"
            )
            raise RegistryError(msg)
        params = dict(_CHALLENGE_PARAM.findall(params_text))
        realm = params.pop("realm", "")
        if urllib.parse.urlsplit(realm).scheme not in ("http", "https"):
            msg = f"{ref.registry} names no token realm in its challenge"
            raise RegistryError(msg)
        params.setdefault("scope", f"repository:{ref.repository}:pull")
        query = urllib.parse.urlencode(
            {k: v for k, v in params.items() if k in ("service", "scope")}
        )
        host = urllib.parse.urlsplit(realm).netloc
        sep = "&" if urllib.parse.urlsplit(realm).query else "?"
        response = self._send("GET", f"{realm}{sep}{query}", {"User-Agent": "sglang-ci"}, host)
        if response.status != 200:
            msg = f"token service {host}: HTTP {response.status}"
            raise RegistryError(msg)
        try:
            answer = json.loads(response.body)
            token = answer.get("token") or answer.get("access_token")
        except (ValueError, AttributeError):
            token = None
        if not isinstance(token, str) or not token:
            msg = f"token service {host} gave no token"
            raise RegistryError(msg)
        return token

    def _send(self, method: str, url: str, headers: dict[str, str], host: str) -> _Response:
        """The response to one request (an HTTP error status is a response too), retried
        when the connection fails or the server is busy."""
        delay = self.backoff
        for attempt in range(1, self.attempts + 1):
            request = urllib.request.Request(url, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                    response = _Response(answer.status, answer.headers, answer.read())
            except HTTPError as error:
                with error:
                    response = _Response(error.code, error.headers, error.read())
            except (URLError, OSError) as error:
                if attempt == self.attempts:
                    reason = getattr(error, "reason", error)
                    msg = f"registry unreachable: {host} ({reason})"
                    raise RegistryUnreachable(msg) from error
                time.sleep(delay)
                delay *= 2
                continue
            if response.status not in _TRANSIENT or attempt == self.attempts:
                return response
            time.sleep(delay)
            delay *= 2
        msg = "unreachable"
        raise AssertionError(msg)  # the loop returns or raises
