"""generator.errors: the did-you-mean hint of every unknown-name message."""

from __future__ import annotations

from generator.errors import did_you_mean


def test_the_hint_is_the_closest_name_case_aside_in_its_own_spelling() -> None:
    suites = ["SGLang-OOB", "SGLang-Mesh"]
    assert did_you_mean("sglang-oob", suites) == " (did you mean 'SGLang-OOB'?)"
    assert did_you_mean("SGLANG-MASH", suites) == " (did you mean 'SGLang-Mesh'?)"
    assert did_you_mean("aiter_runtim", ["aiter_runtime", "trust"]) == (
        " (did you mean 'aiter_runtime'?)"
    )


def test_no_hint_when_nothing_is_close() -> None:
    assert did_you_mean("glm", ["SGLang-OOB", "SGLang-Mesh"]) == ""
    assert did_you_mean("x", []) == ""
