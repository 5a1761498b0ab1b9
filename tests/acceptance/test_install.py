"""A regular install (a wheel, not the editable one of .venv/) renders a checkout: it reads
the catalogs and templates of `--root` and its own package data, nothing beside itself.

The wheel is built and installed offline, into a fresh venv whose dependencies are this
interpreter's (a .pth line naming its site-packages: the editable install's own .pth
files there are not processed, so `generator` comes from the wheel alone).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

from tests.helpers import FIXTURE, ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.conftest import Invoke

NOT_PACKAGED = shutil.ignore_patterns("__pycache__")


def run(*argv: str | Path, cwd: Path) -> str:
    proc = subprocess.run(
        [str(a) for a in argv], cwd=cwd, capture_output=True, text=True, check=False, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def project_version() -> str:
    """The one place the version is written: pyproject.toml."""
    version: str = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    return version


def checkout_files() -> list[str]:
    """The checkout's files as git sees them: tracked, and new ones not ignored."""
    listed = run("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", cwd=ROOT)
    return sorted(name for name in set(listed.split("\0")) if name and (ROOT / name).is_file())


def digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_a_wheel_installed_in_a_fresh_venv_renders_a_copy_of_the_checkout_unchanged(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source"  # what the wheel is built from, outside the checkout
    shutil.copytree(ROOT / "generator", source / "generator", ignore=NOT_PACKAGED)
    shutil.copy2(ROOT / "pyproject.toml", source)
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input")
    run(*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
        "-w", tmp_path / "dist", source, cwd=tmp_path)  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("sglang_ci-*.whl")

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    purelib = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                       cwd=tmp_path).strip())  # fmt: skip
    (purelib / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run(*pip, "--python", python, "install", "--no-deps", "--no-index", "-q", wheel, cwd=tmp_path)
    where = run(python, "-c", "import generator; print(generator.__file__)", cwd=tmp_path)
    assert Path(where.strip()) == purelib / "generator" / "__init__.py"
    version = run(venv / "bin" / "sglang-ci", "--version", cwd=tmp_path)
    assert version == f"sglang-ci, version {project_version()}\n"

    checkout = tmp_path / "checkout"
    for name in checkout_files():
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, checkout / name)
    before = digests(checkout)
    out = run(venv / "bin" / "sglang-ci", "--root", checkout, "render", cwd=tmp_path)
    assert out.startswith("rendered "), out
    assert out.endswith(" files; 0 changed\n"), out
    assert digests(checkout) == before


def test_a_root_without_templates_is_refused_with_one_line_and_nothing_written(
    cli: Invoke, tmp_path: Path
) -> None:
    shutil.copytree(FIXTURE / "catalogs", tmp_path / "catalogs")
    result = cli("render", root=tmp_path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {tmp_path}/templates/actions.yaml: not found: --root must name an sglang-ci "
        "checkout (catalogs/ and templates/)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalogs"]


def test_the_version_is_pyprojects_read_from_the_installed_metadata(cli: Invoke) -> None:
    result = cli("--version")
    assert (result.exit_code, result.stdout) == (0, f"sglang-ci, version {project_version()}\n")
