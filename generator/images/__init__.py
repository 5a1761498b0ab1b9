"""Container image references resolved to digests, once per run, against a registry
(HTTP API v2): `resolve` pins one reference, `resolve_matrix` a run's matrix, and
`summary_markdown` lists the result for the step summary. See docs/images.md."""

from generator.core.versions import version_key
from generator.imageref.pattern import Nightly, TagPattern
from generator.imageref.reference import ImageError, Reference, parse_reference
from generator.images.matrix import describe, resolve_matrix, summary_markdown
from generator.images.registry import Registry, RegistryClient
from generator.images.resolve import (
    RESOLVE_ENV,
    Resolution,
    ResolutionPath,
    registry_from_env,
    resolve,
)
from generator.images.transport import RegistryError

__all__ = [
    "RESOLVE_ENV",
    "ImageError",
    "Nightly",
    "Reference",
    "Registry",
    "RegistryClient",
    "RegistryError",
    "Resolution",
    "ResolutionPath",
    "TagPattern",
    "describe",
    "parse_reference",
    "registry_from_env",
    "resolve",
    "resolve_matrix",
    "summary_markdown",
    "version_key",
]
