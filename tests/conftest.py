from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import settings

from generator.catalog import ACCURACY, BENCHMARK
from generator.cli import main
from generator.context import Context
from tests.helpers import FIXTURE, ROOT, copy_catalogs, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.model import Expanded

Invoke = Callable[..., Result]

# Property tests draw the same examples on every run (and keep no example database), so a
# failure is reproducible and the suite's time is fixed; `--hypothesis-profile` overrides.
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
settings.load_profile("repeatable")


@pytest.fixture(scope="session")
def fixture() -> Expanded:
    """The frozen fixture catalogs, expanded."""
    return expanded_at(FIXTURE)


@pytest.fixture(scope="session")
def shipped() -> Expanded:
    """The live catalogs under catalogs/, expanded (for properties, never counts)."""
    return expanded_at(ROOT)


@pytest.fixture(scope="session")
def rendered_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture catalogs with their generated files, rendered once (copy it to edit)."""
    root = copy_catalogs(tmp_path_factory.mktemp("rendered"))
    result = CliRunner().invoke(main, ["--root", str(root), "render"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def cli(fixture: Expanded, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """Run `sglang-ci ARGS` in-process against a root (the fixture by default).

    The fixture catalogs never change, so a command run against them takes the session's
    expansion of them instead of loading them again. A command run against any other root
    (an edited copy, a rendered copy) loads and expands it as the command always does, the
    first time the test runs one there with these catalog bytes (and this working
    directory, which the error paths depend on); a later command of the same test on the
    same bytes takes that expansion. Loading itself is tested on those copies and by the
    properties of a second load (test_properties)."""
    expand_root = Context.expanded
    loaded: dict[tuple[str, str, bytes, bytes], Expanded] = {}

    def expanded(self: Context) -> Expanded:
        if self.root == FIXTURE:
            return fixture
        try:
            key = (
                str(self.root.resolve()),
                str(Path.cwd()),
                (self.root / BENCHMARK).read_bytes(),
                (self.root / ACCURACY).read_bytes(),
            )
        except OSError:
            return expand_root(self)  # the command reports the missing catalog
        if key not in loaded:
            loaded[key] = expand_root(self)
        return loaded[key]

    monkeypatch.setattr(Context, "expanded", expanded)

    def invoke(*args: str, root: Path = FIXTURE) -> Result:
        runner = CliRunner()
        return runner.invoke(main, ["--root", str(root), *args], catch_exceptions=False)

    return invoke
