"""Environment hygiene: forbidden, renamed and retired names; shell-safe names and values."""

from __future__ import annotations

from generator.lint.rules.base import Hit, LintContext, Owner

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from generator.catalog.server_types import EnvVar

# SPEC.md: removed from the DeepSeek MTP/DP cases by the ATOM pull request.
FORBIDDEN = (
    "CUDA_VISIBLE_DEVICES",
    "TP_SIZE",
    "MTP",
    "SPECULATIVE_NUM_DRAFT_TOKENS",
    "ATOM_DUAL_STREAM_MOE_TOKEN_THRESHOLD",
)
# SPEC.md: ATOM_USE_FP4_NON_SHUFFLE_TRITON_GEMM replaced ATOM_USE_FP4_TRITON_GEMM.
RENAMED = {"ATOM_USE_FP4_TRITON_GEMM": "ATOM_USE_FP4_NON_SHUFFLE_TRITON_GEMM"}
# The SGLang nightly seed keeps it only "to mirror the reported launch"; retired on main.
RETIRED = ("SGLANG_ENABLE_SPEC_V2",)


def check_var(var: EnvVar, owner: Owner | None) -> Iterator[Hit]:
    """L501-L503 for one variable.

    L501 env-forbidden (SPEC.md: the names the ATOM pull request removed; the launcher and
    SGLang own GPU placement and speculative settings). L502 env-renamed (error naming the
    new name: the old one is ignored). L503 env-retired (warning: still accepted, no effect
    on current SGLang main). Names and values the launcher could not pass literally are
    refused when the catalog is loaded (L504 and L505 are retired).
    """
    name, loc = var.name, var.loc
    if name in FORBIDDEN:
        yield Hit(
            rule="L501",
            loc=loc,
            owner=owner,
            message=(
                f"{name} must not be set (the launcher and SGLang own it; SPEC.md lists it as "
                f"removed): delete it"
            ),
        )
    if name in RENAMED:
        yield Hit(
            rule="L502",
            loc=loc,
            owner=owner,
            message=(f"{name} was renamed: write {RENAMED[name]} instead"),
        )
    if name in RETIRED:
        yield Hit(
            rule="L503",
            loc=loc,
            owner=owner,
            message=(
                f"{name} is retired in SGLang and has no effect on current images; drop it once "
                f"no image in use needs it"
            ),
        )


def _all(variables: Iterable[EnvVar], owner: Owner | None) -> Iterator[Hit]:
    for var in variables:
        yield from check_var(var, owner)


def check(ctx: LintContext) -> Iterator[Hit]:
    catalog = ctx.catalog
    used: set[str] = set()
    for config in catalog.configs:
        used.update(config.fragments)
        yield from _all(config.env, config)
        for _, extras in config.per_pair:
            yield from _all(extras.env, config)
    for case in catalog.cases:
        used.update(case.fragments)
        yield from _all(case.env, case)
    for mode in catalog.server_modes:
        yield from _all((*mode.env, *mode.spec_env), None)
    for name, variables, _ in catalog.env_fragments:
        if name not in used:
            yield from _all(variables, None)
