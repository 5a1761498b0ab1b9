"""generator.catalog.upstream: the flag tables of the supported SGLang and
lm-eval releases, and what they say about the flags the launchers pass."""

from __future__ import annotations

import ast
import importlib
import json
import tomllib
from typing import Any

import pytest

from generator.catalog.flag_checks import dropped
from generator.catalog.upstream import LAUNCHER_DESTS, LM_EVAL, SERVER, SGLANG, index
from generator.core.entry_checks import LAUNCHER_FLAGS
from tests.helpers import ROOT, imports_forgotten
from tests.release_tables import Action, Release, release

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator, Mapping
    from types import ModuleType

TABLES = ROOT / "generator" / "catalog" / "flagtables"


@pytest.fixture(autouse=True)
def forget_imports() -> Iterator[None]:
    with imports_forgotten():
        yield


def releases(tool: str) -> list[Release]:
    return [release(tool, version) for version in index(tool).releases]


def prefixed(parser: Mapping[str, Action], name: str) -> list[Action]:
    """What argparse reads `name` as in one release: its action, else every action one of
    whose option strings it begins."""
    if name in parser:
        return [parser[name]]
    return [a for o, a in parser.items() if o.startswith(name)]


def script(monkeypatch: pytest.MonkeyPatch, name: str) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    return importlib.import_module(name)


def test_the_supported_releases_run_from_the_mori_image_s_sglang_to_the_newest() -> None:
    assert [r.version for r in releases(SGLANG)][:: len(releases(SGLANG)) - 1] == [
        "0.5.9",
        "0.5.23",
    ]
    assert len(releases(SGLANG)) == 19
    assert [r.version for r in releases(LM_EVAL)][::9] == ["0.4.5", "0.4.13"]


def test_the_tables_are_package_data_and_every_file_is_listed_in_the_index() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = pyproject["tool"]["setuptools"]["package-data"]["generator.catalog"]
    assert "flagtables/*.json" in data
    listed = {f"{tool}-{v}.json" for tool in (SGLANG, LM_EVAL) for v in index(tool).releases}
    assert {p.name for p in TABLES.glob("*.json")} == listed | {"index.json"}


