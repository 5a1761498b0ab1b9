"""Stand-ins for `amd-smi` and `rocm-smi` (`python -m smi_standin amd-smi|rocm-smi ARGS`,
wrapped by gpu/amd/amd-smi and gpu/rocm/rocm-smi, which tests put on PATH only when they
want GPUs). Only the JSON queries the launcher makes are answered, in the tools' shapes:

- `amd-smi list --json`: a list of {"gpu", "bdf", "uuid", "kfd_id", "node_id",
  "partition_id"}, one per GPU.
- `amd-smi static --asic --vram --json`: {"gpu_data": [{"gpu", "asic": {..., "market_name"},
  "vram": {"type", "vendor", "size": {"value": <MiB>, "unit": "MB"}, ...}}]}, the shape of
  the amd-smi that writes static and metric output through `combine_arrays_to_json`;
  $SGLANG_STANDIN_AMDSMI_STATIC=list prints the bare list of older releases (ROCm 6.2).
- `amd-smi process --json`: a list of {"gpu", "process_list": [{"process_info": {"name",
  "pid", "memory_usage", "mem_usage", ...}}]}, or {"process_info": "No running processes
  detected"} for a GPU without processes.
- `rocm-smi --showproductname --json`, `--showmeminfo vram --json`, `--showpids --json`:
  {"card0": {"Card Series": ...}}, {"card0": {"VRAM Total Memory (B)": "<bytes>"}},
  {"system": {"PID<pid>": "<name>, <gpus>, <vram bytes>, <sdma>, <cu occupancy>"}}.

Driven by $SGLANG_STANDIN_GPU_COUNT (default 8), $SGLANG_STANDIN_GPU_MODEL (default
"AMD Instinct MI355X"), $SGLANG_STANDIN_GPU_VRAM_MB (MiB, default 294912: 288 GiB) and
$SGLANG_STANDIN_GPU_PROCESSES="gpu:pid:name,..." (processes holding memory);
$SGLANG_STANDIN_SMI_WARNING=<text> prints that line before the JSON.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

PROCESS_BYTES = 1 << 30


def _count() -> int:
    return int(os.environ.get("SGLANG_STANDIN_GPU_COUNT") or "8")


def _model() -> str:
    return os.environ.get("SGLANG_STANDIN_GPU_MODEL") or "AMD Instinct MI355X"


def _vram_mib() -> int:
    return int(os.environ.get("SGLANG_STANDIN_GPU_VRAM_MB") or "294912")


def _processes() -> list[tuple[int, int, str]]:
    text = os.environ.get("SGLANG_STANDIN_GPU_PROCESSES") or ""
    out = []
    for item in filter(None, text.split(",")):
        gpu, pid, name = item.split(":", 2)
        out.append((int(gpu), int(pid), name))
    return out


def _unit(value: int, unit: str) -> dict[str, Any]:
    return {"value": value, "unit": unit}


def amd_smi(args: list[str]) -> object:
    command = args[0] if args else ""
    if "--json" not in args:
        msg = "smi_standin: only --json output is modelled"
        raise SystemExit(msg)
    gpus = range(_count())
    if command == "list":
        return [
            {
                "gpu": i,
                "bdf": f"0000:{0x05 + 0x10 * i:02x}:00.0",
                "uuid": f"{i:02x}ff75a3-0000-1000-8000-00000000000{i % 10}",
                "kfd_id": 1000 + i,
                "node_id": 2 + i,
                "partition_id": 0,
            }
            for i in gpus
        ]
    if command == "static":
        data = []
        for i in gpus:
            entry: dict[str, Any] = {"gpu": i}
            if "--asic" in args or "-a" in args:
                entry["asic"] = {
                    "market_name": _model(),
                    "vendor_id": "0x1002",
                    "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
                    "device_id": "0x75a3",
                    "target_graphics_version": "gfx950",
                }
            if "--vram" in args or "-v" in args:
                entry["vram"] = {
                    "type": "HBM3E",
                    "vendor": "N/A",
                    "size": _unit(_vram_mib(), "MB"),
                    "bit_width": 8192,
                    "max_bandwidth": _unit(8000, "GB/s"),
                }
            data.append(entry)
        if os.environ.get("SGLANG_STANDIN_AMDSMI_STATIC") == "list":
            return data
        return {"gpu_data": data}
    if command == "process":
        out = []
        for i in gpus:
            listing: list[dict[str, Any]] = [
                {
                    "process_info": {
                        "name": name,
                        "pid": pid,
                        "memory_usage": {
                            "gtt_mem": _unit(0, "B"),
                            "cpu_mem": _unit(0, "B"),
                            "vram_mem": _unit(PROCESS_BYTES, "B"),
                        },
                        "mem_usage": _unit(PROCESS_BYTES, "B"),
                        "usage": {"gfx": _unit(0, "ns"), "enc": _unit(0, "ns")},
                    }
                }
                for gpu, pid, name in _processes()
                if gpu == i
            ]
            out.append(
                {
                    "gpu": i,
                    "process_list": listing or [{"process_info": "No running processes detected"}],
                }
            )
        return out
    msg = f"smi_standin: amd-smi {command} is not modelled"
    raise SystemExit(msg)


def rocm_smi(args: list[str]) -> object:
    cards = [f"card{i}" for i in range(_count())]
    if "--showproductname" in args:
        return {
            card: {
                "Card Series": _model(),
                "Card Model": "0x75a3",
                "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]",
                "GFX Version": "gfx950",
            }
            for card in cards
        }
    if "--showmeminfo" in args:
        total = str(_vram_mib() * 1024 * 1024)
        return {
            card: {"VRAM Total Memory (B)": total, "VRAM Total Used Memory (B)": "0"}
            for card in cards
        }
    if "--showpids" in args:
        found = {
            f"PID{pid}": f"{name}, 1, {PROCESS_BYTES}, 0, 0" for _gpu, pid, name in _processes()
        }
        return {"system": found}
    msg = "smi_standin: this rocm-smi query is not modelled"
    raise SystemExit(msg)


def main(argv: list[str]) -> int:
    tool, args = argv[0], argv[1:]
    data = amd_smi(args) if tool == "amd-smi" else rocm_smi(args)
    warning = os.environ.get("SGLANG_STANDIN_SMI_WARNING")
    if warning:
        print(warning)  # a line some releases print before the JSON
    print(json.dumps(data, indent=4))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
