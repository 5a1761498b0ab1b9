"""Lint rules, one module per concern; `generator.lint.checks` runs them and applies waivers."""

from __future__ import annotations

from generator.lint.rules import (
    align,
    contextlen,
    cudagraph,
    env,
    identity,
    layout,
    modes,
    releases,
    spec,
    timing,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from generator.lint.rules.base import Hit, LintContext

CHECKS: tuple[Callable[[LintContext], Iterator[Hit]], ...] = (
    layout.check,
    modes.check,
    spec.check,
    cudagraph.check,
    align.check,
    env.check,
    identity.check,
    timing.check,
    releases.check,
    contextlen.check,
)
