"""Stage `explain`: the exact commands of anything an id names, as the launcher runs them.

Every command comes from `generator.launch.commands`, the module the launcher executes;
what only the machine knows is shown as the variables the launcher reads it from
(`PYTHON`, `SGLANG_PORT`, `LOG_DIR`).
"""

from __future__ import annotations

import shlex

from generator.catalog.model import PER_SERVER, Config
from generator.errors import SelectionError, did_you_mean
from generator.expand.entries import case_entry, job_entry, point_entry
from generator.expand.model import KINDS, CaseRun, Cell, Expanded, Job, Target
from generator.expand.select import check_mode, default_mode, image_for
from generator.launch import commands, docker_run, eval_commands
from generator.launch.contract import LM_EVAL, CaseEntry, JobEntry
from generator.launch.knob_table import DEFAULTS, LOGS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# Catalog values never hold NUL (the loader refuses it), so these marks stand for the
# variables and nothing else.
VARIABLES = ("PYTHON", "SGLANG_PORT", "LOG_DIR", "MODEL_CACHE", "SGLANG_CI_ROOT")
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
        lines.append(
            client_env
            + line(commands.bench_argv(job, point, WHERE))
            + " > "
            + quote(commands.bench_log(point, WHERE))
            + " 2>&1"
        )
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
        line(eval_commands.eval_argv(case, WHERE))
        + " > "
        + quote(eval_commands.eval_log(case, WHERE))
        + " 2>&1",
        "cd - > /dev/null",
        f"# gate: {gate} >= {case['threshold']}",
    ]
    if case["min_acceptance_rate"] is not None:
        lines.append(
            f"# gate: acceptance rate (accept length - 1) / {case['draft_tokens']} >= "
            f"{case['min_acceptance_rate']}, from GET {commands.SERVER_INFO_PATHS[0]}"
        )
    return "\n".join(lines) + "\n"


def _mode_for(expanded: Expanded, config: Config, mode: str | None) -> str:
    chosen = mode or default_mode(expanded.catalog, config)
    check_mode(expanded.catalog, [config.suite], chosen, None)
    return chosen


def _job_units(expanded: Expanded, t: Target, mode: str | None) -> list[tuple[Job, str]]:
    if t.selection is not None:
        runs = t.selection.runs
        chosen = mode if mode is not None else next(iter(runs))
        if chosen not in runs:
            check_mode(expanded.catalog, (c.suite for c in t.selection.configs), chosen, None)
            msg = f"{t.kind} '{t.id}' has no run in server mode '{chosen}'"
            raise SelectionError(msg)
        return [(j, f"{t.kind} {t.id}") for j in runs[chosen].jobs]
    config = t.config
    assert config is not None
    jobs = expanded.jobs[(config.prefix, _mode_for(expanded, config, mode), PER_SERVER)]
    if t.kind == "config":
        return [(j, f"config {config.prefix}") for j in jobs]
    return [(j, "job") for j in jobs if j.id == t.id]


def _cell(expanded: Expanded, t: Target, mode: str | None) -> tuple[Cell, Job]:
    config = t.config
    assert config is not None
    chosen = _mode_for(expanded, config, mode)
    for job in expanded.jobs[(config.prefix, chosen, PER_SERVER)]:
        for cell in job.cells:
            if cell.id == t.id:
                return cell, job
    msg = f"cell '{t.id}' has no run in server mode '{chosen}'"
    raise SelectionError(msg)


def _case_runs(expanded: Expanded, t: Target) -> list[CaseRun]:
    runs = [r for r in expanded.case_runs if r.case is t.case]
    exact = [r for r in runs if r.id == t.id]
    return exact or runs


def _targets(expanded: Expanded, wanted: str, kind: str | None) -> list[Target]:
    found = list(expanded.index.get(wanted, ()))
    chosen = [t for t in found if kind is None or t.kind == kind]
    if chosen:
        return chosen
    ids = [i for i, ts in expanded.index.items() if kind is None or any(t.kind == kind for t in ts)]
    what = f"no {kind}" if kind else "nothing"
    others = f" (it names a {' and a '.join(t.kind for t in found)})" if found else ""
    msg = f"{what} has id '{wanted}'{others}{did_you_mean(wanted, ids)}"
    raise SelectionError(msg)


def explain(
    expanded: Expanded,
    wanted: str,
    *,
    kind: str | None = None,
    mode: str | None = None,
    image: str | None = None,
    release: str | None = None,
) -> str:
    """The commands of everything `wanted` names (`kind` narrows it to one of KINDS), the
    server's flags named as SGLang `release` names them (None: as the catalog writes them)."""
    if kind is not None and kind not in KINDS:
        msg = f"unknown kind '{kind}'{did_you_mean(kind, KINDS)}"
        raise SelectionError(msg)
    catalog = expanded.catalog
    parts: dict[tuple[str, str, str], str] = {}
    kinds: list[str] = []
    for t in _targets(expanded, wanted, kind):
        kinds.append(t.kind)
        if t.kind == "case":
            for run in _case_runs(expanded, t):
                for level in run.case.levels:
                    label = run.case.runner_for(level)
                    shown = level if len(run.case.labels) > 1 else ""
                    parts.setdefault(
                        ("case", run.id, label),
                        case_text(case_entry(catalog, run, level), shown, release),
                    )
        elif t.kind == "cell":
            cell, job = _cell(expanded, t, mode)
            check_mode(catalog, [cell.config.suite], cell.server.mode, image)
            entry = job_entry(catalog, job, image_for(catalog, cell.server.mode, image))
            entry["points"] = [point_entry(cell)]
            title = f"cell {cell.id}: {cell.config.display} (a point of job {job.id})"
            parts.setdefault(("cell", cell.id, cell.server.mode), job_text(entry, title, release))
        else:
            for job, via in _job_units(expanded, t, mode):
                check_mode(catalog, [job.config.suite], job.server.mode, image)
                entry = job_entry(catalog, job, image_for(catalog, job.server.mode, image))
                title = f"benchmark job {job.id}: {job.config.display}"
                if via != "job":
                    title += f" (of {via})"
                parts.setdefault(("job", job.id, job.server.mode), job_text(entry, title, release))
    text = "\n".join(parts.values())
    if len(set(kinds)) > 1:
        names = " and a ".join(dict.fromkeys(kinds))
        text = f"# '{wanted}' names a {names}; --kind chooses one\n\n" + text
    return text
