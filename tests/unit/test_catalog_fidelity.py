"""What the catalogs carry to run what the system we replace ran (docs/fidelity.md): the
launcher defaults written out for Qwen, a runner label per accuracy level."""

from __future__ import annotations

import pytest

from generator.errors import CatalogError
from generator.expand.entries import case_entry
from tests.helpers import ROOT, copy_catalogs, edit, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.catalog.catalog_types import Case
    from generator.expand.expanded import Expanded
    from tests.conftest import Invoke

# atom_sglang_test.sh (f6c69e1ee) lines 154-159 exported these when unset; the Qwen entries
# set none of them. Accuracy never sets the quick-reduce one (allowed_differences).
LAUNCHER_DEFAULTS = {
    "AITER_QUICK_REDUCE_QUANTIZATION": "INT4",
    "SGLANG_AITER_FP8_PREFILL_ATTN": "0",
    "SGLANG_USE_AITER": "1",
    "ATOM_ENABLE_DS_QKNORM_QUANT_FUSION": "1",
    "TORCHINDUCTOR_COMPILE_THREADS": "128",
}
CONDUCTOR = "atom-mi355-8gpu-conductor-sgl-runner"
PR_CASE = "qwen3-5-35b-a3b-fp8-tp2"


def qwen_cases(expanded: Expanded) -> list[Case]:
    return [c for c in expanded.catalog.cases if c.model.family == "qwen"]


# The model families of the system we replace: its servers are the ones whose launcher
# defaults the catalogs write out; a config of a new family carries what its own needs.
ORIGINAL_FAMILIES = frozenset({"deepseek", "qwen"})


def test_the_frozen_catalog_s_oob_configs_are_the_original_s_families(fixture: Expanded) -> None:
    oob = [c for c in fixture.catalog.configs if c.suite == "SGLang-OOB"]
    assert {c.model.family for c in oob} == ORIGINAL_FAMILIES
    assert len(oob) == 12


def test_every_server_the_atom_launcher_started_carries_its_defaults(shipped: Expanded) -> None:
    """OOB configs of the original's families (started by atom_sglang_test.sh) and the atom
    suite's cases."""
    oob = [
        c
        for c in shipped.catalog.configs
        if c.suite == "SGLang-OOB" and c.model.family in ORIGINAL_FAMILIES
    ]
    assert {c.model.family for c in oob} == ORIGINAL_FAMILIES
    for config in oob:
        env = dict(shipped.base_servers[config.prefix].env)
        assert {k: env.get(k) for k in LAUNCHER_DEFAULTS} == LAUNCHER_DEFAULTS, config.prefix
    accuracy = {
        k: v for k, v in LAUNCHER_DEFAULTS.items() if k != "AITER_QUICK_REDUCE_QUANTIZATION"
    }
    for run in shipped.case_runs:
        if run.case.suite == "atom" and run.case.model.family in ORIGINAL_FAMILIES:
            env = dict(run.server.env)
            assert {k: env.get(k) for k in accuracy} == accuracy, run.id
            assert "AITER_QUICK_REDUCE_QUANTIZATION" not in env, run.id


def test_the_qwen_nightly_cases_run_on_the_conductor_label(shipped: Expanded) -> None:
    cases = qwen_cases(shipped)
    assert len(cases) == 4
    assert {c.runner_for("nightly") for c in cases} == {CONDUCTOR}
    [pr] = [c for c in cases if "pr" in c.levels]
    assert (pr.id, pr.runner_for("pr")) == (PR_CASE, "linux-atom-mi35x-4")


def test_explain_shows_the_five_values_of_a_qwen_config(cli: Invoke) -> None:
    result = cli("explain", "qwen3-5-397b-a17b-fp8-tp8", "--kind", "config", root=ROOT)
    assert result.exit_code == 0, result.stderr
    for name, value in LAUNCHER_DEFAULTS.items():
        assert f"  export {name}={value}\n" in result.stdout


# ------------------------------------------------------------- a runner label per level

PER_LEVEL = (
    "    runner: linux-atom-mi35x-4\n    levels: [nightly, pr]\n    threshold: 0.76\n",
    (
        "    runner: {nightly: linux-atom-mi35x-8, pr: linux-atom-mi35x-4}\n"
        "    levels: [nightly, pr]\n    threshold: 0.76\n"
    ),
)


@pytest.fixture
def per_level(tmp_path: Path) -> Path:
    root = copy_catalogs(tmp_path)
    edit(root / "catalogs/accuracy.yaml", *PER_LEVEL)
    return root


