"""The registry HTTP API v2, read anonymously with the standard library: a repository's
tags (following `Link: <...>; rel="next"` pages), the digest a tag points at, and the labels
of an image (generator/images/transport.py speaks the HTTP)."""

from __future__ import annotations

import hashlib
import json
import re
import urllib.parse
from typing import Any, Protocol, runtime_checkable

from generator.imageref.reference import DIGEST_RE, Reference
from generator.images.transport import RegistryError, Transport, base_url

# A multi-arch tag is an index (a manifest list); accepting it makes the registry report
# the index's digest rather than pick one platform's manifest.
MANIFEST_TYPES = (
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.docker.distribution.manifest.v2+json",
)
_ACCEPT = ", ".join(MANIFEST_TYPES)
_NEXT_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="?next"?')
_MAX_PAGES = 10_000


class Registry(Protocol):
    """What resolution asks of a registry."""

    def tags(self, ref: Reference) -> list[str]: ...

    def digest(self, ref: Reference, tag: str) -> str: ...


@runtime_checkable
class LabelReader(Protocol):
    """A registry that also reads an image's labels (the select step's SGLang release)."""

    def labels(self, ref: Reference, digest: str) -> dict[str, str]: ...


class RegistryClient(Transport):
    """Anonymous reads from registries (Transport says how they are sent)."""

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
        response = self._request(ref, "HEAD", url, _ACCEPT)
        if response.status == 404:
            msg = f"tag '{tag}' not found in {where}"
            raise RegistryError(msg)
        self._expect_ok(response, f"manifest of {where}:{tag}")
        digest = response.headers.get("Docker-Content-Digest")
        if digest is None:  # the header is a SHOULD of the API: hash the manifest itself
            response = self._request(ref, "GET", url, _ACCEPT)
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
        manifest = self._json(ref, f"manifests/{digest}", _ACCEPT, where)
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
            manifest = self._json(ref, f"manifests/{chosen['digest']}", _ACCEPT, where)
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
