from __future__ import annotations

from generator.cli import main

main()