def test_a_case_runs_each_level_on_its_own_label(per_level: Path) -> None:
    expanded = expanded_at(per_level)
    [run] = [r for r in expanded.case_runs if r.id == PR_CASE]
    assert run.case.labels == ("linux-atom-mi35x-8", "linux-atom-mi35x-4")
    nightly, pr = (case_entry(expanded.catalog, run, level) for level in ("nightly", "pr"))
    assert (nightly["runner"], pr["runner"]) == ("linux-atom-mi35x-8", "linux-atom-mi35x-4")
    assert nightly["server_fingerprint"] != pr["server_fingerprint"]
    assert nightly["server_args"] == pr["server_args"]
    assert nightly["env"] == pr["env"]


def test_explain_prints_a_case_once_per_label_naming_the_level(
    cli: Invoke, per_level: Path
) -> None:
    result = cli("explain", PR_CASE, "--kind", "case", root=per_level)
    assert result.exit_code == 0, result.stderr
    headers = [line for line in result.stdout.splitlines() if line.startswith("# accuracy case")]
    runners = [line for line in result.stdout.splitlines() if line.startswith("# runner:")]
    assert headers == [
        f"# accuracy case {PR_CASE}: Qwen3.5-35B-A3B-FP8 TP2 (level nightly)",
        f"# accuracy case {PR_CASE}: Qwen3.5-35B-A3B-FP8 TP2 (level pr)",
    ]
    assert [r.split()[2] for r in runners] == ["linux-atom-mi35x-8", "linux-atom-mi35x-4"]


def test_the_pr_matrix_carries_the_pr_label(cli: Invoke, per_level: Path) -> None:
    result = cli("render", root=per_level)
    assert result.exit_code == 0, result.stderr
    pr = (per_level / ".github/matrices/accuracy/pr.json").read_text(encoding="utf-8")
    nightly = (per_level / ".github/matrices/accuracy/nightly.json").read_text(encoding="utf-8")
    assert '"id": "qwen3-5-35b-a3b-fp8-tp2"' in pr
    assert '"id": "qwen3-5-35b-a3b-fp8-tp2"' in nightly
    entry = pr[pr.index('"id": "qwen3-5-35b-a3b-fp8-tp2"') :]
    assert entry[entry.index('"runner"') :].startswith('"runner": "linux-atom-mi35x-4"')
    entry = nightly[nightly.index('"id": "qwen3-5-35b-a3b-fp8-tp2"') :]
    assert entry[entry.index('"runner"') :].startswith('"runner": "linux-atom-mi35x-8"')


@pytest.mark.parametrize(
    ("runner", "message"),
    [
        (
            "{nightly: linux-atom-mi35x-8}",
            "runner names no label for level pr; give one per level",
        ),
        (
            "{nightly: linux-atom-mi35x-8, pr: linux-atom-mi35x-4, weekly: x}",
            "runner names level 'weekly', which the case does not run at (nightly, pr)",
        ),
        (
            "{nightly: linux-atom-mi35x-9, pr: linux-atom-mi35x-4}",
            "unknown runner 'linux-atom-mi35x-9' (did you mean 'linux-atom-mi35x-8'?)",
        ),
    ],
)
def test_a_runner_mapping_must_name_a_known_label_for_each_level_the_case_runs_at(
    tmp_path: Path, runner: str, message: str
) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(
        root / "catalogs/accuracy.yaml",
        PER_LEVEL[0],
        PER_LEVEL[0].replace("linux-atom-mi35x-4", runner),
    )
    with pytest.raises(CatalogError) as caught:
        expanded_at(root)
    assert message in caught.value.message
    assert caught.value.loc is not None
    assert caught.value.loc.line == line


def test_a_runner_level_the_case_does_not_run_at_is_refused(tmp_path: Path) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(
        root / "catalogs/accuracy.yaml",
        "    runner: linux-atom-mi35x-4\n    levels: [nightly]\n    threshold: 0.83\n",
        "    runner: {nightly: linux-atom-mi35x-4, pr: linux-atom-mi35x-4}\n"
        "    levels: [nightly]\n    threshold: 0.83\n",
    )
    with pytest.raises(CatalogError) as caught:
        expanded_at(root)
    assert caught.value.message == (
        "runner names level 'pr', which the case does not run at (nightly)"
    )
    assert caught.value.loc is not None
    assert caught.value.loc.line == line
