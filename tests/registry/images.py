"""The images the registry tests push, and the running registry and front that hold them."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date

from tests.registry.front import Behaviour, running_front
from tests.registry.oci import Layout
from tests.registry.server import LocalRegistry, running_registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

TODAY = date(2026, 12, 1)
ATOM = "ci/atom-dev"
NIGHTLY = "ci/sgl-dev"
RELEASE_LABEL = "org.example.sglang.version"

# Each tag is an image of its own (so of its own digest). Dates around TODAY; a ninth of
# November 31st is no date and matches nothing.
NIGHTLY_TAGS = (
    "v0.5.9-rocm720-mi35x-20261201",
    "v0.5.9-rocm720-mi35x-20261201-preview",
    "v0.5.9-rocm700-mi35x-20261130",
    "v0.5.8.post1-rocm720-mi35x-20261128",
    "v0.5.9-rocm720-mi35x-20261128",
    "v0.5.10-rocm720-mi35x-20261128",
    "v0.5.10rc1-rocm720-mi35x-20261128",
    "v0.5.8-rocm720-mi35x-20261115",
    "v0.5.9-rocm720-mi35x-20261131",
    "latest",
)


@dataclass(frozen=True)
class LoadedRegistry:
    """The registry, a front for it (bearer tokens, tag pages), and the digest of every
    image pushed (`name:tag` -> digest, as written in the layout)."""

    registry: LocalRegistry
    front_host: str
    front: Behaviour
    digests: dict[str, str]

    @property
    def host(self) -> str:
        return self.registry.host


@contextmanager
def loaded_registry(workdir: Path) -> Iterator[LoadedRegistry]:
    """Start the registry, push the test images, start the front; stop both on exit."""
    layout = Layout(workdir / "layout")
    targets = {f"{ATOM}:sglang-latest": layout.image("sglang-latest")}
    targets[f"{ATOM}:multi"] = layout.multi_arch("multi")
    # Images that say which SGLang they carry in a label of their config.
    targets[f"{ATOM}:labelled-0.5.9"] = layout.image("labelled", labels={RELEASE_LABEL: "0.5.9"})
    targets[f"{ATOM}:labelled-multi"] = layout.multi_arch(
        "labelled-multi", labels={RELEASE_LABEL: "0.5.23"}
    )
    targets |= {f"{NIGHTLY}:{tag}": layout.image(tag) for tag in NIGHTLY_TAGS}
    refs = [f"image{i}" for i in range(len(targets))]
    for ref, descriptor in zip(refs, targets.values(), strict=True):
        layout.tag(descriptor, ref)
    storage = workdir / "registry"
    storage.mkdir()
    with running_registry(storage) as registry:
        registry.push(layout.root, list(zip(refs, targets, strict=True)))
        with running_front(registry.host) as front:
            digests = {target: d.digest for target, d in targets.items()}
            yield LoadedRegistry(registry, front.host, front.behaviour, digests)
