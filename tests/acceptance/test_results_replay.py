"""`results replay` equals the nightly path: sixty nights judged and admitted one by one
as the workflows do (compare, the A/B outcome on the nights that had one, admit), then the
whole history judged again from its data alone."""

from __future__ import annotations

import json
import random

from click.testing import CliRunner, Result

from generator.cli.sglang_ci import main
from generator.results.history import ServerKey
from generator.verdicts.model import event_id
from tests.helpers import FIXTURE
from tests.results_gen import Run, Shape, point_record, sweep, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

NIGHTS = 60
POINTS = sweep(concurrencies=(4, 16, 64))
SERVER = ServerKey(
    config="ds-fp8-tp8", fingerprint="fp-ds-fp8-tp8", runner_label="mi355-8gpu",
    image_family="rocm/sgl-dev",
)  # fmt: skip
STEPS = {**dict.fromkeys(range(20, 28), 0.9), **dict.fromkeys(range(44, 60), 0.92)}
OUTLIERS = {33: 1, 51: 2}  # night -> the point 15% slower that night only
LOST = 12  # no run that night
AB = 44  # the night the A/B confirmed the second step


def cli(tmp_path: Path, *args: str, root: Path | None = None) -> Result:
    return CliRunner().invoke(
        main, ["--root", str(root or tmp_path), "results", *args], catch_exceptions=False
    )


def night(tmp_path: Path, day: int, history: Path, rng: random.Random) -> None:
    """One night as the workflows run it: compare (again with the A/B's outcome on the
    night it ran), then admit with the verdicts and the A/B's folder."""
    digest = "sha256:" + ("aa" if day < 20 else "bb" if day < 44 else "cc") * 32
    run = Run(day=day, digest=digest)
    speed = STEPS.get(day, 1.0)
    records = [
        point_record(
            run,
            p,
            Shape(throughput=speed * (0.85 if OUTLIERS.get(day) == i else 1.0), noise=0.02),
            rng,
        )
        for i, p in enumerate(POINTS)
    ]
    current = write_run(tmp_path / f"new{day}", run, records, name="run")
    verdicts = tmp_path / f"new{day}" / "verdicts.json"
    where = ["--history", str(history), "--current", str(current), "--name", run.name]
    done = cli(tmp_path, "compare", *where, "--json", "--out", str(verdicts))
    assert done.exit_code in (0, 1), done.output
    confirmation: list[str] = []
    if day == AB:
        folder = tmp_path / f"new{day}" / "confirmation"
        folder.mkdir()
        outcome = [{"event": event_id(SERVER, run.run_id), "result": "confirmed"}]
        (folder / "results.json").write_text(json.dumps(outcome))
        verdicts.unlink()
        again = cli(tmp_path, "compare", *where, "--confirmation", str(folder / "results.json"),
                    "--json", "--out", str(verdicts))  # fmt: skip
        assert again.exit_code == 1, again.output  # the A/B confirmed it tonight
        confirmation = ["--confirmation", str(folder)]
    admitted = cli(
        tmp_path, "admit", str(current), "--history", str(history), "--name", run.name,
        "--verdicts", str(verdicts), *confirmation, root=FIXTURE,
    )  # fmt: skip
    assert admitted.exit_code == 0, admitted.output


def test_replay_equals_what_each_night_wrote(tmp_path: Path) -> None:
    history = tmp_path / "history"
    history.mkdir()  # the first night's history job starts from an empty branch
    rng = random.Random(60)
    for day in range(NIGHTS):
        if day != LOST:
            night(tmp_path, day, history, rng)
    # A re-run of night 50 ("Re-run failed jobs") admitted again: the history holds it once.
    again = cli(
        tmp_path, "admit", str(tmp_path / "new50" / "run"), "--history", str(history),
        "--name", Run(day=50).name, "--verdicts", str(tmp_path / "new50" / "verdicts.json"),
        root=FIXTURE,
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    assert again.output.startswith("already admitted:")
    result = cli(tmp_path, "replay", "--history", str(history), "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert len(found) == NIGHTS - 1
    assert [r for r in found if not r["same"]] == []
    # The nights said what the data hold: both steps confirmed, the second by its A/B on
    # its first night, the one-night outliers never.
    states = {}
    for day in range(NIGHTS):
        if day == LOST:
            continue
        manifest = json.loads((history / Run(day=day).name / "manifest.json").read_text())
        states[day] = {
            (e["first_bad_run"], e["state"], e["confirmed_by"])
            for e in manifest["verdicts"]["events"]
        }
    assert (Run(day=20).name, "confirmed", "runs") in states[22]
    assert (Run(day=AB).name, "confirmed", "ab") in states[AB]
    confirmed = {(first, state) for found in states.values() for first, state, _ in found}
    assert [day for day in OUTLIERS if (Run(day=day).name, "confirmed") in confirmed] == []
