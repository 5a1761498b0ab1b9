"""Apache Otava night by night on each config's level series: run by bench_verdicts.py in
its own environment (`make bench` builds .venv-otava: Otava pins a numpy and a scipy of
its own), reading JSON on stdin and writing JSON on stdout.

In: {"window": W, "last": L, "max_pvalue": P, "series": {config: [level, ...]}} with
levels on the badness scale (higher is worse). For each config and each night k, Otava's
`compute_change_points` (its public analysis API, the Hunter split and merge) runs on the
last W levels up to k, at `max_pvalue` P; out: {config: [p or null, ...]}, per night the
smallest p-value of a change point in the last L runs whose runs after it are worse than
the ones before (null: none). A stricter threshold keeps the nights whose p is below it.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from otava.analysis import compute_change_points


def nightly(levels: list[float], window: int, last: int, max_pvalue: float) -> list[float | None]:
    out: list[float | None] = []
    for k in range(len(levels)):
        part = levels[max(0, k + 1 - window) : k + 1]
        if len(part) < 8:
            out.append(None)
            continue
        found, _ = compute_change_points(part, window_len=30, max_pvalue=max_pvalue)
        best = None
        for cp in found:
            i = int(cp.index)
            if i >= len(part) - last and float(np.mean(part[i:])) > float(np.mean(part[:i])):
                p = float(cp.stats.pvalue)
                best = p if best is None else min(best, p)
        out.append(best)
    return out


def main() -> int:
    request = json.load(sys.stdin)
    window, last, max_pvalue = request["window"], request["last"], request["max_pvalue"]
    result = {
        name: nightly(levels, window, last, max_pvalue)
        for name, levels in request["series"].items()
    }
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
