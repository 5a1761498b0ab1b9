"""Small valid catalog pairs, drawn by hypothesis and written as YAML text.

A `CatalogSpec` holds the raw documents plus what a reader of the catalog expects
(cells per config), worked out here independently of the generator.
"""

from __future__ import annotations

import io
import shutil
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from ruamel.yaml import YAML

from tests.helpers import TEMPLATES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

RUNNER = "gpu-runner-8"
MODELS: dict[str, tuple[str, str, str]] = {
    # name: (path, family, precision)
    "ds-fp8": ("org/DeepSeek-FP8", "deepseek", "fp8"),
    "ds-fp4": ("org/DeepSeek-FP4", "deepseek", "fp4"),
    "qwen-fp8": ("org/Qwen-FP8", "qwen", "fp8"),
    "llama-bf16": ("org/Llama-BF16", "llama", "bf16"),
}
PAIRS = ("1024x1024", "8192x1024", "1024x8192", "8192x1")
CONCURRENCY = (1, 2, 4, 8, 16, 32, 64, 128, 256)
SPECS = ("none", "mtp1", "mtp3")
ARG_FRAGMENTS = ("trust", "memory", "radix")
ENV_FRAGMENTS = ("common", "aiter")
SELECT_FIELDS = ("suite", "family", "precision", "spec")


def dump(doc: dict[str, Any]) -> str:
    """`doc` as YAML text in the keys' order, never with an anchor or alias (the loader
    refuses them)."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.width = 1000
    yaml.allow_unicode = True
    yaml.representer.sort_base_mapping_type_on_output = False
    yaml.representer.ignore_aliases = lambda _data: True
    out = io.StringIO()
    yaml.dump(doc, out)
    return out.getvalue()


@dataclass(frozen=True, kw_only=True)
class CatalogSpec:
    benchmark: dict[str, Any]
    accuracy: dict[str, Any]
    cells_per_config: dict[str, int]

    @property
    def cell_count(self) -> int:
        return sum(self.cells_per_config.values())

    def write(self, root: Path) -> Path:
        """The catalogs under `root`, with the checkout's templates when it has none."""
        if not (root / "templates").exists():
            shutil.copytree(TEMPLATES, root / "templates")
        (root / "catalogs").mkdir(parents=True, exist_ok=True)
        (root / "catalogs/benchmark.yaml").write_text(dump(self.benchmark), encoding="utf-8")
        (root / "catalogs/accuracy.yaml").write_text(dump(self.accuracy), encoding="utf-8")
        return root


def base_benchmark() -> dict[str, Any]:
    """Everything but suites, configs, schedules and presets."""
    return {
        "version": 1,
        "runners": {RUNNER: {"gpus": 8}},
        "images": {"default": "example/sglang:latest"},
        "models": {
            name: {"path": path, "family": family, "precision": precision}
            for name, (path, family, precision) in MODELS.items()
        },
        "args": {
            "trust": {"--trust-remote-code": True},
            "memory": {"--mem-fraction-static": "0.85"},
            "radix": {"--disable-radix-cache": True, "--page-size": 1},
        },
        "env": {
            "common": {"SGLANG_USE_AITER": "1", "SGLANG_DEFAULT_SERVER_ARGS": ""},
            "aiter": {"AITER_QUICK_REDUCE_QUANTIZATION": "INT4"},
        },
        "sampling": {"standard": {"prompts_per_concurrency": 10, "warmups_per_concurrency": 2}},
        "clients": {
            "bench": {
                "description": "sglang.bench_serving on random token ids",
                "module": "sglang.bench_serving",
                "args": {
                    "--backend": "sglang-oai",
                    "--host": "{host}",
                    "--port": "{port}",
                    "--dataset-name": "random-ids",
                    "--random-input-len": "{isl}",
                    "--random-output-len": "{osl}",
                    "--num-prompts": "{num_prompts}",
                    "--max-concurrency": "{concurrency}",
                    "--output-file": "{output_file}",
                },
            }
        },
        "estimates": {
            "max_job_minutes": 7200,
            "job_timeout_minutes": 7200,
            "startup": [{"minutes": 10}],
            "point": {
                "overhead_minutes": 1,
                "prefill_tokens_per_gpu_second": 5000,
                "decode_step_ms": 20,
                "decode_step_ms_per_request": 0.05,
            },
        },
        "server_modes": {
            "plain": {
                "description": "The config's arguments with the tensor-parallel size in front.",
                "image_repositories": ["docker.io/example/sglang"],
            },
            "mori": {
                "description": "Its own values win; the prefill budget follows the config.",
                "image_pattern": "example/sglang-rocm*",
                "image_repositories": ["docker.io/example/sglang-rocm"],
                "precedence": "mode",
                "variables": {"P": {"flag": "--chunked-prefill-size", "default": 196608}},
                "args": {
                    "--chunked-prefill-size": "{P}",
                    "--mem-fraction-static": "0.8",
                },
                "env": {"SGLANG_USE_AITER": "1"},
                "spec_env": {"SGLANG_ENABLE_SPEC_V2": "1"},
            },
        },
    }


