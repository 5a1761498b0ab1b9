"""generator.catalog.parallel_layout: `parallel:` writes SGLang's TP, DP, EP and DP-attention flags,
nothing else in a catalog may, and a config's `override:` replaces a flag for every pair."""

from __future__ import annotations

import pytest

from generator.catalog import ACCURACY, BENCHMARK, load
from generator.catalog.flags import argv
from generator.catalog.parallel_layout import layout_flags, layout_problem
from generator.catalog.server_types import Parallel
from generator.errors import CatalogError, Loc
from generator.expand.servers import config_server
from tests.helpers import copy_catalogs, edit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.catalog.catalog_types import Catalog, Config
    from generator.expand.expanded import Expanded

LOC = Loc("catalogs/benchmark.yaml", 5)
DP8 = "deepseek-r1-fp4-tp8-dp8-ep8"
MESH = "deepseek-r1-fp8-mesh-dpa8-ep8"
TP8 = "    parallel: {tp: 8}\n    args: [trust_remote_code, aiter_runtime]\n"
DP8_LINES = (
    "    parallel: {tp: 8, dp: 8, ep: 8}\n    args: [trust_remote_code, parallel, aiter_runtime]\n"
)
# aiter_runtime, the fragment every fixture config names.
AITER = [
    "--attention-backend", "aiter", "--kv-cache-dtype", "fp8_e4m3",
    "--mem-fraction-static", "0.85", "--page-size", "1", "--disable-radix-cache",
]  # fmt: skip
LAYOUT_8 = [
    "--data-parallel-size", "8", "--expert-parallel-size", "8", "--enable-dp-attention",
]  # fmt: skip


def config(catalog: Catalog, prefix: str) -> Config:
    return next(c for c in catalog.configs if c.prefix == prefix)


def refused(root: Path) -> str:
    """The one-line refusal of the catalogs under `root`, files named from `root`."""
    with pytest.raises(CatalogError) as info:
        load(root)
    return str(info.value).replace(f"{root}/", "")


# ------------------------------------------------------------------ the flags parallel: writes


def test_a_layout_writes_the_tensor_parallel_size_and_only_the_sizes_above_one() -> None:
    tp, rest = layout_flags(Parallel(tp=8, dp=8, ep=8), LOC)
    assert (tp.tokens(), argv(rest)) == (["--tensor-parallel-size", "8"], LAYOUT_8)
    assert {f.loc for f in (tp, *rest)} == {LOC}
    tp, rest = layout_flags(Parallel(tp=4, ep=4), LOC)
    assert (tp.tokens(), argv(rest)) == (
        ["--tensor-parallel-size", "4"],
        ["--expert-parallel-size", "4"],
    )
    assert layout_flags(Parallel(tp=2), LOC)[1] == ()


def test_dp_attention_off_writes_plain_dp_on_tp_times_dp_gpus() -> None:
    plain = Parallel(tp=4, dp=2, dp_attention=False)
    assert argv(layout_flags(plain, LOC)[1]) == ["--data-parallel-size", "2"]
    assert (plain.attention_dp, plain.gpus) == (False, 8)
    attention = Parallel(tp=8, dp=8, ep=8)
    assert (attention.attention_dp, attention.gpus) == (True, 8)
    # SGLang turns DP attention off with one DP rank: the flag is not written.
    assert (Parallel(tp=8).attention_dp, Parallel(tp=8).gpus) == (False, 8)


def written(name: str, field: str) -> str:
    return f"{name} is written from parallel.{field}: remove it here and set the size there"


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("--tp-size", written("--tp-size", "tp")),
        ("--tensor-parallel-size", written("--tensor-parallel-size", "tp")),
        ("--dp-size", written("--dp-size", "dp")),
        ("--ep", written("--ep", "ep")),
        ("--enable-dp-attention", ("--enable-dp-attention is written from parallel: (on with dp > "
         "1; parallel.dp_attention: false turns it off): remove it here")),
        ("--pp-size", None),
        ("--page-size", None),
    ],
)  # fmt: skip
def test_the_layout_flags_in_every_spelling_are_parallels_alone(
    name: str, problem: str | None
) -> None:
    assert layout_problem(name) == problem


# ------------------------------------------------------------------ configs and cases


