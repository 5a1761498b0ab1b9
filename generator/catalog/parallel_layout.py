"""A server's parallel layout, said once: `parallel: {tp, dp, ep}` writes SGLang's size and
DP-attention flags, and nothing else in a catalog may write them.

SGLang's spellings (the flag tables, generator/catalog/flagtables/): `--tensor-parallel-size`
(`--tp-size`), `--data-parallel-size` (`--dp-size`), `--expert-parallel-size` (`--ep-size`,
`--ep`), and the switch `--enable-dp-attention`. The tensor-parallel size leads every command
line; the others follow it, or stand where the config's `args` list names `parallel`.
"""

from __future__ import annotations

from generator.catalog.flags import canonical
from generator.catalog.server_types import Flag, Parallel

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.errors import Loc

TP = "--tensor-parallel-size"
DP = "--data-parallel-size"
EP = "--expert-parallel-size"
DP_ATTENTION = "--enable-dp-attention"
# The item of an `args` list that places the DP, EP and DP-attention flags.
MARKER = "parallel"
# Canonical name -> what writes it (every flag `parallel:` writes is one of these).
_SOURCE = {
    TP: "parallel.tp: remove it here and set the size there",
    DP: "parallel.dp: remove it here and set the size there",
    EP: "parallel.ep: remove it here and set the size there",
    DP_ATTENTION: (
        "parallel: (on with dp > 1; parallel.dp_attention: false turns it off): remove it here"
    ),
}


WRITTEN = frozenset(_SOURCE)


def layout_problem(name: str) -> str | None:
    """Why a flag may not be written in args, fragments or server modes: `parallel:`
    writes it."""
    source = _SOURCE.get(canonical(name))
    return None if source is None else f"{name} is written from {source}"


def layout_flags(parallel: Parallel, loc: Loc) -> tuple[Flag, tuple[Flag, ...]]:
    """The tensor-parallel flag, and the DP, EP and DP-attention flags the layout needs
    (none when a size is 1, SGLang's default), all written at `loc`."""
    rest = [
        Flag(name=flag, values=(str(size),), loc=loc)
        for flag, size in ((DP, parallel.dp), (EP, parallel.ep))
        if size > 1
    ]
    if parallel.attention_dp:
        rest.append(Flag(name=DP_ATTENTION, values=(), loc=loc))
    return Flag(name=TP, values=(str(parallel.tp),), loc=loc), tuple(rest)
