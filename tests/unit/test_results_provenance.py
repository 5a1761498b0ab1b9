"""generator/results/provenance.py: which run this is, and the texts that name it."""

from __future__ import annotations

from generator.results.provenance import run_info, short_digest, title, versions_text
from generator.results.store import Store


def test_a_run_is_titled_by_its_number_else_its_id() -> None:
    assert title({"workflow": "Benchmark", "number": 123, "attempt": "2"}, None) == (
        "Benchmark #123 (attempt 2)"
    )
    assert (
        title({"workflow": "Benchmark", "id": "987", "attempt": "1"}, None) == "Benchmark run 987"
    )
    assert (title({}, None), title({}, "run-1")) == ("(no records)", "run-1")


def test_a_digest_is_shortened_as_docker_shows_it() -> None:
    assert short_digest("sha256:" + "0123456789abcdef" * 4) == "sha256:0123456789ab"
    assert (short_digest(None), short_digest("abc")) == (None, "abc")


def test_the_versions_of_an_image_each_named() -> None:
    image = {"sglang_version": "0.5.6", "atom_version": "0.1", "rocm_version": "7.0.2"}
    assert versions_text(image) == "SGLang 0.5.6 · ATOM 0.1 · AITER - · ROCm 7.0.2"


def test_the_jobs_github_variables_name_the_run() -> None:
    environ = {
        "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "5", "GITHUB_RUN_NUMBER": "12",
        "GITHUB_WORKFLOW": "Benchmark", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_SHA": "",
    }  # fmt: skip
    assert run_info(Store(), environ) == {
        "workflow": "Benchmark", "number": 12, "id": "5", "attempt": "1", "repository": "o/r",
        "url": "https://github.com/o/r/actions/runs/5", "event": None, "ref": None, "sha": None,
    }  # fmt: skip
