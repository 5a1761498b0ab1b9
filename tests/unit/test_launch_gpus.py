"""generator.launch.gpus against the stand-in amd-smi and rocm-smi, in their JSON shapes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from generator.core.exits import Infrastructure
from generator.launch.gpus import Gpus, Process, check, probe

STANDIN = Path(__file__).resolve().parents[1] / "standin"


@pytest.fixture
def tool_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setenv("PYTHONPATH", str(STANDIN))
    monkeypatch.setenv("PYTHON", sys.executable)
    monkeypatch.setenv("SGLANG_STANDIN_GPU_COUNT", "2")
    monkeypatch.setenv("SGLANG_STANDIN_GPU_PROCESSES", "1:4242:python3")
    return monkeypatch


@pytest.mark.parametrize(
    ("static_shape", "warning"),
    [("gpu_data", ""), ("list", "WARNING: User is missing the following required groups: render")],
)
def test_amd_smi_gives_count_model_vram_and_processes(
    tool_env: pytest.MonkeyPatch, static_shape: str, warning: str
) -> None:
    tool_env.setenv("PATH", f"{STANDIN / 'gpu' / 'amd'}:{os.environ['PATH']}")
    tool_env.setenv("SGLANG_STANDIN_AMDSMI_STATIC", static_shape)
    tool_env.setenv("SGLANG_STANDIN_SMI_WARNING", warning)
    assert probe() == Gpus(
        tool="amd-smi",
        count=2,
        model="AMD Instinct MI355X",
        vram_gb=288.0,
        processes=(Process(gpu="1", pid="4242", name="python3"),),
        devices=("GPU 0 (0000:05:00.0)", "GPU 1 (0000:15:00.0)"),
    )


def test_rocm_smi_gives_the_same_facts(tool_env: pytest.MonkeyPatch) -> None:
    tool_env.setenv("PATH", f"{STANDIN / 'gpu' / 'rocm'}:{os.environ['PATH']}")
    found = probe()
    assert (found.tool, found.count, found.model, found.vram_gb, found.devices) == (
        "rocm-smi",
        2,
        "AMD Instinct MI355X",
        288.0,
        ("card0", "card1"),
    )
    assert [(p.pid, p.name) for p in found.processes] == [("4242", "python3")]


def test_the_check_needs_enough_idle_gpus_and_is_skipped_without_a_tool() -> None:
    idle = Gpus(tool="amd-smi", count=8, model=None, vram_gb=None, devices=("GPU 0",))
    check(idle, 8)
    with pytest.raises(
        Infrastructure, match=r"^the job needs 9 GPUs but amd-smi lists 8 \(GPU 0\)$"
    ):
        check(idle, 9)
    check(Gpus(tool=None, count=None, model=None, vram_gb=None), 8)