def test_a_dp8_config_starts_with_its_tp_and_takes_the_rest_where_args_names_parallel(
    fixture: Expanded,
) -> None:
    catalog = fixture.catalog
    dp8 = config(catalog, DP8)
    assert argv(dp8.args) == [
        "--tensor-parallel-size", "8", "--trust-remote-code", *LAYOUT_8, *AITER,
    ]  # fmt: skip
    assert {
        f.loc.line for f in dp8.args if f.name in LAYOUT_8 or f.name.startswith("--tensor")
    } == {
        dp8.loc.line + 5  # the config's `parallel:` line
    }
    mesh = config(catalog, MESH)
    assert argv(mesh.args) == [
        "--tensor-parallel-size", "8", "--trust-remote-code", *AITER, *LAYOUT_8,
        "--max-running-requests", "4096",
    ]  # fmt: skip
    assert (dp8.parallel.gpus, mesh.parallel.gpus) == (8, 8)
    # The launcher's argv: the tensor-parallel size leads in every mode, the mode's flags
    # follow it.
    server = config_server(catalog, mesh, None, "sglang-mori")
    assert server.args[:4] == ("--tensor-parallel-size", "8", "--chunked-prefill-size", "196608")
    assert server.args.count("--enable-dp-attention") == 1
    assert config_server(catalog, dp8, None, "sglang-atom").args == tuple(argv(dp8.args))


def test_without_the_marker_the_layout_follows_the_tensor_parallel_size(tmp_path: Path) -> None:
    root = copy_catalogs(tmp_path)
    edit(root / BENCHMARK, DP8_LINES, DP8_LINES.replace("parallel, ", ""))
    dp8 = config(load(root), DP8)
    assert argv(dp8.args) == [
        "--tensor-parallel-size", "8", *LAYOUT_8, "--trust-remote-code", *AITER,
    ]  # fmt: skip


def test_dp_attention_false_starts_plain_dp_and_counts_tp_times_dp_gpus(tmp_path: Path) -> None:
    root = copy_catalogs(tmp_path)
    edit(
        root / BENCHMARK,
        DP8_LINES,
        DP8_LINES.replace("{tp: 8, dp: 8, ep: 8}", "{tp: 4, dp: 2, ep: 4, dp_attention: false}"),
    )
    dp8 = config(load(root), DP8)
    assert argv(dp8.args) == [
        "--tensor-parallel-size", "4", "--trust-remote-code", "--data-parallel-size", "2",
        "--expert-parallel-size", "4", *AITER,
    ]  # fmt: skip
    assert dp8.parallel.gpus == 8


def test_an_accuracy_case_of_its_own_layout_places_it_too(fixture: Expanded) -> None:
    case = next(
        c for c in fixture.catalog.cases if c.id == "deepseek-r1-fp4-mtp-moefp4-tp8-dp8-ep8"
    )
    assert argv(case.args) == [
        "--tensor-parallel-size", "8", "--trust-remote-code", *LAYOUT_8, *AITER,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("file", "old", "new", "offset", "message"),
    [
        (BENCHMARK, TP8, TP8.replace("aiter_runtime]", "aiter_runtime, {--tp-size: 8}]"), 1,
         written("--tp-size", "tp")),
        (BENCHMARK, "  aiter_runtime:\n", "  aiter_runtime:\n    --tp-size: 8\n", 1,
         written("--tp-size", "tp")),
        (BENCHMARK, '      --chunked-prefill-size: "{P}"\n',
         '      --tp-size: "{tp}"\n      --chunked-prefill-size: "{P}"\n', 0,
         written("--tp-size", "tp")),
        (BENCHMARK, "  aiter_runtime:\n", "  aiter_runtime:\n    --dp-size: 8\n", 1,
         written("--dp-size", "dp")),
        (BENCHMARK, "      8192x1:\n        args: [{--chunked-prefill-size: 65536}]\n",
         "      8192x1:\n        args: [{--ep-size: 4}]\n", 1,
         written("--ep-size", "ep")),
        (ACCURACY, "    benchmark: deepseek-r1-fp4-tp8-dp8-ep8\n",
         "    benchmark: deepseek-r1-fp4-tp8-dp8-ep8\n    args: [{--enable-dp-attention: true}]\n",
         1, ("--enable-dp-attention is written from parallel: (on with dp > 1; "
             "parallel.dp_attention: false turns it off): remove it here")),
    ],
    ids=["config-args", "fragment", "server-mode", "fragment-dp", "per-pair", "linked-case"],
)  # fmt: skip
def test_a_layout_flag_written_anywhere_else_is_refused_at_its_line(
    tmp_path: Path, file: str, old: str, new: str, offset: int, message: str
) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(root / file, old, new) + offset
    assert refused(root) == f"{file}:{line}: {message}"


