"""The A/B's noise model (standard library only).

The standard error comes from a noise model of two parts (`Noise`): a server launch's
offset (`launch`, shared by every point a launch serves) and one point's own measurement
(`point`). With n points and K repeats, restarting the servers (`restart`: the blocks
A | B B | A A | ..., consecutive repeats sharing one launch),
se^2 = (launch^2 (2K - 1) / K + point^2 / n) / K. With both servers up at once
(`parallel`) one launch per side serves every repeat, each side on its own half of the
GPUs: those offsets never average out, se^2 = 2 launch^2 + point^2 / (n K). The parts
are what the A/As of the runner label measured (generator/confirm/aa_noise.py, carried by
the job), else DEFAULT_NOISE; when the K repeats spread more than the model says, their
spread is used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TypedDict

from generator.core.ab_order import PARALLEL


class NoiseFields(TypedDict):
    """A Noise as the documents write it: an A/B's confirmation block, an A/A noise file."""

    launch: float
    point: float
    source: str


@dataclass(frozen=True, kw_only=True)
class Noise:
    """The A/B's noise on a log scale, per repeat and side pair: a launch's offset
    (`launch`: the difference between two launches' offsets) and one point's measurement
    (`point`: the difference of an A and a B measurement at one point, same launches)."""

    launch: float
    point: float
    source: str  # where the figures come from: "default" or the A/A that measured them

    def se(self, how: str, points: int, repeats: int, spread: float = 0.0) -> float:
        """The standard error of the mean of `repeats` repeats' w over `points` points;
        `spread`: the standard deviation the repeats' w showed (0: not measured)."""
        per_repeat = self.point**2 / points
        if how == PARALLEL:
            # The two sides' launches, and the two halves of the runner's GPUs (taken as
            # far apart as two launches): offsets that no repeat averages out.
            return math.sqrt(2 * self.launch**2 + max(per_repeat, spread**2) / repeats)
        # Restarting, the blocks A | B B | A A | ... give consecutive repeats one launch
        # in common: the K repeats hold K + 1 launches, the middle ones serving two repeats.
        launches = self.launch**2 * (2 * repeats - 1) / repeats
        return math.sqrt(max(launches + per_repeat, spread**2) / repeats)

    def as_dict(self) -> NoiseFields:
        return {"launch": self.launch, "point": self.point, "source": self.source}


# Without an A/A of the runner label: bench/bench_confirm.py's noise model (a point's CV 2%,
# a launch's 1%: sqrt(2) of each for a difference of two).
DEFAULT_NOISE = Noise(launch=0.014, point=0.028, source="default")


def z_of(level: float) -> float:
    """The one-sided normal quantile of `level` (1.96 at 0.975)."""
    return NormalDist().inv_cdf(level)