def test_the_index_is_the_merge_of_the_release_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the loader reads says what the tables of the releases say, and nothing else."""
    tables = script(monkeypatch, "flag_tables")
    committed = json.loads((TABLES / "index.json").read_text(encoding="utf-8"))
    for tool in (SGLANG, LM_EVAL):
        files = [TABLES / f"{tool}-{v}.json" for v in committed[tool]["releases"]]
        merged = tables.merge([json.loads(f.read_text(encoding="utf-8")) for f in files])
        assert committed[tool] == merged
    assert (TABLES / "index.json").read_text(encoding="utf-8") == tables.dump_index(committed)


def test_sglang_s_server_parser_takes_abbreviations_in_every_release() -> None:
    assert all(r.allow_abbrev[SERVER] for r in releases(SGLANG))


def test_the_parallel_flags_keep_both_spellings_and_swap_which_is_first() -> None:
    first, last = releases(SGLANG)[0], releases(SGLANG)[-1]
    old, new = first.parsers[SERVER], last.parsers[SERVER]
    assert old["--tp-size"].options == ("--tensor-parallel-size", "--tp-size")
    assert new["--tp-size"].options == ("--tp-size", "--tensor-parallel-size")
    assert (old["--tp-size"].dest, new["--tp-size"].dest) == ("tensor_parallel_size", "tp_size")
    assert (old["--model"].dest, old["--model"].options) == (
        "model_path",
        ("--model-path", "--model"),
    )


def test_no_real_flag_is_a_prefix_of_a_launcher_flag_so_the_launcher_refuses_only_those() -> None:
    """The launcher's job check refuses every token that prefixes --host, --port,
    --model-path or --model; no supported release has another flag of that shape."""
    for one in releases(SGLANG):
        parser = one.parsers[SERVER]
        owned = {o for o, a in parser.items() if a.dest in LAUNCHER_DESTS}
        assert owned == set(LAUNCHER_FLAGS), one.version
        shadowing = {
            option
            for option in parser
            if option not in owned and any(f.startswith(option) for f in LAUNCHER_FLAGS)
        }
        assert shadowing == set(), one.version


def test_the_cuda_graph_batch_flags_were_split_per_phase_in_0_5_20() -> None:
    by_version = {r.version: dict(r.parsers[SERVER]) for r in releases(SGLANG)}
    for name in ("--cuda-graph-bs", "--cuda-graph-max-bs"):
        assert name in by_version["0.5.19"]
        assert [a.options[0] for a in prefixed(by_version["0.5.20"], name)] == [
            f"{name}-decode",
            f"{name}-prefill",
        ]
        assert dropped(SERVER, name) == ("0.5.9 to 0.5.19", "0.5.20")
    assert dropped(SERVER, "--mem-fraction-static") is None


def test_the_launcher_s_lm_eval_flags_exist_in_every_supported_lm_eval() -> None:
    for tool in releases(LM_EVAL):
        options = tool.parsers["lm_eval"]
        for flag in ("--model", "--model_args", "--tasks", "--num_fewshot", "--output_path"):
            assert flag in options, (tool.version, flag)
        keywords = tool.keywords["local-completions"]
        assert {"base_url", "model", "num_concurrent", "max_retries"} <= set(keywords)
        assert {"tokenized_requests", "trust_remote_code"} <= set(keywords)


def test_our_few_shot_script_sets_every_option_each_release_s_evaluator_reads() -> None:
    """scripts/few_shot_gsm8k.py calls run_eval with a Namespace of its own: it must hold
    every dest of the evaluator's parser, or run_eval reads a missing attribute."""
    source = (ROOT / "scripts" / "few_shot_gsm8k.py").read_text(encoding="utf-8")
    call = next(
        n
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Call) and ast.unparse(n.func) == "argparse.Namespace"
    )
    given = {k.arg for k in call.keywords}
    for one in releases(SGLANG):
        dests = {a.dest for a in one.parsers["sglang.test.few_shot_gsm8k"].values()}
        assert dests <= given, one.version


# ------------------------------------------------------- scripts/flag_tables.py's reader

OLD_STYLE = """
import argparse

class DeprecatedAction(argparse.Action):
    def __init__(self, option_strings, dest, nargs=0, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)

class ServerArgs:
    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--model-path", "--model", type=str, required=True)
        parser.add_argument("--trust-remote-code", action="store_true")
        parser.add_argument("--cuda-graph-bs", type=int, nargs="+")
        parser.add_argument("--enable-x", action=argparse.BooleanOptionalAction)
        parser.add_argument("--old-flag", action=DeprecatedAction)
        parser.add_argument("--tp-size", "--tensor-parallel-size", dest="tp_size", type=int)

def prepare_server_args(argv):
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
"""

FIELDS_STYLE = """
import argparse
from typing import List, Literal, Optional

from sglang.srt.arg_groups.arg_utils import A, Arg, add_cli_args_from_dataclass

class ServerArgs:
    model_path: A[str, Arg(help="weights", aliases=["--model"])]
    tp_size: A[int, Arg(help="tp", aliases=["--tensor-parallel-size"])] = 1
    trust_remote_code: A[bool, "custom code"] = False
    cuda_graph_bs: A[Optional[List[int]], "sizes"] = None
    json_list: A[Optional[List[str]], Arg(help="one JSON string", type_parser=str)] = None
    mode: A[Literal["a", "b"], "choice"] = "a"
    hidden: A[int, Arg(help="no flag", no_cli=True)] = 0
    renamed_field: A[int, Arg(help="x", cli_name="--shown-name")] = 0
    plain: int = 3

    @staticmethod
    def add_cli_args(parser):
        add_cli_args_from_dataclass(parser, ServerArgs)
        parser.add_argument("--config", type=str)

def prepare_server_args(argv):
    parser = argparse.ArgumentParser(prog="sglang serve")
"""


