"""The order of an A/B's turns on one runner (standard library only).

**Order.** Each of K repeats measures every point on image A and on image B, the side
that goes first alternating by repeat (A B, B A, A B, ...), so a drift of the machine
during the job falls on both images alike. With both servers up at once (`parallel`:
the layout leaves room for two servers on the runner's GPUs) each turn is one point on
one side: two server launches. Otherwise (`restart`) a side keeps its server for its
turns in a row, which gives the blocks A | B B | A A | ... : K + 1 launches.
"""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

A, B = "A", "B"
PARALLEL, RESTART = "parallel", "restart"


@dataclass(frozen=True, kw_only=True)
class Turn:
    """One point measured once on one side."""

    side: str
    repeat: int  # 1..K
    point: str

    @property
    def tag(self) -> str:
        """The id suffix of this measurement in its side's job: `<point>-r<repeat>`."""
        return f"{self.point}-r{self.repeat}"


def mode(server_gpus: int, runner_gpus: int) -> str:
    """`parallel` when two servers of this layout fit on the runner's GPUs at once."""
    return PARALLEL if 2 * server_gpus <= runner_gpus else RESTART


def first_side(repeat: int) -> str:
    return A if repeat % 2 == 1 else B


def turns(repeats: int, points: Iterable[str], how: str) -> list[Turn]:
    """Every measurement of the job, in the order it is made."""
    ids = list(points)
    out: list[Turn] = []
    for r in range(1, repeats + 1):
        sides = (A, B) if first_side(r) == A else (B, A)
        if how == PARALLEL:
            out += [Turn(side=s, repeat=r, point=p) for p in ids for s in sides]
        else:
            out += [Turn(side=s, repeat=r, point=p) for s in sides for p in ids]
    return out


def blocks(order: Iterable[Turn]) -> list[list[Turn]]:
    """The turns grouped into runs of one side (one server launch each when restarting)."""
    out: list[list[Turn]] = []
    for turn in order:
        if out and out[-1][0].side == turn.side:
            out[-1].append(turn)
        else:
            out.append([turn])
    return out


def launches(how: str, repeats: int) -> int:
    """Server launches of one A/B, none restarting on its own."""
    return 2 if how == PARALLEL else repeats + 1
