from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from generator import catalog
from generator.catalog import ACCURACY, BENCHMARK, at_ref, schema, yamlio
from generator.cli.sglang_ci import main
from generator.context import Context
from generator.lint.checks import lint
from tests.helpers import FIXTURE, ROOT, copy_catalogs, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap

    from generator.expand.expanded import Expanded
    from generator.lint.findings import LintFinding

Invoke = Callable[..., Result]

# pytest keeps each test module's assertion-rewritten bytecode in __pycache__ only where
# Python writes bytecode; this environment sets PYTHONDONTWRITEBYTECODE, and every test
# process (the main one and each worker) would parse and rewrite all of tests/ again on
# every run (1.3 s of its 2.2 s collection). The test modules import after this one, so
# their bytecode is written once and read on later runs, as `make test` byte-compiles
# generator/ first. Processes the tests start keep the environment's setting.
sys.dont_write_bytecode = False


def in_memory(path: Path) -> bool:
    """Whether the tests' scratch files can live under `path`: a writable directory where
    files may be executed (tests write scripts: stand-in tools, a venv) with 2 GiB free
    (a run leaves some 210 MB, and pytest keeps the last three runs')."""
    if not (path.is_dir() and os.access(path, os.W_OK)):
        return False
    fs = os.statvfs(path)
    return not fs.f_flag & os.ST_NOEXEC and fs.f_bavail * fs.f_frsize >= 2 * 1024**3


# The tests' scratch files (tmp_path: git repositories, histories, rendered copies, a venv,
# a 50 MB catalog; some 34,000 files a run) live in memory where the machine has a tmpfs
# for them and TMPDIR names no other place: on this disk (ext4 mounted with `discard`) a
# file costs about 3 ms to delete, and pytest deletes a whole earlier run's files (seconds
# to tens of seconds) when a session ends. Processes the tests start keep their TMPDIR.
SCRATCH = Path("/dev/shm")

# `sglang-ci lint` asks the package index for SGLang's newest release (L800): the tests ask
# none (a test of that finding serves a stand-in index on loopback). Processes the tests
# start keep the setting.
os.environ["SGLANG_CI_PACKAGE_INDEX"] = "off"
if "TMPDIR" not in os.environ and in_memory(SCRATCH):
    tempfile.tempdir = str(SCRATCH)


@pytest.hookimpl(tryfirst=True)  # before hypothesis's own, which loads `--hypothesis-profile`
def pytest_configure(config: pytest.Config) -> None:
    """Property tests draw the same examples on every run (and keep no example database), so
    a failure is reproducible and the suite's time is fixed; `--hypothesis-profile`
    overrides. Not in the xdist controller, which runs no test: importing hypothesis there
    (0.5 s) would delay every worker's start."""
    if config.getoption("dist", "no") != "no" and not hasattr(config, "workerinput"):
        return
    from hypothesis import settings  # noqa: PLC0415 (see above)

    settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
    settings.load_profile("repeatable")


@pytest.fixture(scope="session", autouse=True)
def parse_and_validate_each_catalog_once() -> Iterator[None]:
    """It patches production code because hundreds of tests load the same fixture catalogs.

    The two costly steps of a catalog load run once per test process for each input:
    ruamel.yaml's round-trip parse of a text, and the JSON Schema validation of a document.
    A text met again (the fixture catalogs, copied and loaded by hundreds of tests) gets a
    copy of the document its first parse gave, line numbers and all (pickled: no test sees
    another's objects, and the loader may edit its own); a document equal, pickle for
    pickle, to one that validated is valid. Both are functions of their input alone (the
    file's name only reaches an error, and errors are never kept: a refusal runs every
    time); everything else of a load (the value checks, the typed model) runs on every
    load. Tests of the parser and the schema call them directly, or give them new input."""
    parse = yamlio.parse_mapping
    parsed: dict[bytes, bytes] = {}
    valid: set[tuple[str, bytes]] = set()

    def parse_once(text: str, shown: str) -> CommentedMap:
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        if key not in parsed:
            parsed[key] = pickle.dumps(parse(text, shown))
        doc: CommentedMap = pickle.loads(parsed[key])
        return doc

    def validate_once(name: str, doc: object, shown: str) -> None:
        key = (name, hashlib.sha256(pickle.dumps(doc)).digest())
        if key not in valid:
            schema.validate(name, doc, shown)
            valid.add(key)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yamlio, "parse_mapping", parse_once)
        for module in (catalog, at_ref):  # each calls the validate it imported
            patch.setattr(module, "validate", validate_once)
        yield


@pytest.fixture(scope="session")
def fixture() -> Expanded:
    """The frozen fixture catalogs, expanded."""
    return expanded_at(FIXTURE)


@pytest.fixture(scope="session")
def shipped() -> Expanded:
    """The live catalogs under catalogs/, expanded (for properties, never counts)."""
    return expanded_at(ROOT)


@pytest.fixture(scope="session")
def fixture_findings(fixture: Expanded) -> list[LintFinding]:
    """The lint findings of the frozen fixture catalogs (the lint rules' tests read them)."""
    return lint(fixture)


@pytest.fixture(scope="session")
def rendered_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture catalogs with their generated files, rendered once (copy it to edit)."""
    root = copy_catalogs(tmp_path_factory.mktemp("rendered"))
    result = CliRunner().invoke(main, ["--root", str(root), "render"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return root


# The expansions of the roots commands ran against lately, by root, working directory and
# catalog bytes (a few: the session's rendered fixture and a test's own copies).
LOADED: OrderedDict[tuple[str, str, bytes, bytes], Expanded] = OrderedDict()
LOADED_KEPT = 8


@pytest.fixture
def cli(fixture: Expanded, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """Run `sglang-ci ARGS` in-process against a root (the fixture by default), with
    `env` set around the command when given.

    The fixture catalogs never change, so a command run against them takes the session's
    expansion of them instead of loading them again. A command run against any other root
    (an edited copy, a rendered copy) loads and expands it as the command always does, the
    first time one runs there with these catalog bytes (and this working directory, which
    the error paths depend on); a later command on the same bytes there, in this test or
    another (the session's rendered fixture), takes that expansion. Loading itself is tested
    on those copies and by the properties of a second load (test_properties)."""
    expand_root = Context.expanded

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
        if key not in LOADED:
            LOADED[key] = expand_root(self)
            if len(LOADED) > LOADED_KEPT:
                LOADED.popitem(last=False)
        LOADED.move_to_end(key)
        return LOADED[key]

    monkeypatch.setattr(Context, "expanded", expanded)

    def invoke(*args: str, root: Path = FIXTURE, env: dict[str, str] | None = None) -> Result:
        runner = CliRunner()
        return runner.invoke(main, ["--root", str(root), *args], env=env, catch_exceptions=False)

    return invoke
