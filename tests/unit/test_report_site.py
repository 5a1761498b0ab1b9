"""The dashboard's pages (generator/report/site.py): a change as text, a name as a file
name, figures as divs, a run linked by its title, one page written under the site."""

from __future__ import annotations

from generator.report.site import PLOTLY_JS, html, link, page, pct, slug
from generator.report.timeline import RunView

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.report.figures import Figure


def view(name: str, url: str | None) -> RunView:
    return RunView(name=name, role="history", t="2026-11-01T02:00:00Z", title=name, url=url,
                   outcome="pass", records=1, images=(), catalog_commit=None)  # fmt: skip


def test_a_change_is_signed_with_one_decimal_and_unknown_is_empty() -> None:
    assert [pct(-0.08), pct(0.0), pct(0.12345), pct(None)] == ["-8.0%", "+0.0%", "+12.3%", ""]


def test_a_slug_keeps_letters_digits_dots_dashes_and_underscores() -> None:
    assert slug("ds-fp8_tp8.v2") == "ds-fp8_tp8.v2"
    assert slug("a b/c<d>") == "a-b-c-d"
    assert slug("/../x/") == "..-x"
    assert slug("  ") == "config"


def test_a_run_is_linked_by_its_title_when_its_view_has_a_url() -> None:
    views = {"r1": view("r1", "https://example.com/run?a=1&b=2"), "r2": view("r2", None)}
    titles = {"r1": "night <1>", "r2": "night 2"}
    assert link("r1", views, titles) == (
        '<a href="https://example.com/run?a=1&amp;b=2">night &lt;1&gt;</a>'
    )
    assert link("r2", views, titles) == "night 2"
    assert link("r3", views, titles) == "r3"  # no view, no title: its name
    assert [link(None, views, titles), link("", views, titles)] == ["-", "-"]


def test_figures_are_divs_with_their_ids_in_a_grid_or_wide() -> None:
    figure: Figure = {"data": [{"type": "scatter", "x": [1], "y": [2]}], "layout": {}}
    text = html([figure, figure], "fig", height=200)
    assert text.startswith('<div class="grid">')
    assert text.endswith("</div>")
    assert [text.count('id="fig0"'), text.count('id="fig1"'), text.count('id="fig2"')] == [1, 1, 0]
    assert "height:200px" in text
    assert "cdn.plot.ly" not in text
    assert html([], "x", columns=1) == '<div class="wide"></div>'


def test_a_page_loads_plotly_from_the_sites_top_and_escapes_its_title(tmp_path: Path) -> None:
    page(tmp_path, "index.html", "a < b", "<p>body</p>")
    top = (tmp_path / "index.html").read_text()
    assert f'<script src="{PLOTLY_JS}"></script>' in top
    assert "<title>a &lt; b</title>" in top
    assert "<p>body</p>" in top  # the body is markup already
    page(tmp_path, "config/deep/x.html", "x", "")
    deep = (tmp_path / "config" / "deep" / "x.html").read_text()
    assert '<script src="../../plotly.min.js"></script>' in deep
    assert '<a href="../../index.html">Dashboard</a>' in deep
    assert '<a href="../../regressions.html">Regressions</a>' in deep
