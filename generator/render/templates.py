"""The one Jinja2 environment: delimiters that cannot clash with ${{ }}, strict undefined.

The templates are the checkout's own `templates/` (beside the catalogs it renders), so a
checkout renders with the templates it commits, whichever install of sglang-ci runs."""

from __future__ import annotations

import json
import shlex
from typing import Any

import jinja2

from generator.catalog.yamlio import load_data
from generator.errors import SglangCIError
from generator.render import boundary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

TEMPLATES = "templates"  # under the repository root
PINS = "actions.yaml"  # the pinned actions, under the templates


def templates_dir(root: Path) -> Path:
    """`root`'s templates/, or an error (exit 2) when `root` is not a checkout."""
    path = root / TEMPLATES
    if not (path / PINS).is_file():
        msg = (
            f"{path / PINS}: not found: --root must name an sglang-ci checkout "
            "(catalogs/ and templates/)"
        )
        raise SglangCIError(msg)
    return path


def environment(templates: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        block_start_string="<%",
        block_end_string="%>",
        variable_start_string="<<",
        variable_end_string=">>",
        comment_start_string="<#",
        comment_end_string="#>",
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["q"] = lambda v: json.dumps(str(v), ensure_ascii=False)
    env.filters["sh"] = lambda v: shlex.quote(str(v))
    pins = load_data((templates / PINS).read_text(encoding="utf-8"))
    env.globals["pin"] = lambda name: (
        f"{pins[name]['repo']}@{pins[name]['sha']} # {pins[name]['version']}"
    )
    env.globals.update(
        gpu_environment=boundary.GPU_ENVIRONMENT,
        build_environment=boundary.BUILD_ENVIRONMENT,
        build_secrets=boundary.BUILD_SECRETS,
        history_environment=boundary.HISTORY_ENVIRONMENT,
        pages_environment=boundary.PAGES_ENVIRONMENT,
        history_key_secret=boundary.HISTORY_KEY_SECRET,
        github_host_key=boundary.GITHUB_HOST_KEY,
    )
    return env


class Templates:
    """Renders templates by name; one environment per render."""

    def __init__(self, templates: Path) -> None:
        self.env = environment(templates)

    def __call__(self, name: str, **context: Any) -> str:
        return self.env.get_template(name).render(template=name, **context)
