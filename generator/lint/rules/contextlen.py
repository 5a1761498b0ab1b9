"""A context length longer than the model's own maximum, which SGLang refuses to start with."""

from __future__ import annotations

from generator.catalog.flags import canonical
from generator.lint.rules.base import Hit, LintContext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

FLAG = "--context-length"
# Either lets SGLang start above the model's maximum (model_config.py, 0.5.9 to 0.5.23:
# `envs.SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN.get() or is_in_ci()`), read as SGLang's
# EnvBool reads a value.
OVERRIDES = ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "SGLANG_IS_IN_CI")
TRUE = ("true", "1", "yes", "y")


def check(ctx: LintContext) -> Iterator[Hit]:
    """L804 context-length-over-model (error): `--context-length` above the model's
    declared `max_context_length`, on a server whose environment sets neither override."""
    for server in ctx.servers:
        model = server.owner.model
        values = server.flags.get(FLAG)
        if model.max_context_length is None or not values or not values[0].isdigit():
            continue
        asked = int(values[0])
        env = dict(server.server.env)
        if asked <= model.max_context_length or any(
            env.get(name, "").lower() in TRUE for name in OVERRIDES
        ):
            continue
        loc = next((f.loc for f in server.owner.args if canonical(f.name) == FLAG), None)
        yield Hit(
            rule="L804",
            loc=loc or server.owner.loc,
            owner=server.owner,
            message=(
                f"{server.name}: {FLAG} {asked} is above {model.path}'s maximum of "
                f"{model.max_context_length}; SGLang refuses to start unless "
                f"{OVERRIDES[0]}=1 (or {OVERRIDES[1]}=1, as SGLang's CI sets) is in the "
                "server's env: set one, or lower the length"
            ),
        )
