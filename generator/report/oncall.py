"""The top of the run summary, for the on-call engineer's first 30 seconds
(docs/results.md, "The run summary"): a headline that states the run's outcome after the
A/B in the run's colour, then one line per event, new ones first, then the ones still open,
the suspicions, the cleared ones and the recoveries.

    ## red: 1 new regression (deepseek-r1-fp8-tp8 -8.1%), 1 still open · Benchmark #6
    - **new** deepseek-r1-fp8-tp8 tok/s/GPU -8.1% [-9.0%, -7.2%] at 1024x1024 c4..c64 since
      this run: digest 0a1b2c3d4e5f -> 5f4e3d2c1b0a, AITER 0.1.6 -> 0.1.7; A/B 0.919
      [0.880, 0.950] confirmed · issue #12 · event · last good vs first bad ·
      `sglang-ci explain deepseek-r1-fp8-tp8 --image rocm/atom-dev@sha256:...`

(what follows `since RUN:` is what differs between the last good and the first bad run;
the A/B's figure is the ratio B / A of the metric with its interval.)

Each line reads under 200 characters before its links (the issue, the dashboard's event
and its last-good-vs-first-bad page, the `sglang-ci explain` command that starts the first
bad run's server). Images are named by digest and the versions that differ; a tag only
beside them. Everything comes from documents: the compare JSON (read through
verdicts_json), the A/B outcomes (`confirm outcomes --json`) and the tracking issues
(`confirm issues --out`): a recovery is an issue this run closed.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from generator.catalog.regression import weight
from generator.core.logtext import md_code as code
from generator.core.logtext import md_text as text
from generator.report.markdown import SHORT
from generator.report.rundiff import page_name
from generator.report.site import slug

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from generator.confirm.outcome import Outcome
    from generator.confirm.tracked import Tracked
    from generator.results.history import PointKeyDoc
    from generator.results.verdicts_json import EventDoc, VerdictsDoc

# What differs between the last good and the first bad run, as a line names it.
DIFFERS = {
    "image_digest": "digest",
    "sglang_version": "SGLang",
    "sglang_commit": "SGLang commit",
    "atom_version": "ATOM",
    "aiter_version": "AITER",
    "rocm_version": "ROCm",
    "catalog_commit": "catalog",
    "runner_name": "runner",
    "fingerprint": "server args",
}
CONFIRMED_BY = {"ab": "the A/B", "re-run": "the next run", "runs": "the runs after it"}
_HEX = re.compile(r"^(sha256:)?([0-9a-f]{12})[0-9a-f]*$")
_URL = re.compile(r"https://[^\s()<>`\\]+")
ORDER = ("new", "still open", "suspected", "cleared", "invalid", "recovered")


@dataclass(frozen=True, kw_only=True)
class OncallContext:
    """What the lines link to and name."""

    run: str  # the run's name in the history
    title: str  # `Benchmark #6`
    dashboard: str | None = None  # the dashboard's base URL
    images: Mapping[str, str] | None = None  # config -> the image it ran (repo@digest)
    awaiting_ab: bool = False  # the summary job of a scheduled run: an A/B comes next


def _short(value: object) -> str:
    found = _HEX.match(str(value))
    return found[2] if found else str(value)


def differs_pairs(
    differences: Mapping[str, Sequence[object]], shown_as: Callable[[object], str] = text
) -> list[tuple[str, str]]:
    """What differs between two runs: (`digest`, `0a1b2c3d4e5f -> 5f4e3d2c1b0a`), each
    value as `shown_as` writes it (Markdown by default)."""

    def shown(key: str, value: object) -> str:
        if not value or value in ("-", "None"):
            return "-"
        cut = str(value)[:8] if key in ("sglang_commit", "catalog_commit") else _short(value)
        return shown_as(cut)

    return [
        (DIFFERS.get(key, key), f"{shown(key, a)} -> {shown(key, b)}")
        for key, (a, b) in differences.items()
    ]


def differs(
    differences: Mapping[str, Sequence[object]], shown_as: Callable[[object], str] = text
) -> str:
    """`digest 0a1b2c3d4e5f -> 5f4e3d2c1b0a, AITER 0.1.6 -> 0.1.7`."""
    return ", ".join(f"{what} {how}" for what, how in differs_pairs(differences, shown_as))


def _range(points: Sequence[PointKeyDoc]) -> str:
    """`1024x1024 c4..c64, 8192x1024 c8`: each pair with its concurrencies as a range."""
    by_pair: dict[str, list[int]] = defaultdict(list)
    for p in points:
        if isinstance(p.get("concurrency"), int):
            by_pair[f"{p.get('isl')}x{p.get('osl')}"].append(int(p["concurrency"]))
    shown = []
    for pair, cs in by_pair.items():
        cs.sort()
        shown.append(f"{pair} c{cs[0]}" + (f"..c{cs[-1]}" if len(cs) > 1 else ""))
    return ", ".join(shown)


def _defining(changes: Mapping[str, dict[str, float]]) -> tuple[str, dict[str, float]] | None:
    found = [(m, c) for m, c in changes.items() if isinstance(c, dict)]
    return min(found, key=lambda i: weight(i[0], i[1].get("change")), default=None)


def _size(changes: Mapping[str, dict[str, float]], interval: bool = True) -> str:
    first = _defining(changes)
    if first is None or not isinstance(first[1].get("change"), int | float):
        return "size unknown"
    metric, c = first
    low, high = c.get("low"), c.get("high")
    band = (
        f" [{low:+.1%}, {high:+.1%}]"
        if interval and isinstance(low, int | float) and isinstance(high, int | float)
        else ""
    )
    return f"{text(SHORT.get(metric, metric))} {c['change']:+.1%}{band}"


def _ab(outcome: Outcome | None, metric: str | None) -> str:
    if outcome is None or not outcome.steps:
        return f"A/B {outcome.result}" if outcome is not None else ""
    judged = [j for j in outcome.steps[0].judgements if j.point is None]
    mine = next((j for j in judged if j.metric == metric), judged[0] if judged else None)
    if mine is None or mine.ratio is None:
        return f"A/B {outcome.result}"
    interval = "" if mine.low is None else f" [{mine.low:.3f}, {mine.high:.3f}]"
    return f"A/B {mine.ratio:.3f}{interval} {outcome.result}"


def _kind(e: EventDoc, current: str, outcome: Outcome | None, invalid: bool) -> str:
    state = str(e.get("state") or "suspected")
    if invalid:
        return "invalid"
    if state == "confirmed":
        new = e.get("new_confirmation")
        if new is None:
            new = e.get("first_bad_run") == current
        return "new" if new else "still open"
    if state == "cleared" or (outcome is not None and outcome.result == "cleared"):
        return "cleared"
    return "suspected"


def _link(label: str, url: str | None) -> str | None:
    return f"[{label}]({url})" if url and _URL.fullmatch(url) else None


def _base(dashboard: str | None) -> str | None:
    if not dashboard:
        return None
    return dashboard if dashboard.endswith("/") else dashboard + "/"


def _explain(e: EventDoc, ctx: OncallContext) -> str:
    config = str(e.get("config") or "")
    image = (ctx.images or {}).get(config)
    bad = (e.get("differences") or {}).get("image_digest")
    family = (e.get("server") or {}).get("image_family")
    if isinstance(bad, list) and len(bad) == 2 and bad[1] and family:
        image = f"{family}@{bad[1]}"
    return f"sglang-ci explain {config}" + (f" --image {image}" if image else "")


def line(
    e: EventDoc,
    kind: str,
    ctx: OncallContext,
    outcome: Outcome | None,
    issue: Tracked | None,
) -> tuple[str, str]:
    """One event: (the line before its links, its links)."""
    first_bad = e.get("first_bad_run")
    since = "this run" if first_bad == ctx.run else text(first_bad or "-")
    facts = [
        f"**{kind}** {text(e.get('config'))} {_size(e.get('changes') or {})}",
        f"at {_range(e.get('points') or [])}" if e.get("points") else "",
        f"since {since}",
    ]
    changed = differs(e.get("differences") or {})
    head = " ".join(f for f in facts if f)
    if changed:
        head += f": {changed}"  # the last good run against the first bad
    first = _defining(e.get("changes") or {})
    ab = _ab(outcome, first[0] if first else None)
    if ab:
        head += f"; {ab}"
    elif e.get("confirmed_by"):
        by = str(e["confirmed_by"])
        head += f"; confirmed by {text(CONFIRMED_BY.get(by, by))}"
    links = []
    if issue is not None and issue.number is not None:
        links.append(_link(f"issue #{issue.number}", issue.url) or f"issue #{issue.number}")
    base = _base(ctx.dashboard)
    if base:
        links.append(f"[event]({base}event/{slug(str(e.get('id')))}.html)")
        good = e.get("last_good_run")
        if good and first_bad:
            links.append(f"[last good vs first bad]({base}{page_name(str(good), str(first_bad))})")
    links.append(code(_explain(e, ctx)))
    return head, " · ".join(links)


def _recovered(issue: Tracked) -> tuple[str, str]:
    head = f"**recovered** event {text(issue.event)}: its issue #{issue.number} closed by this run"
    return head, _link(f"issue #{issue.number}", issue.url) or ""


def _headline(counts: Mapping[str, list[str]], red: bool, extra: Sequence[str]) -> str:
    parts = []
    new = counts.get("new", [])
    if new:
        parts.append(f"{len(new)} new regression{'s' if len(new) > 1 else ''} ({', '.join(new[:2])}"
                     + (", ..." if len(new) > 2 else "") + ")")  # fmt: skip
    if counts.get("still open"):
        parts.append(f"{len(counts['still open'])} still open")
    suspected = len(counts.get("suspected", [])) + len(counts.get("cleared", []))
    cleared = len(counts.get("cleared", []))
    if suspected:
        part = f"{suspected} suspected"
        if cleared:
            whom = {1: "it", 2: "both"}.get(suspected, "all") if cleared == suspected else cleared
            part += f", confirmation cleared {whom}"
        parts.append(part)
    if counts.get("invalid"):
        parts.append(f"{len(counts['invalid'])} marked invalid")
    if counts.get("recovered"):
        parts.append(f"{len(counts['recovered'])} recovered")
    parts += extra
    colour = "red" if red else "green"
    return f"{colour}: " + (", ".join(parts) if parts else "no regression")


def section(
    verdicts: VerdictsDoc,
    ctx: OncallContext,
    *,
    outcomes: Mapping[str, Outcome] | None = None,
    issues: Sequence[Tracked] = (),
    extra: Sequence[str] = (),
) -> tuple[str, list[str]]:
    """The headline (without `## `) and the event lines, in ORDER."""
    outcomes = outcomes or {}
    by_event = {t.event: t for t in issues}
    invalid = set(verdicts.get("invalid") or ())
    current = str(verdicts.get("current") or ctx.run)
    rows: list[tuple[int, float, str, str]] = []
    counts: dict[str, list[str]] = defaultdict(list)
    closed = {t.event for t in issues if t.action == "closed"}
    reported = set()
    for e in verdicts.get("events") or ():
        reported.add(str(e.get("id")))
        o = outcomes.get(str(e.get("id")))
        kind = _kind(e, current, o, str(e.get("id")) in invalid)
        if kind == "still open" and str(e.get("id")) in closed:
            kind = "recovered"  # reported still, but its issue closed: every point back
        first = _defining(e.get("changes") or {})
        change = first[1].get("change") if first else None
        size = f" {change:+.1%}" if isinstance(change, int | float) else ""
        counts[kind].append(f"{text(e.get('config'))}{size}")
        head, links = line(e, kind, ctx, o, by_event.get(str(e.get("id"))))
        rank = -abs(change) if isinstance(change, int | float) else 0.0
        rows.append((ORDER.index(kind), rank, head, links))
    for t in issues:
        if t.action == "closed" and t.event not in reported:
            counts["recovered"].append(t.event)
            head, links = _recovered(t)
            rows.append((ORDER.index("recovered"), 0.0, head, links))
    rows.sort(key=lambda r: (r[0], r[1]))
    red = str(verdicts.get("outcome")) == "fail"
    headline = _headline(counts, red, extra)
    if ctx.awaiting_ab and counts.get("suspected") and not red:
        headline = headline.replace("green: ", "pending the A/B: ", 1)
    return headline, [f"- {head}" + (f" · {links}" if links else "") for _, _, head, links in rows]
