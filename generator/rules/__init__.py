"""Lint rules, one module per concern; `generator.lint` runs them and applies waivers."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from generator.model import Catalog
from generator.rules import align, env, identity, layout, limits, spec, timing
from generator.rules.base import RULES, Hit

CHECKS: tuple[Callable[[Catalog], Iterator[Hit]], ...] = (
    layout.check,
    spec.check,
    align.check,
    env.check,
    identity.check,
    limits.check,
    timing.check,
)

__all__ = ["CHECKS", "RULES", "Hit"]
