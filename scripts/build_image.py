"""On the builder: `python3 -I scripts/build_image.py PLAN CHECKOUT` builds the pull
request's image from CHECKOUT (its head) as the select job's build plan PLAN says, and
pushes it (generator/launch/imagebuild.py). The PR GPU workflow runs this script from the
default branch's checkout: what runs on the builder's host is the default branch's code;
the PR's Dockerfile runs in the build's own containers (docs/security.md). Standard
library only, like the launcher."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.launch.imagebuild import main

if __name__ == "__main__":
    sys.exit(main())
