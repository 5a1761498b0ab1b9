"""Accuracy cases linked to a benchmark config start the same server."""

from __future__ import annotations

from generator.catalog.catalog_types import Case
from generator.catalog.flags import canonical
from generator.lint.rules.base import Hit, LintContext, flag_map, hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from generator.expand.expanded import Server


def _shown(values: tuple[str, ...] | str | None) -> str:
    if values is None:
        return "nothing"
    if isinstance(values, str):
        return f"'{values}'"
    return "'" + " ".join(values) + "'" if values else "(no value)"


def _differences(
    mine: dict[str, object], theirs: dict[str, object], allowed: set[str]
) -> list[str]:
    return [
        k
        for k in dict.fromkeys([*theirs, *mine])
        if k not in allowed and mine.get(k) != theirs.get(k)
    ]


def accuracy_matches_benchmark(ctx: LintContext, case: Case, mine: Server) -> Iterator[Hit]:
    """L401: a case with `benchmark:` starts its config's server (default mode, no per-pair
    extras), except for the names under `allowed_differences` in accuracy.yaml.

    Source: SPEC.md ("their server args equal the benchmark catalog's where the same config
    exists; the one intended difference: accuracy never sets AITER_QUICK_REDUCE_QUANTIZATION").
    """
    catalog = ctx.catalog
    prefix = str(case.benchmark)
    bench = ctx.expanded.base_servers[prefix]
    them_args, my_args = flag_map(bench.args), flag_map(mine.args)
    allowed_args = {canonical(a) for a in catalog.allowed_arg_differences}
    for name in _differences(dict(my_args), dict(them_args), allowed_args):
        yield hit(
            "L401",
            case,
            (
                f"case '{case.id}' starts {name} {_shown(my_args.get(name))} but benchmark "
                f"config '{prefix}' starts {_shown(them_args.get(name))}; align them or "
                f"list {name} under allowed_differences.args"
            ),
        )
    them_env, my_env = dict(bench.env), dict(mine.env)
    for name in _differences(dict(my_env), dict(them_env), set(catalog.allowed_env_differences)):
        yield hit(
            "L401",
            case,
            (
                f"case '{case.id}' sets {name} to {_shown(my_env.get(name))} but benchmark "
                f"config '{prefix}' sets {_shown(them_env.get(name))}; align them or "
                f"list {name} under allowed_differences.env"
            ),
        )


def accuracy_unset_allowed(ctx: LintContext, case: Case) -> Iterator[Hit]:
    """L402: every `unset_env` name is an allowed difference.

    Source: SPEC.md (the intended differences are declared once, in the catalog).
    """
    for name in case.unset_env:
        if name not in ctx.catalog.allowed_env_differences:
            yield hit(
                "L402",
                case,
                (
                    f"case '{case.id}' unsets {name}, which is not an allowed difference; "
                    f"keep it, or add it to allowed_differences.env with a comment saying why"
                ),
            )


def check(ctx: LintContext) -> Iterator[Hit]:
    for r in ctx.servers:
        case = r.owner
        if isinstance(case, Case) and case.benchmark is not None:
            yield from accuracy_matches_benchmark(ctx, case, r.server)
            yield from accuracy_unset_allowed(ctx, case)
