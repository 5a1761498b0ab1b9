"""Speculative decoding (NEXTN / EAGLE / MTP) flags as SGLang resolves them."""

from __future__ import annotations

import re

from generator.catalog.catalog_types import SPEC_NONE
from generator.lint.rules.base import Hit, LintContext, Resolved, int_flag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

ALGO = "--speculative-algorithm"
DRAFT_PATHS = ("--speculative-draft-model-path", "--speculative-draft-model")
STEPS = "--speculative-num-steps"
TOPK = "--speculative-eagle-topk"
DRAFT_TOKENS = "--speculative-num-draft-tokens"
EAGLE_FAMILY = ("NEXTN", "EAGLE", "EAGLE3", "STANDALONE")
# Families whose checkpoints carry their own MTP layer: SGLang takes the model path as the
# draft path when none is given (server_args.py `_handle_speculative_decoding`).
MTP_IN_CHECKPOINT = ("deepseek",)


def _algo(flags: dict[str, tuple[str, ...]]) -> str | None:
    values = flags.get(ALGO)
    return values[0].upper() if values else None


def spec_draft_model(r: Resolved) -> Iterator[Hit]:
    """L301 (warning): NEXTN/EAGLE/EAGLE3 without `--speculative-draft-model-path`.

    Source: server_args.py `_handle_speculative_decoding` (0.5.9): NEXTN becomes EAGLE;
    for DeepseekV3/V32, Glm4Moe and a few other architectures with an MTP layer in the
    checkpoint, `speculative_draft_model_path = self.model_path` when unset. The catalog
    does not know the architecture, so: no finding for the deepseek family (the case SGLang
    covers, and the SGLang nightly relies on it), a warning for any other family, where a
    missing draft model makes the server fail while loading. A warning, not an error,
    because SGLang's list of such architectures grows (GLM, MiMo, ...).
    """
    flags = r.flags
    algo = _algo(flags)
    if algo not in ("NEXTN", "EAGLE", "EAGLE3") or any(p in flags for p in DRAFT_PATHS):
        return
    if algo != "EAGLE3" and r.owner.model.family in MTP_IN_CHECKPOINT:
        return
    yield r.hit(
        "L301",
        (
            f"{r.name} uses --speculative-algorithm {algo} without --speculative-draft-model-path; "
            f"SGLang falls back to the model path only for architectures with a built-in MTP "
            f"layer: name the draft model"
        ),
    )


def spec_draft_tokens(r: Resolved) -> Iterator[Hit]:
    """L302: with `--speculative-eagle-topk 1`, num-draft-tokens must be num-steps + 1.

    Source: server_args.py `_handle_speculative_decoding`: `if speculative_eagle_topk == 1
    and speculative_num_draft_tokens != speculative_num_steps + 1:` SGLang logs a warning
    and overwrites the value (0.5.23: `declare_resolution(...)` in speculative_hook.py). An
    error here, because the catalog would then state a value the server does not run.
    """
    flags = r.flags
    if _algo(flags) not in EAGLE_FAMILY or not {STEPS, TOPK, DRAFT_TOKENS} <= flags.keys():
        return
    steps, topk, draft = (int_flag(flags, f, 0) for f in (STEPS, TOPK, DRAFT_TOKENS))
    if topk == 1 and draft != steps + 1:
        yield r.hit(
            "L302",
            (
                f"{r.name} sets {DRAFT_TOKENS} {draft} with {TOPK} 1 and {STEPS} {steps}; "
                f"SGLang silently replaces it with {steps + 1}: write {steps + 1}"
            ),
        )


def spec_params_together(r: Resolved) -> Iterator[Hit]:
    """L303: num-steps, eagle-topk and num-draft-tokens are given all together or not at all.

    Source: server_args.py `_handle_speculative_decoding`: `if self.speculative_num_steps is
    None: assert self.speculative_eagle_topk is None and self.speculative_num_draft_tokens
    is None` before `auto_choose_speculative_params`.
    """
    flags = r.flags
    if _algo(flags) not in EAGLE_FAMILY:
        return
    given = [f for f in (STEPS, TOPK, DRAFT_TOKENS) if f in flags]
    if given and len(given) < 3:
        missing = [f for f in (STEPS, TOPK, DRAFT_TOKENS) if f not in flags]
        yield r.hit(
            "L303",
            (
                f"{r.name} sets {', '.join(given)} but not {', '.join(missing)}; SGLang asserts "
                f"that all three are given or none (then it chooses them)"
            ),
        )


def spec_field_matches(r: Resolved) -> Iterator[Hit]:
    """L305: the `spec` field (none, mtp1, mtp3, ...) agrees with the speculative flags.

    Selectors and cron groups pick configs by `spec`; SGLang reads the flags.
    """
    flags = r.flags
    spec, algo = r.owner.spec, _algo(flags)
    steps = int_flag(flags, STEPS, 0) if STEPS in flags else None
    match = re.fullmatch(r"mtp(\d+)", spec)
    if spec == SPEC_NONE and algo is not None:
        msg = f"has spec 'none' but starts --speculative-algorithm {algo}"
    elif spec != SPEC_NONE and algo is None:
        msg = f"has spec '{spec}' but no --speculative-algorithm"
    elif match and steps is not None and int(match[1]) != steps:
        msg = f"has spec '{spec}' but {STEPS} {steps}"
    else:
        return
    yield r.hit(
        "L305",
        f"{r.name} {msg}; make the field and the flags agree",
    )


def check(ctx: LintContext) -> Iterator[Hit]:
    for r in ctx.servers:
        yield from spec_draft_model(r)
        yield from spec_draft_tokens(r)
        yield from spec_params_together(r)
        yield from spec_field_matches(r)
