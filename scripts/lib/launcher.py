"""JSON plumbing for the SGLang launchers (standard library only).

The bash launchers never parse JSON themselves: they call this helper, which
validates the job/case file, emits argv and env entries as NUL-terminated
tokens (read with ``mapfile -d ''``), normalizes evaluator output into result
files and renders the GitHub step-summary markdown.

Exit status of every subcommand: 0 on success, 2 on invalid input; the
``accuracy-result`` subcommand mirrors the launcher's exit code (0 pass,
1 below threshold, 2 infrastructure failure).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
ENV_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Metric keys copied verbatim from the line sglang.bench_serving appends to --output-file.
BENCH_METRICS = (
    "request_throughput",
    "input_throughput",
    "output_throughput",
    "mean_ttft_ms",
    "median_ttft_ms",
    "p99_ttft_ms",
    "mean_tpot_ms",
    "median_tpot_ms",
    "p99_tpot_ms",
    "mean_itl_ms",
    "median_itl_ms",
    "p99_itl_ms",
    "mean_e2e_latency_ms",
    "median_e2e_latency_ms",
    "p99_e2e_latency_ms",
)
POINT_INT_FIELDS = ("isl", "osl", "concurrency", "num_prompts", "num_warmups")
EVALUATOR_KINDS = ("lm-eval", "sglang-few-shot-gsm8k")


class InputError(Exception):
    """The job or case file does not follow the launcher contract."""


def fail(message: str) -> NoReturn:
    print(f"launcher.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def load_object(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read JSON from {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise InputError(f"{path}: top level must be a JSON object")
    return data


def need_str(obj: dict[str, Any], key: str, where: str, *, ident: bool = False) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: '{key}' must be a non-empty string")
    if ident and not ID_RE.fullmatch(value):
        raise InputError(f"{where}: '{key}' {value!r} must match {ID_RE.pattern}")
    return value


def need_number(obj: dict[str, Any], key: str, where: str, *, integer: bool) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}: '{key}' must be a number")
    if integer and not isinstance(value, int):
        raise InputError(f"{where}: '{key}' must be an integer")
    if not math.isfinite(value):
        raise InputError(f"{where}: '{key}' must be finite")
    return float(value)


def check_server_fields(obj: dict[str, Any], where: str) -> None:
    need_str(obj, "id", where, ident=True)
    need_str(obj, "model_path", where)
    args = obj.get("server_args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise InputError(f"{where}: 'server_args' must be a list of strings")
    if any("\0" in a for a in args):
        raise InputError(f"{where}: 'server_args' tokens must not contain NUL")
    env = obj.get("env", {})
    if not isinstance(env, dict):
        raise InputError(f"{where}: 'env' must be an object")
    for key, value in env.items():
        if not ENV_KEY_RE.fullmatch(key):
            raise InputError(f"{where}: env key {key!r} is not a valid variable name")
        if not isinstance(value, str) or "\0" in value:
            raise InputError(f"{where}: env value of {key} must be a string without NUL")


def check_job(job: dict[str, Any], where: str) -> None:
    check_server_fields(job, where)
    points = job.get("points")
    if not isinstance(points, list) or not points:
        raise InputError(f"{where}: 'points' must be a non-empty list")
    seen: set[str] = set()
    for index, point in enumerate(points):
        at = f"{where}: points[{index}]"
        if not isinstance(point, dict):
            raise InputError(f"{at} must be an object")
        point_id = need_str(point, "id", at, ident=True)
        if point_id in seen:
            raise InputError(f"{at}: duplicate point id {point_id!r}")
        seen.add(point_id)
        for key in POINT_INT_FIELDS:
            need_number(point, key, at, integer=True)
        need_number(point, "random_range_ratio", at, integer=False)


def check_case(case: dict[str, Any], where: str) -> None:
    check_server_fields(case, where)
    need_number(case, "threshold", where, integer=False)
    evaluator = case.get("evaluator")
    if not isinstance(evaluator, dict):
        raise InputError(f"{where}: 'evaluator' must be an object")
    kind = evaluator.get("kind")
    at = f"{where}: evaluator"
    if kind == "lm-eval":
        need_str(evaluator, "task", at)
        need_str(evaluator, "metric", at)
        need_number(evaluator, "num_fewshot", at, integer=True)
        need_number(evaluator, "num_concurrent", at, integer=True)
        if "model" in evaluator:
            need_str(evaluator, "model", at)
        if "," in str(case["model_path"]):
            raise InputError(f"{where}: lm-eval model_args cannot carry a ',' in model_path")
    elif kind == "sglang-few-shot-gsm8k":
        for key in ("num_shots", "num_questions", "parallel"):
            need_number(evaluator, key, at, integer=True)
    else:
        raise InputError(f"{at}: 'kind' must be one of {', '.join(EVALUATOR_KINDS)}")


def emit_tokens(tokens: Sequence[str]) -> None:
    out = sys.stdout.buffer
    for token in tokens:
        out.write(token.encode("utf-8", "surrogateescape") + b"\0")
    out.flush()


def scalar_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return json.dumps(value)


def read_json_line(path: Path) -> dict[str, Any] | None:
    """Return the last JSON object line of a JSONL file, or None."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if line.strip():
            try:
                data = json.loads(line)
            except ValueError:
                return None
            return data if isinstance(data, dict) else None
    return None


