"""Parallel layout and GPU count, checked on the argv SGLang is really started with (whose
size flags `parallel:` writes: generator/catalog/parallel_layout.py)."""

from __future__ import annotations

from generator.catalog.parallel_layout import DP, DP_ATTENTION, EP, TP
from generator.lint.rules.base import Hit, LintContext, Resolved, int_flag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

PP = "--pipeline-parallel-size"


def dp_attention(flags: dict[str, tuple[str, ...]]) -> bool:
    """DP attention is on when asked for and dp > 1 (SGLang turns it off when dp_size == 1)."""
    return DP_ATTENTION in flags and int_flag(flags, DP) > 1


def dp_attention_divisible(r: Resolved) -> Iterator[Hit]:
    """L101: with --enable-dp-attention, tp size must be divisible by dp size.

    Source: sgl-project/sglang python/sglang/srt/server_args.py,
    `ServerArgs._handle_data_parallelism` (0.5.9): `if self.enable_dp_attention:
    assert self.tp_size % self.dp_size == 0` (after `dp_size == 1` switches DP attention
    off). 0.5.23 keeps it as `assert cfg.tp_size % cfg.attn_dp_size == 0`. The help text
    says "dp size should be equal to the tp size", but only divisibility is enforced.
    """
    flags = r.flags
    tp, dp = int_flag(flags, TP), int_flag(flags, DP)
    if dp_attention(flags) and tp % dp:
        fits = [d for d in range(tp, 1, -1) if tp % d == 0]
        hint = f"DP{fits[0]}" if fits else "no DP attention"
        yield r.hit(
            "L101",
            (
                f"{r.name} runs TP{tp} DP{dp} with {DP_ATTENTION}, which SGLang refuses at "
                f"start-up (tp size must be divisible by dp size): use TP{dp} DP{dp} "
                f"or TP{tp} with {hint}"
            ),
        )


def ep_divides_tp(r: Resolved) -> Iterator[Hit]:
    """L102: the expert-parallel size must divide the tensor-parallel size (EP == TP included).

    Source: SGLang forms the expert-parallel groups inside the TP group:
    `moe_tp_size = tp_size // ep_size // moe_dp_size` and
    `moe_ep_rank = tp_rank % (tp_size // moe_dp_size) // (tp_size // moe_dp_size // ep_size)`
    (python/sglang/srt/runtime_context.py, 0.5.23), which divides by zero when ep > tp;
    `model_runner_components/moe_ep_setup.py` raises "tp_size {tp} must be divisible by
    ep_size {ep}" for block-quantized models. server_args.py itself only checks it per
    backend (0.5.9): flashinfer_cutlass `assert self.ep_size in [1, self.tp_size]`;
    `moe_dp_size > 1`: `ep_size * moe_dp_size <= tp_size` (and `==` when ep_size > 1);
    the a2a backends (deepep, mori, ...) force `ep_size = tp_size`.
    """
    flags = r.flags
    tp, ep = int_flag(flags, TP), int_flag(flags, EP)
    if ep > 1 and tp % ep:
        yield r.hit(
            "L102",
            (
                f"{r.name} runs TP{tp} with EP{ep}; SGLang builds expert-parallel groups inside "
                f"the tensor-parallel group, so the ep size must divide the tp size: "
                f"use EP{tp} or a TP that is a multiple of {ep}"
            ),
        )


def gpus_needed(flags: dict[str, tuple[str, ...]]) -> int:
    """GPUs one server occupies: tp * pp, times dp unless DP attention places dp inside tp."""
    tp, pp, dp = int_flag(flags, TP), int_flag(flags, PP), int_flag(flags, DP)
    return tp * pp * (1 if dp_attention(flags) else dp)


def gpus_fit_runner(ctx: LintContext, r: Resolved) -> Iterator[Hit]:
    """L201: the GPUs a server needs fit on its runner label's machine.

    Source: SGLang starts tp_size * pp_size ranks per DP group
    (server_args.py `check_server_args`: `(tp_size * pp_size) % nnodes == 0`); with
    `--enable-dp-attention` the dp ranks live inside the tp ranks, otherwise each of the
    dp_size replicas takes tp * pp GPUs. GPU counts per label: the catalog's `runners:`.
    """
    runner = ctx.runners.get(r.server.runner)
    need = gpus_needed(r.flags)
    if runner is not None and need > runner.gpus:
        yield r.hit(
            "L201",
            (
                f"{r.name} needs {need} GPUs but runner '{runner.label}' has {runner.gpus}; "
                f"pick a runner with at least {need} GPUs or a smaller layout"
            ),
        )


def check(ctx: LintContext) -> Iterator[Hit]:
    for r in ctx.servers:
        yield from dp_attention_divisible(r)
        yield from ep_divides_tp(r)
        yield from gpus_fit_runner(ctx, r)
