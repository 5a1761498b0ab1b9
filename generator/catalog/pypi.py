"""The releases of a package on the package index, read through its JSON API
(`GET <index>/pypi/<name>/json`): how `sglang-ci lint` notices an SGLang newer than the
newest flag table, and how `make flag-tables` finds the releases to add.

`SGLANG_CI_PACKAGE_INDEX` names the index (default https://pypi.org); `off` asks none.
Nothing here fails a command: an index that cannot be reached answers None.
"""

from __future__ import annotations

import json
import re
import urllib.request
from urllib.error import URLError

from generator.core.versions import version_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

INDEX_ENV = "SGLANG_CI_PACKAGE_INDEX"
DEFAULT_INDEX = "https://pypi.org"
OFF = "off"
# A final or post release: what the flag tables cover (no pre-release, no dev build).
RELEASE_RE = re.compile(r"[0-9]+(\.[0-9]+)*(\.post[0-9]+)?")


def index_url(environ: Mapping[str, str]) -> str | None:
    """The index to ask, or None when `SGLANG_CI_PACKAGE_INDEX=off`."""
    value = environ.get(INDEX_ENV, "").strip() or DEFAULT_INDEX
    return None if value == OFF else value.rstrip("/")


def releases(package: str, index: str, timeout: float = 5.0) -> list[str] | None:
    """The package's final and post releases on the index that are not yanked, oldest
    first; None when the index cannot be read (offline, an error, an answer not JSON)."""
    request = urllib.request.Request(
        f"{index}/pypi/{package}/json",
        headers={"Accept": "application/json", "User-Agent": "sglang-ci"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            data = json.loads(answer.read())
        found = data["releases"]
        listed = [
            v
            for v, files in found.items()
            if RELEASE_RE.fullmatch(v)
            and isinstance(files, list)
            and files
            and not all(isinstance(f, dict) and f.get("yanked") for f in files)
        ]
    except (URLError, OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return sorted(listed, key=version_key)


def newer(package: str, than: str, index: str, timeout: float = 5.0) -> list[str] | None:
    """The package's releases on the index newer than `than`, oldest first (None: the
    index cannot be read)."""
    found = releases(package, index, timeout)
    if found is None:
        return None
    return [v for v in found if version_key(v) > version_key(than)]
