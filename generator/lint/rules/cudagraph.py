"""L304: each cell's concurrency per DP rank within the largest CUDA-graph batch the
server captures."""

from __future__ import annotations

from generator.catalog.catalog_types import Config
from generator.catalog.parallel_layout import DP
from generator.lint.rules.base import Hit, LintContext, Resolved, int_flag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


def graph_max(flags: dict[str, tuple[str, ...]]) -> tuple[int, str] | None:
    """The largest CUDA-graph batch size and the flag it comes from, when the argv fixes one.

    server_args.py `_handle_gpu_memory_settings`: an explicit `--cuda-graph-bs` list wins
    (`cuda_graph_max_bs = max(cuda_graph_bs)`), else `--cuda-graph-max-bs`.
    """
    if "--disable-cuda-graph" in flags:
        return None
    sizes = [int(v) for v in flags.get("--cuda-graph-bs", ()) if v.isdigit()]
    if sizes:
        return max(sizes), "--cuda-graph-bs"
    values = flags.get("--cuda-graph-max-bs")
    if values and values[0].isdigit():
        return int(values[0]), "--cuda-graph-max-bs"
    return None


def cuda_graph_covers(r: Resolved, config: Config) -> Iterator[Hit]:
    """L304 (warning): a cell's concurrency per DP rank exceeds the largest CUDA-graph batch.

    Each DP rank schedules its own batch; a decode batch larger than the largest captured
    graph runs eagerly, so the benchmark point measures something else than intended.
    """
    flags = r.flags
    found = graph_max(flags)
    if found is None or r.pair is None:
        return
    limit, flag = found
    dp = max(int_flag(flags, DP), 1)
    concs = next((c for p, c in config.grid if p == r.pair), ())
    over = [c for c in concs if -(-c // dp) > limit]
    if over:
        shown = ", ".join(str(c) for c in over)
        yield r.hit(
            "L304",
            (
                f"{r.where}: concurrency {shown} over DP{dp} is more than {limit} requests per "
                f"rank, the largest CUDA-graph batch ({flag}); those batches run without CUDA "
                f"graphs: raise {flag} or lower the concurrency"
            ),
        )


def check(ctx: LintContext) -> Iterator[Hit]:
    for r in ctx.servers:
        if isinstance(r.owner, Config):
            yield from cuda_graph_covers(r, r.owner)
