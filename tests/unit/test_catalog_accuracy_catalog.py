"""generator.catalog.accuracy_catalog: accuracy suites and cases, a case linked to its benchmark
config starting that config's server minus what it unsets."""

from __future__ import annotations

import pytest

from generator.catalog import ACCURACY, load
from generator.catalog.flags import argv, env_dict
from generator.errors import CatalogError
from tests.helpers import FIXTURE, copy_catalogs, edit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_a_linked_case_takes_its_configs_server_and_drops_what_it_unsets() -> None:
    catalog = load(FIXTURE)
    case = next(c for c in catalog.cases if c.id == "deepseek-r1-fp8-tp4")
    config = next(c for c in catalog.configs if c.prefix == "deepseek-r1-fp8-tp4")
    assert (case.benchmark, case.benchmark_suite, case.model, case.parallel) == (
        "deepseek-r1-fp8-tp4",
        "SGLang-OOB",
        config.model,
        config.parallel,
    )
    assert argv(case.args) == argv(config.args)
    expected_env = env_dict(config.env)
    del expected_env["AITER_QUICK_REDUCE_QUANTIZATION"]
    assert env_dict(case.env) == expected_env
    assert (case.unset_env, case.levels, case.threshold) == (
        ("AITER_QUICK_REDUCE_QUANTIZATION",),
        ("nightly", "pr"),
        0.91,
    )


def test_a_standalone_case_declares_its_own_model_layout_and_fragments() -> None:
    catalog = load(FIXTURE)
    case = next(c for c in catalog.cases if c.id == "qwen3-5-35b-a3b-fp8-tp2")
    assert (case.benchmark, case.model.name, case.parallel.tp) == (
        None,
        "qwen3.5-35b-a3b-fp8",
        2,
    )
    assert case.fragments == ("qwen_reasoning", "qwen_common")
    suite = catalog.accuracy_suite(case.suite)
    assert (suite.evaluator.kind, suite.eval_timeout_minutes) == ("lm-eval", 120)
    assert catalog.accuracy_schedule == ("0 18 * * *", "nightly")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("unset_env: [AITER_QUICK_REDUCE_QUANTIZATION]", "unset_env: [NOT_SET_THERE]",
         "unset_env 'NOT_SET_THERE' is not set by benchmark config 'deepseek-r1-fp8-tp4'"),
        ("    benchmark: deepseek-r1-fp8-tp4\n", "    benchmark: deepseek-r1-fp8-tp5\n",
         "unknown benchmark config 'deepseek-r1-fp8-tp5' (did you mean 'deepseek-r1-fp8-tp8'?)"),
        ("  - id: qwen3-5-35b-a3b-fp8-tp2\n", "  - id: deepseek-r1-fp8-tp4\n",
         "duplicate case id 'deepseek-r1-fp8-tp4' (first at line 72)"),
    ],
    ids=["unset-what-is-not-set", "unknown-twin", "duplicate-id"],
)  # fmt: skip
def test_a_case_that_contradicts_the_catalogs_is_refused_at_its_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(root / ACCURACY, old, new)
    with pytest.raises(CatalogError) as info:
        load(root)
    assert str(info.value) == f"{root / ACCURACY}:{line}: {message}"
