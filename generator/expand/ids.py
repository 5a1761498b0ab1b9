"""Ids that name files: a job's, a cell's, a case run's, bounded in length.

An id names the launcher's log and result files and the run's artifacts; NAME_MAX is 255
bytes and the launcher refuses ids over 200 characters (generator/core/contract.py). An
id longer than MAX_ID_CHARS (a job over many custom points, say) keeps its start and ends
in a hash of the whole, so two long ids stay apart and the same id comes out every time.
"""

from __future__ import annotations

import hashlib

MAX_ID_CHARS = 120
_HASH_CHARS = 12


def bounded(text: str) -> str:
    """`text`, or its first characters and a hash of all of it when it is too long."""
    if len(text) <= MAX_ID_CHARS:
        return text
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:_HASH_CHARS]
    return f"{text[: MAX_ID_CHARS - _HASH_CHARS - 1].rstrip('-.')}-{digest}"
