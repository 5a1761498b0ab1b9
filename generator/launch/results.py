"""What the tools' output says: the client's result line, lm-eval's results file, the
few-shot evaluation's metrics file. Nothing here raises on malformed output (garbage,
bytes that are not UTF-8, nesting too deep for the parser, huge files, NaN): a value that
cannot be read is None, with the reason."""

from __future__ import annotations

import json
import os
import time

from generator.core.logtext import clip
from generator.core.record_rules import finite

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

ERROR_TAIL_LINES = 20
# The most of an output file that is read: a result line or results file is a few KiB, a
# client asked for per-request details can write tens of MiB.
MAX_READ_BYTES = 256 * 1024 * 1024


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _read(path: Path) -> tuple[bytes | None, str | None]:
    """The file's bytes (its last MAX_READ_BYTES), or why not."""
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - MAX_READ_BYTES))
            return handle.read(), None
    except FileNotFoundError:
        return None, f"{path} does not exist"
    except OSError as exc:
        return None, f"cannot read {path}: {exc.strerror or exc}"


def _json(data: bytes, where: str) -> tuple[object, str | None]:
    """Decode JSON (Python's reader: NaN and Infinity allowed), or why not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"{where} is not UTF-8 (byte {exc.start})"
    try:
        return json.loads(text), None
    except RecursionError:
        return None, f"{where} is nested too deeply to read"
    except ValueError as exc:
        return None, f"{where} is not JSON ({clip(str(exc), 120)})"


def result_line(path: Path) -> tuple[dict[str, object] | None, str | None]:
    """The last non-blank line of a JSON Lines file as a JSON object, or why not (the
    client writes `Infinity` for an unlimited request rate; Python's json reads it)."""
    data, error = _read(path)
    if data is None:
        return None, error
    if len(data) >= MAX_READ_BYTES and b"\n" not in data.rstrip(b"\n"):
        return None, f"the last line of {path} is longer than {MAX_READ_BYTES} bytes"
    lines = [line for line in data.splitlines() if line.strip()]
    if not lines:
        return None, f"{path} is empty"
    line, error = _json(lines[-1], f"the last line of {path}")
    if error is not None:
        return None, error
    if not isinstance(line, dict):
        return None, f"the last line of {path} is not a JSON object"
    return line, None


def lm_eval_score(output_dir: Path, task: str, metric: str) -> tuple[float | None, str | None]:
    """results[task][metric] of the newest results_*.json under `output_dir`, or why not."""
    try:
        files = sorted(output_dir.rglob("results_*.json"), key=lambda p: p.stat().st_mtime)
    except OSError as exc:
        return None, f"cannot list {output_dir}: {exc}"
    if not files:
        return None, f"lm_eval wrote no results_*.json under {output_dir}"
    data, error = _read(files[-1])
    if data is None:
        return None, error
    loaded, error = _json(data, str(files[-1]))
    if error is not None:
        return None, error
    node = loaded
    for key in ("results", task, metric):
        if not isinstance(node, dict) or key not in node:
            return None, f"{files[-1]}: no results.{task}[{metric!r}] (no {key!r})"
        node = node[key]
    return score_of(node, str(files[-1]))


def score_of(value: object, where: str) -> tuple[float | None, str | None]:
    """A score: a finite number from 0 to 1, or why not."""
    score = finite(value)
    if score is None:
        return None, f"{where}: score {clip(repr(value))} is not a finite number"
    if not 0 <= score <= 1:
        return None, f"{where}: score {score} is outside 0 to 1"
    return score, None


def few_shot_metrics(path: Path) -> tuple[dict[str, float | None], str | None]:
    """The metrics run_eval returned (accuracy unrounded), or why they cannot be read."""
    data, error = _read(path)
    if data is None:
        return {}, f"no metrics from the few-shot evaluation: {error}"
    loaded, error = _json(data, str(path))
    if error is not None:
        return {}, f"no metrics from the few-shot evaluation: {error}"
    if not isinstance(loaded, dict):
        return {}, f"{path}: not a JSON object"
    keys = ("accuracy", "invalid", "latency", "output_throughput")
    metrics = {key: finite(loaded.get(key)) for key in keys}
    if metrics["accuracy"] is None:
        return metrics, f"{path}: no finite accuracy ({clip(repr(loaded.get('accuracy')))})"
    metrics["accuracy"], error = score_of(metrics["accuracy"], str(path))
    return metrics, error