# An Archive of the script module loaded at run time, which mypy does not see.
def archive(module: ModuleType, source: str) -> Any:  # noqa: ANN401 (see above)
    return module.Archive(
        name="sglang-test.whl", sha256="0", files={"sglang/srt/server_args.py": source}
    )


def test_the_reader_takes_add_argument_calls_with_their_value_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tables = script(monkeypatch, "flag_tables")
    parser = tables.server_parser(archive(tables, OLD_STYLE))
    assert parser["allow_abbrev"] is True
    assert parser["actions"] == [
        ["1", "", "--model-path", "--model"],
        ["0", "", "--trust-remote-code"],
        ["+", "", "--cuda-graph-bs"],
        ["0", "", "--enable-x", "--no-enable-x"],
        ["0", "", "--old-flag"],
        ["1", "", "--tp-size", "--tensor-parallel-size"],
    ]


def test_the_reader_turns_annotated_fields_into_flags_as_sglang_s_arg_utils_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tables = script(monkeypatch, "flag_tables")
    parser = tables.server_parser(archive(tables, FIELDS_STYLE))
    assert parser["actions"] == [
        ["1", "", "--config"],
        ["1", "", "--model-path", "--model"],
        ["1", "", "--tp-size", "--tensor-parallel-size"],
        ["0", "", "--trust-remote-code"],
        ["+", "", "--cuda-graph-bs"],
        ["1", "", "--json-list"],
        ["1", "", "--mode"],
        ["1", "renamed_field", "--shown-name"],
    ]


def test_the_reader_refuses_a_parser_it_cannot_read_literally(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tables = script(monkeypatch, "flag_tables")
    source = "class S:\n    def add_cli_args(parser):\n        parser.add_argument(NAME)\n"
    with pytest.raises(tables.TableError, match="add_argument without literal option names"):
        tables.server_parser(archive(tables, source))


def test_the_table_file_has_one_action_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    tables = script(monkeypatch, "flag_tables")
    text = tables.dump({"parsers": {"server": {"actions": [["0", "", "--a"], ["1", "", "--b"]]}}})
    assert json.loads(text) == {
        "parsers": {"server": {"actions": [["0", "", "--a"], ["1", "", "--b"]]}}
    }
    assert '\n        ["0", "", "--a"],\n        ["1", "", "--b"]\n' in text


# ------------------------------------------------------------------ the stand-in server


def standin_parser(monkeypatch: pytest.MonkeyPatch, version: str) -> argparse.ArgumentParser:
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "standin"))
    module = importlib.import_module("sglang.launch_server")
    parser: argparse.ArgumentParser = module.server_parser(version)
    return parser


def test_the_stand_in_reads_an_abbreviation_as_sglang_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser = standin_parser(monkeypatch, "0.5.23")
    args, kept = parser.parse_known_args(
        ["--model-pat", "m", "--hos", "0.0.0.0", "--por", "1234", "--unknown", "x"]
    )
    assert (args.model_path, args.host, args.port, kept) == (
        "m",
        "0.0.0.0",
        "1234",
        ["--unknown", "x"],
    )


def test_the_stand_in_refuses_an_ambiguous_prefix_as_sglang_0_5_20_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    old = standin_parser(monkeypatch, "0.5.19")
    # 0.5.19 keeps the old spelling for the decode phase's sizes.
    args = old.parse_known_args(["--cuda-graph-bs", "1", "2"])[0]
    assert args.cuda_graph_bs_decode == ["1", "2"]
    with pytest.raises(SystemExit) as exited:
        standin_parser(monkeypatch, "0.5.20").parse_known_args(["--cuda-graph-bs", "1"])
    assert exited.value.code == 2
    assert "ambiguous option: --cuda-graph-bs could match --cuda-graph-bs-decode" in (
        capsys.readouterr().err
    )
