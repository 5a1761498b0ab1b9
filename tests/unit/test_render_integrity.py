"""Render reads every workflow back: no catalog value can add a trigger, a cron or a job."""

from __future__ import annotations

import pytest

from generator.errors import LimitError
from generator.render import integrity, render
from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded

BENCHMARK = ".github/workflows/benchmark.yml"


def test_the_rendered_workflows_declare_exactly_the_catalogs_crons_jobs_and_inputs(
    fixture: Expanded,
) -> None:
    outputs = render(fixture, ROOT)
    docs = integrity.read_back(outputs)
    found = integrity.declared(docs[BENCHMARK])
    assert found == {
        "on": ["schedule", "workflow_dispatch"],
        "crons": ["0 14 * * 1,3", "0 14 * * 2,4", "0 14 * * 5", "0 14 * * 6"],
        "jobs": ["select", "run", "summary", "confirm", "events", "history", "pages"],
        "inputs": [
            "suite",
            "oob_preset",
            "mesh_preset",
            "configs",
            "points",
            "server_mode",
            "image",
            "resolve_images",
        ],
    }
    # Every workflow render writes is read back and checked, none left out.
    workflows = sorted(p for p in outputs if p.startswith(".github/workflows/"))
    assert (
        sorted(integrity.expected(fixture.catalog))
        == workflows
        == [
            ".github/workflows/ab-noise.yml",
            ".github/workflows/accuracy-case.yml",
            ".github/workflows/accuracy-nightly.yml",
            ".github/workflows/benchmark-job.yml",
            BENCHMARK,
            ".github/workflows/confirm-job.yml",
            ".github/workflows/pr-gpu.yml",
            ".github/workflows/pr.yml",
        ]
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            '"0 14 * * 5"  # Mesh, all:',
            '"0 14 * * 5"  # Mesh, all\n    - cron: "*/5 * * * *"  #',
            (
                "declares crons ['0 14 * * 1,3', '0 14 * * 2,4', '0 14 * * 5', '*/5 * * * *', "
                "'0 14 * * 6'] where the catalog and templates declare ['0 14 * * 1,3', "
                "'0 14 * * 2,4', '0 14 * * 5', '0 14 * * 6']"
            ),
        ),
        (
            "  workflow_dispatch:\n",
            "  push:\n  workflow_dispatch:\n",
            (
                "declares on ['schedule', 'push', 'workflow_dispatch'] where the catalog and "
                "templates declare ['schedule', 'workflow_dispatch']"
            ),
        ),
        (
            "\njobs:\n",
            "\njobs:\n  mine:\n    runs-on: self-hosted\n    steps: [{run: id}]\n",
            (
                "declares jobs ['mine', 'select', 'run', 'summary', 'confirm', 'events', "
                "'history', 'pages'] where the catalog and templates declare ['select', 'run', "
                "'summary', 'confirm', 'events', 'history', 'pages']"
            ),
        ),
    ],
    ids=["cron", "trigger", "job"],
)
def test_a_workflow_that_says_more_than_the_catalog_is_refused(
    fixture: Expanded, old: str, new: str, message: str
) -> None:
    outputs = dict(render(fixture, ROOT))
    assert old in outputs[BENCHMARK]
    outputs[BENCHMARK] = outputs[BENCHMARK].replace(old, new, 1)
    with pytest.raises(LimitError) as caught:
        integrity.check(fixture.catalog, integrity.read_back(outputs))
    assert str(caught.value) == (
        f"{BENCHMARK}:1: {BENCHMARK} {message}: a catalog value broke out of its place"
    )
