"""The registry HTTP API v2, read anonymously with the standard library: a repository's
tags (following `Link: <...>; rel="next"` pages) and the digest a tag points at. A
registry that answers 401 with a Bearer challenge gets an anonymous token from its realm
(Docker Hub does); one without auth just answers. Loopback registries are spoken to over
plain HTTP, as Docker does; every other one over HTTPS."""

from __future__ import annotations

import hashlib
import ipaddress
import json
import re
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable
from urllib.error import HTTPError, URLError

from generator.imageref.reference import DIGEST_RE, ImageError, Reference

TYPE_CHECKING = False
if TYPE_CHECKING:
    from email.message import Message

# A multi-arch tag is an index (a manifest list); accepting it makes the registry report
# the index's digest rather than pick one platform's manifest.
MANIFEST_TYPES = (
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.docker.distribution.manifest.v2+json",
)
_TRANSIENT = frozenset({429, 500, 502, 503, 504})
_CHALLENGE_PARAM = re.compile(r'(\w+)="([^"]*)"')
_NEXT_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="?next"?')
_MAX_PAGES = 10_000


class RegistryError(ImageError):
    """A registry request failed; the message says which and how (exit 2)."""


class RegistryUnreachable(RegistryError):
    """No answer from the registry at all: offline, or a name that does not resolve."""


class Registry(Protocol):
    """What resolution asks of a registry."""

    def tags(self, ref: Reference) -> list[str]: ...

    def digest(self, ref: Reference, tag: str) -> str: ...


@runtime_checkable
class LabelReader(Protocol):
    """A registry that also reads an image's labels (the select step's SGLang release)."""

    def labels(self, ref: Reference, digest: str) -> dict[str, str]: ...


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


class RegistryClient:
    """Anonymous reads from registries; keeps the bearer token of each repository it read.

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

    def tags(self, ref: Reference) -> list[str]:
        where = f"{ref.registry}/{ref.repository}"
        url = f"{base_url(ref.registry)}/v2/{ref.repository}/tags/list"
        if self.page_size is not None:
            url += f"?n={self.page_size}"
        tags: list[str] = []
        seen: set[str] = set()
        while url not in seen and len(seen) < _MAX_PAGES:
            seen.add(url)
            response = self._request(ref, "GET", url, "application/json")
            if response.status == 404:
                msg = f"repository not found: {where}"
                raise RegistryError(msg)
            self._expect_ok(response, f"tag list of {where}")
            try:
                page = json.loads(response.body)
                names = page.get("tags") or []
            except (ValueError, AttributeError):
                msg = f"tag list of {where} is not JSON"
                raise RegistryError(msg) from None
            if not isinstance(names, list) or not all(isinstance(t, str) for t in names):
                msg = f"tag list of {where} is not a list of strings"
                raise RegistryError(msg)
            tags.extend(names)
            link = _NEXT_LINK.search(response.headers.get("Link", ""))
            if link is None:
                return tags
            url = urllib.parse.urljoin(url, link[1])
        msg = f"tag list of {where} pages without end"
        raise RegistryError(msg)

    def digest(self, ref: Reference, tag: str) -> str:
        where = f"{ref.registry}/{ref.repository}"
        url = f"{base_url(ref.registry)}/v2/{ref.repository}/manifests/{tag}"
        accept = ", ".join(MANIFEST_TYPES)
        response = self._request(ref, "HEAD", url, accept)
        if response.status == 404:
            msg = f"tag '{tag}' not found in {where}"
            raise RegistryError(msg)
        self._expect_ok(response, f"manifest of {where}:{tag}")
        digest = response.headers.get("Docker-Content-Digest")
        if digest is None:  # the header is a SHOULD of the API: hash the manifest itself
            response = self._request(ref, "GET", url, accept)
            self._expect_ok(response, f"manifest of {where}:{tag}")
            digest = "sha256:" + hashlib.sha256(response.body).hexdigest()
        if not DIGEST_RE.fullmatch(digest):
            msg = f"{where}:{tag} has digest '{digest}', not a sha256 digest"
            raise RegistryError(msg)
        return digest

    def labels(self, ref: Reference, digest: str) -> dict[str, str]:
        """The labels of the image `digest` names (its config's `config.Labels`); of an
        index, those of its linux/amd64 image (the runners' platform)."""
        where = f"{ref.registry}/{ref.repository}@{digest}"
        manifest = self._json(ref, f"manifests/{digest}", ", ".join(MANIFEST_TYPES), where)
        if isinstance(manifest.get("manifests"), list):
            chosen = next(
                (
                    m
                    for m in manifest["manifests"]
                    if isinstance(m, dict)
                    and isinstance(m.get("platform"), dict)
                    and (m["platform"].get("os"), m["platform"].get("architecture"))
                    == ("linux", "amd64")
                ),
                None,
            )
            if chosen is None or not DIGEST_RE.fullmatch(str(chosen.get("digest"))):
                msg = f"{where}: the index has no linux/amd64 image"
                raise RegistryError(msg)
            manifest = self._json(
                ref, f"manifests/{chosen['digest']}", ", ".join(MANIFEST_TYPES), where
            )
        config = manifest.get("config")
        blob = config.get("digest") if isinstance(config, dict) else None
        if not isinstance(blob, str) or not DIGEST_RE.fullmatch(blob):
            msg = f"{where}: the manifest names no image config"
            raise RegistryError(msg)
        image = self._json(ref, f"blobs/{blob}", "application/json", where)
        found = (image.get("config") or {}).get("Labels") or {}
        if not isinstance(found, dict):
            msg = f"{where}: the image config's labels are not a mapping"
            raise RegistryError(msg)
        return {str(k): str(v) for k, v in found.items()}

    def _json(self, ref: Reference, path: str, accept: str, where: str) -> dict[str, Any]:
        url = f"{base_url(ref.registry)}/v2/{ref.repository}/{path}"
        response = self._request(ref, "GET", url, accept)
        kind = path.partition("/")[0].rstrip("s")  # manifest, blob
        self._expect_ok(response, f"{kind} of {where}")
        try:
            data = json.loads(response.body)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            msg = f"{where}: the {kind} is not a JSON object"
            raise RegistryError(msg)
        return data

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
