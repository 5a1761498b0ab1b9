"""The one Jinja2 environment: delimiters that cannot clash with ${{ }}, strict undefined."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import jinja2
import yaml

from generator.render import boundary

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
CONTAINER_OPTIONS = (
    "--device=/dev/kfd --device=/dev/dri --group-add video --ipc=host --shm-size=64g "
    "--security-opt seccomp=unconfined --cap-add=SYS_PTRACE"
)


def environment(templates: Path = TEMPLATES) -> jinja2.Environment:
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
    pins = yaml.safe_load((templates / "actions.yaml").read_text())
    env.globals["pin"] = lambda name: (
        f"{pins[name]['repo']}@{pins[name]['sha']} # {pins[name]['version']}"
    )
    env.globals["container_options"] = CONTAINER_OPTIONS
    env.globals.update(
        gpu_environment=boundary.GPU_ENVIRONMENT,
        history_environment=boundary.HISTORY_ENVIRONMENT,
        pages_environment=boundary.PAGES_ENVIRONMENT,
        history_key_secret=boundary.HISTORY_KEY_SECRET,
        github_host_key=boundary.GITHUB_HOST_KEY,
    )
    return env


class Templates:
    """Renders templates by name; one environment per render."""

    def __init__(self, templates: Path = TEMPLATES) -> None:
        self.env = environment(templates)

    def __call__(self, name: str, **context: Any) -> str:
        return self.env.get_template(name).render(template=name, **context)
