"""Before a server starts: its models in the cache, its GPUs checked, and the provenance
every record of the job or case carries."""

from __future__ import annotations

from dataclasses import dataclass

from generator.core import commands
from generator.core.console import log
from generator.core.exits import Infrastructure
from generator.launch import gpus, models, provenance_probe
from generator.launch.record_doc import Common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import ServerEntry
    from generator.launch.knobs import Knobs
    from generator.launch.process import Supervisor


@dataclass(frozen=True, kw_only=True)
class Ready:
    common: Common
    download_s: float | None
    versions: dict[str, str | None]


def prepare(entry: ServerEntry, knobs: Knobs, supervisor: Supervisor) -> Ready:
    """Models, GPUs and provenance; Infrastructure when the job cannot run here."""
    where = knobs.where
    found_gpus = gpus.probe()
    found = provenance_probe.versions(knobs.python)
    log(f"versions: {', '.join(f'{k} {v}' for k, v in found.items())}")
    common = Common(
        served_model_path=commands.models(entry, where)[entry["model_path"]],
        server_argv=commands.server_argv(entry, where, found.get("sglang")),
        server_env=dict(entry["env"]),
        provenance=provenance_probe.collect(entry, found_gpus, found, knobs.environ, knobs.root),
    )
    try:
        gpus.check(found_gpus, entry["gpus"])
        download_s = models.ensure(entry, knobs, supervisor)
    except Infrastructure as exc:
        raise Unready(common, str(exc)) from exc
    return Ready(common=common, download_s=download_s, versions=found)


def bare_common(entry: ServerEntry, knobs: Knobs) -> Common:
    """What the records share, without probing anything (GPUs and versions null): for
    records written before the probes ran (cancelled, or no results directory)."""
    where = knobs.where
    unknown = gpus.Gpus(tool=None, count=None, model=None, vram_gb=None)
    return Common(
        served_model_path=commands.models(entry, where)[entry["model_path"]],
        server_argv=commands.server_argv(entry, where),
        server_env=dict(entry["env"]),
        provenance=provenance_probe.collect(
            entry, unknown, dict.fromkeys(provenance_probe.PACKAGES), knobs.environ, knobs.root
        ),
    )


class Unready(Infrastructure):
    """Infrastructure, with what is known of the job for its records."""

    def __init__(self, common: Common, reason: str) -> None:
        super().__init__(reason)
        self.common = common
