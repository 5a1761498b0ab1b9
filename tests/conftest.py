from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from generator.cli import main
from generator.load import load_catalog
from generator.model import Catalog
from tests.helpers import ROOT

Invoke = Callable[..., Result]


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog(ROOT)


@pytest.fixture
def cli() -> Invoke:
    """Run `sglang-ci ARGS` in-process against a root (the repository by default)."""

    def invoke(*args: str, root: Path = ROOT) -> Result:
        runner = CliRunner()
        return runner.invoke(main, ["--root", str(root), *args], catch_exceptions=False)

    return invoke
