"""The README's way of adding a model, a config and a GSM8K case works (on the fixture
catalogs: the live ones may already hold the README's example)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.conftest import Invoke

# A fenced YAML block whose first line names the file and the section it goes under.
BLOCK = re.compile(r"```yaml\n *# (catalogs/\w+\.yaml), under (\w+):\n(.*?) *```", re.DOTALL)


def readme_blocks() -> list[tuple[str, str, str]]:
    out = []
    for file, section, body in BLOCK.findall((ROOT / "README.md").read_text()):
        indent = len(body) - len(body.lstrip(" "))
        text = "".join(line[indent - 2 :] + "\n" for line in body.splitlines())
        out.append((file, section, text))
    return out


def test_the_readme_shows_a_model_a_config_and_a_case() -> None:
    assert [(f, s) for f, s, _ in readme_blocks()] == [
        ("catalogs/benchmark.yaml", "models"),
        ("catalogs/benchmark.yaml", "configs"),
        ("catalogs/accuracy.yaml", "cases"),
    ]


def test_following_the_readme_keeps_render_lint_and_check_green(
    cli: Invoke, rendered_fixture: Path, tmp_path: Path
) -> None:
    root = Path(shutil.copytree(rendered_fixture, tmp_path / "repo"))  # rendered, to edit
    for file, section, text in readme_blocks():
        path = root / file
        catalog = path.read_text()
        head = f"\n{section}:\n"
        assert head in catalog
        path.write_text(catalog.replace(head, head + text, 1))
    check = cli("check", root=root)
    assert check.exit_code == 1
    assert "preset/oob/sglang-atom/glm-4-6-fp8-tp8.json is not committed" in check.stdout
    rendered = cli("render", root=root)
    assert rendered.exit_code == 0, rendered.stderr
    assert cli("check", root=root).exit_code == 0
    lint = cli("lint", root=root)
    assert lint.exit_code == 0, lint.stdout
    explained = cli("explain", "glm-4-6-fp8-tp8", root=root)
    assert explained.exit_code == 0
    assert '--model-path "${MODEL_CACHE}"/zai-org/GLM-4.6-FP8' in explained.stdout
    assert "# accuracy case glm-4-6-fp8-tp8: GLM-4.6-FP8 TP8" in explained.stdout
    # parallel: alone writes the layout's flags, where args names it; override: replaces
    # aiter_runtime's --mem-fraction-static 0.85 in place.
    layout = cli("explain", "glm-4-6-fp8-tp8-dp8-ep8", root=root)
    assert layout.exit_code == 0
    assert (
        "--tensor-parallel-size 8 --trust-remote-code --data-parallel-size 8 "
        "--expert-parallel-size 8 --enable-dp-attention --attention-backend aiter "
        "--kv-cache-dtype fp8_e4m3 --mem-fraction-static 0.8 --page-size 1 --disable-radix-cache"
    ) in layout.stdout
