"""generator/results/admit_images.py: the records admitted by their image."""

from __future__ import annotations

import json

import pytest

from generator.results.admit_images import Images, screen
from generator.results.record import ResultsError
from tests.results_gen import IMAGE, Point, Run, point_record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

REPOSITORY = IMAGE.partition(":")[0]


def written(tmp_path: Path, name: str, pinned: bool = True) -> tuple[Path, str]:
    record = point_record(Run(day=0), Point())
    if not pinned:
        record["provenance"]["image"]["pinned"] = None
    (tmp_path / name).write_text(json.dumps(record))
    return tmp_path / name, name


def test_a_record_not_pinned_by_digest_is_left_out(tmp_path: Path) -> None:
    pinned, tagged = written(tmp_path, "a.json"), written(tmp_path, "b.json", pinned=False)
    assert screen([pinned, tagged], Images(repositories=(REPOSITORY,))) == ([pinned], ["b.json"])


def test_a_record_of_another_repository_refuses_the_run(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match=r"^a.json: image '.*' is not of a declared image "):
        screen([written(tmp_path, "a.json")], Images(repositories=("other/image",)))


def test_a_record_of_a_pull_requests_image_refuses_the_run(tmp_path: Path) -> None:
    images = Images(repositories=(REPOSITORY,), pull_requests=(REPOSITORY,))
    with pytest.raises(ResultsError, match=r"is a pull request's image: the history admits none"):
        screen([written(tmp_path, "a.json")], images)
