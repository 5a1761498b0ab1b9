"""Server modes and configs that set the same flag or env name to different values."""

from __future__ import annotations

from generator.catalog.flags import override_env, override_flags
from generator.expand.servers import disagreements
from generator.lint.rules.base import Hit, LintContext, hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


def check(ctx: LintContext) -> Iterator[Hit]:
    """L106 (warning): a server mode and a config disagree on a flag or env value.

    The mode's declared precedence settles it (docs/fidelity.md: in `sglang-mori` the
    config wins, as in the system we replace, where the config's flags came after the
    mode's); the warning makes the value that loses visible. Each pair of the config is
    checked with its per-pair extras.
    """
    catalog = ctx.catalog
    for config in catalog.configs:
        for name in catalog.suite(config.suite).server_modes:
            mode = catalog.mode(name)
            if mode.precedence is None:
                continue  # expand refuses a disagreement there
            for pair, _ in config.grid:
                extras = config.extras_for(pair)
                flags = override_flags(config.args, extras.args if extras else ())
                env = override_env(config.env, extras.env if extras else ())
                for what, theirs, ours, loc in disagreements(
                    mode, flags, env, config.parallel, config.spec
                ):
                    winner = ours if mode.precedence == "config" else theirs
                    loser = theirs if mode.precedence == "config" else ours
                    side = "the config's" if mode.precedence == "config" else "the mode's"
                    yield hit(
                        "L106",
                        config,
                        (
                            f"server mode '{mode.name}' sets {what} to '{theirs}' and the config "
                            f"to '{ours}': {side} '{winner}' is used, '{loser}' is not "
                            f"(precedence: {mode.precedence})"
                        ),
                        loc,
                    )