def minimal_accuracy(model: str = "qwen-fp8") -> dict[str, Any]:
    return {
        "version": 1,
        "allowed_differences": {},
        "suites": {
            "gsm": {
                "timeout_minutes": {"nightly": 60, "pr": 60},
                "eval_timeout_minutes": 30,
                "evaluator": {
                    "kind": "lm-eval",
                    "task": "gsm8k",
                    "model": "local-completions",
                    "num_fewshot": 3,
                    "metric": "exact_match,flexible-extract",
                    "model_args": {"num_concurrent": 8},
                },
            }
        },
        "schedule": {"cron": "0 16 * * *", "level": "nightly"},
        "cases": [
            {
                "id": "acc-case",
                "name": "Accuracy case",
                "suite": "gsm",
                "model": model,
                "parallel": {"tp": 2},
                "args": ["trust"],
                "env": ["common"],
                "runner": RUNNER,
                "levels": ["nightly", "pr"],
                "threshold": 0.9,
            }
        ],
    }


def _subset(draw: st.DrawFn, items: tuple[Any, ...] | list[Any], min_size: int = 0) -> list[Any]:
    """A sub-list of `items` in their own order."""
    if not items:
        return []
    picked = draw(st.sets(st.sampled_from(list(items)), min_size=min_size))
    return [x for x in items if x in picked]


@st.composite
def _suite(draw: st.DrawFn, key: str) -> dict[str, Any]:
    suite: dict[str, Any] = {
        "key": key,
        "runner": RUNNER,
        "random_range_ratio": draw(st.sampled_from([0.8, 1, 0.5])),
        "sampling": "standard",
        "client": "bench",
        "pairs": _subset(draw, PAIRS, min_size=1),
    }
    if draw(st.booleans()):
        suite["concurrency"] = _subset(draw, CONCURRENCY, min_size=1)
    suite["server_modes"] = draw(st.sampled_from([["plain"], ["plain", "mori"]]))
    return suite


