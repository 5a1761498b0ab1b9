"""scripts/flag_tables.py's reader against the parser argparse really builds: offline, from
sources written here with every shape of call the reader follows; and, for the releases
`make flag-tables` downloaded into .flag-cache/, every committed table against the parser
rebuilt from that release's own source (scripts/sglang_parser.py)."""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

import pytest

from generator.catalog.upstream import SGLANG, index
from tests.helpers import ROOT, imports_forgotten

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from types import ModuleType

TABLES = ROOT / "generator" / "catalog" / "flagtables"
CACHE = ROOT / ".flag-cache"

# Action classes of the shapes SGLang's argparse_actions.py has (written for this test).
ACTIONS = """
import argparse

class SwitchLike(argparse.Action):
    def __init__(self, option_strings, dest, new_flag=None, nargs=0, **kwargs):
        self.new_flag = new_flag
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, True)

class DeprecatedSwitch(SwitchLike):
    pass

class DeprecatedRefusal(argparse.Action):
    def __init__(self, option_strings, dest, error_message=None, nargs=0, **kwargs):
        self.error_message = error_message
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(self.error_message)

class TakesValues(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
"""

SERVER = """
import argparse
from sglang.srt.arg_groups.argparse_actions import (
    DeprecatedRefusal, DeprecatedSwitch, SwitchLike, TakesValues,
)
from sglang.srt.some.module import CHOICES, helper  # stubbed when run

class ServerArgs:
    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--model-path", "--model", type=str, help=helper("x"))
        parser.add_argument("--switch", action="store_true")
        parser.add_argument("--off", action="store_false", dest="on")
        parser.add_argument("--constant", action="store_const", const=7)
        parser.add_argument("--more", action="append_const", const=1, dest="many")
        parser.add_argument("--verbose", "-v", action="count")
        parser.add_argument("--pair", nargs=2, type=int)
        parser.add_argument("--maybe", nargs="?", const="yes")
        parser.add_argument("--any", nargs="*", choices=CHOICES + ["a"])
        parser.add_argument("--sizes", type=int, nargs="+")
        parser.add_argument("--tags", action="append")
        parser.add_argument("--extend", action="extend", nargs="+")
        parser.add_argument("--toggle", action=argparse.BooleanOptionalAction)
        parser.add_argument("--tp-size", "--tensor-parallel-size", dest="tp_size", type=int)
        parser.add_argument("--plain-custom", action=TakesValues)
        parser.add_argument("--custom-switch", action=SwitchLike)
        parser.add_argument("--custom-with-value", action=SwitchLike, nargs=None)
        parser.add_argument("--custom-two", action=TakesValues, nargs=2)
        # The old spelling; remove after 2027-01-31.
        parser.add_argument(
            "--old-switch", action=DeprecatedSwitch, new_flag="--switch", help="Deprecated."
        )
        parser.add_argument(
            "--old-valued",
            action=DeprecatedSwitch,
            dest="valued",
            nargs=None,
            choices=["amd"],
            new_flag="--switch",
        )
        parser.add_argument("--gone", action=DeprecatedRefusal, error_message="use --switch")
        parser.add_argument("--legacy", action="store_true", help="(Deprecated: use --switch)")
        parser.add_argument("positional")
"""


@pytest.fixture(autouse=True)
def forget_imports() -> Iterator[None]:
    with imports_forgotten():
        yield


def script(monkeypatch: pytest.MonkeyPatch, name: str) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    return importlib.import_module(name)


def resolved(actions: list[list[str]], tables: ModuleType) -> list[list[str]]:
    """Table actions with every dest written out, as argparse holds them."""
    return [[n, d or tables.derived_dest(o), *o] for n, d, *o in actions]


def archive(tables: ModuleType, files: dict[str, str]) -> Any:  # noqa: ANN401 (the script's Archive, which mypy does not see)
    return tables.Archive(name="sglang-test.whl", sha256="0", files=files)


