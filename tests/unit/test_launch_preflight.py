"""generator.launch.preflight: before a server starts, what every record of the job shares
(served model, server command as the probed SGLang names its flags, provenance), and a job
that cannot run here refused with what is known of it."""

from __future__ import annotations

from typing import cast

import pytest

from generator.core.exits import Infrastructure
from generator.launch import gpus, models, preflight, provenance_probe
from generator.launch.gpus import Gpus
from generator.launch.knobs import read_knobs
from generator.launch.process import Supervisor

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.core.contract import ServerEntry
    from generator.launch.knobs import Knobs

ENTRY = cast(
    "ServerEntry",
    {
        "id": "qwen-tp4",
        "model_path": "Qwen/Qwen3",
        "image": "rocm/atom-dev:sglang-latest",
        "runner": "mi355-8gpu",
        "gpus": 4,
        "server_args": ["--cuda-graph-bs", "1"],
        "server_spellings": [["--cuda-graph-bs", "--cuda-graph-bs-decode", "0.5.20", ""]],
        "env": {"SGLANG_X": "1"},
    },
)
FOUND = {"sglang": "0.5.20", "atom": None, "aiter": None, "lm_eval": None}


@pytest.fixture
def knobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Knobs:
    monkeypatch.setattr(provenance_probe, "ROCM_VERSION_FILE", tmp_path / "none")
    environ = {"MODEL_CACHE": "/models", "GITHUB_SHA": "c0ffee", "SGLANG_PORT": "30005"}
    return read_knobs(environ, tmp_path, tmp_path)


def test_records_written_before_the_probes_share_the_entry_as_written(knobs: Knobs) -> None:
    common = preflight.bare_common(ENTRY, knobs)
    assert common.served_model_path == "/models/Qwen/Qwen3"
    assert common.server_argv[-2:] == ["--cuda-graph-bs", "1"]
    assert common.server_env == {"SGLANG_X": "1"}
    assert (common.provenance["sglang_version"], common.provenance["gpu"]["count"]) == (None, None)
    assert common.provenance["catalog_commit"] == "c0ffee"


def probed(monkeypatch: pytest.MonkeyPatch, found_gpus: Gpus) -> list[str]:
    """The probes answering `found_gpus` and FOUND; what was done, in order."""
    done: list[str] = []
    monkeypatch.setattr(gpus, "probe", lambda: found_gpus)
    monkeypatch.setattr(provenance_probe, "versions", lambda _python: FOUND)

    def ensure(entry: ServerEntry, knobs: Knobs, supervisor: Supervisor) -> float:
        del entry, knobs, supervisor
        done.append("models")
        return 12.5

    monkeypatch.setattr(models, "ensure", ensure)
    return done


def test_a_ready_job_has_its_flags_named_as_the_image_s_sglang_names_them(
    knobs: Knobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = probed(monkeypatch, Gpus(tool="amd-smi", count=8, model="MI355X", vram_gb=288.0))
    ready = preflight.prepare(ENTRY, knobs, Supervisor(1.0))
    assert (ready.download_s, ready.versions, done) == (12.5, FOUND, ["models"])
    assert ready.common.server_argv[-2:] == ["--cuda-graph-bs-decode", "1"]
    assert ready.common.provenance["gpu"] == {"model": "MI355X", "count": 8, "vram_gb": 288.0}
    assert ready.common.provenance["sglang_version"] == "0.5.20"


def test_too_few_gpus_is_unready_before_any_download_with_what_is_known(
    knobs: Knobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = probed(monkeypatch, Gpus(tool="amd-smi", count=2, model="MI355X", vram_gb=288.0))
    with pytest.raises(preflight.Unready) as info:
        preflight.prepare(ENTRY, knobs, Supervisor(1.0))
    assert isinstance(info.value, Infrastructure)
    assert str(info.value) == "the job needs 4 GPUs but amd-smi lists 2 (none)"
    assert done == []
    assert info.value.common.provenance["gpu"]["count"] == 2
    assert info.value.common.server_argv[-2:] == ["--cuda-graph-bs-decode", "1"]
