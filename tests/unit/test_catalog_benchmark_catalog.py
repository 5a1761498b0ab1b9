"""generator.catalog.benchmark_catalog: runners, clients, server modes and suites, each
checked against the names the catalog declares."""

from __future__ import annotations

import pytest

from tests.helpers import refusal_after_edit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("      --seed: 0\n", '      --seed: "{sed}"\n',
         ("--seed: unknown variable '{sed}'; a client may use {host}, "
          "{port}, {model}, {isl}, {osl}, {ratio}, {num_prompts}, {num_warmups}, {concurrency}, "
          "{output_file}")),
    ],
    ids=["client-variable"],
)  # fmt: skip
def test_a_client_that_names_what_is_not_there_is_refused_at_its_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert refusal_after_edit(tmp_path, old, new) == message
