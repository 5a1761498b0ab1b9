"""The clients: scripts/few_shot_gsm8k.py passes the --host form the image's SGLang wants;
the stand-ins refuse what the real tools would fail on (the other host form, a dataset
download), so the end-to-end tests would catch it."""

from __future__ import annotations

import importlib
import urllib.error
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from tests.helpers import imports_forgotten

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def forget_imports() -> Iterator[None]:
    with imports_forgotten():
        yield


def module(name: str, monkeypatch: pytest.MonkeyPatch, path: Path) -> ModuleType:
    monkeypatch.syspath_prepend(str(path))
    return importlib.import_module(name)


@pytest.mark.parametrize(
    ("version", "host"),
    [
        ("0.5.8.post1", "http://127.0.0.1"),
        ("0.5.9", "http://127.0.0.1"),
        ("0.5.10.dev3+gabc1234", "127.0.0.1"),
        ("0.5.23", "127.0.0.1"),
        ("", "127.0.0.1"),
    ],
)
def test_the_host_form_follows_the_sglang_version(
    monkeypatch: pytest.MonkeyPatch, version: str, host: str
) -> None:
    script = module("few_shot_gsm8k", monkeypatch, ROOT / "scripts")
    assert script.host_for(version) == host


@pytest.mark.parametrize(
    ("version", "host", "error"),
    [
        ("0.5.8", "127.0.0.1", "unknown url type: 127.0.0.1"),
        ("0.5.21", "http://127.0.0.1", "Name or service not known: 'http'"),
    ],
)
def test_the_stand_in_refuses_the_host_form_of_other_versions(
    monkeypatch: pytest.MonkeyPatch, version: str, host: str, error: str
) -> None:
    monkeypatch.setenv("SGLANG_STANDIN_VERSION", version)
    monkeypatch.delenv("SGLANG_STANDIN_CLIENT_RECORD", raising=False)
    standin = module("sglang.test.few_shot_gsm8k", monkeypatch, ROOT / "tests" / "standin")
    args = SimpleNamespace(
        host=host,
        port=9,
        data_path=None,
        num_questions=1,
        num_shots=1,
        max_new_tokens=8,
        parallel=1,
    )
    with pytest.raises(urllib.error.URLError, match=error):
        standin.run_eval(args)


def test_the_stand_in_client_refuses_a_dataset_the_real_one_would_download(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = module("sglang.bench_serving", monkeypatch, ROOT / "tests" / "standin")
    args = ["--backend", "sglang-oai", "--model", "org/model", "--port", "9"]
    parsed = bench.build_parser().parse_args([*args, "--dataset-name", "random"])
    with pytest.raises(RuntimeError, match=r"downloads .*ShareGPT.* from the Hugging Face hub"):
        bench.run(parsed)