@st.composite
def _config(draw: st.DrawFn, i: int, suite_name: str, suite: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {
        "prefix": f"c{i}",
        "display": f"Config {i}",
        "suite": suite_name,
        "model": draw(st.sampled_from(sorted(MODELS))),
        "parallel": {"tp": draw(st.sampled_from([1, 2, 4, 8]))},
    }
    spec = draw(st.sampled_from(SPECS))
    if spec != "none" or draw(st.booleans()):
        config["spec"] = spec
    args: list[Any] = _subset(draw, ARG_FRAGMENTS)
    if draw(st.booleans()):
        args.append({"--max-running-requests": draw(st.sampled_from([64, 256, 4096]))})
    env: list[Any] = _subset(draw, ENV_FRAGMENTS)
    if draw(st.booleans()):
        env.append({"CONFIG_INDEX": str(i)})
    config["args"], config["env"] = args, env
    pairs = list(suite["pairs"])
    if "concurrency" not in suite or draw(st.booleans()):
        pairs = _subset(draw, pairs, min_size=1)
        config["grid"] = {p: _subset(draw, CONCURRENCY, min_size=1) for p in pairs}
    per_pair: dict[str, Any] = {}
    for pair in _subset(draw, pairs):
        extras: dict[str, Any] = {}
        if draw(st.booleans()):
            extras["args"] = [{"--chunked-prefill-size": draw(st.sampled_from([8192, 65536]))}]
        if not extras or draw(st.booleans()):
            extras["env"] = [{"PAIR_ENV": pair}]
        per_pair[pair] = extras
    if per_pair:
        config["per_pair"] = per_pair
    return config


def _cells(config: dict[str, Any], suite: dict[str, Any]) -> int:
    if "grid" in config:
        return sum(len(c) for c in config["grid"].values())
    return len(suite["pairs"]) * len(suite["concurrency"])


def _values(config: dict[str, Any]) -> dict[str, str]:
    _, family, precision = MODELS[config["model"]]
    return {
        "suite": config["suite"],
        "family": family,
        "precision": precision,
        "spec": config.get("spec", "none"),
    }


@st.composite
def _selector(
    draw: st.DrawFn, configs: list[dict[str, Any]], fields: tuple[str, ...]
) -> dict[str, Any]:
    """A selector matching at least one of `configs` (it is built from one of them)."""
    anchor = _values(draw(st.sampled_from(configs)))
    selector: dict[str, Any] = {}
    for field in _subset(draw, fields):
        known = sorted({_values(c)[field] for c in configs})
        extra = _subset(draw, [v for v in known if v != anchor[field]])
        selector[field] = anchor[field] if not extra else [anchor[field], *extra]
    return selector


@st.composite
def _selection(
    draw: st.DrawFn, configs: list[dict[str, Any]], fields: tuple[str, ...]
) -> dict[str, Any] | list[dict[str, Any]]:
    selectors = draw(st.lists(_selector(configs, fields), min_size=1, max_size=2))
    return selectors[0] if len(selectors) == 1 and draw(st.booleans()) else selectors


@st.composite
def catalog_specs(draw: st.DrawFn) -> CatalogSpec:
    """1-8 configs over 1-2 suites, with schedules and presets that each select something."""
    n_suites = draw(st.integers(1, 2))
    suites = {f"Suite-{k.upper()}": draw(_suite(k)) for k in "ab"[:n_suites]}
    names = list(suites)
    n_configs = draw(st.integers(max(1, n_suites), 8))
    # Every suite gets at least one config.
    homes = names + [draw(st.sampled_from(names)) for _ in range(n_configs - n_suites)]
    configs = [draw(_config(i, home, suites[home])) for i, home in enumerate(homes)]

    times = st.tuples(st.integers(0, 59), st.integers(0, 23), st.integers(0, 6))
    crons = draw(st.lists(times, unique=True, max_size=3))
    schedules = [
        {
            "name": f"group-{j}",
            "title": f"Group {j}",
            "cron": f"{minute} {hour} * * {dow}",
            "select": draw(_selection(configs, SELECT_FIELDS)),
        }
        for j, (minute, hour, dow) in enumerate(crons)
    ]
    presets: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        mine = [c for c in configs if c["suite"] == name]
        entries = []
        for k in range(draw(st.integers(0, 2))):
            entry: dict[str, Any] = {"name": f"set-{k}"}
            if draw(st.booleans()):
                entry["aliases"] = [f"alias-{k}"]
            entry["select"] = draw(_selection(mine, SELECT_FIELDS[1:]))
            entries.append(entry)
        presets[name] = entries

    benchmark = {
        **base_benchmark(),
        "suites": suites,
        "configs": configs,
        "schedules": schedules,
        "presets": presets,
    }
    # The longest point drawn (8192x1024 at 256 on one GPU) takes 92 minutes, so with
    # 10 minutes of start-up every point fits 120; shorter bounds split more jobs.
    benchmark["estimates"]["max_job_minutes"] = draw(st.sampled_from([120, 300, 7200]))
    accuracy = minimal_accuracy(draw(st.sampled_from(sorted(MODELS))))
    cells = {c["prefix"]: _cells(c, suites[c["suite"]]) for c in configs}
    return CatalogSpec(benchmark=benchmark, accuracy=accuracy, cells_per_config=cells)


def small_spec(
    suites: dict[str, str], configs: list[dict[str, Any]], pairs: tuple[str, ...] = PAIRS[:2]
) -> CatalogSpec:
    """A hand-built catalog: suites by name -> key, each over `pairs` at concurrency 4 and 8.

    Configs need `prefix` and `suite`; the rest defaults (model ds-fp8, TP8, no args or env).
    """
    benchmark = {
        **base_benchmark(),
        "suites": {
            name: {
                "key": key,
                "runner": RUNNER,
                "random_range_ratio": 1,
                "sampling": "standard",
                "client": "bench",
                "pairs": list(pairs),
                "concurrency": [4, 8],
                "server_modes": ["plain"],
            }
            for name, key in suites.items()
        },
        "configs": [
            {
                "display": c["prefix"].upper(),
                "model": "ds-fp8",
                "parallel": {"tp": 8},
                "args": [],
                "env": [],
                **c,
            }
            for c in configs
        ],
        "schedules": [],
        "presets": {name: [] for name in suites},
    }
    cells = {c["prefix"]: _cells(c, benchmark["suites"][c["suite"]]) for c in benchmark["configs"]}
    return CatalogSpec(benchmark=benchmark, accuracy=minimal_accuracy(), cells_per_config=cells)
