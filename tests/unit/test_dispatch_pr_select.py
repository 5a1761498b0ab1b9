"""What a pull request's GPU run shows its reviewer and hands its jobs
(generator/dispatch/pr_select.py)."""

from __future__ import annotations

from typing import cast

from generator.dispatch.diff import Changes
from generator.dispatch.pr_select import approval_markdown, pr_outputs
from generator.dispatch.steps import Selected

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import JobEntry
    from generator.images.matrix import Matrix

CASE = {"id": "gsm8k-ds", "runner": "mi355", "image": "rocm/atom@sha256:aa",
        "image_requested": "rocm/atom:nightly"}  # fmt: skip
JOB = {"id": "ds-tp4", "server_mode": "atom", "runner": "mi355", "image": "rocm/atom@sha256:aa",
       "image_requested": "rocm/atom:nightly"}  # fmt: skip
CHANGES = Changes(
    base="main",
    files=("catalogs/benchmark.yaml",),
    cases=(("gsm8k-ds", "server_args changed"),),
    jobs=(("ds-tp4 (atom)", "new"), ("ds-tp8 (sglang)", "new; dispatch the benchmark workflow")),
)


def selected(*entries: dict[str, str]) -> Selected:
    return Selected(
        what="", matrix=cast("Matrix[JobEntry]", {"include": list(entries)}), summary=""
    )


def test_the_reviewer_sees_every_case_and_job_with_its_image_and_why() -> None:
    text = approval_markdown(CHANGES, selected(CASE), selected(JOB), head="h" * 7,
                             trusted="t" * 7, executed=("scripts/run.sh",))  # fmt: skip
    assert text.splitlines()[4:] == [
        "1 file(s) changed since the merge base with `main`.",
        "",
        (
            "The GPU jobs run these 1 file(s) from the head, each different from `main` "
            "(launcher, scripts, generator, templates, catalogs, workflows, install files, "
            "the PR image's build):"
        ),
        "",
        "- `scripts/run.sh`",
        "",
        "| Kind | Id | Runner label | Image | Requested | What changed |",
        "| --- | --- | --- | --- | --- | --- |",
        (
            "| accuracy case | `gsm8k-ds` | `mi355` | `rocm/atom@sha256:aa` | `rocm/atom:nightly` "
            "| server_args changed |"
        ),
        (
            "| benchmark job | `ds-tp4` | `mi355` | `rocm/atom@sha256:aa` | `rocm/atom:nightly` "
            "| new |"
        ),
        "",
        "Not run here (their server mode needs an image of its own):",
        "- `ds-tp8 (sglang)`: new; dispatch the benchmark workflow",
        "",
    ]


def test_nothing_reaching_a_gpu_says_so() -> None:
    text = approval_markdown(CHANGES, selected(), selected(), head="h", trusted="t")
    assert "The GPU jobs run no file that differs from `main`." in text
    assert "Nothing of this change reaches a GPU job." in text


def test_the_pr_outputs_are_both_matrices_and_no_build() -> None:
    assert pr_outputs(selected(CASE), selected()) == (
        'matrix={"include":[{"id":"gsm8k-ds","runner":"mi355","image":"rocm/atom@sha256:aa",'
        '"image_requested":"rocm/atom:nightly"}]}\ncount=1\n'
        'jobs={"include":[]}\njobs_count=0\nbuild=\n'
    )
