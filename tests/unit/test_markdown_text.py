"""Text from records, tools and inputs printed in Markdown (`md_code`, `md_text`,
`md_cell`): rendered by GitHub's own Markdown (cmark-gfm), nothing of it leaves its code
span, and no line it is printed on is a workflow command."""

from __future__ import annotations

import html
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from generator.core.logtext import is_command_like, md_cell, md_code, md_text, one_line
from generator.launch import provenance_probe as launch_provenance

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.record_types import GithubProvenance, ImageProvenance, Provenance

# What a record's text, a runner's name or a tool's output may hold to break out.
PAYLOADS = {
    "backtick": "0.5.6`, @octocat [click](https://evil.example) `",
    "backtick-runs": "``` ` `` x",
    "newline-add-mask": "0.5.6\n::add-mask::secret",
    "newline-error": "x\n::error title=Pwned::owned",
    "carriage-return-command": "x\r::warning::owned",
    "mention": "@octocat please look",
    "team-mention": "@org/maintainers",
    "link": "[release notes](https://evil.example/x)",
    "image": "![x](https://evil.example/t.png)",
    "autolink": "see www.evil.example or https://evil.example",
    "html": "<img src=x onerror=alert(1)><b>bold</b>",
    "table-pipe": "a | b | c",
    "old-command": "##[error]old form",
    "emphasis": "**loud** _quiet_ ~~gone~~",
    "entity": "&lt;script&gt; &#64;octocat",
    "leading-space-backtick": " `x` ",
    "bidi": "abc\u202edef",
    "html-comment-close": "x --> <!-- y",
}
BENIGN = {
    "version": "0.5.6",
    "title": "Benchmark #42",
    "gpu": "AMD Instinct MI355X",
    "ref": "refs/heads/main",
    "reason": "status failed: exited with status 1",
}
_CODE = re.compile(r"<code>(.*?)</code>", re.DOTALL)


# Words only the payloads hold: none may be rendered outside a code span.
MARKERS = ("octocat", "evil", "secret", "Pwned", "owned", "maintainers", "release", "onerror",
           "bold", "loud", "quiet", "gone", "script", "old form", "def", "please")  # fmt: skip
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def render_markdown(markdown: str) -> str:
    """GitHub's Markdown (cmark-gfm with its extensions), raw HTML kept as GitHub's
    sanitizer would keep a tag like <b> or <img>."""
    html_text: str = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE
    )
    return html_text


def outside_code(rendered: str) -> str:
    return _COMMENT.sub("", _CODE.sub("", rendered))


def inside_code(rendered: str) -> list[str]:
    return [html.unescape(c) for c in _CODE.findall(rendered)]


def assert_harmless(markdown: str, rendered: str, link: str | None = None) -> None:
    """Nothing of a payload outside a code span (so no link but to `link`, image, HTML,
    emphasis or mention of it), and no workflow command on any printed line."""
    outside = outside_code(rendered)
    if link is not None:
        outside = re.sub(f'<a href="{re.escape(link)}">[^<]*</a>', "", outside)
    assert "<a " not in outside
    assert "<img" not in outside
    assert "@" not in outside
    assert [m for m in MARKERS if m in outside] == []
    assert not is_command_like(markdown)


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_a_code_span_holds_the_whole_text_and_nothing_escapes_it(payload: str) -> None:
    line = f"- version {md_code(payload)} on the runner"
    rendered = render_markdown(line)
    assert_harmless(line, rendered)
    assert inside_code(rendered) == [one_line(payload)]


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_a_table_cell_keeps_its_text_in_one_cell(payload: str) -> None:
    line = f"| {md_code(payload, table=True)} | {md_text(payload, table=True)} | end |"
    rendered = render_markdown(f"| a | b | c |\n|---|---|---|\n{line}\n")
    assert_harmless(line, rendered)
    assert rendered.count("<td>") == 3
    assert inside_code(rendered) == [one_line(payload)] * 2
    assert "<td>end</td>" in rendered


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_running_text_becomes_a_code_span_when_markdown_would_act_on_it(payload: str) -> None:
    line = f"fail: {md_text(payload)}."
    rendered = render_markdown(line)
    assert_harmless(line, rendered)
    assert inside_code(rendered) == [one_line(payload)]


@pytest.mark.parametrize("text", BENIGN.values(), ids=BENIGN.keys())
def test_plain_text_is_printed_as_it_is(text: str) -> None:
    assert md_text(text) == text
    assert md_code(text) == f"`{text}`"


@pytest.mark.parametrize(
    ("value", "span"),
    [
        ("a`b", "``a`b``"),
        ("``", "``` `` ```"),
        ("`x", "`` `x ``"),
        ("", "` `"),
        ("a|b", "`a|b`"),
    ],
)
def test_the_fence_is_one_backtick_longer_than_any_run_inside(value: str, span: str) -> None:
    assert md_code(value) == span


def test_a_cell_the_caller_formatted_is_one_line_without_a_command() -> None:
    assert md_cell("`x` | y\n::error::z") == "`x` \\| y\\n::error::z"


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("output_throughput_per_gpu", True),
        ("_emphasis_", False),
        ("a _b", False),
        ("snake_case_", False),
    ],
)
def test_an_underscore_is_plain_inside_a_word_only(text: str, plain: bool) -> None:
    assert (md_text(text) == text) is plain
    assert "<em>" not in render_markdown(f"x {md_text(text)} y")


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_the_launchers_provenance_block_keeps_record_text_in_code(payload: str) -> None:
    image: ImageProvenance = {"requested": payload, "tag": payload, "digest": payload,
                              "pinned": payload, "resolution": payload}  # fmt: skip
    github: GithubProvenance = {"repository": None, "workflow": None, "run_id": payload,
                                "run_attempt": payload, "event": None, "ref": None}  # fmt: skip
    provenance: Provenance = {
        "image": image,
        "sglang_version": payload,
        "sglang_commit": payload,
        "atom_version": payload,
        "aiter_version": payload,
        "rocm_version": payload,
        "gpu": {"model": payload, "count": 8, "vram_gb": 288.0},
        "runner_name": payload,
        "runner_label": payload,
        "github": github,
        "catalog_commit": payload,
    }
    text = launch_provenance.markdown(provenance)
    rendered = render_markdown(text)
    assert_harmless(text, rendered)
    assert inside_code(rendered).count(one_line(payload)) == 15
