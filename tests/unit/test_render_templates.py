"""`generator.render.templates`: the checkout's templates/ and the one Jinja2 environment
(<< >> and <% %> delimiters, strict undefined, the q and sh filters, pinned actions)."""

from __future__ import annotations

import jinja2
import pytest

from generator.errors import SglangCIError
from generator.render import boundary
from generator.render.templates import Templates, environment, templates_dir
from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

PINS = "checkout: {repo: actions/checkout, sha: 0123abcd, version: v7.0.1}\n"


def _templates(tmp_path: Path, **files: str) -> Path:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "actions.yaml").write_text(PINS)
    for name, text in files.items():
        (tmp_path / "templates" / name).write_text(text)
    return tmp_path / "templates"


def test_the_templates_are_the_checkout_s_own(tmp_path: Path) -> None:
    assert templates_dir(ROOT) == ROOT / "templates"
    assert templates_dir(_templates(tmp_path).parent) == tmp_path / "templates"


def test_a_root_without_templates_is_no_checkout(tmp_path: Path) -> None:
    with pytest.raises(SglangCIError) as info:
        templates_dir(tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'templates' / 'actions.yaml'}: not found: --root must name an sglang-ci "
        "checkout (catalogs/ and templates/)"
    )


def test_the_delimiters_leave_github_expressions_alone(tmp_path: Path) -> None:
    text = "<# a comment #>\n<% for x in xs %>\n  ${{ matrix.<< x >> }}\n<% endfor %>\nend\n"
    render = Templates(_templates(tmp_path, **{"t.yml": text}))
    # Block lines leave no line behind; the last newline is kept.
    assert render("t.yml", xs=["a", "b"]) == "  ${{ matrix.a }}\n  ${{ matrix.b }}\nend\n"


def test_the_filters_quote_for_yaml_and_for_the_shell(tmp_path: Path) -> None:
    env = environment(_templates(tmp_path))
    assert env.from_string("<< v | q >>").render(v='say "hé"') == '"say \\"hé\\""'
    assert env.from_string("<< v | sh >>").render(v="it's") == "'it'\"'\"'s'"
    assert env.from_string("<< 3 | q >>").render() == '"3"'


def test_an_action_is_pinned_to_its_commit_with_its_version(tmp_path: Path) -> None:
    env = environment(_templates(tmp_path))
    assert env.from_string("uses: << pin('checkout') >>").render() == (
        "uses: actions/checkout@0123abcd # v7.0.1"
    )


def test_an_undefined_name_fails_the_render(tmp_path: Path) -> None:
    env = environment(_templates(tmp_path))
    with pytest.raises(jinja2.UndefinedError, match="'missing' is undefined"):
        env.from_string("<< missing >>").render()


def test_a_template_knows_its_name_and_the_boundary_s_names(tmp_path: Path) -> None:
    render = Templates(_templates(tmp_path, **{"n.yml": "<< template >> << gpu_environment >>"}))
    assert render("n.yml") == f"n.yml {boundary.GPU_ENVIRONMENT}"
