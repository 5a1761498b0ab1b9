"""What a dispatcher or a catalog edit can try through the select step: an image from
another registry (with image resolution on and off), an image outside a mode's
repositories in a committed matrix, a case image or nightly pattern outside them in the
catalog, and inputs holding line breaks and workflow commands. Each is refused with one
line on stderr that the runner cannot read as a workflow command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import FIXTURE, copy_catalogs, edit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.conftest import Invoke

EVIL = "evil.example:5000/x/y:tag"
ATOM = "docker.io/rocm/atom-dev, docker.io/rocm/sgl-dev"


def dispatch(cli: Invoke, *args: str, root: Path = FIXTURE) -> tuple[int, str, str]:
    result = cli("dispatch", *args, root=root)
    return result.exit_code, result.stdout, result.stderr


def assert_one_safe_line(stderr: str) -> None:
    """One line; the runner reads no workflow command in it."""
    assert stderr.endswith("\n"), stderr
    assert stderr.count("\n") == 1, stderr
    assert "\r" not in stderr
    assert "##[" not in stderr
    assert not stderr.lstrip().startswith("::")


@pytest.mark.parametrize("resolve", ["0", "1"])
@pytest.mark.parametrize(
    ("suite", "preset", "mode", "allowed"),
    [
        ("SGLang-OOB", "all-deepseek", "sglang-atom", ATOM),
        ("SGLang-Mesh", "ds-fp4-tp8", "sglang-mori", "docker.io/lmsysorg/sglang-rocm"),
    ],
)
def test_an_image_from_another_registry_is_refused_before_any_lookup(
    cli: Invoke,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    resolve: str,
    suite: str,
    preset: str,
    mode: str,
    allowed: str,
) -> None:
    """With resolution on, the refusal comes before the registry is asked (there is no
    network here: a lookup would fail with another message)."""
    output = tmp_path / "github_output"
    monkeypatch.setenv("SGLANG_CI_RESOLVE_IMAGES", resolve)
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    code, stdout, stderr = dispatch(
        cli, "benchmark", "--event", "workflow_dispatch", "--suite", suite,
        "--preset", preset, "--mode", mode, "--image", EVIL,
    )  # fmt: skip
    assert (code, stdout) == (2, "")
    assert stderr == f"error: image '{EVIL}': server mode '{mode}' runs images of {allowed} only\n"
    assert not output.exists()


def test_a_repository_of_the_same_name_on_another_registry_is_another_repository(
    cli: Invoke,
) -> None:
    code, _, stderr = dispatch(
        cli, "benchmark", "--event", "workflow_dispatch", "--suite", "SGLang-OOB",
        "--preset", "all-qwen", "--image", "ghcr.io/rocm/atom-dev:sglang-latest",
    )  # fmt: skip
    assert code == 2
    assert stderr == (
        "error: image 'ghcr.io/rocm/atom-dev:sglang-latest': server mode 'sglang-atom' "
        f"runs images of {ATOM} only\n"
    )


@pytest.mark.parametrize(
    "image",
    ["rocm/atom-dev:v0.1", "docker.io/rocm/atom-dev:v0.1", "registry-1.docker.io/rocm/sgl-dev:x"],
)
def test_the_declared_repositories_pass_however_docker_hub_is_spelled(
    cli: Invoke, monkeypatch: pytest.MonkeyPatch, rendered_fixture: Path, image: str
) -> None:
    monkeypatch.setenv("SGLANG_CI_RESOLVE_IMAGES", "0")
    code, stdout, stderr = dispatch(
        cli, "benchmark", "--event", "workflow_dispatch", "--suite", "SGLang-OOB",
        "--preset", "all-qwen", "--image", image, root=rendered_fixture,
    )  # fmt: skip
    assert (code, stderr) == (0, "")
    assert stdout == "selected preset all-qwen (SGLang-OOB, sglang-atom): 2 jobs, 20 points\n"


def _tamper(root: Path, rel: str, image: str) -> None:
    path = root / rel
    matrix = json.loads(path.read_text())
    matrix["include"][0]["image"] = image
    path.write_text(json.dumps(matrix))


def test_a_committed_matrix_holding_another_image_is_refused(
    cli: Invoke, rendered_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A matrix edited by hand (the drift check would fail too) never reaches a runner."""
    root = Path(shutil.copytree(rendered_fixture, tmp_path / "repo"))
    monkeypatch.setenv("SGLANG_CI_RESOLVE_IMAGES", "0")
    _tamper(root, ".github/matrices/accuracy/pr.json", "evil.example/rocm/sgl-dev:{version}-{date}")
    code, _, stderr = dispatch(cli, "accuracy", "--level", "pr", root=root)
    assert code == 2
    assert stderr == (
        "error: image 'evil.example/rocm/sgl-dev:{version}-{date}': server mode 'sglang-atom' "
        f"runs images of {ATOM} only\n"
    )
    _tamper(root, ".github/matrices/benchmark/schedule/oob-all.json", EVIL)
    code, _, stderr = dispatch(
        cli, "benchmark", "--event", "schedule", "--schedule", "0 14 * * 6", root=root
    )
    assert code == 2
    refused = f"error: image '{EVIL}': server mode 'sglang-atom' runs images of {ATOM} only\n"
    assert stderr == refused


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        (
            "      rocm700: rocm/sgl-dev:{version}-rocm700-mi35x-{date}\n",
            "      rocm700: evil.example/sgl-dev:{version}-rocm700-mi35x-{date}\n",
            "{root}/catalogs/accuracy.yaml:{line}: image 'evil.example/sgl-dev:{{version}}-rocm700-"
            "mi35x-{{date}}': server mode 'sglang-atom' runs images of " + ATOM + " only",
        ),
    ],
)
def test_a_case_image_outside_the_declared_repositories_is_refused_at_its_line(
    cli: Invoke, tmp_path: Path, old: str, new: str, error: str
) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(root / "catalogs/accuracy.yaml", old, new)
    result = cli("cases", root=root)
    assert result.exit_code == 2
    assert result.stderr == "error: " + error.format(root=root, line=line) + "\n"


