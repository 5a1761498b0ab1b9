"""A stand-in for GitHub Actions that runs the rendered workflows' own jobs and steps, with
GitHub's semantics for what the templates use:

- jobs in `needs` order; a job's `if:` gets an implicit `success()` unless it names a status
  function, and `success()` / `failure()` at job level look at the whole `needs` chain
  (every ancestor), as GitHub does; `needs.<job>.result` and `.outputs`;
- `strategy.matrix` (keys, `include`, or one expression such as `fromJSON(...)`), one leg per
  combination, `matrix.*` in the leg; a matrix job fails when a leg fails;
- reusable workflows (`uses: ./.github/workflows/X.yml`) with their typed inputs and
  defaults; the called jobs see the caller's `github` context (`workflow_ref` names the
  top-level workflow) and are named `<caller> / <called>` at GitHub;
- environments: a job that names one runs only when the run's ref passes its deployment
  branch policy (else it fails, as GitHub refuses the deployment), and gets its secrets;
  repository secrets reach a called workflow only when the caller passes them;
- steps: `run:` with `bash -e` (GitHub's default), `env:`, `if:` (step status functions),
  `continue-on-error`, `id` and `steps.<id>.outputs` / `.outcome` / `.conclusion`,
  GITHUB_OUTPUT (`k=v` and `k<<EOF` blocks), GITHUB_ENV, GITHUB_PATH, GITHUB_STEP_SUMMARY,
  and `::error::` / `::warning::` annotations (not between `::stop-commands::` frames);
- the actions the templates use, done as they do it: checkout (from the repository's git
  remote, `ref`, `path`, `fetch-depth`), setup-python (puts a Python on PATH whose
  `pip install` of a checkout makes that checkout's `sglang-ci` the one on PATH),
  upload-artifact and download-artifact (per run, `name` or `pattern`, several paths under
  their least common ancestor, a second upload of a name refused unless `overwrite`),
  upload-pages-artifact and deploy-pages (the site ends up in `pages/`);
- the jobs' status at GitHub (`gh api .../attempts/N/jobs`) kept for the stand-in gh.

Nothing is emulated that the rendered workflows do not use; an unknown action fails its step."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.catalog.yamlio import load_data
from tests.pipeline import expressions as ex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

STEP_TIMEOUT_S = 900  # a bound on one step, however busy the machine
HOSTED = "ubuntu-latest"
_COMMAND = re.compile(r"^::(error|warning|notice)(?: [^:]*)?::(.*)$")


@dataclass(frozen=True)
class Environment:
    """A deployment environment: the branches its policy admits, and its secrets."""

    branches: tuple[str, ...]
    secrets: Mapping[str, str] = field(default_factory=dict)


@dataclass
class StepRun:
    name: str
    outcome: str  # success | failure | skipped
    conclusion: str
    outputs: dict[str, str]
    log: str = ""


@dataclass
class JobRun:
    """One job (one matrix leg, one called job) as GitHub lists it."""

    name: str
    result: str  # success | failure | skipped
    outputs: dict[str, str] = field(default_factory=dict)
    steps: list[StepRun] = field(default_factory=list)
    summary: str = ""
    annotations: list[str] = field(default_factory=list)
    error: str = ""  # why the job failed before or outside its steps

    @property
    def log(self) -> str:
        return "\n".join(f"## {s.name} ({s.outcome})\n{s.log}" for s in self.steps)


@dataclass
class WorkflowRun:
    workflow: str
    run_id: int
    attempt: int
    event: str
    branch: str = "main"
    sha: str = ""
    inputs: dict[str, Any] = field(default_factory=dict)
    schedule: str | None = None
    number: int = 0  # github.run_number: this workflow's runs so far (GitHub counts per workflow)
    jobs: list[JobRun] = field(default_factory=list)
    results: dict[str, str] = field(default_factory=dict)  # job id (with its caller's) -> result
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)  # job id -> outputs

    @property
    def conclusion(self) -> str:
        failed = any(j.result == "failure" for j in self.jobs)
        return "failure" if failed else "success"

    def job(self, name: str) -> JobRun:
        """The one job of this name (or name prefix ending in ` / ...`)."""
        found = [j for j in self.jobs if j.name == name]
        assert len(found) == 1, f"{len(found)} jobs named {name!r}: {[j.name for j in self.jobs]}"
        return found[0]

    @property
    def summary(self) -> str:
        return "".join(j.summary for j in self.jobs)

    def describe(self) -> str:
        """Every job with its result, and the logs of failed ones: for assertion messages."""
        lines = [f"{self.workflow} run {self.run_id}.{self.attempt} ({self.event})"]
        for job in self.jobs:
            lines.append(f"- {job.name}: {job.result} {job.error}")
            if job.result == "failure":
                lines.append(job.log[-6000:])
        return "\n".join(lines)


@dataclass
class Runner:
    """What a job's machine provides: extra PATH entries and variables."""

    path: tuple[Path, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass
class _Job:
    """What one job's steps share while it runs."""

    name: str
    workspace: Path
    temp: Path
    env: dict[str, str]
    path: list[str]
    context: dict[str, Any]
    failed: bool = False


class GitHub:
    """One repository at GitHub: its git remote, secrets, environments, runners, artifacts,
    the stand-in gh's state, and the Pages site."""

    def __init__(
        self,
        root: Path,
        remote: Path,
        *,
        repository: str,
        default_branch: str = "main",
        environments: Mapping[str, Environment] | None = None,
        secrets: Mapping[str, str] | None = None,
        runners: Mapping[str, Runner] | None = None,
        base_path: tuple[Path, ...] = (),
    ) -> None:
        self.root = root
        self.remote = remote
        self.repository = repository
        self.default_branch = default_branch
        self.environments = dict(environments or {})
        self.secrets = dict(secrets or {})
        self.runners = dict(runners or {})
        self.base_path = base_path
        self.artifacts = root / "artifacts"
        self.pages = root / "pages"
        self.gh_state = root / "gh-state.json"
        self.gh_record = root / "gh-calls.jsonl"
        self.next_run_id = 1000
        self._numbered: list[str] = []  # the workflow of each run so far
        self._jobs_dir = root / "jobs"
        self._count = 0
        for folder in (self.artifacts, self._jobs_dir):
            folder.mkdir(parents=True, exist_ok=True)
        state = self._state()
        state["repo"] = {"full_name": repository, "default_branch": default_branch}
        self._save_state(state)
        # git reaches github.com's URLs of the repository at the local remote.
        self.gitconfig = root / "gitconfig"
        self.gitconfig.write_text(
            f'[url "{remote.as_uri()}"]\n'
            f"\tinsteadOf = https://github.com/{repository}.git\n"
            f"\tinsteadOf = https://github.com/{repository}\n"
            f"\tinsteadOf = git@github.com:{repository}.git\n"
            "[user]\n\tname = runner\n\temail = runner@example.com\n"
            "[advice]\n\tdetachedHead = false\n"
            "[init]\n\tdefaultBranch = main\n",
            encoding="utf-8",
        )

    # ---------------------------------------------------------------- the gh state

    def _state(self) -> dict[str, Any]:
        if self.gh_state.exists():
            data: dict[str, Any] = json.loads(self.gh_state.read_text("utf-8"))
            return data
        return {}

    def _save_state(self, data: Mapping[str, Any]) -> None:
        tmp = self.gh_state.with_name(self.gh_state.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1), "utf-8")
        tmp.replace(self.gh_state)

    def issues(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self._state().get("issues", [])
        return found

    def set_pull(self, number: int, pull: Mapping[str, Any]) -> None:
        state = self._state()
        state.setdefault("pulls", {})[str(number)] = dict(pull)
        self._save_state(state)

    def _note_job(self, run: WorkflowRun, job: JobRun) -> None:
        state = self._state()
        runs = state.setdefault("runs", {}).setdefault(str(run.run_id), {})
        listed = runs.setdefault(str(run.attempt), [])
        listed.append(
            {
                "name": job.name,
                "status": "completed",
                "conclusion": job.result,
                "steps": [{"name": s.name, "conclusion": s.conclusion} for s in job.steps],
            }
        )
        self._save_state(state)

    # ---------------------------------------------------------------- runs

    def sha(self, ref: str) -> str:
        return self._git(self.remote, "rev-parse", f"{ref}^{{commit}}").strip()

    def _git(self, where: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
        done = subprocess.run(
            ["git", *args],
            cwd=where,
            env={**self._git_env(), **(env or {})},
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            msg = f"git {' '.join(args)}: {done.stderr.strip()}"
            raise RuntimeError(msg)
        return done.stdout

    def _git_env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.root),
            "GIT_CONFIG_GLOBAL": str(self.gitconfig),
            "GIT_CONFIG_NOSYSTEM": "1",
            "LC_ALL": "C.UTF-8",
        }

    def run(
        self,
        workflow: str,
        event: str,
        *,
        inputs: Mapping[str, Any] | None = None,
        schedule: str | None = None,
        ref: str | None = None,
    ) -> WorkflowRun:
        """Run `.github/workflows/<workflow>` at the tip of `ref` (the default branch) for
        `event` (a dispatch's `inputs`, a schedule's cron)."""
        branch = ref or self.default_branch
        run = WorkflowRun(
            workflow,
            self.next_run_id,
            1,
            event,
            branch=branch,
            sha=self.sha(branch),
            inputs=dict(inputs or {}),
            schedule=schedule,
            number=1 + sum(1 for w in self._numbered if w == workflow),
        )
        self._numbered.append(workflow)
        self.next_run_id += 1
        return self._run(run, None)

    def rerun_failed(self, earlier: WorkflowRun) -> WorkflowRun:
        """GitHub's "Re-run failed jobs": the next attempt of `earlier`, at its commit, where
        the jobs that failed and every job that needs one of them run again and the others
        keep their results and outputs."""
        again = WorkflowRun(
            earlier.workflow,
            earlier.run_id,
            earlier.attempt + 1,
            earlier.event,
            branch=earlier.branch,
            sha=earlier.sha,
            inputs=earlier.inputs,
            schedule=earlier.schedule,
            number=earlier.number,
        )
        return self._run(again, earlier)

    def _run(self, run: WorkflowRun, previous: WorkflowRun | None) -> WorkflowRun:
        data = self._workflow(run.sha, run.workflow)
        declared = ((data.get("on") or {}).get("workflow_dispatch") or {}).get("inputs") or {}
        given = {
            name: _typed(spec, run.inputs.get(name, spec.get("default")))
            for name, spec in declared.items()
        }
        payload: dict[str, Any] = {
            "repository": {"full_name": self.repository, "default_branch": self.default_branch},
        }
        if run.event == "workflow_dispatch":
            payload["inputs"] = {k: ex.as_text(v) for k, v in given.items()}
        if run.event == "schedule":
            payload["schedule"] = run.schedule
        github = {
            "event_name": run.event,
            "event": payload,
            "ref": f"refs/heads/{run.branch}",
            "ref_name": run.branch,
            "sha": run.sha,
            "repository": self.repository,
            "repository_owner": self.repository.split("/")[0],
            "run_id": str(run.run_id),
            "run_number": str(run.number),
            "run_attempt": str(run.attempt),
            "workflow": data.get("name", run.workflow),
            "workflow_ref": (
                f"{self.repository}/.github/workflows/{run.workflow}@refs/heads/{run.branch}"
            ),
            "server_url": "https://github.com",
            "api_url": "https://api.github.com",
            "token": "ghs_standin_token",
            "actor": "standin",
            "base_ref": "",
            "head_ref": "",
        }
        self._workflow_jobs(
            run,
            data,
            run.sha,
            github,
            given,
            secrets=dict(self.secrets),
            prefix="",
            previous=previous,
        )
        return run

    def _workflow(self, sha: str, workflow: str) -> dict[str, Any]:
        text = self._git(self.remote, "show", f"{sha}:.github/workflows/{workflow}")
        data: dict[str, Any] = load_data(text)
        return data

    def _workflow_jobs(
        self,
        run: WorkflowRun,
        data: Mapping[str, Any],
        sha: str,
        github: Mapping[str, Any],
        inputs: Mapping[str, Any],
        *,
        secrets: Mapping[str, str],
        prefix: str,
        previous: WorkflowRun | None,
    ) -> dict[str, tuple[str, dict[str, str]]]:
        """Run a workflow's jobs; each job's (result, outputs)."""
        jobs: Mapping[str, Any] = data["jobs"]
        done: dict[str, tuple[str, dict[str, str]]] = {}
        needs_of = {k: _list(v.get("needs")) for k, v in jobs.items()}
        ancestors: dict[str, set[str]] = {}

        def ancestry(key: str) -> set[str]:
            if key not in ancestors:
                found: set[str] = set()
                for n in needs_of[key]:
                    found |= {n} | ancestry(n)
                ancestors[key] = found
            return ancestors[key]

        pending = list(jobs)
        rerun: set[str] = set()  # with `previous`: the jobs that run again
        while pending:
            key = next(k for k in pending if all(n in done for n in needs_of[k]))
            pending.remove(key)
            spec = jobs[key]
            above = [done[a][0] for a in ancestry(key)]

            def status(name: str, above: list[str] = above) -> bool:
                return {
                    "always": True,
                    "cancelled": False,
                    "success": all(r == "success" for r in above),
                    "failure": any(r == "failure" for r in above),
                }[name]

            context: dict[str, Any] = {
                "github": github,
                "inputs": dict(inputs),
                "needs": {n: {"result": done[n][0], "outputs": done[n][1]} for n in needs_of[key]},
                "vars": {},
                "env": {},
            }
            again = any(n in rerun for n in needs_of[key])
            if (
                previous is not None
                and previous.results.get(prefix + key) == "success"
                and not again
            ):
                # "Re-run failed jobs": a job that succeeded, and whose needs all kept
                # theirs, keeps its result and outputs; the others run again.
                done[key] = ("success", previous.outputs.get(prefix + key, {}))
                run.results[prefix + key] = "success"
                run.outputs[prefix + key] = done[key][1]
                continue
            rerun.add(key)
            try:
                ok = ex.condition(spec.get("if"), context, status)
            except ex.ExpressionError as e:
                ok, error = False, str(e)
                done[key] = ("failure", {})
                run.jobs.append(JobRun(f"{prefix}{key}", "failure", error=error))
                run.results[prefix + key] = "failure"
                continue
            if not ok:
                name = ex.text(spec.get("name", key), {**context, "matrix": {}}, status)
                run.jobs.append(JobRun(prefix + (name or key), "skipped"))
                done[key] = ("skipped", {})
                run.results[prefix + key] = "skipped"
                continue
            legs = _matrix(spec.get("strategy", {}).get("matrix"), context)
            results: list[str] = []
            outputs: dict[str, str] = {}  # a matrix job's: its last leg's, as at GitHub
            for leg in legs:
                leg_context = {**context, "matrix": leg or {}}
                name = ex.text(spec.get("name", key), leg_context)
                if "uses" in spec:
                    result, outputs = self._call(
                        run, spec, leg_context, sha, github, secrets, prefix + name + " / "
                    )
                else:
                    job = self._job(run, spec, leg_context, sha, secrets, prefix + name, github)
                    result, outputs = job.result, job.outputs
                results.append(result)
            result = "failure" if "failure" in results else "success"
            done[key] = (result, outputs)
            run.results[prefix + key] = result
            run.outputs[prefix + key] = outputs
        return done

    def _call(
        self,
        run: WorkflowRun,
        spec: Mapping[str, Any],
        context: Mapping[str, Any],
        sha: str,
        github: Mapping[str, Any],
        secrets: Mapping[str, str],
        prefix: str,
    ) -> tuple[str, dict[str, str]]:
        uses = str(spec["uses"])
        assert uses.startswith("./.github/workflows/"), uses
        called = self._workflow(sha, uses.removeprefix("./.github/workflows/"))
        declared = called["on"]["workflow_call"].get("inputs") or {}
        given = ex.interpolate(spec.get("with") or {}, context)
        unknown = set(given) - set(declared)
        assert not unknown, f"{uses}: no inputs {sorted(unknown)}"
        inputs = {
            name: _typed(s, given.get(name, s.get("default"))) for name, s in declared.items()
        }
        passed = spec.get("secrets")
        if passed == "inherit":
            to_pass = dict(secrets)
        else:
            to_pass = {
                k: ex.text(v, {**context, "secrets": secrets}) for k, v in (passed or {}).items()
            }
        done = self._workflow_jobs(
            run, called, sha, github, inputs, secrets=to_pass, prefix=prefix, previous=None
        )
        result = "failure" if any(r == "failure" for r, _ in done.values()) else "success"
        outputs_spec = called["on"]["workflow_call"].get("outputs") or {}
        jobs_ctx = {k: {"result": r, "outputs": o} for k, (r, o) in done.items()}
        outputs = {k: ex.text(v.get("value"), {"jobs": jobs_ctx}) for k, v in outputs_spec.items()}
        return result, outputs

    # ---------------------------------------------------------------- one job

    def _job(
        self,
        run: WorkflowRun,
        spec: Mapping[str, Any],
        context: Mapping[str, Any],
        sha: str,
        secrets: Mapping[str, str],
        name: str,
        github: Mapping[str, Any],
    ) -> JobRun:
        self._count += 1
        base = self._jobs_dir / f"{run.run_id}-{run.attempt}-{self._count}"
        workspace, temp, home = base / "work", base / "temp", base / "home"
        for folder in (workspace, temp, home):
            folder.mkdir(parents=True)
        job = JobRun(name, "success")
        label = ex.text(spec.get("runs-on"), context)
        runner = self.runners.get(label, Runner()) if label != HOSTED else Runner()
        if label != HOSTED and label not in self.runners:
            job.result, job.error = "failure", f"no runner carries the label {label!r}"
            return self._finish(run, job)
        env_name = spec.get("environment")
        if isinstance(env_name, dict):
            env_name = env_name.get("name")
        job_secrets = dict(secrets)
        if env_name is not None:
            env_name = ex.text(env_name, context)
            environment = self.environments.get(env_name)
            branch = github["ref_name"]
            if environment is None or branch not in environment.branches:
                job.result = "failure"
                job.error = (
                    f"Branch {branch!r} is not allowed to deploy to {env_name} due to "
                    "environment protection rules."
                )
                return self._finish(run, job)
            job_secrets |= dict(environment.secrets)
        env = {
            "HOME": str(home),
            "LC_ALL": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_SHA": sha,
            "GITHUB_REF": github["ref"],
            "GITHUB_REF_NAME": github["ref_name"],
            "GITHUB_EVENT_NAME": github["event_name"],
            "GITHUB_RUN_ID": github["run_id"],
            "GITHUB_RUN_NUMBER": github["run_number"],
            "GITHUB_RUN_ATTEMPT": github["run_attempt"],
            "GITHUB_WORKFLOW": github["workflow"],
            "GITHUB_WORKFLOW_REF": github["workflow_ref"],
            "GITHUB_SERVER_URL": github["server_url"],
            "GITHUB_JOB": name,
            "RUNNER_TEMP": str(temp),
            "RUNNER_OS": "Linux",
            "RUNNER_NAME": f"{label}-1",
            "GIT_CONFIG_GLOBAL": str(self.gitconfig),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GH_STANDIN_STATE": str(self.gh_state),
            "GH_STANDIN_RECORD": str(self.gh_record),
            "GH_STANDIN_PYTHON": sys.executable,
            "PYTHONDONTWRITEBYTECODE": "1",
            **runner.env,
        }
        path = [*map(str, runner.path), *map(str, self.base_path)]
        state = _Job(
            name,
            workspace,
            temp,
            env,
            path,
            {
                **context,
                "secrets": job_secrets,
                "steps": {},
                "runner": {"temp": str(temp), "os": "Linux", "name": env["RUNNER_NAME"]},
                "job": {"status": "success"},
            },
        )
        for step in spec.get("steps", []):
            job.steps.append(self._step(run, state, step, job))
        job.result = "failure" if state.failed else "success"
        status = self._job_status(state)
        out_context = {**state.context}
        job.outputs = {
            k: ex.text(v, out_context, status) for k, v in (spec.get("outputs") or {}).items()
        }
        return self._finish(run, job)

    def _finish(self, run: WorkflowRun, job: JobRun) -> JobRun:
        run.jobs.append(job)
        self._note_job(run, job)
        return job

    @staticmethod
    def _job_status(state: _Job) -> Callable[[str], bool]:
        def status(name: str) -> bool:
            return {
                "always": True,
                "cancelled": False,
                "success": not state.failed,
                "failure": state.failed,
            }[name]

        return status

    def _step(self, run: WorkflowRun, state: _Job, step: Mapping[str, Any], job: JobRun) -> StepRun:
        status = self._job_status(state)
        context = state.context
        label = str(step.get("name") or step.get("uses") or step.get("run", "")).splitlines()[0]
        try:
            label = ex.text(label, context, status)
            wanted = ex.condition(step.get("if"), context, status)
        except ex.ExpressionError as e:
            state.failed = True
            return StepRun(label, "failure", "failure", {}, f"expression: {e}")
        if not wanted:
            result = StepRun(label, "skipped", "skipped", {})
        else:
            env = {
                **state.env,
                **{k: ex.text(v, context, status) for k, v in (step.get("env") or {}).items()},
            }
            if "run" in step:
                result = self._run_step(state, step, env, label, job)
            else:
                uses = str(step["uses"]).split("@")[0]
                with_ = {
                    k: ex.text(v, context, status) for k, v in (step.get("with") or {}).items()
                }
                result = self._action(run, state, uses, with_, env, label)
            if result.outcome == "failure":
                keep_going = ex.truthy(
                    ex.interpolate(step.get("continue-on-error", False), context)
                )
                result.conclusion = "success" if keep_going else "failure"
                state.failed = state.failed or not keep_going
        if "id" in step:
            context["steps"][step["id"]] = {
                "outputs": result.outputs,
                "outcome": result.outcome,
                "conclusion": result.conclusion,
            }
        return result

    def _run_step(
        self,
        state: _Job,
        step: Mapping[str, Any],
        env: dict[str, str],
        label: str,
        job: JobRun,
    ) -> StepRun:
        script = state.temp / f"step-{len(job.steps)}.sh"
        script.write_text(ex.text(step["run"], state.context, self._job_status(state)), "utf-8")
        files = {
            k: state.temp / f"{k.lower()}-{len(job.steps)}"
            for k in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")
        }
        for f in files.values():
            f.write_text("")
        where = state.workspace / ex.text(step.get("working-directory", "."), state.context)
        shell = step.get("shell")
        argv = ["bash", "-e", str(script)]
        if shell == "bash":
            argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
        elif shell is not None:
            msg = f"shell {shell!r} is not emulated"
            raise AssertionError(msg)
        full_env = {
            **env,
            **{k: str(v) for k, v in files.items()},
            "PATH": os.pathsep.join([*state.path, "/usr/local/bin", "/usr/bin", "/bin"]),
        }
        try:
            done = subprocess.run(
                argv,
                cwd=where,
                env=full_env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=STEP_TIMEOUT_S,
                check=False,
            )
            log, code = done.stdout, done.returncode
        except subprocess.TimeoutExpired as e:
            printed = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else ""
            log, code = f"{printed}\nstep timed out after {STEP_TIMEOUT_S}s", 124
        job.annotations.extend(_annotations(log))
        job.summary += files["GITHUB_STEP_SUMMARY"].read_text("utf-8")
        for line in files["GITHUB_PATH"].read_text("utf-8").splitlines():
            if line.strip():
                state.path.insert(0, line.strip())
        state.env |= _key_values(files["GITHUB_ENV"].read_text("utf-8"))
        outputs = _key_values(files["GITHUB_OUTPUT"].read_text("utf-8"))
        outcome = "success" if code == 0 else "failure"
        return StepRun(label, outcome, outcome, outputs, f"{log}\n[exit {code}]")

    # ---------------------------------------------------------------- actions

    def _action(
        self,
        run: WorkflowRun,
        state: _Job,
        uses: str,
        with_: Mapping[str, str],
        env: Mapping[str, str],
        label: str,
    ) -> StepRun:
        actions: dict[str, Callable[[WorkflowRun, _Job, Mapping[str, str]], dict[str, str]]] = {
            "actions/checkout": self._checkout,
            "actions/setup-python": self._setup_python,
            "actions/upload-artifact": self._upload,
            "actions/download-artifact": self._download,
            "actions/upload-pages-artifact": self._upload_pages,
            "actions/deploy-pages": self._deploy_pages,
        }
        del env  # the emulated actions read only their inputs
        if uses not in actions:
            return StepRun(label, "failure", "failure", {}, f"action {uses} is not emulated")
        try:
            outputs = actions[uses](run, state, with_)
        except (RuntimeError, OSError, ValueError) as e:
            return StepRun(label, "failure", "failure", {}, f"{uses}: {e}")
        return StepRun(label, "success", "success", outputs)

    def _checkout(self, run: WorkflowRun, state: _Job, with_: Mapping[str, str]) -> dict[str, str]:
        del run
        dest = state.workspace / with_.get("path", "")
        ref = with_.get("ref") or state.context["github"]["sha"]
        depth = int(with_.get("fetch-depth") or 1)
        if dest.exists() and any(dest.iterdir()):
            shutil.rmtree(dest)
        dest.mkdir(parents=True, exist_ok=True)
        url = f"https://github.com/{self.repository}"
        self._git(dest, "init", "-q")
        self._git(dest, "remote", "add", "origin", url)
        if depth == 0:
            self._git(dest, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*")
            self._git(dest, "fetch", "-q", "origin", ref)
        else:
            self._git(dest, "fetch", "-q", f"--depth={depth}", "origin", ref)
        self._git(dest, "checkout", "-q", "--detach", "FETCH_HEAD")
        return {}

    def _setup_python(
        self, run: WorkflowRun, state: _Job, with_: Mapping[str, str]
    ) -> dict[str, str]:
        del run, with_
        tools = state.temp / "python-tools"
        tools.mkdir(exist_ok=True)
        shim = Path(__file__).resolve().parent / "python_shim.py"
        for name in ("python", "python3"):
            (tools / name).write_text(
                f'#!/bin/sh\nexec "{sys.executable}" "{shim}" "{tools}" "$@"\n', "utf-8"
            )
        (tools / "sglang-ci").write_text(
            "#!/bin/sh\n"
            f'test -s "{tools}/installed" || '
            '{ echo "sglang-ci: command not found" >&2; exit 127; }\n'
            f'PYTHONPATH="$(cat "{tools}/installed")" exec "{sys.executable}" -c '
            "'import sys; from generator.cli.sglang_ci import main; "
            'sys.argv[0] = "sglang-ci"; main()\' '
            '"$@"\n',
            "utf-8",
        )
        for f in tools.iterdir():
            f.chmod(0o755)
        state.path.insert(0, str(tools))
        return {"python-version": "3.11"}

    def _run_artifacts(self, run: WorkflowRun) -> Path:
        folder = self.artifacts / str(run.run_id)
        folder.mkdir(exist_ok=True)
        return folder

    def _upload(self, run: WorkflowRun, state: _Job, with_: Mapping[str, str]) -> dict[str, str]:
        name = with_.get("name") or "artifact"
        store = self._run_artifacts(run) / name
        lines = [x.strip() for x in with_.get("path", "").splitlines() if x.strip()]
        found: list[Path] = []
        roots: list[Path] = []
        for line in lines:
            matches = _glob(line if Path(line).is_absolute() else str(state.workspace / line))
            for match in matches:
                roots.append(match if match.is_dir() else match.parent)
                found.extend(
                    [p for p in match.rglob("*") if p.is_file()] if match.is_dir() else [match]
                )
        found = [f for f in found if not any(part.startswith(".") for part in f.parts[-2:])]
        if not found:
            missing = with_.get("if-no-files-found", "warn")
            if missing == "error":
                msg = f"no files were found with the provided path: {lines}"
                raise RuntimeError(msg)
            return {}
        if store.exists():
            if with_.get("overwrite", "false") != "true":
                msg = "Conflict: an artifact with this name already exists on the workflow run"
                raise RuntimeError(msg)
            shutil.rmtree(store)
        root = Path(os.path.commonpath([str(r) for r in roots])) if len(lines) > 1 else roots[0]
        for f in found:
            target = store / f.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
        return {"artifact-id": str(len(list(self._run_artifacts(run).iterdir())))}

    def _download(self, run: WorkflowRun, state: _Job, with_: Mapping[str, str]) -> dict[str, str]:
        folder = self._run_artifacts(run)
        dest = state.workspace / with_.get("path", "")
        name, pattern = with_.get("name"), with_.get("pattern")
        if name:
            if not (folder / name).is_dir():
                msg = f"Unable to download artifact(s): Artifact not found for name: {name}"
                raise RuntimeError(msg)
            shutil.copytree(folder / name, dest, dirs_exist_ok=True)
            return {"download-path": str(dest)}
        chosen = sorted(
            p.name for p in folder.iterdir() if fnmatch.fnmatchcase(p.name, pattern or "*")
        )
        merge = with_.get("merge-multiple", "false") == "true"
        for each in chosen:
            shutil.copytree(folder / each, dest if merge else dest / each, dirs_exist_ok=True)
        dest.mkdir(parents=True, exist_ok=True)
        return {"download-path": str(dest)}

    def _upload_pages(
        self, run: WorkflowRun, state: _Job, with_: Mapping[str, str]
    ) -> dict[str, str]:
        site = state.workspace / with_.get("path", "_site")
        if not site.is_dir():
            msg = f"tar: {site}: Cannot open: No such file or directory"
            raise RuntimeError(msg)
        store = self._run_artifacts(run) / "github-pages"
        if store.exists():
            shutil.rmtree(store)
        shutil.copytree(site, store)
        return {"artifact_id": "github-pages"}

    def _deploy_pages(
        self, run: WorkflowRun, state: _Job, with_: Mapping[str, str]
    ) -> dict[str, str]:
        del state, with_
        store = self._run_artifacts(run) / "github-pages"
        if not store.is_dir():
            msg = "No artifacts named github-pages were found for this workflow run"
            raise RuntimeError(msg)
        if self.pages.exists():
            shutil.rmtree(self.pages)
        shutil.copytree(store, self.pages)
        owner, name = self.repository.split("/")
        return {"page_url": f"https://{owner}.github.io/{name}/"}


def _glob(pattern: str) -> list[Path]:
    """The paths an upload-artifact path names (a glob, as the action takes them)."""
    anchor = Path(pattern).anchor
    return sorted(Path(anchor).glob(pattern.removeprefix(anchor)))


def _list(value: Any) -> list[str]:  # noqa: ANN401 (a YAML value)
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _typed(spec: Mapping[str, Any], value: Any) -> Any:  # noqa: ANN401 (an input's value)
    kind = spec.get("type", "string")
    if value is None:
        return "" if kind in ("string", "choice") else (False if kind == "boolean" else None)
    if kind == "boolean":
        return value if isinstance(value, bool) else str(value).lower() == "true"
    if kind == "number":
        return float(value)
    if kind == "choice":
        options = [str(o) for o in spec.get("options", [])]
        text = str(value)
        assert text in options, f"{text!r} is not one of the input's options"
        return text
    return ex.as_text(value) if not isinstance(value, str) else value


def _matrix(spec: Any, context: Mapping[str, Any]) -> list[dict[str, Any] | None]:  # noqa: ANN401
    if spec is None:
        return [None]
    value = ex.interpolate(spec, context)
    if not isinstance(value, dict):
        msg = f"a matrix must be an object, not {value!r}"
        raise AssertionError(msg)
    keys = {k: v for k, v in value.items() if k not in ("include", "exclude")}
    combos: list[dict[str, Any]] = [{}]
    for key, values in keys.items():
        combos = [{**c, key: v} for c in combos for v in values]
    if not keys:
        combos = []
    for extra in value.get("include", []) or []:
        combos.append(dict(extra))
    return list(combos) or [None]


def _key_values(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT / GITHUB_ENV: `k=v` lines and `k<<DELIM` ... `DELIM` blocks."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delim = line.split("<<", 1)
            body: list[str] = []
            i += 1
            while i < len(lines) and lines[i] != delim:
                body.append(lines[i])
                i += 1
            out[key] = "\n".join(body)
        elif "=" in line:
            key, _, value = line.partition("=")
            out[key] = value
        i += 1
    return out


def _annotations(log: str) -> list[str]:
    found: list[str] = []
    stopped: str | None = None
    for raw in re.split(r"\r\n|\r|\n", log):
        line = raw.lstrip()
        if stopped is not None:
            if line == f"::{stopped}::":
                stopped = None
            continue
        if line.startswith("::stop-commands::"):
            stopped = line.removeprefix("::stop-commands::")
            continue
        match = _COMMAND.match(line)
        if match:
            found.append(f"{match[1]}: {match[2]}")
    return found
