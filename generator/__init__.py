"""sglang-ci: catalogs of SGLang benchmark and accuracy runs, rendered into GitHub Actions."""

from __future__ import annotations

__version__ = "0.1.0"
