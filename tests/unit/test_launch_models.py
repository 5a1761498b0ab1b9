"""generator.launch.models: when a cached snapshot is complete, and why not."""

from __future__ import annotations

import json

from generator.launch.models import MARKER, missing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def snapshot(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_snapshot_is_complete_with_its_config_and_every_file_its_index_names(
    tmp_path: Path,
) -> None:
    index = json.dumps({"weight_map": {"a": "w-1.safetensors", "b": "w-2.safetensors"}})
    files = {"config.json": "{}", "model.safetensors.index.json": index, "w-1.safetensors": ""}
    root = snapshot(tmp_path, files)
    assert missing(root) == (
        "1 weight file(s) of model.safetensors.index.json missing, e.g. w-2.safetensors"
    )
    snapshot(root, {"w-2.safetensors": ""})
    assert missing(root) is None
    snapshot(root, {MARKER: ""})
    assert missing(root) == f"{MARKER} is there (a download did not finish)"


def test_a_snapshot_without_an_index_needs_one_weights_file(tmp_path: Path) -> None:
    assert missing(tmp_path) == "no config.json"
    snapshot(tmp_path, {"config.json": "{}"})
    assert missing(tmp_path) == "no weights index and no weights file"
    snapshot(tmp_path, {"nextn_layer_parameters.safetensors": ""})
    assert missing(tmp_path) is None


def test_a_tokenizer_only_snapshot_needs_no_weights(tmp_path: Path) -> None:
    assert missing(tmp_path, tokenizer_only=True) == "no tokenizer.json or tokenizer_config.json"
    snapshot(tmp_path, {"tokenizer_config.json": "{}"})
    assert missing(tmp_path, tokenizer_only=True) is None
