"""Every command a job or case runs, built in this one place.

The launcher executes these argv lists; `sglang-ci explain` and the recipe pages print
them. `Where` holds what only the machine knows (the Python to run, the port, the log
directory, the model cache, this checkout): the launcher fills it with values, explain
with the names of the variables it reads them from.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from generator.core.field_checks import MODEL_FLAGS
from generator.core.versions import version_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import JobEntry, PointEntry, ServerEntry

HOST = "127.0.0.1"
# Polled in this order until each answers 200: the server is up, then its model is loaded.
READY_PATHS = ("/health", "/v1/models")
# Read once ready, for the model the server on the port serves (`model_path`): current
# SGLang serves the first, older releases only the second.
MODEL_INFO_PATHS = ("/model_info", "/get_model_info")
# Posted between two points served by one server process, so no point reuses another's cache.
FLUSH_PATH = "/flush_cache"
# Read before a flush (which resets it) for the speculative acceptance length; SGLang
# 0.5.10 and later serve the first, earlier versions the second.
SERVER_INFO_PATHS = ("/server_info", "/get_server_info")
# The one of them whose model needs only its tokenizer files, no weights.
TOKENIZER_FLAG = "--tokenizer-path"
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$", re.ASCII)


@dataclass(frozen=True, kw_only=True)
class Where:
    """Machine-specific parts of the commands."""

    python: str
    port: str
    logs: str
    model_cache: str | None = None  # where model weights live; None: the server gets hub ids
    root: str = "."  # this checkout


def base_url(where: Where) -> str:
    return f"http://{HOST}:{where.port}"


def server_log(entry: ServerEntry, where: Where) -> str:
    return f"{where.logs}/{entry['id']}.server.log"


def models(entry: ServerEntry, where: Where) -> dict[str, str]:
    """Every model the server loads -> the path it is given: the model cache's copy of a
    Hugging Face id, or the id itself without a model cache (a path that is not a hub id,
    such as a local directory, is given as it is)."""
    ids = [entry["model_path"]]
    args = entry["server_args"]
    for flag, value in itertools.pairwise(args):
        if flag in MODEL_FLAGS and HUB_ID.match(value):
            ids.append(value)
    cache = where.model_cache
    # A pinned revision has a snapshot of its own, never mixed with the unpinned one.
    return {
        i: (f"{cache}/{i}{_at(revision_of(entry, i))}" if cache and HUB_ID.match(i) else i)
        for i in dict.fromkeys(ids)
    }


def _at(revision: str | None) -> str:
    return "" if revision is None else f"@{revision}"


def tokenizer_only(entry: ServerEntry) -> set[str]:
    """The models of `entry` the server loads only a tokenizer from."""
    args = entry["server_args"]
    named = {v for f, v in itertools.pairwise(args) if f == TOKENIZER_FLAG}
    weights = {v for f, v in itertools.pairwise(args) if f in MODEL_FLAGS and f != TOKENIZER_FLAG}
    return named - weights - {entry["model_path"]}


def download_argv(model: str, directory: str, revision: str | None = None) -> list[str]:
    """Fill a model cache directory (Hugging Face's CLI; HF_TOKEN from the environment),
    at the catalog's pinned revision when it pins one."""
    pinned = [] if revision is None else ["--revision", revision]
    return ["hf", "download", model, *pinned, "--local-dir", directory]


def revision_of(entry: ServerEntry, model: str) -> str | None:
    """The pinned revision of `model` in `entry` (the served model's only)."""
    return entry.get("model_revision") if model == entry["model_path"] else None


def spelled(entry: ServerEntry, release: str | None) -> list[str]:
    """The entry's server arguments as SGLang `release` names its flags: each flag the
    entry's `server_spellings` gives another name on a run of releases holding `release`
    (`[flag, name, first, last]`, last "" for the newest table's and every later one)
    takes that name; every token as written when the release is unknown (None)."""
    args = list(entry["server_args"])
    if not release:
        return args
    have = version_key(release)
    names = {
        flag: name
        for flag, name, first, last in entry.get("server_spellings", [])
        if version_key(first) <= have and (not last or have <= version_key(last))
    }
    return [names.get(token, token) for token in args]


def server_argv(entry: ServerEntry, where: Where, release: str | None = None) -> list[str]:
    """`python -m sglang.launch_server` with the model, the loopback address and the
    entry's arguments (flags named as SGLang `release` names them: `spelled`), token for
    token but for the models, which come from `models`."""
    paths = models(entry, where)
    args = spelled(entry, release)
    for i in range(1, len(args)):
        if args[i - 1] in MODEL_FLAGS and args[i] in paths:
            args[i] = paths[args[i]]
    return [
        where.python,
        "-m",
        "sglang.launch_server",
        "--model-path",
        paths[entry["model_path"]],
        "--host",
        HOST,
        "--port",
        where.port,
        *(["--revision", entry["model_revision"]] if "model_revision" in entry else []),
        *args,
    ]


def bench_output(point: PointEntry, where: Where) -> str:
    """The JSON Lines file the client appends its result line to."""
    return f"{where.logs}/{point['id']}.bench.jsonl"


def bench_log(point: PointEntry, where: Where) -> str:
    return f"{where.logs}/{point['id']}.bench.log"


def client_values(job: JobEntry, point: PointEntry, where: Where) -> dict[str, str]:
    """What the client's `{variable}` placeholders stand for at this point."""
    return {
        "host": HOST,
        "port": where.port,
        "model": models(job, where)[job["model_path"]],
        "isl": str(point["isl"]),
        "osl": str(point["osl"]),
        "ratio": _number(point["random_range_ratio"]),
        "num_prompts": str(point["num_prompts"]),
        "num_warmups": str(point["num_warmups"]),
        "concurrency": str(point["concurrency"]),
        "output_file": bench_output(point, where),
    }


def bench_argv(job: JobEntry, point: PointEntry, where: Where) -> list[str]:
    """One point: the job's declared client module with its declared arguments."""
    values = client_values(job, point, where)
    client = job["client"]
    args = [re.sub(r"\{(\w+)\}", lambda m: values[m[1]], a) for a in client["args"]]
    return [where.python, "-m", client["module"], *args]


def _number(value: float) -> str:
    """A ratio as the matrix JSON writes it (0.8, 1.0)."""
    return repr(float(value))
