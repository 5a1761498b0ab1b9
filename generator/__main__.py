from __future__ import annotations

from generator.cli.sglang_ci import main

main()
