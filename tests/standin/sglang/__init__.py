"""Stand-in for the `sglang` package: just enough of its CLI surface for launcher tests.

Nothing here touches a GPU. Every module talks real HTTP on 127.0.0.1. `__version__` is
$SGLANG_STANDIN_VERSION (default 0.5.23); the modules behave as that version does where
versions differ (the few-shot evaluator's server URL, the server-info path, the seed).
"""

import os

__version__ = os.environ.get("SGLANG_STANDIN_VERSION") or "0.5.23"
