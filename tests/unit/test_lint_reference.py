"""The linter over the ATOM reference catalogs, converted by `tests.tooling.atom_import`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from generator.catalog.server_types import EnvVar, Flag
from generator.errors import Loc
from generator.expand import expand
from generator.lint.checks import lint
from tests.tooling.atom_import import import_reference
from tests.tooling.atom_reference import parse_args, parse_env, runner_gpus

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.lint.findings import LintFinding

REFERENCE = (Path(__file__).parents[2] / "../shared/reference/atom-sglang").resolve()
needs_reference = pytest.mark.skipif(
    not REFERENCE.is_dir(),
    reason=f"the reference catalogs are not beside the repository ({REFERENCE})",
)


def reference(tag: str) -> list[LintFinding]:
    catalog = import_reference(
        REFERENCE / f"{tag}_sglang_benchmark_models.json",
        REFERENCE / f"{tag}_sglang_models_accuracy.json",
    )
    return lint(expand(catalog))


def test_an_args_string_becomes_flags_with_their_values() -> None:
    loc = Loc("x.json", 3)
    text = "--tp-size 4 --disable-radix-cache --model-loader-extra-config '{\"a\": 1}'"
    assert parse_args(text, loc) == [
        Flag(name="--tp-size", values=("4",), loc=loc),
        Flag(name="--disable-radix-cache", values=(), loc=loc),
        Flag(name="--model-loader-extra-config", values=('{"a": 1}',), loc=loc),
    ]


def test_an_env_string_becomes_variables_and_keeps_empty_values() -> None:
    loc = Loc("x.json", 3)
    assert parse_env("SGLANG_DEFAULT_SERVER_ARGS=\nA=1\n", loc) == [
        EnvVar(name="SGLANG_DEFAULT_SERVER_ARGS", value="", loc=loc),
        EnvVar(name="A", value="1", loc=loc),
    ]


def test_runner_gpu_counts_are_read_from_the_label() -> None:
    assert [
        runner_gpus(x)
        for x in (
            "atom-mi355-8gpu-aac-runner",
            "linux-atom-mi35x-4",
            "atom-plugin-acc-validation-runner-sgl",
        )
    ] == [8, 4, 8]


@needs_reference
def test_the_pull_request_catalog_has_the_three_known_problems() -> None:
    found = reference("pr975")
    assert Counter(f.rule for f in found) == Counter(
        {"L101": 2, "L102": 2, "L605": 1, "L503": 5, "L304": 1, "L801": 5, "L803": 1}
    )
    assert [f.message for f in found if f.rule == "L605"] == [
        (
            "model path 'amd/DeepSeek-R1-0528-MXFP4-V2' is also spelled "
            "'amd/DeepSeek-R1-0528-MXFP4-v2'; use one spelling"
        )
    ]
    assert sorted(f.message.split(" runs ")[0] for f in found if f.rule == "L101") == [
        "case 'deepseek-r1-fp4-tp4-dp8-ep8'",
        "config 'deepseek-r1-fp4-tp4-dp8-ep8'",
    ]
    assert {f.message.split(" ")[0] for f in found if f.rule == "L503"} == {"SGLANG_ENABLE_SPEC_V2"}
    # Its MTP fragments' CUDA-graph batch sizes: --cuda-graph-bs-decode from SGLang 0.5.20
    # on; its DP configs' --enable-dp-attention, deprecated in 0.5.22 and 0.5.23.
    assert {f.message.split(" ")[0] for f in found if f.rule == "L801"} == {"--cuda-graph-bs"}
    assert {f.message.split(" ")[0] for f in found if f.rule == "L803"} == {"--enable-dp-attention"}


@needs_reference
def test_the_later_catalog_still_has_the_spelling_and_diverging_accuracy_servers() -> None:
    found = reference("later")
    counts = Counter(f.rule for f in found)
    assert counts == Counter(
        {"L401": 54, "L503": 4, "L303": 2, "L605": 1, "L301": 1, "L801": 11, "L802": 2, "L803": 1}
    )
    # Its images may carry any supported SGLang (the reference names no release): the GLM
    # config's CUDA-graph backends are flags of 0.5.14 and later only.
    assert sorted(f.message.split(";")[0] for f in found if f.rule == "L802") == [
        (
            f"config 'glm-5-2-fp4-tp4-mtp3' (reference): SGLang 0.5.9 has no {flag} (it is a "
            "flag of 0.5.14 to 0.5.23)"
        )
        for flag in ("--cuda-graph-backend-decode", "--cuda-graph-backend-prefill")
    ]
    assert {f.message.split(" ")[0] for f in found if f.rule == "L801"} == {
        "--cuda-graph-bs",
        "--cuda-graph-max-bs-decode",
        "--enable-nsa-prefill-context-parallel",
        "--nsa-decode-backend",
        "--nsa-prefill-backend",
        "--nsa-prefill-cp-mode",
    }
    assert [f.message.split(";")[0] for f in found if f.rule == "L303"] == [
        (
            "config 'minimax-m3-mxfp8-eagle3-tp4-mtp3' sets --speculative-num-steps, "
            "--speculative-eagle-topk but not --speculative-num-draft-tokens"
        ),
        (
            "case 'minimax-m3-mxfp8-eagle3-tp4-mtp3' sets --speculative-num-steps, "
            "--speculative-eagle-topk but not --speculative-num-draft-tokens"
        ),
    ]
