"""An event of the verdicts JSON as the summary and the dashboard show it: read from
`events`, or made up, one per config, for a document written before there were any."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.results.shown_verdicts import (
    MARKED,
    REGRESSION,
    SUSPECTED,
    Move,
    PointVerdict,
    ShownCurveVerdict,
    ShownEvent,
    number,
    pair_of,
)

# An event's `state` (the verdicts engine's contract) as the verdict it is marked with.
_STATE = {
    "confirmed": REGRESSION,
    "suspected": SUSPECTED,
    "improved": "improved",
    "cleared": "cleared",
}


def _size(value: object) -> str:
    """A change as text: `-10.1% [-11.8%, -8.4%]`, a pair as `before -> after`."""
    if isinstance(value, Mapping) and (change := number(value.get("change"))) is not None:
        return Move(
            metric="", change=change, low=number(value.get("low")), high=number(value.get("high"))
        ).text
    if isinstance(value, list | tuple) and len(value) == 2:
        return f"{value[0]} -> {value[1]}"
    return str(value)


def event_of(e: Mapping[str, Any]) -> ShownEvent:
    pairs: list[tuple[str, str]] = []
    for key in ("changes", "differences"):
        found = e.get(key) or {}
        if isinstance(found, Mapping):
            pairs += [(str(k), _size(v)) for k, v in found.items()]
        elif isinstance(found, list):
            pairs += [
                (str(i.get("what")), f"{i.get('before')} -> {i.get('after')}")
                if isinstance(i, Mapping)
                else (str(i), "")
                for i in found
            ]
    points = [*(e.get("points") or ()), *(e.get("curves") or ())]
    verdict = e.get("verdict") or _STATE.get(str(e.get("state")), REGRESSION)
    moves = tuple(
        Move(
            metric=str(k),
            change=float(v["change"]),
            low=number(v.get("low")),
            high=number(v.get("high")),
        )
        for k, v in (e.get("changes") or {}).items()
        if isinstance(e.get("changes"), Mapping)
        and isinstance(v, Mapping)
        and number(v.get("change")) is not None
    )
    found = e.get("differences")
    differences = tuple(
        (str(k), "-" if v[0] is None else str(v[0]), "-" if v[1] is None else str(v[1]))
        for k, v in (found.items() if isinstance(found, Mapping) else ())
        if isinstance(v, list | tuple) and len(v) == 2
    )
    state, runs, by = e.get("state"), e.get("runs"), e.get("confirmed_by")
    return ShownEvent(
        id=str(e.get("id")),
        config=str(e.get("config")),
        verdict=str(verdict),
        first_bad_run=e.get("first_bad_run"),
        last_good_run=e.get("last_good_run"),
        points=tuple(
            (
                f"{p.get('isl')}x{p.get('osl')} c={p['concurrency']}"
                if "concurrency" in p
                else f"{p.get('isl')}x{p.get('osl')} curve"
            )
            if isinstance(p, Mapping)
            else str(p)
            for p in points
        ),
        metrics=tuple(str(m) for m in e.get("metrics") or ()),
        changes=tuple(pairs),
        at=tuple(
            (*pair_of(p), int(p["concurrency"]) if isinstance(p.get("concurrency"), int) else None)
            for p in points
            if isinstance(p, Mapping)
        ),
        state=str(state) if isinstance(state, str) else None,
        confirmed_by=str(by) if isinstance(by, str) else None,
        runs=runs if isinstance(runs, int) and not isinstance(runs, bool) else 1,
        moves=moves,
        differences=differences,
    )


def made_up_events(
    run: str | None, points: tuple[PointVerdict, ...], curves: tuple[ShownCurveVerdict, ...]
) -> tuple[ShownEvent, ...]:
    """One event per config with marked points or curves (compare without events)."""
    configs = sorted(
        {p.config for p in points if p.verdict in MARKED}
        | {c.config for c in curves if c.verdict in MARKED}
    )
    out = []
    for config in configs:
        mine = [p for p in points if p.config == config and p.verdict in MARKED]
        bent = [c for c in curves if c.config == config and c.verdict in MARKED]
        verdicts = [p.verdict for p in mine] + [c.verdict for c in bent]
        worst = REGRESSION if REGRESSION in verdicts else SUSPECTED
        out.append(
            ShownEvent(
                id=f"{config}@{run}",
                config=config,
                verdict=worst,
                first_bad_run=run,
                last_good_run=None,
                points=tuple(f"{p.pair} c={p.concurrency}" for p in mine)
                + tuple(f"{c.pair} curve" for c in bent),
                metrics=tuple(
                    sorted({m.metric for p in mine for m in p.metrics if m.verdict in MARKED})
                ),
                changes=(),
                at=tuple((p.isl, p.osl, p.concurrency) for p in mine)
                + tuple((c.isl, c.osl, None) for c in bent),
            )
        )
    return tuple(out)
