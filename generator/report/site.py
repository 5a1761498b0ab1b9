"""The dashboard's pages: the templates, plotly figures as divs, one page written. Every
page loads plotly's JavaScript once, from PLOTLY_JS at the site's top (no CDN)."""

from __future__ import annotations

import re

import plotly.io as pio  # type: ignore[import-untyped]
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from generator.report.figures import Figure
    from generator.report.timeline import RunView

PLOTLY_JS = "plotly.min.js"


def pct(value: float | None) -> str:
    """A relative change as text: `-8.0%`; nothing when unknown."""
    return "" if value is None else f"{value * 100:+.1f}%"


def env() -> Environment:
    return Environment(
        loader=PackageLoader("generator.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "config"


def html(figures: list[Figure], prefix: str, height: int = 380, columns: int = 2) -> str:
    """The figures as divs, `columns` to a row; the page loads plotly.js once."""
    divs = [
        pio.to_html(
            figure,
            include_plotlyjs=False,
            full_html=False,
            validate=False,
            div_id=f"{prefix}{i}",
            default_height=f"{height}px",
            config={"displaylogo": False, "responsive": True},
        )
        for i, figure in enumerate(figures)
    ]
    grid = "grid" if columns == 2 else "wide"
    return f'<div class="{grid}">' + "\n".join(divs) + "</div>"


def page(out: Path, rel: str, title: str, body: str) -> None:
    up = "../" * rel.count("/")
    text = (
        env()
        .get_template("page.html.j2")
        .render(title=title, js=up + PLOTLY_JS, home=up + "index.html", body=Markup(body))
    )
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def link(run: str | None, views: Mapping[str, RunView], titles: Mapping[str, str]) -> str:
    """A run by its title, linked to its workflow run when the page knows the link."""
    if not run:
        return "-"
    view = views.get(run)
    name = Markup.escape(titles.get(run, run))
    if view is None or not view.url:
        return str(name)
    return f'<a href="{Markup.escape(view.url)}">{name}</a>'
