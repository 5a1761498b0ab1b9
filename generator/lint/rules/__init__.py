"""Lint rules, one module per concern; `generator.lint.checks` runs them and applies waivers."""

from __future__ import annotations

from generator.lint.rules import (
    align,
    contextlen,
    env,
    identity,
    layout,
    modes,
    releases,
    spec,
    timing,
)
from generator.lint.rules.base import RETIRED, RULES, Context, Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

CHECKS: tuple[Callable[[Context], Iterator[Hit]], ...] = (
    layout.check,
    modes.check,
    spec.check,
    align.check,
    env.check,
    identity.check,
    timing.check,
    releases.check,
    contextlen.check,
)

__all__ = ["CHECKS", "RETIRED", "RULES", "Hit"]
