"""A compare page (`compare/<A>--<B>.html`): rundiff's two runs, their curves overlaid."""

from __future__ import annotations

from markupsafe import Markup

from generator.report import rundiff
from generator.report.event_section import CHART_HEIGHT
from generator.report.figures import BAD, EARLIER, CurveRun, curves_figure
from generator.report.site import env, html, link, page

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.report.event_section import EventPageContext
    from generator.results.store import Store

_PAIR_CURVES = """
SELECT run, config, isl, osl, concurrency, x, y FROM dash_points
WHERE list_contains(?, run) AND x IS NOT NULL AND x > 0
ORDER BY config, isl, osl, concurrency
"""


def compare_page(store: Store, out: Path, ctx: EventPageContext, a: str, b: str) -> None:
    """compare/<a>--<b>.html: the two runs side by side, their curves overlaid."""
    data = rundiff.diff(store, a, b, dashboard=True)
    got: dict[tuple[str, int, int], dict[str, list[tuple[float, float, int]]]] = {}
    for run, config, isl, osl, c, x, y in store.con.execute(_PAIR_CURVES, [[a, b]]).fetchall():
        got.setdefault((config, isl, osl), {}).setdefault(run, []).append(
            (float(x), float(y), int(c))
        )
    figures = [
        curves_figure(
            f"{ctx.displays.get(config, config)} {isl}x{osl}: throughput per GPU vs interactivity",
            [
                (CurveRun(label=f"A {ctx.titles.get(a, a)}", points=runs.get(a, [])), EARLIER),
                (CurveRun(label=f"B {ctx.titles.get(b, b)}", points=runs.get(b, [])), BAD),
            ],
            [],
            height=CHART_HEIGHT,
        )
        for (config, isl, osl), runs in sorted(got.items())
    ]
    body = (
        env()
        .get_template("compare.html.j2")
        .render(
            a=a,
            b=b,
            a_link=Markup(link(a, ctx.views, ctx.titles)),
            b_link=Markup(link(b, ctx.views, ctx.titles)),
            configs=[
                {**c, "display": ctx.displays.get(c["config"], c["config"])}
                for c in data["configs"]
            ],
            metrics=rundiff.METRICS,
            points=data["points"],
            chart=Markup(html(figures, "pair-", CHART_HEIGHT) if figures else ""),
        )
    )
    title = f"{ctx.titles.get(a, a)} against {ctx.titles.get(b, b)}"
    page(out, rundiff.page_name(a, b), title, body)
