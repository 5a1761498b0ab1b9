"""A job's or an accuracy case's exact commands, as the launcher runs them (explain, docs).

Every command comes from `generator.core.commands`, the module the launcher executes;
what only the machine knows is shown as the variables the launcher reads it from
(`PYTHON`, `SGLANG_PORT`, `LOG_DIR`).
"""

from __future__ import annotations

import shlex

from generator.core import commands, docker_run, eval_commands
from generator.core.contract import LM_EVAL, CaseEntry, JobEntry
from generator.core.eval_commands import eval_argv, eval_log
from generator.core.knob_table import DEFAULTS, LOGS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# Catalog values never hold NUL (the loader refuses it), so these marks stand for the
# variables and nothing else.
WHERE = commands.Where(
    python="\0PYTHON\0",
    port="\0SGLANG_PORT\0",
    logs="\0LOG_DIR\0",
    model_cache="\0MODEL_CACHE\0",
    root="\0SGLANG_CI_ROOT\0",
)
PREAMBLE = (
    f"PYTHON=${{PYTHON:-{DEFAULTS['PYTHON']}}}",
    f"SGLANG_PORT=${{SGLANG_PORT:-{DEFAULTS['SGLANG_PORT']}}}",
    'SGLANG_CI_ROOT=$(realpath "${SGLANG_CI_ROOT:-.}")',
    f"MODEL_CACHE=${{MODEL_CACHE:-{docker_run.CONTAINER_CACHE}}}",
    f'RESULTS_DIR=$(realpath -m "${{RESULTS_DIR:-{DEFAULTS["RESULTS_DIR"]}}}")',
    f'LOG_DIR=$(realpath -m "${{LOG_DIR:-$RESULTS_DIR/{LOGS}}}")',
    'mkdir -p "${LOG_DIR}"',
)
# The readiness wait, with the launcher's knobs and their defaults.
READY_POLL = f"${{READY_POLL_S:-{DEFAULTS['READY_POLL_S']}}}"
READY_WAIT = (
    f"# ready when each of these answers 200 (every READY_POLL_S={DEFAULTS['READY_POLL_S']} s, "
    f"at most READY_TIMEOUT_S={DEFAULTS['READY_TIMEOUT_S']} s)"
)


def quote(token: str) -> str:
    """One shell word: literal text quoted, the variables as "${NAME}"."""
    if "\0" not in token:
        return shlex.quote(token)
    parts = token.split("\0")
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append('"${' + part + '}"')
        elif part:
            out.append(shlex.quote(part))
    return "".join(out)


def line(tokens: Iterable[str]) -> str:
    return " ".join(quote(t) for t in tokens)


def _models(entry: JobEntry | CaseEntry) -> list[str]:
    lines = [
        (
            "# models from the runner's cache (MODEL_CACHE, the label's model_cache mounted at "
            f"{docker_run.CONTAINER_CACHE}); a model that is not complete there is first "
            "downloaded, under a lock:"
        )
    ]
    for model, path in commands.models(entry, WHERE).items():
        lines.append("#   " + line(commands.download_argv(model, path)))
    lines.append("# (without MODEL_CACHE the launcher gives the server the ids themselves)")
    return lines


def _spellings(entry: JobEntry | CaseEntry, release: str | None) -> list[str]:
    """What the launcher renames for the SGLang the image carries (its version probe)."""
    if release:
        return [f"# flags as SGLang {release} names them"] if "server_spellings" in entry else []
    lines = []
    for flag, name, first, last in entry.get("server_spellings", []):
        releases = f"{first} to {last}" if last else f"{first} and later"
        lines.append(f"# on SGLang {releases} the launcher gives {flag} as {name} (--sglang)")
    return lines


def _server(entry: JobEntry | CaseEntry, release: str | None) -> list[str]:
    url = commands.base_url(WHERE)
    lines = [
        *_models(entry),
        *_spellings(entry, release),
        "# the server: its env on top of the caller's, in its own process group",
        "(",
        *(f"  export {k}={shlex.quote(v)}" for k, v in entry["env"].items()),
        "  exec " + line(commands.server_argv(entry, WHERE, release)),
        ") >> " + quote(commands.server_log(entry, WHERE)) + " 2>&1 &",
        READY_WAIT,
    ]
    lines += [
        f'until curl -fs -o /dev/null {quote(url + path)}; do sleep "{READY_POLL}"; done'
        for path in commands.READY_PATHS
    ]
    return lines


def job_text(job: JobEntry, title: str, release: str | None = None) -> str:
    lines = [
        f"# {title}",
        (
            f"# runner: {job['runner']}   image: {job['image'] or '(set by the dispatch)'}"
            f"   server mode: {job['server_mode']}"
        ),
        (
            f"# estimated: {job['startup_minutes']} min of start-up, {job['estimate_minutes']} min "
            "in all"
        ),
        *PREAMBLE,
        *_server(job, release),
    ]
    url = commands.base_url(WHERE)
    flush = line(["curl", "-fsS", "-X", "POST", url + commands.FLUSH_PATH])
    info = line(["curl", "-fs", url + commands.SERVER_INFO_PATHS[0]])
    client_env = "".join(f"{k}={shlex.quote(v)} " for k, v in job["client"]["env"].items())
    total = len(job["points"])
    for n, point in enumerate(job["points"], 1):
        if n > 1:
            lines.append(f"{flush} > /dev/null")
        lines.append(
            f"# point {n} of {total}: {point['id']} (estimated {point['estimate_minutes']} min)"
        )
        argv, log = commands.bench_argv(job, point, WHERE), commands.bench_log(point, WHERE)
        lines.append(f"{client_env}{line(argv)} > {quote(log)} 2>&1")
        if job["spec"] != "none":
            lines.append(
                f"{info}  # internal_states[0].avg_spec_accept_length, before the next flush"
            )
    return "\n".join(lines) + "\n"


def case_text(case: CaseEntry, level: str = "", release: str | None = None) -> str:
    """The commands of one case run; `level` is named when the case's levels run on
    different runner labels."""
    ev = case["evaluator"]
    work = quote(eval_commands.eval_dir(case, WHERE))
    gate = (
        f'results["{ev["task"]}"]["{ev["metric"]}"]'
        if ev["kind"] == LM_EVAL
        else 'the unrounded "accuracy" run_eval returned, in '
        + quote(eval_commands.metrics_file(case, WHERE))
    )
    lines = [
        f"# accuracy case {case['id']}: {case['name']}" + (f" (level {level})" if level else ""),
        f"# runner: {case['runner']}   image: {case['image']}",
        *PREAMBLE,
        *_server(case, release),
        f"# the evaluator ({ev['kind']}), in a directory of its own",
        f"rm -rf {work} && mkdir -p {work} && cd {work}",
        f"{line(eval_argv(case, WHERE))} > {quote(eval_log(case, WHERE))} 2>&1",
        "cd - > /dev/null",
        f"# gate: {gate} >= {case['threshold']}",
    ]
    if case["min_acceptance_rate"] is not None:
        lines.append(
            f"# gate: acceptance rate (accept length - 1) / {case['draft_tokens']} >= "
            f"{case['min_acceptance_rate']}, from GET {commands.SERVER_INFO_PATHS[0]}"
        )
    return "\n".join(lines) + "\n"