def test_a_default_image_outside_the_declared_repositories_is_refused_at_its_line(
    cli: Invoke, tmp_path: Path
) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(
        root / "catalogs/benchmark.yaml",
        "  default: rocm/atom-dev:sglang-latest\n",
        "  default: quay.io/rocm/atom-dev:sglang-latest\n",
    )
    result = cli("jobs", "--preset", "all-qwen", root=root)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {root}/catalogs/benchmark.yaml:{line}: image "
        "'quay.io/rocm/atom-dev:sglang-latest': server mode 'sglang-atom' runs images of "
        f"{ATOM} only\n"
    )


def test_a_repository_without_its_registry_is_refused_at_its_line(
    cli: Invoke, tmp_path: Path
) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(
        root / "catalogs/benchmark.yaml",
        "image_repositories: [docker.io/lmsysorg/sglang-rocm]",
        "image_repositories: [lmsysorg/sglang-rocm]",
    )
    result = cli("jobs", "--preset", "all-qwen", root=root)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {root}/catalogs/benchmark.yaml:{line}: image repository "
        "'lmsysorg/sglang-rocm' names no registry: write it with its registry, "
        "e.g. docker.io/lmsysorg/sglang-rocm\n"
    )


INJECTED = "x\n::error title=Pwned::owned\r::add-mask::y\u2028##[warning]z"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ("--configs", INJECTED),
            (
                "configs: no config has prefix 'x\\n::error title=Pwned::owned\\r::add-mask::y"
                "\\u2028##\\x5bwarning]z'"
            ),
        ),
        (("--preset", f"all-qwen{INJECTED}"), None),
        (("--preset", "all-qwen", "--points", INJECTED), None),
        (("--preset", "all-qwen", "--image", INJECTED), None),
        (("--preset", "all-qwen", "--mode", INJECTED), None),
    ],
)
def test_a_multi_line_input_gives_one_line_that_is_no_workflow_command(
    cli: Invoke, args: tuple[str, ...], error: str | None
) -> None:
    code, stdout, stderr = dispatch(
        cli, "benchmark", "--event", "workflow_dispatch", "--suite", "SGLang-OOB", *args
    )
    assert (code, stdout) == (2, "")
    assert_one_safe_line(stderr)
    assert stderr.startswith("error: ")
    if error is not None:
        assert stderr == f"error: {error}\n"


@pytest.mark.parametrize(
    "args", [("--level", "pr", "--cases", INJECTED), ("--level", f"nightly{INJECTED}")]
)
def test_a_multi_line_accuracy_input_gives_one_line(cli: Invoke, args: tuple[str, ...]) -> None:
    code, stdout, stderr = dispatch(cli, "accuracy", *args)
    assert (code, stdout) == (2, "")
    assert_one_safe_line(stderr)


def test_a_dispatch_without_its_suite_names_the_suites(cli: Invoke) -> None:
    assert dispatch(cli, "benchmark", "--event", "workflow_dispatch", "--preset", "none") == (
        2,
        "",
        (
            "error: suite: --suite is required for a workflow_dispatch event: one of "
            "SGLang-OOB, SGLang-Mesh\n"
        ),
    )