def tail_text(path: str | None, lines: int = 20) -> str:
    if not path:
        return ""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def finite_or_none(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def write_json(path: str, data: dict[str, Any]) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(target)


def seconds_between(start: str, end: str) -> float | None:
    try:
        return round(float(end) - float(start), 3)
    except ValueError:
        return None


# ---------------------------------------------------------------- subcommands


def evaluator_meta(case: dict[str, Any]) -> list[str]:
    evaluator: dict[str, Any] = case["evaluator"]
    kind = evaluator["kind"]
    if kind == "lm-eval":
        keys = ("task", "num_fewshot", "num_concurrent")
        values = [str(evaluator.get("model", "local-completions"))]
    else:
        keys = ("num_shots", "num_questions", "parallel")
        values = []
    return [
        kind,
        scalar_text(case["threshold"]),
        *values,
        *(scalar_text(evaluator[k]) for k in keys),
    ]


def cmd_describe(ns: argparse.Namespace) -> None:
    """Validate, then emit: id, model_path, N, N meta tokens, N, N server args, N, N K=V.

    Meta for a job: the number of points. For a case: evaluator kind, threshold,
    then for lm-eval: model, task, num_fewshot, num_concurrent; for
    sglang-few-shot-gsm8k: num_shots, num_questions, parallel.
    """
    data = load_object(ns.file)
    if ns.kind == "job":
        check_job(data, ns.file)
        meta = [str(len(data["points"]))]
    else:
        check_case(data, ns.file)
        meta = evaluator_meta(data)
    args: list[str] = data.get("server_args", [])
    env: dict[str, str] = data.get("env", {})
    emit_tokens(
        [
            data["id"],
            data["model_path"],
            str(len(meta)),
            *meta,
            str(len(args)),
            *args,
            str(len(env)),
            *(f"{key}={value}" for key, value in env.items()),
        ]
    )


def cmd_points(ns: argparse.Namespace) -> None:
    """Emit 7 tokens per point: id, isl, osl, concurrency, num_prompts, num_warmups, ratio."""
    tokens: list[str] = []
    for point in load_object(ns.file)["points"]:
        tokens += [scalar_text(point[key]) for key in ("id", *POINT_INT_FIELDS)]
        tokens.append(scalar_text(point["random_range_ratio"]))
    emit_tokens(tokens)


def quote(args: Sequence[str]) -> int:
    """`quote N K=V... ARGV...`: print N env lines then the command, shell-quoted."""
    if not args or not args[0].isdigit() or int(args[0]) > len(args) - 1:
        fail("usage: quote N K=V... ARGV...")
    count = int(args[0])
    for entry in args[1 : 1 + count]:
        key, _, value = entry.partition("=")
        print(f"{key}={shlex.quote(value)}")
    print(shlex.join(args[1 + count :]))
    return 0


def point_identity(job: dict[str, Any], point: dict[str, Any]) -> dict[str, Any]:
    return {
        "job_id": job["id"],
        "suite": job.get("suite"),
        "config": job.get("config"),
        "display": job.get("display"),
        "model_path": job["model_path"],
        "runner": job.get("runner"),
        "image": job.get("image"),
        "server_mode": job.get("server_mode"),
        "point_id": point["id"],
        "isl": point["isl"],
        "osl": point["osl"],
        "concurrency": point["concurrency"],
        "random_range_ratio": point["random_range_ratio"],
        "num_prompts": point["num_prompts"],
        "num_warmups": point["num_warmups"],
        "estimate_minutes": point.get("estimate_minutes"),
    }


def cmd_bench_result(ns: argparse.Namespace) -> None:
    """Normalize one bench_serving run into <results>/<point id>.json; print the status."""
    job = load_object(ns.job)
    point = job["points"][ns.index]
    result = point_identity(job, point)
    metrics: dict[str, float | None] = {key: None for key in BENCH_METRICS}
    completed: int | None = None
    error: str | None = ns.error or None
    status = ns.status
    if status == "ran":
        line = read_json_line(Path(ns.raw)) if ns.raw else None
        if ns.rc != 0:
            status = "failed"
            detail = tail_text(ns.log)
            error = f"sglang.bench_serving exited with status {ns.rc}" + (
                f":\n{detail}" if detail else ""
            )
        elif line is None:
            status = "failed"
            error = "sglang.bench_serving wrote no result line to its --output-file"
        else:
            done = line.get("completed")
            completed = done if isinstance(done, int) and not isinstance(done, bool) else None
            for key in BENCH_METRICS:
                metrics[key] = finite_or_none(line.get(key))
            if completed != point["num_prompts"]:
                status = "failed"
                error = f"{completed} of {point['num_prompts']} requests completed"
            else:
                status = "ok"
        if status == "failed" and ns.server_dead:
            status = "server-died"
            error = "server process exited during the point; " + (error or "")
    result.update(
        {
            "status": status,
            "error": error,
            "completed": completed,
            **metrics,
            "wall_time_s": seconds_between(ns.started, ns.ended) if ns.started else None,
            "server_start_s": ns.server_start_s,
        }
    )
    write_json(ns.out, result)
    sys.stdout.write(status)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def md_cell(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def cmd_bench_summary(ns: argparse.Namespace) -> None:
    job = load_object(ns.job)
    title = job.get("display") or job["id"]
    results: list[dict[str, Any]] = []
    for point in job["points"]:
        path = Path(ns.results_dir) / f"{point['id']}.json"
        try:
            results.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            results.append({"status": "missing"})
    # Measured against estimated minutes, so the catalog's estimates can be refined.
    starts = [r["server_start_s"] for r in results if is_number(r.get("server_start_s"))]
    startup = md_cell(starts[0] / 60, 1) if starts else "-"
    rows = [
        f"### Benchmark: {md_cell(title)} (`{job['id']}`)",
        "",
        f"Image `{md_cell(job.get('image'))}` · runner `{md_cell(job.get('runner'))}`"
        f" · server starts: {ns.starts} · start-up {startup} min"
        f" (estimated {md_cell(job.get('startup_minutes'))})",
        "",
        "| Point | ISL | OSL | Conc | Status | Req/s | Output tok/s | TTFT p50 (ms) "
        "| TPOT p50 (ms) | ITL p50 (ms) | E2E p50 (ms) | Minutes | Estimated |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for point, res in zip(job["points"], results, strict=True):
        wall = res.get("wall_time_s")
        cells = [
            f"`{point['id']}`",
            md_cell(point["isl"]),
            md_cell(point["osl"]),
            md_cell(point["concurrency"]),
            md_cell(res.get("status")),
            md_cell(res.get("request_throughput")),
            md_cell(res.get("output_throughput")),
            md_cell(res.get("median_ttft_ms")),
            md_cell(res.get("median_tpot_ms")),
            md_cell(res.get("median_itl_ms")),
            md_cell(res.get("median_e2e_latency_ms")),
            md_cell(wall / 60, 1) if is_number(wall) else "-",
            md_cell(point.get("estimate_minutes")),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    print("\n".join(rows) + "\n")


FEW_SHOT_PATTERNS = {
    "accuracy": re.compile(r"^Accuracy: ([0-9.eE+-]+|nan)\s*$", re.MULTILINE),
    "invalid_rate": re.compile(r"^Invalid: ([0-9.eE+-]+|nan)\s*$", re.MULTILINE),
    "latency_s": re.compile(r"^Latency: ([0-9.eE+-]+) s\s*$", re.MULTILINE),
    "output_throughput": re.compile(r"^Output throughput: ([0-9.eE+-]+) token/s\s*$", re.MULTILINE),
}


def parse_few_shot(log: str) -> dict[str, float | None]:
    try:
        text = Path(log).read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    found: dict[str, float | None] = {}
    for key, pattern in FEW_SHOT_PATTERNS.items():
        matches = pattern.findall(text)
        found[key] = finite_or_none(float(matches[-1])) if matches else None
    return found


def lm_eval_score(output_dir: str, task: str, metric: str) -> tuple[float | None, str | None]:
    """Read results[task][metric] from the newest results_*.json lm-eval wrote."""
    files = sorted(Path(output_dir).rglob("results_*.json"), key=lambda p: p.stat().st_mtime)
    if not files:
        return None, f"lm_eval wrote no results_*.json under {output_dir}"
    try:
        data = json.loads(files[-1].read_text(encoding="utf-8"))
        value = data["results"][task][metric]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, f"{files[-1]}: no results.{task}[{metric!r}] ({exc!r})"
    score = finite_or_none(value)
    return (score, None) if score is not None else (None, f"{files[-1]}: score {value!r}")


def cmd_accuracy_result(ns: argparse.Namespace) -> int:
    case = load_object(ns.case)
    evaluator: dict[str, Any] = case["evaluator"]
    kind = evaluator["kind"]
    threshold = float(case["threshold"])
    score: float | None = None
    extra: dict[str, float | None] = {
        "invalid_rate": None,
        "latency_s": None,
        "output_throughput": None,
    }
    error: str | None = ns.error or None
    if error is None:
        if kind == "lm-eval":
            score, error = lm_eval_score(ns.output_dir, evaluator["task"], evaluator["metric"])
        else:
            parsed = parse_few_shot(ns.log)
            score = parsed.pop("accuracy")
            extra.update(parsed)
            if score is None:
                error = "sglang.test.few_shot_gsm8k printed no 'Accuracy:' line"
        if ns.rc != 0:
            detail = tail_text(ns.log)
            error = f"evaluator exited with status {ns.rc}" + (f":\n{detail}" if detail else "")
            score = None
    if error is not None or score is None:
        status, passed, code = "error", False, 2
    elif score >= threshold:
        status, passed, code = "passed", True, 0
    else:
        status, passed, code = "failed", False, 1
    result: dict[str, Any] = {
        "case_id": case["id"],
        "name": case.get("name"),
        "suite": case.get("suite"),
        "model_path": case["model_path"],
        "runner": case.get("runner"),
        "image": case.get("image"),
        "evaluator": kind,
        "task": evaluator.get("task", "gsm8k"),
        "metric": evaluator.get("metric", "accuracy"),
        "score": score,
        "threshold": threshold,
        "passed": passed,
        "status": status,
        "error": error,
        **extra,
        "eval_wall_time_s": seconds_between(ns.started, ns.ended) if ns.started else None,
        "server_start_s": ns.server_start_s,
    }
    write_json(ns.out, result)
    if ns.summary:
        Path(ns.summary).write_text(accuracy_summary(result), encoding="utf-8")
    sys.stdout.write(status)
    return code


def accuracy_summary(res: dict[str, Any]) -> str:
    title = res.get("name") or res["case_id"]
    verdict = {"passed": "✅ passed", "failed": "❌ below threshold", "error": "⚠️ error"}
    rows = [
        f"### Accuracy: {md_cell(title)} (`{res['case_id']}`)",
        "",
        "| Evaluator | Metric | Score | Threshold | Result | Invalid | Latency (s) |",
        "|---|---|---:|---:|---|---:|---:|",
        "| "
        + " | ".join(
            [
                md_cell(res.get("evaluator")),
                f"`{md_cell(res.get('metric'))}`",
                md_cell(res.get("score"), 4),
                md_cell(res.get("threshold"), 4),
                verdict.get(str(res.get("status")), md_cell(res.get("status"))),
                md_cell(res.get("invalid_rate"), 3),
                md_cell(res.get("latency_s"), 1),
            ]
        )
        + " |",
    ]
    if res.get("error"):
        first = str(res["error"]).splitlines()[0]
        rows += ["", f"Error: {md_cell(first)}"]
    return "\n".join(rows) + "\n\n"


def server_start_arg(text: str) -> float | None:
    return float(text) if text else None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="launcher.py")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("describe")
    p.add_argument("kind", choices=("job", "case"))
    p.add_argument("file")
    p.set_defaults(func=cmd_describe)

    p = sub.add_parser("points")
    p.add_argument("file")
    p.set_defaults(func=cmd_points)

    p = sub.add_parser("bench-result")
    p.add_argument("--job", required=True)
    p.add_argument("--index", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--status", choices=("ran", "failed", "server-died"), default="ran")
    p.add_argument("--error", default="")
    p.add_argument("--raw", default="")
    p.add_argument("--log", default="")
    p.add_argument("--rc", type=int, default=0)
    p.add_argument("--server-dead", action="store_true")
    p.add_argument("--started", default="")
    p.add_argument("--ended", default="")
    p.add_argument("--server-start-s", type=server_start_arg, default=None)
    p.set_defaults(func=cmd_bench_result)

    p = sub.add_parser("bench-summary")
    p.add_argument("--job", required=True)
    p.add_argument("--results-dir", required=True)
    p.add_argument("--starts", type=int, required=True)
    p.set_defaults(func=cmd_bench_summary)

    p = sub.add_parser("accuracy-result")
    p.add_argument("--case", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--error", default="")
    p.add_argument("--log", default="")
    p.add_argument("--output-dir", default="")
    p.add_argument("--rc", type=int, default=0)
    p.add_argument("--started", default="")
    p.add_argument("--ended", default="")
    p.add_argument("--server-start-s", type=server_start_arg, default=None)
    p.add_argument("--summary", default="", help="also write the markdown summary here")
    p.set_defaults(func=cmd_accuracy_result)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["quote"]:
        return quote(args[1:])
    ns = build_parser().parse_args(args)
    try:
        code = ns.func(ns)
    except InputError as exc:
        fail(str(exc))
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
