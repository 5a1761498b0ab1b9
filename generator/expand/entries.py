"""Jobs, cells and case runs as the JSON entries the launcher reads (the matrices hold
them; `sglang-ci jobs/cells/cases` print them). The shapes are `generator.core.contract`."""

from __future__ import annotations

import hashlib
import itertools
import json
from typing import cast

from generator.catalog.catalog_types import SPEC_NONE, Catalog
from generator.catalog.release_flags import renamings
from generator.catalog.upstream import SERVER, SGLANG, index
from generator.core.contract import (
    LM_EVAL,
    CaseEntry,
    CatalogServer,
    ClientEntry,
    ContainerEntry,
    EvaluatorEntry,
    ImageFields,
    JobEntry,
    PointEntry,
    SpellingFields,
    TurnFields,
)
from generator.expand.cells import ratio_text
from generator.expand.estimate import shown as minutes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.server_types import Client
    from generator.expand.expanded import CaseRun, Cell, Job, Server

DRAFT_STEPS = "--speculative-num-steps"


class CellEntry(PointEntry):
    """A cell on its own (`sglang-ci cells`): its config, its point and its server."""

    suite: str
    config: str
    display: str
    dashboard_model: str
    model_path: str
    pair: str
    ratio_text: str
    runner: str
    image: str
    server_mode: str
    server_args: list[str]
    env: dict[str, str]


def point_entry(cell: Cell) -> PointEntry:
    return {
        "id": cell.id,
        "isl": cell.pair.isl,
        "osl": cell.pair.osl,
        "concurrency": cell.concurrency,
        "random_range_ratio": cell.random_range_ratio,
        "num_prompts": cell.num_prompts,
        "num_warmups": cell.num_warmups,
        "estimate_minutes": minutes(cell.minutes),
    }


def fingerprint(server: Server) -> str:
    """What makes two servers the same server: model, argv, env, runner label and mode."""
    data: list[object] = [server.model_path, server.args, server.env, server.runner, server.mode]
    if server.model_revision is not None:  # unpinned servers keep their fingerprints
        data.append(server.model_revision)
    digest = hashlib.sha256(json.dumps(data, ensure_ascii=False).encode()).hexdigest()
    return f"sha256:{digest[:16]}"


def draft_tokens(server: Server) -> int | None:
    """Tokens drafted per verification step (--speculative-num-steps): the acceptance rate
    is (acceptance length - 1) / this."""
    args = server.args
    for flag, value in itertools.pairwise(args):
        if flag == DRAFT_STEPS and value.isdigit():
            return int(value)
    return None


def spellings(args: tuple[str, ...]) -> SpellingFields:
    """`server_spellings` for a server whose flags SGLang names otherwise in some
    supported releases (the launcher gives each release its own name: commands.spelled);
    nothing for the others. The newest supported release stands for every later one."""
    newest = index(SGLANG).releases[-1]
    rows = [
        [name, other, first, "" if last == newest else last]
        for name in dict.fromkeys(t for t in args if t.startswith("--"))
        for other, first, last in renamings(SERVER, name)
    ]
    return {"server_spellings": rows} if rows else {}


def _server_fields(catalog: Catalog, server: Server, spec: str, gpus: int) -> CatalogServer:
    runner = catalog.runner(server.runner)
    container: ContainerEntry = {
        "model_cache": runner.model_cache,
        "allocation_file": runner.allocation_file,
        "options": list(runner.container_options),
    }
    pinned: ImageFields = {}
    if server.model_revision is not None:
        pinned["model_revision"] = server.model_revision
    return {
        "model_path": server.model_path,
        **pinned,
        "runner": server.runner,
        "server_mode": server.mode,
        "server_args": list(server.args),
        **spellings(server.args),
        "env": dict(server.env),
        "server_fingerprint": fingerprint(server),
        "spec": spec,
        "draft_tokens": draft_tokens(server) if spec != SPEC_NONE else None,
        "gpus": gpus,
        "container": container,
    }


def client_entry(client: Client) -> ClientEntry:
    return {
        "name": client.name,
        "module": client.module,
        "args": [t for flag in client.args for t in flag.tokens()],
        "env": {v.name: v.value for v in client.env},
    }


def _number(value: float) -> int | float:
    """A whole number written as one (3, not 3.0)."""
    return int(value) if value.is_integer() else value


def job_entry(catalog: Catalog, job: Job, image: str) -> JobEntry:
    config = job.config
    fields = _server_fields(catalog, job.server, config.spec, config.parallel.gpus)
    return {
        "id": job.id,
        "suite": config.suite,
        "config": config.prefix,
        "display": config.display,
        "dashboard_model": config.dashboard_model or config.display,
        **fields,
        "image": image,
        "timeout_minutes": catalog.estimates.job_timeout_minutes,
        "point_timeout_factor": _number(catalog.estimates.point_timeout_factor),
        "startup_minutes": minutes(job.startup_minutes),
        "estimate_minutes": minutes(job.minutes),
        "client": client_entry(catalog.client(catalog.suite(config.suite).client)),
        "points": [point_entry(c) for c in job.cells],
        **TurnFields(),  # none: only an A/B's side job waits for its turns (abjob.py)
    }


def cell_entry(cell: Cell, image: str) -> CellEntry:
    """A cell on its own (`sglang-ci cells`): its config, its point and its server."""
    config, server = cell.config, cell.server
    return {
        "id": cell.id,
        "suite": config.suite,
        "config": config.prefix,
        "display": config.display,
        "dashboard_model": config.dashboard_model or config.display,
        "model_path": config.model.path,
        "pair": str(cell.pair),
        "ratio_text": ratio_text(cell.random_range_ratio),
        **point_entry(cell),
        "runner": server.runner,
        "image": image,
        "server_mode": server.mode,
        "server_args": list(server.args),
        "env": dict(server.env),
    }


def case_entry(catalog: Catalog, run: CaseRun, level: str) -> CaseEntry:
    """A case run as one level's matrix entry (the level sets the job timeout)."""
    case = run.case
    suite = catalog.accuracy_suite(case.suite)
    # The catalog's schema names each setting of the kind; the loader checked them.
    evaluator = cast(
        "EvaluatorEntry", {"kind": suite.evaluator.kind, **dict(suite.evaluator.settings)}
    )
    if suite.evaluator.kind == LM_EVAL:
        evaluator["model_args"] = dict(suite.evaluator.model_args)
    return {
        "id": run.id,
        "case": case.id,
        "name": run.name,
        "suite": case.suite,
        "benchmark": case.benchmark,
        "level": level,
        **_server_fields(catalog, run.server_at(level), case.spec, case.parallel.gpus),
        "image": run.image,
        "threshold": case.threshold,
        "min_acceptance_rate": case.min_acceptance_rate,
        "timeout_minutes": dict(suite.timeout_minutes)[level],
        "eval_timeout_minutes": suite.eval_timeout_minutes,
        "evaluator": evaluator,
    }
