"""Who may call the reusable GPU workflows (generator/dispatch/verify.py)."""

from __future__ import annotations

import pytest

from generator.dispatch.verify import Refused, check_caller

REF = "owner/repo/.github/workflows/benchmark.yml@refs/heads/main"


def call(workflow_ref: str, allowed: tuple[str, ...] = ("benchmark.yml",)) -> str:
    return check_caller(workflow_ref, repository="owner/repo", default_branch="main",
                        allowed=allowed)  # fmt: skip


def test_an_allowed_workflow_of_the_repository_on_the_default_branch_passes() -> None:
    assert call(REF) == REF


CALLERS = "benchmark.yml, accuracy-nightly.yml, pr-gpu.yml, ab-noise.yml"
EVIL = REF.replace("main", "evil")


@pytest.mark.parametrize(
    ("workflow_ref", "allowed", "message"),
    [
        (EVIL, ("benchmark.yml",),
         f"called from '{EVIL}': GPU jobs run only for benchmark.yml of owner/repo on main"),
        (REF, ("evil.yml",), f"callers: evil.yml is not one of {CALLERS}"),
        (REF, (), f"callers: none is not one of {CALLERS}"),
    ],
)  # fmt: skip
def test_any_other_caller_is_refused_in_one_line(
    workflow_ref: str, allowed: tuple[str, ...], message: str
) -> None:
    with pytest.raises(Refused) as caught:
        call(workflow_ref, allowed)
    assert str(caught.value) == message
