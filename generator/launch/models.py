"""Model weights from the runner's cache (MODEL_CACHE): what the server loads, each model
complete in `$MODEL_CACHE/<id>` before the server starts, downloaded once when it is not.

A snapshot is complete when nothing of ours marks it as being written, its config.json is
there, and its weights are: every file its weights index names, or, without an index, a
single weights file (a model given only as --tokenizer-path needs only its tokenizer
files). A cache filled by `hf download` before this launcher existed counts.
A download runs `hf download <id> --local-dir <dir>` into exactly that directory under an
exclusive lock (`$MODEL_CACHE/.locks/<id>.lock`), so launchers sharing a cache download
once; while it runs the directory holds a marker, so a failed or interrupted download
never looks complete.

With MODEL_DOWNLOADS (a pull request's run, whose cache is mounted read-only), the models
live in that per-job directory instead: a complete snapshot of MODEL_CACHE is linked from
there, any other is downloaded there, and MODEL_CACHE is never written.
"""

from __future__ import annotations

import fcntl
import time
from contextlib import contextmanager
from pathlib import Path

from generator.core import commands, jsonread
from generator.core.console import framed, log
from generator.core.exits import Infrastructure
from generator.launch.log_tail import tail
from generator.launch.process import Supervisor, describe_exit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from generator.core.contract import ServerEntry
    from generator.launch.knobs import Knobs

INDEXES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
SINGLE_FILES = ("model.safetensors", "pytorch_model.bin")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
MARKER = ".sglang-ci-incomplete"
DOWNLOAD_TAIL_LINES = 20


def missing(snapshot: Path, *, tokenizer_only: bool = False) -> str | None:
    """Why `snapshot` is not a complete model (or, `tokenizer_only`, tokenizer), or None
    when it is."""
    if (snapshot / MARKER).exists():
        return f"{MARKER} is there (a download did not finish)"
    if tokenizer_only:
        found = any((snapshot / name).is_file() for name in TOKENIZER_FILES)
        return None if found else f"no {' or '.join(TOKENIZER_FILES)}"
    if not (snapshot / "config.json").is_file():
        return "no config.json"
    for name in INDEXES:
        index = snapshot / name
        if index.is_file():
            try:
                files = set(jsonread.load(index)["weight_map"].values())
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                return f"{name} is unreadable ({exc})"
            absent = sorted(f for f in files if not (snapshot / str(f)).is_file())
            return (
                f"{len(absent)} weight file(s) of {name} missing, e.g. {absent[0]}"
                if absent
                else None
            )
    if any((snapshot / name).is_file() for name in SINGLE_FILES):
        return None
    if list(snapshot.glob("*.safetensors")):
        return None  # a single weights file of another name (a draft model's, say)
    return "no weights index and no weights file"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def lock_path(cache: Path, model: str) -> Path:
    return cache / ".locks" / (model.replace("/", "__") + ".lock")


def ensure(entry: ServerEntry, knobs: Knobs, supervisor: Supervisor) -> float | None:
    """Make every model of the entry complete in the cache; the seconds spent downloading
    (None without a model cache: the server gets the hub ids)."""
    cache = knobs.cache
    if cache is None:
        log("MODEL_CACHE is not set: the server gets the Hugging Face ids")
        return None
    spent = 0.0
    tokenizers = commands.tokenizer_only(entry)
    for model, path in commands.models(entry, knobs.where).items():
        if path == model:
            continue  # not a hub id: the server gets it as it is
        snapshot, only = Path(path), model in tokenizers
        try:
            if knobs.model_downloads is not None and knobs.model_cache is not None:
                shared = knobs.model_cache / snapshot.relative_to(knobs.model_downloads)
                _link_shared(shared, snapshot, only)
            complete = missing(snapshot, tokenizer_only=only) is None
        except OSError as exc:  # a cache that cannot be read (root-squashed NFS, say)
            msg = f"cannot read the model cache at {snapshot}: {exc.strerror or exc}"
            raise Infrastructure(msg) from exc
        if complete:
            log(f"model {model}: complete in {snapshot}")
            continue
        started = time.monotonic()
        try:
            with _locked(lock_path(cache, model)):
                reason = missing(snapshot, tokenizer_only=only)
                if reason is None:
                    log(f"model {model}: completed by another launcher while this one waited")
                else:
                    revision = commands.revision_of(entry, model)
                    _download(model, snapshot, reason, only, knobs, supervisor, revision)
        except OSError as exc:  # a cache that cannot be written
            msg = f"cannot fill the model cache for {model}: {exc}"
            raise Infrastructure(msg) from exc
        spent += time.monotonic() - started
    return round(spent, 3)


def _link_shared(shared: Path, snapshot: Path, only: bool) -> None:
    """With a read-only model cache: link the job's `snapshot` to the cache's copy when
    that is complete, so the server reads it in place and nothing is written there."""
    if snapshot.exists() or snapshot.is_symlink() or missing(shared, tokenizer_only=only):
        return
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    snapshot.symlink_to(shared, target_is_directory=True)
    log(f"model cache is read-only here: {snapshot} links to {shared}")


def _download(
    model: str,
    snapshot: Path,
    reason: str,
    only: bool,
    knobs: Knobs,
    supervisor: Supervisor,
    revision: str | None,
) -> None:
    log(f"model {model}: not complete in {snapshot} ({reason}): downloading")
    snapshot.mkdir(parents=True, exist_ok=True)
    (snapshot / MARKER).write_text("a download into this directory has not finished\n")
    argv = commands.download_argv(model, str(snapshot), revision)
    output = knobs.log_dir / (model.replace("/", "__") + ".download.log")
    try:
        returncode = supervisor.run(f"hf download {model}", argv, output=output)
    except (OSError, ValueError) as exc:
        msg = f"cannot run hf download for {model}: {exc}"
        raise Infrastructure(msg) from exc
    if returncode != 0:
        detail = tail(output, DOWNLOAD_TAIL_LINES)
        if detail:
            framed(detail)  # hf's own words, where the runner reads no command
        status = (
            "ran out of time" if returncode is None else f"exited with {describe_exit(returncode)}"
        )
        raise Infrastructure(f"hf download {model} {status}" + (f":\n{detail}" if detail else ""))
    (snapshot / MARKER).unlink()
    still = missing(snapshot, tokenizer_only=only)
    if still is not None:
        (snapshot / MARKER).write_text("hf download ended but the snapshot is not complete\n")
        msg = f"hf download {model} ended, but {snapshot} is not complete: {still}"
        raise Infrastructure(msg)
    log(f"model {model}: downloaded into {snapshot}")
