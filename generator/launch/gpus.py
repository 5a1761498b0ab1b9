"""The GPUs this job sees: how many, which model, how much memory, and whether anything
already holds memory on them, from `amd-smi` or `rocm-smi`, whichever the image has.

Without either tool (a machine without GPUs, a developer's laptop, the tests) the check is
skipped with one warning line and the GPU fields of the results are null.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass

from generator.core.console import log
from generator.core.exits import Infrastructure

TOOL_TIMEOUT_S = 60.0


@dataclass(frozen=True, kw_only=True)
class Process:
    gpu: str
    pid: str
    name: str


@dataclass(frozen=True, kw_only=True)
class Gpus:
    tool: str | None
    count: int | None
    model: str | None
    vram_gb: float | None
    processes: tuple[Process, ...] = ()
    devices: tuple[str, ...] = ()


def _json(argv: list[str]) -> object:
    """The tool's JSON output, or None when it fails or prints something else. Lines
    before the JSON (a warning the tool prints first) are skipped."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=TOOL_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    lines = done.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip()[:1] in ("[", "{")), None)
    try:
        return None if start is None else json.loads("\n".join(lines[start:]))
    except ValueError:
        return None


def _gigabytes(value: object, unit: str = "B") -> float | None:
    """A memory size in GiB, from a number and its unit or '288 GB' text. The tools' units
    are binary: amd-smi's "MB" is MiB (the library divides bytes by 1024 * 1024), so an
    MI300X reads 192 and an MI355X 288, as their data sheets say."""
    if isinstance(value, dict):
        return _gigabytes(value.get("value"), str(value.get("unit", unit)))
    if isinstance(value, str):
        match = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", value)
        if not match:
            return None
        return _gigabytes(float(match[1]), match[2] or unit)
    if isinstance(value, int | float) and not isinstance(value, bool):
        scale = {"B": 2.0**-30, "KB": 2.0**-20, "MB": 2.0**-10, "GB": 1.0, "TB": 2.0**10}
        factor = scale.get(unit.upper().replace("IB", "B"))
        return None if factor is None else round(float(value) * factor, 1)
    return None


def _gpu_entries(data: object) -> list[dict[str, object]]:
    """The per-GPU objects of an amd-smi JSON answer: a bare list, or the object newer
    releases print for `static` and `metric` ({"gpu_data": [...], "cpu_data": ...})."""
    if isinstance(data, dict):
        data = data.get("gpu_data")
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []


def _amd_smi() -> Gpus:
    listed = _json(["amd-smi", "list", "--json"])
    gpus = _gpu_entries(listed)
    static = _gpu_entries(_json(["amd-smi", "static", "--asic", "--vram", "--json"]))
    first = static[0] if static else {}
    asic = first.get("asic")
    vram = first.get("vram")
    size = vram.get("size") if isinstance(vram, dict) else None
    found = []
    for gpu in _gpu_entries(_json(["amd-smi", "process", "--json"])):
        listing = gpu.get("process_list")
        for item in listing if isinstance(listing, list) else []:
            info = item.get("process_info", item) if isinstance(item, dict) else None
            if isinstance(info, dict) and "pid" in info:
                name = str(info.get("name"))
                found.append(Process(gpu=str(gpu.get("gpu")), pid=str(info["pid"]), name=name))
    model = asic.get("market_name") if isinstance(asic, dict) else None
    return Gpus(
        tool="amd-smi",
        count=len(gpus) if isinstance(listed, list) else None,
        model=str(model) if model and model != "N/A" else None,
        vram_gb=_gigabytes(size) if size is not None else None,
        processes=tuple(found),
        devices=tuple(f"GPU {g.get('gpu')} ({g.get('bdf')})" for g in gpus),
    )


def _rocm_smi() -> Gpus:
    names = _json(["rocm-smi", "--showproductname", "--json"])
    cards = sorted(k for k in names if k.startswith("card")) if isinstance(names, dict) else []
    model = None
    if isinstance(names, dict) and cards:
        model = names[cards[0]].get("Card Series") or names[cards[0]].get("Card series")
    memory = _json(["rocm-smi", "--showmeminfo", "vram", "--json"])
    total = None
    if isinstance(memory, dict) and cards and isinstance(memory.get(cards[0]), dict):
        total = _gigabytes(memory[cards[0]].get("VRAM Total Memory (B)"))
    pids = _json(["rocm-smi", "--showpids", "--json"])
    found = []
    system = pids.get("system", {}) if isinstance(pids, dict) else {}
    for key, value in system.items() if isinstance(system, dict) else ():
        if key.startswith("PID"):
            fields = [f.strip() for f in str(value).split(",")]
            found.append(Process(gpu="?", pid=key[3:], name=fields[0] if fields else "?"))
    return Gpus(
        tool="rocm-smi",
        count=len(cards) if names is not None else None,
        model=str(model) if model else None,
        vram_gb=total,
        processes=tuple(found),
        devices=tuple(cards),
    )


def probe() -> Gpus:
    if shutil.which("amd-smi"):
        return _amd_smi()
    if shutil.which("rocm-smi"):
        return _rocm_smi()
    log("warning: neither amd-smi nor rocm-smi is here: GPU check skipped, GPU fields null")
    return Gpus(tool=None, count=None, model=None, vram_gb=None)


def check(gpus: Gpus, needed: int) -> None:
    """Enough GPUs, and none held by a process before the server starts."""
    if gpus.tool is None:
        return
    if gpus.count is None:
        msg = f"{gpus.tool} did not list the GPUs; cannot check the {needed} needed"
        raise Infrastructure(msg)
    if gpus.count < needed:
        shown = ", ".join(gpus.devices) or "none"
        msg = f"the job needs {needed} GPUs but {gpus.tool} lists {gpus.count} ({shown})"
        raise Infrastructure(msg)
    if gpus.processes:
        held = "; ".join(f"GPU {p.gpu}: pid {p.pid} ({p.name})" for p in gpus.processes)
        msg = f"GPUs already in use before the server starts: {held}"
        raise Infrastructure(msg)
    log(f"GPUs: {gpus.count} x {gpus.model or 'unknown model'} ({gpus.tool}), none in use")
