"""An order on version texts (image tags, SGLang releases), for the select step's nightly
pick and the launcher's choice of a flag's spelling for the SGLang its image carries; the
commit a version names."""

from __future__ import annotations

import re

# Words that mark a pre-release inside a version, lowest first (`v0.5.9rc1` < `v0.5.9`).
_PRE_RELEASE = {"dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "c": 3, "rc": 3, "pre": 3}
_PRE_RELEASE |= {"preview": 3}


def version_key(version: str) -> tuple[tuple[int, int, str], ...]:
    """An order on version texts: runs of digits compare as numbers (`v0.5.10` > `v0.5.9`),
    a pre-release word (dev, a, alpha, b, beta, c, rc, pre, preview) sorts below the end of
    the version (`v0.5.9rc1` < `v0.5.9`), any other word above it (`v0.5.8.post1` >
    `v0.5.8`) and below a number; a `v` in front of a digit is ignored."""
    text = re.sub(r"^[vV](?=[0-9])", "", version)
    key: list[tuple[int, int, str]] = []
    for token in re.findall(r"[0-9]+|[A-Za-z]+", text):
        word = token.lower()
        if token.isdigit():
            key.append((3, int(token), ""))
        elif word in _PRE_RELEASE:
            key.append((0, _PRE_RELEASE[word], ""))
        else:
            key.append((2, 0, word))
    key.append((1, 0, ""))  # the end of the version
    return tuple(key)


def version_commit(version: str | None) -> str | None:
    """The git commit a package version carries (`0.5.7.dev12+g1a2b3c4`: setuptools-scm's
    `+g<hash>`), else None."""
    match = re.search(r"\+g([0-9a-f]{7,40})", version or "")
    return match[1] if match else None
