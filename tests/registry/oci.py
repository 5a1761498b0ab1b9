"""Minimal OCI image layouts written by hand: a config blob, one gzipped layer, a manifest
per image, and optionally a two-platform index, each named by `org.opencontainers.image.ref.name`
in index.json (what `skopeo copy oci:<dir>:<tag>` reads)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from dataclasses import dataclass
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

INDEX = "application/vnd.oci.image.index.v1+json"
MANIFEST = "application/vnd.oci.image.manifest.v1+json"
CONFIG = "application/vnd.oci.image.config.v1+json"
LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
REF_NAME = "org.opencontainers.image.ref.name"


def digest_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _json(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Descriptor:
    media_type: str
    digest: str
    size: int

    def as_json(self, **extra: Any) -> dict[str, Any]:
        return {"mediaType": self.media_type, "digest": self.digest, "size": self.size, **extra}


class Layout:
    """An OCI image layout directory being filled: blobs under blobs/sha256, refs in index.json."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._refs: list[dict[str, Any]] = []
        (root / "blobs" / "sha256").mkdir(parents=True)
        (root / "oci-layout").write_text('{"imageLayoutVersion":"1.0.0"}')
        self._layer, self._diff_id = self._make_layer()

    def _blob(self, media_type: str, data: bytes) -> Descriptor:
        digest = digest_of(data)
        (self.root / "blobs" / "sha256" / digest.removeprefix("sha256:")).write_bytes(data)
        return Descriptor(media_type, digest, len(data))

    def _make_layer(self) -> tuple[Descriptor, str]:
        content = b"sglang-ci test image\n"
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
            info = tarfile.TarInfo("hello.txt")
            info.size, info.mtime, info.mode = len(content), 0, 0o644
            tar.addfile(info, io.BytesIO(content))
        tar_bytes = raw.getvalue()
        return self._blob(LAYER, gzip.compress(tar_bytes, mtime=0)), digest_of(tar_bytes)

    def image(
        self, label: str, arch: str = "amd64", labels: dict[str, str] | None = None
    ) -> Descriptor:
        """One single-platform image; `label` makes its config (so its digest) unique;
        `labels` are more labels of its config."""
        config = self._blob(
            CONFIG,
            _json(
                {
                    "architecture": arch,
                    "os": "linux",
                    "config": {"Labels": {"test.label": label, **(labels or {})}},
                    "rootfs": {"type": "layers", "diff_ids": [self._diff_id]},
                }
            ),
        )
        manifest = {
            "schemaVersion": 2,
            "mediaType": MANIFEST,
            "config": config.as_json(),
            "layers": [self._layer.as_json()],
        }
        return self._blob(MANIFEST, _json(manifest))

    def multi_arch(self, label: str, labels: dict[str, str] | None = None) -> Descriptor:
        """An index over a linux/amd64 and a linux/arm64 image (`labels` on the first)."""
        manifests = [
            self.image(f"{label}-{arch}", arch, labels if arch == "amd64" else None).as_json(
                platform={"architecture": arch, "os": "linux"}
            )
            for arch in ("amd64", "arm64")
        ]
        index = {"schemaVersion": 2, "mediaType": INDEX, "manifests": manifests}
        return self._blob(INDEX, _json(index))

    def tag(self, descriptor: Descriptor, ref: str) -> None:
        self._refs.append(descriptor.as_json(annotations={REF_NAME: ref}))
        index = {"schemaVersion": 2, "mediaType": INDEX, "manifests": self._refs}
        (self.root / "index.json").write_bytes(_json(index))