FILES = {
    "sglang/srt/server_args.py": SERVER,
    "sglang/srt/arg_groups/argparse_actions.py": ACTIONS,
}


def test_the_reader_counts_values_as_the_parser_argparse_builds_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tables = script(monkeypatch, "flag_tables")
    parser = script(monkeypatch, "sglang_parser")
    read = tables.server_parser(archive(tables, FILES))
    built = parser.server_actions(FILES)
    assert sorted(resolved(read["actions"], tables), key=lambda a: a[2]) == built
    by_option = {a[2]: a for a in built}
    # What the table says of the shapes that matter: a custom action's nargs=None over its
    # class's 0 takes one value; a class without __init__ takes one; a subclass keeps its
    # base's default.
    assert by_option["--custom-with-value"] == ["1", "custom_with_value", "--custom-with-value"]
    assert by_option["--old-valued"] == ["1", "valued", "--old-valued"]
    assert by_option["--old-switch"] == ["0", "old_switch", "--old-switch"]
    assert by_option["--plain-custom"] == ["1", "plain_custom", "--plain-custom"]
    assert by_option["--toggle"] == ["0", "toggle", "--toggle", "--no-toggle"]
    assert by_option["--verbose"] == ["0", "verbose", "--verbose", "-v"]
    assert by_option["--pair"] == ["2", "pair", "--pair"]
    assert len(built) == 22


def test_the_reader_records_what_sglang_says_of_a_retired_flag(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tables = script(monkeypatch, "flag_tables")
    read = tables.server_parser(archive(tables, FILES))
    assert read["deprecated"] == {
        "--gone": {"use": None, "remove_after": None, "refused": True},
        "--legacy": {"use": "--switch", "remove_after": None, "refused": False},
        "--old-switch": {"use": "--switch", "remove_after": "2027-01-31", "refused": False},
        "--old-valued": {"use": "--switch", "remove_after": None, "refused": False},
    }


def test_the_rebuilt_parser_leaves_no_module_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = script(monkeypatch, "sglang_parser")
    before = set(sys.modules)
    parser.server_actions(FILES)
    assert set(sys.modules) - before == set()


# ------------------------------------------------ the real releases, when downloaded


def cached() -> list[tuple[str, Path]]:
    """(version, archive) of each supported SGLang release whose archive is in the cache."""
    out = []
    for version in index(SGLANG).releases:
        found = sorted(CACHE.glob(f"sglang-{version}-*.whl")) + sorted(
            CACHE.glob(f"sglang-{version}.tar.gz")
        )
        if found:
            out.append((version, found[0]))
    return out


CACHED = cached()


@pytest.mark.skipif(
    len(CACHED) < 2,
    reason=(
        "the release archives are not in .flag-cache/ (make flag-tables downloads them; the "
        "tests never reach the network): the offline tests above check the reader"
    ),
)
@pytest.mark.parametrize(("version", "path"), CACHED, ids=[v for v, _ in CACHED])
def test_every_table_is_the_parser_rebuilt_from_its_release_s_source(
    monkeypatch: pytest.MonkeyPatch, version: str, path: Path
) -> None:
    tables = script(monkeypatch, "flag_tables")
    parser = script(monkeypatch, "sglang_parser")
    committed = json.loads((TABLES / f"sglang-{version}.json").read_text(encoding="utf-8"))
    files = tables.read_archive(path, "sglang")
    assert committed["sha256"] == files.sha256
    table = committed["parsers"]["server"]["actions"]
    assert resolved(table, tables) == parser.server_actions(files.files)
    if version == "0.5.23":
        assert ["1", "enable_amd_monokernel", "--monokernel-backend"] in table
        assert committed["parsers"]["server"]["deprecated"]["--enable-dp-attention"] == {
            "use": "--attn-dp-size <dp-size>",
            "remove_after": "2026-12-31",
            "refused": False,
        }
