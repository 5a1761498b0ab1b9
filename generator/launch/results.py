"""What the tools' output says: the client's result line, lm-eval's results file, the
few-shot evaluation's metrics file. Nothing here raises on malformed output: a value that
cannot be read is None, with the reason."""

from __future__ import annotations

import json
import time
from pathlib import Path

from generator.launch.record import finite

ERROR_TAIL_LINES = 20


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def last_json_line(path: Path) -> dict[str, object] | None:
    """The last non-blank line of a JSON Lines file, when it is a JSON object (the client
    writes `Infinity` for an unlimited request rate; Python's json reads it)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in reversed(lines):
        if line.strip():
            try:
                data = json.loads(line)
            except ValueError:
                return None
            return data if isinstance(data, dict) else None
    return None


def lm_eval_score(output_dir: Path, task: str, metric: str) -> tuple[float | None, str | None]:
    """results[task][metric] of the newest results_*.json under `output_dir`, or why not."""
    try:
        files = sorted(output_dir.rglob("results_*.json"), key=lambda p: p.stat().st_mtime)
    except OSError as exc:
        return None, f"cannot list {output_dir}: {exc}"
    if not files:
        return None, f"lm_eval wrote no results_*.json under {output_dir}"
    try:
        value = json.loads(files[-1].read_text(encoding="utf-8"))["results"][task][metric]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, f"{files[-1]}: no results.{task}[{metric!r}] ({exc!r})"
    score = finite(value)
    return (score, None) if score is not None else (None, f"{files[-1]}: score {value!r}")


def few_shot_metrics(path: Path) -> tuple[dict[str, float | None], str | None]:
    """The metrics run_eval returned (accuracy unrounded), or why they cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return {}, f"no metrics from the few-shot evaluation in {path}: {exc}"
    if not isinstance(data, dict):
        return {}, f"{path}: not a JSON object"
    keys = ("accuracy", "invalid", "latency", "output_throughput")
    metrics = {key: finite(data.get(key)) for key in keys}
    if metrics["accuracy"] is None:
        return metrics, f"{path}: no finite accuracy ({data.get('accuracy')!r})"
    return metrics, None
