"""generator.expand.servers: a server mode's overlay in front of a config's arguments, each
flag once, the declared precedence deciding a disagreement."""

from __future__ import annotations

import pytest

from generator.catalog.catalog_types import Pair
from generator.catalog.flags import argv
from generator.catalog.server_types import EnvVar, Flag, Parallel, ServerMode, Variable
from generator.errors import CatalogError, Loc
from generator.expand.servers import apply_mode, apply_mode_env, case_server, config_server

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded

LOC = Loc("catalogs/benchmark.yaml", 7)
LAYOUT = Parallel(tp=8, dp=8, ep=8)


def flag(name: str, *values: str) -> Flag:
    return Flag(name=name, values=values, loc=LOC)


def mode(precedence: str | None) -> ServerMode:
    return ServerMode(
        name="m",
        description="",
        image_pattern=None,
        precedence=precedence,
        variables=(Variable(name="P", flag="--chunked-prefill-size", default="196608"),),
        args=(
            flag("--max-prefill-tokens", "{P}"),
            flag("--cuda-graph-max-bs", "{dp}"),
            flag("--x", "1"),
        ),
        env=(EnvVar(name="A", value="mode", loc=LOC),),
        spec_env=(EnvVar(name="SPEC", value="1", loc=LOC),),
        loc=LOC,
    )


def test_the_configs_tensor_parallel_size_leads_then_the_modes_flags_filled_in() -> None:
    config = (
        flag("--tensor-parallel-size", "8"),
        flag("--chunked-prefill-size", "65536"),
        flag("--page-size", "1"),
    )
    assert argv(apply_mode(mode(None), config, LAYOUT)) == [
        "--tensor-parallel-size", "8", "--max-prefill-tokens", "65536", "--cuda-graph-max-bs", "8",
        "--x", "1", "--chunked-prefill-size", "65536", "--page-size", "1",
    ]  # fmt: skip
    assert argv(apply_mode(mode(None), (), LAYOUT))[:2] == ["--max-prefill-tokens", "196608"]


@pytest.mark.parametrize(("precedence", "value"), [("config", "2"), ("mode", "1")])
def test_a_disagreement_takes_the_declared_precedence(precedence: str, value: str) -> None:
    out = argv(apply_mode(mode(precedence), (flag("--x", "2"),), LAYOUT))
    assert out[out.index("--x") + 1] == value
    assert out.count("--x") == 1
    env = apply_mode_env(mode(precedence), (EnvVar(name="A", value="config", loc=LOC),), "mtp3")
    assert [(v.name, v.value) for v in env] == [
        ("A", "config" if precedence == "config" else "mode"),
        ("SPEC", "1"),
    ]


def test_a_disagreement_without_a_precedence_is_refused_where_the_config_sets_it() -> None:
    with pytest.raises(CatalogError) as info:
        apply_mode(mode(None), (flag("--x", "2"),), LAYOUT)
    assert str(info.value) == (
        "catalogs/benchmark.yaml:7: server mode 'm' sets --x to '1' but the config sets '2'; "
        "declare a precedence"
    )
    assert apply_mode_env(mode(None), (), "none") == (EnvVar(name="A", value="mode", loc=LOC),)


def test_a_mesh_configs_mori_server_uses_its_own_prefill_budget_on_the_pair_that_sets_it(
    fixture: Expanded,
) -> None:
    catalog = fixture.catalog
    mesh = next(c for c in catalog.configs if c.prefix == "deepseek-r1-fp8-mesh-dpa8-ep8")
    prefill = config_server(catalog, mesh, Pair(isl=8192, osl=1), "sglang-mori")
    decode = config_server(catalog, mesh, Pair(isl=1, osl=1024), "sglang-mori")
    assert prefill.args[:6] == (
        "--tensor-parallel-size", "8", "--chunked-prefill-size", "65536",
        "--max-prefill-tokens", "65536",
    )  # fmt: skip
    assert decode.args[:6] == (
        "--tensor-parallel-size", "8", "--chunked-prefill-size", "196608",
        "--max-prefill-tokens", "196608",
    )  # fmt: skip
    assert prefill.args.count("--chunked-prefill-size") == 1
    assert prefill.args[prefill.args.index("--mem-fraction-static") + 1] == "0.85"
    assert (prefill.mode, prefill.runner, prefill.model_path) == (
        "sglang-mori",
        mesh.runner,
        "deepseek-ai/DeepSeek-R1-0528",
    )


def test_a_case_server_starts_in_the_first_mode(fixture: Expanded) -> None:
    catalog = fixture.catalog
    case = next(c for c in catalog.cases if c.id == "qwen3-5-35b-a3b-fp8-tp2")
    server = case_server(catalog, case)
    assert server.mode == catalog.server_modes[0].name == "sglang-atom"
    assert server.args[:2] == ("--tensor-parallel-size", "2")
    assert server.args == tuple(argv(case.args))
