"""Which run this is, and what made its records: the images (digest and versions), the
runners and the catalog commit, gathered from the CURRENT records of a store.

The run is named by the GitHub variables of the job that asks (GITHUB_WORKFLOW,
GITHUB_RUN_NUMBER, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_REPOSITORY, GITHUB_SERVER_URL:
the summary and history jobs belong to the run they describe), else by the records'
`provenance.github`.
"""

from __future__ import annotations

from typing import TypedDict, cast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from generator.results.store import Store


class ImageRow(TypedDict):
    """An image of the CURRENT records, with its versions (_IMAGES)."""

    requested: str | None
    tag: str | None
    digest: str | None
    pinned: str | None
    sglang_version: str | None
    sglang_commit: str | None
    atom_version: str | None
    aiter_version: str | None
    rocm_version: str | None
    jobs: int
    records: int


class RunnerRow(TypedDict):
    name: str | None
    label: str | None
    gpu: str | None
    records: int


class ProvenanceDoc(TypedDict):
    images: list[ImageRow]
    runners: list[RunnerRow]
    catalog_commits: list[str]


class RunDoc(TypedDict, total=False):
    """The GitHub run of the records (run_info; a summary without one has none of it)."""

    workflow: str | None
    number: int | None
    id: str | None
    attempt: str | None
    repository: str | None
    url: str | None
    event: str | None
    ref: str | None
    sha: str | None


_IMAGES = """
SELECT image AS requested, image_tag AS tag, image_digest AS digest, image_pinned AS pinned,
  sglang_version, sglang_commit, atom_version, aiter_version, rocm_version,
  count(DISTINCT coalesce(job_id, id)) AS jobs, count(*) AS records
FROM records WHERE role = 'current'
GROUP BY ALL ORDER BY requested NULLS LAST, digest NULLS LAST, sglang_version NULLS LAST
"""
_RUNNERS = """
SELECT runner_name AS name, runner_label AS label, gpu_model AS gpu, count(*) AS records
FROM records WHERE role = 'current'
GROUP BY ALL ORDER BY label NULLS LAST, name NULLS LAST
"""
_GITHUB = """
SELECT min(gh_repository) AS repository, min(gh_workflow) AS workflow,
  min(gh_run_id) AS id, min(gh_run_attempt) AS attempt
FROM records WHERE role = 'current'
"""
VERSIONS = ("sglang_version", "atom_version", "aiter_version", "rocm_version")
VERSION_NAMES = {
    "sglang_version": "SGLang",
    "atom_version": "ATOM",
    "aiter_version": "AITER",
    "rocm_version": "ROCm",
}


def provenance(store: Store) -> ProvenanceDoc:
    """The images, runners and catalog commits of the CURRENT records."""
    commits = store.rows(
        "SELECT DISTINCT catalog_commit FROM records WHERE role = 'current' "
        "AND catalog_commit IS NOT NULL ORDER BY 1"
    )
    return {
        "images": cast("list[ImageRow]", store.rows(_IMAGES)),  # the columns of _IMAGES
        "runners": cast("list[RunnerRow]", store.rows(_RUNNERS)),  # the columns of _RUNNERS
        "catalog_commits": [r["catalog_commit"] for r in commits],
    }


def run_info(store: Store, environ: Mapping[str, str]) -> RunDoc:
    """Workflow, number, id, attempt, repository and link of the run."""
    rows = store.rows(_GITHUB)
    records = rows[0] if rows else {}
    env = {k: v for k, v in environ.items() if v}
    repository = env.get("GITHUB_REPOSITORY") or records.get("repository")
    run_id = env.get("GITHUB_RUN_ID") or records.get("id")
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    number = env.get("GITHUB_RUN_NUMBER")
    return {
        "workflow": env.get("GITHUB_WORKFLOW") or records.get("workflow"),
        "number": int(number) if number and number.isdigit() else None,
        "id": run_id,
        "attempt": env.get("GITHUB_RUN_ATTEMPT") or records.get("attempt"),
        "repository": repository,
        "url": f"{server}/{repository}/actions/runs/{run_id}" if repository and run_id else None,
        "event": env.get("GITHUB_EVENT_NAME"),
        "ref": env.get("GITHUB_REF"),
        "sha": env.get("GITHUB_SHA"),
    }


def title(run: Mapping[str, object], fallback: str | None) -> str:
    """`Benchmark #123 (attempt 2)`, else `Benchmark run 987654`, else `fallback`."""
    workflow = run.get("workflow")
    attempt = run.get("attempt")
    again = f" (attempt {attempt})" if attempt and str(attempt) != "1" else ""
    if workflow and run.get("number"):
        return f"{workflow} #{run['number']}{again}"
    if workflow and run.get("id"):
        return f"{workflow} run {run['id']}{again}"
    return fallback or "(no records)"


def short_digest(digest: str | None) -> str | None:
    """`sha256:0123456789ab` of a full digest (12 hex digits, as `docker images` shows)."""
    if not digest:
        return None
    algorithm, _, value = digest.partition(":")
    return f"{algorithm}:{value[:12]}" if value else digest[:19]


def versions_text(image: Mapping[str, object], shown: Callable[[object], str] = str) -> str:
    """`SGLang 0.5.6 · ATOM 0.1 · AITER - · ROCm 7.0.2`, each version as `shown` writes it."""
    return " · ".join(f"{VERSION_NAMES[k]} {shown(image.get(k) or '-')}" for k in VERSIONS)
