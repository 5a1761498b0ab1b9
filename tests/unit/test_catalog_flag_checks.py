"""generator.catalog.flag_checks: server and client flags judged as SGLang reads them, and
lm-eval model arguments as local-completions takes them."""

from __future__ import annotations

import pytest

from generator.catalog.flag_checks import flag_problem, model_arg_problem
from generator.catalog.upstream import SERVER


@pytest.mark.parametrize(
    ("name", "count", "problem"),
    [
        ("--mem-fraction-static", 1, None),
        ("--cuda-graph-bs", 3, None),
        ("--host", 1, "--host is set by the launcher on every server: remove it from the catalog"),
        (
            "--model",
            1,
            "--model is set by the launcher on every server: remove it from the catalog",
        ),
        (
            "--por",
            1,
            (
                "--por abbreviates --port for SGLang (a unique prefix of a flag is that flag), and "
                "the launcher sets --port on every server: remove it"
            ),
        ),
        (
            "--tp",
            1,
            (
                "--tp is an abbreviation SGLang reads as --tp-size: write --tp-size (one spelling "
                "per flag)"
            ),
        ),
        (
            "--mod",
            1,
            (
                "--mod is ambiguous for SGLang (it could be --model, --model-checksum, "
                "--model-config-parser, --model-impl, ...): write a full flag"
            ),
        ),
        (
            "--mem-frac-static",
            1,
            (
                "--mem-frac-static is not a server flag of SGLang 0.5.9 to 0.5.23 (did you mean "
                "'--mem-fraction-static'?)"
            ),
        ),
        (
            "--cuda-graph-bs",
            0,
            "--cuda-graph-bs takes one value or more in SGLang 0.5.9 to 0.5.23, not no value",
        ),
    ],
)
def test_server_flags_are_judged_as_sglang_reads_them(
    name: str, count: int, problem: str | None
) -> None:
    assert flag_problem(SERVER, name, count, server=True) == problem


def test_the_client_may_name_host_and_port_which_are_its_own() -> None:
    assert flag_problem("sglang.bench_serving", "--host", 1, server=False) is None
    assert flag_problem("sglang.bench_serving", "--disable-tqdm", 0, server=False) is None


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("num_concurrent", None),
        ("base_url", "model_args.base_url is set by the launcher for every case: remove it"),
        (
            "max_retry",
            (
                "model_args.max_retry is not a local-completions argument of lm-eval 0.4.5 to "
                "0.4.13 (did you mean 'max_retries'?)"
            ),
        ),
    ],
)
def test_lm_eval_model_arguments_are_the_ones_local_completions_takes(
    name: str, problem: str | None
) -> None:
    assert model_arg_problem(name) == problem
