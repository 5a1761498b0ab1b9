"""`results compare` as Markdown (templates/verdicts.md.j2): the outcome, the events and
their counts, the gates, then every curve and point not plainly `ok` (most severe first)."""

from __future__ import annotations

from generator.core.logtext import md_text as text
from generator.report.markdown import SHORT, from_template, percent
from generator.results.verdict import IMPROVED, OK, SEVERITY

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.verdicts_json import EventDoc, MetricDoc, PointDoc, VerdictsDoc


def _outcome(data: VerdictsDoc) -> str:
    policy = data["policy"]
    parts = []
    if data["confirmed"]:
        parts.append(
            f"{len(data['confirmed'])} regression(s) confirmed by this run "
            f"({policy['on_regression']})"
        )
    if data["gates"]:
        parts.append(f"{len(data['gates'])} failed gate(s) ({policy['on_gate']})")
    if data.get("reason"):
        parts.append(str(data["reason"]))
    elif data.get("missing"):
        parts.append(f"{data['missing']} expected point(s) or case(s) without a record")
    verdict = "FAIL" if data["exit_code"] else "pass"
    return f"**{verdict}**" + (": " + "; ".join(parts) if parts else ": no new regression")


def _note(m: MetricDoc) -> str:
    text = f"{m['runs']} runs"
    if m["band"] is not None:
        text = f"band {m['band']:.1%}, " + text
    return f"{text}; {m['note']}" if m.get("note") else text


def _size(changes: dict[str, dict[str, float]]) -> str:
    return "; ".join(
        f"{SHORT.get(m, m)} {percent(c['change'])} [{percent(c['low'])}, {percent(c['high'])}]"
        for m, c in changes.items()
    )


def _event(e: EventDoc) -> tuple[object, ...]:
    """An event's row of the events' table."""
    what = ", ".join(
        [f"{p['isl']}x{p['osl']} c={p['concurrency']}" for p in e["points"]]
        + [f"{c['isl']}x{c['osl']} curve" for c in e["curves"]]
    )
    differs = ", ".join(f"{k} {a} -> {b}" for k, (a, b) in e["differences"].items())
    return (
        e["state"] + (" (new)" if e["new_confirmation"] else ""),
        text(e["config"]),
        text(e["first_bad_run"]),
        text(e["last_good_run"]) if e["last_good_run"] else "",
        e["runs"],
        _size(e["changes"]),
        what,
        (e["cause"] + " change; " if e["cause"] else "") + (text(differs) if differs else ""),
        text(e["id"]),
    )


def _rank(item: tuple[str, int]) -> int:
    return SEVERITY.index(item[0]) if item[0] in SEVERITY else len(SEVERITY)


def markdown(data: VerdictsDoc) -> list[str]:
    policy = data["policy"]
    points: list[tuple[PointDoc, MetricDoc | None]] = []
    for p in sorted(data["points"], key=lambda p: SEVERITY.index(p["verdict"])):
        if p["verdict"] in (OK, IMPROVED) and not p["reason"]:
            continue
        points += [] if p["metrics"] else [(p, None)]
        points += [(p, m) for m in p["metrics"].values() if m["verdict"] != OK]
    counts = data["counts"]
    return from_template(
        "verdicts.md.j2",
        data=data,
        policy=policy,
        z=policy["significance"],
        outcome=_outcome(data),
        changes=", ".join(f"{SHORT[m]} {v:.0%}" for m, v in policy["min_change"].items()),
        events=[
            _event(e)
            for e in sorted(data["events"], key=lambda e: (e["state"] != "confirmed", e["config"]))
        ],
        counts=[
            (what, ", ".join(f"{v} {n}" for v, n in sorted(found.items(), key=_rank)) or "none")
            for what in ("events", "points", "curves")
            for found in [counts.get(what, {})]
        ],
        curves=sorted(
            (c for c in data["curves"] if c["verdict"] != OK),
            key=lambda c: SEVERITY.index(c["verdict"]),
        ),
        points=points,
        note=_note,
    )