MARKER_MISPLACED = (
    "'parallel' places the layout's flags once, in the args of a config or of a case with a "
    "parallel: of its own"
)


@pytest.mark.parametrize(
    ("file", "old", "new", "offset", "message"),
    [
        (BENCHMARK, DP8_LINES, DP8_LINES.replace("aiter_runtime]", "aiter_runtime, parallel]"),
         1, MARKER_MISPLACED),
        (BENCHMARK, "      8192x1:\n        args: [{--chunked-prefill-size: 65536}]\n",
         "      8192x1:\n        args: [parallel]\n", 1, MARKER_MISPLACED),
        (BENCHMARK, TP8, TP8 + "    override: {args: [parallel]}\n", 2, MARKER_MISPLACED),
        (ACCURACY, "    benchmark: deepseek-r1-fp4-tp8-dp8-ep8\n",
         "    benchmark: deepseek-r1-fp4-tp8-dp8-ep8\n    args: [parallel]\n", 1,
         MARKER_MISPLACED),
        (BENCHMARK, "  aiter_runtime:\n", "  parallel:\n    --page-size: 1\n  aiter_runtime:\n", 0,
         "a fragment may not be named 'parallel': in an args list it places the layout"),
    ],
    ids=["twice", "per-pair", "override", "linked-case", "fragment-name"],
)  # fmt: skip
def test_the_parallel_marker_stands_once_in_a_config_or_case_of_its_own_layout(
    tmp_path: Path, file: str, old: str, new: str, offset: int, message: str
) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(root / file, old, new) + offset
    assert refused(root) == f"{file}:{line}: {message}"


# ------------------------------------------------------------------ override:


def test_override_replaces_a_fragments_flag_in_place_for_every_pair_and_mode(
    tmp_path: Path,
) -> None:
    root = copy_catalogs(tmp_path)
    old = "    env: [deepseek_common, quick_reduce_int4, dp_common]\n    grid:\n      8192x1: [512"
    override = (
        "    override:\n"
        '      args: [{--mem-fraction-static: "0.9"}]\n'
        '      env: [{AITER_QUICK_REDUCE_QUANTIZATION: "INT8"}]\n'
    )
    line = edit(root / BENCHMARK, old, old.replace("    grid:\n", override + "    grid:\n")) + 2
    catalog = load(root)
    mesh = config(catalog, MESH)
    expected = [*AITER[:5], "0.9", *AITER[6:]]
    assert argv(mesh.args) == [
        "--tensor-parallel-size", "8", "--trust-remote-code", *expected, *LAYOUT_8,
        "--max-running-requests", "4096",
    ]  # fmt: skip
    memory = next(f for f in mesh.args if f.name == "--mem-fraction-static")
    assert memory.loc.line == line
    assert {v.name: v.value for v in mesh.env}["AITER_QUICK_REDUCE_QUANTIZATION"] == "INT8"
    for pair, _ in mesh.grid:
        for mode in ("sglang-atom", "sglang-mori"):
            args = config_server(catalog, mesh, pair, mode).args
            assert args[args.index("--mem-fraction-static") + 1] == "0.9"
            assert args.count("--mem-fraction-static") == 1


@pytest.mark.parametrize(
    ("override", "offset", "message"),
    [
        ("    override:\n      args: [{--page-size: 16}, {--max-running-requests: 64}]\n", 2,
         ("override: --max-running-requests is not set by the config's args, so there is "
          "nothing to replace: write it in args")),
        ("    override:\n      env: [{SGLANG_NEW: x}]\n", 2,
         ("override: SGLANG_NEW is not set by the config's env, so there is nothing to "
          "replace: write it in env")),
        ("    override:\n      args: [{--tp-size: 4}]\n", 2,
         written("--tp-size", "tp")),
        ("    override: {}\n", 1, "configs[1].override: {} should be non-empty"),
    ],
    ids=["args", "env", "layout-flag", "empty"],
)  # fmt: skip
def test_an_override_that_replaces_nothing_is_refused_at_its_line(
    tmp_path: Path, override: str, offset: int, message: str
) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(root / BENCHMARK, TP8, TP8 + override) + 1 + offset
    assert refused(root) == f"{BENCHMARK}:{line}: {message}"
