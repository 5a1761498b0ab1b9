"""`results diff RUN_A RUN_B`: two runs of the history side by side (docs/results.md,
"Two runs side by side"): per config, what each ran (image digest, SGLang / ATOM / AITER /
ROCm versions and commits, catalog commit, runner), the rows that differ marked; per point,
each metric in both runs and the change from A to B. The dashboard's pair page
(compare_page.py) shows the same with the curves overlaid.

A run is named as the history names it (its directory); a name the history does not hold
is one line, exit 2, with the closest names.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import TypedDict

from generator.core.logtext import md_code as code
from generator.core.logtext import md_text as text
from generator.core.versions import version_commit
from generator.errors import did_you_mean
from generator.report.markdown import number, percent, table
from generator.results.provenance import short_digest
from generator.results.record import ResultsError
from generator.results.runs import check_run_name, history_dirs, history_run
from generator.results.store import HISTORY, Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SCHEMA = "sglang-ci/diff/1"
# The provenance rows: (label, column of the records, how it is shown).
PROVENANCE = (
    ("image digest", "image_digest", "digest"),
    ("SGLang", "sglang_version", ""),
    ("SGLang commit", "sglang_commit", "commit"),
    ("ATOM", "atom_version", ""),
    ("ATOM commit", "atom_version", "version commit"),
    ("AITER", "aiter_version", ""),
    ("AITER commit", "aiter_version", "version commit"),
    ("ROCm", "rocm_version", ""),
    ("catalog commit", "catalog_commit", "commit"),
    ("runner", "runner_name", ""),
)
# The metrics compared: (column, short name).
METRICS = (
    ("output_throughput_per_gpu", "tok/s/GPU"),
    ("median_ttft_ms", "TTFT ms"),
    ("median_tpot_ms", "TPOT ms"),
    ("acceptance_rate", "acceptance"),
)
_PROVENANCE = """
SELECT run, config, min(image) AS image, min(image_digest) AS image_digest,
  min(sglang_version) AS sglang_version, min(sglang_commit) AS sglang_commit,
  min(atom_version) AS atom_version, min(aiter_version) AS aiter_version,
  min(rocm_version) AS rocm_version, min(catalog_commit) AS catalog_commit,
  string_agg(DISTINCT runner_name, ', ' ORDER BY runner_name) AS runner_name
FROM records WHERE kind = 'point' AND list_contains(?, run) GROUP BY run, config ORDER BY config
"""
# The same from the dashboard's tables (timeline.load_points), made once for the site: a
# page per pair never scans the history's records again.
_DASH_PROVENANCE = """
SELECT run, config, image, image_digest, sglang_version, sglang_commit, atom_version,
  aiter_version, rocm_version, catalog_commit, runner_name
FROM dash_config_runs WHERE list_contains(?, run) ORDER BY config
"""
_DASH_POINTS = """
SELECT run, config, isl, osl, concurrency, y AS output_throughput_per_gpu,
  ttft AS median_ttft_ms, tpot AS median_tpot_ms, acceptance_rate
FROM dash_points WHERE list_contains(?, run) ORDER BY config, isl, osl, concurrency
"""
# A provenance row of _PROVENANCE or _DASH_PROVENANCE: every column a string or NULL.
Provenance = Mapping[str, str | None]


class ProvenanceRow(TypedDict):
    what: str
    a: str
    b: str
    changed: bool


ConfigDiff = TypedDict("ConfigDiff", {"config": str, "in": list[str],
                                      "provenance": list[ProvenanceRow]})  # fmt: skip


class MetricDiff(TypedDict):
    a: float | None
    b: float | None
    change: float | None


class PointDiff(TypedDict):
    config: str
    isl: int
    osl: int
    concurrency: int
    metrics: dict[str, MetricDiff]


class RunDiff(TypedDict):
    """Two runs side by side (schema sglang-ci/diff/1)."""

    schema: str
    a: str
    b: str
    configs: list[ConfigDiff]
    points: list[PointDiff]


_POINTS = f"""
SELECT run, config, isl, osl, concurrency, {", ".join(m for m, _ in METRICS)}
FROM records WHERE kind = 'point' AND valid AND status = 'ok' AND list_contains(?, run)
ORDER BY config, isl, osl, concurrency
"""


def shown(field: str, how: str, row: Provenance | None) -> str:
    """A provenance value as the pages show it ('-' when unknown)."""
    value = row.get(field) if row else None
    if how == "version commit":
        value = version_commit(value)
    if value is None:
        return "-"
    if how == "digest":
        return short_digest(str(value)) or "-"
    return str(value)[:12] if how == "commit" else str(value)


def provenance_rows(a: Provenance | None, b: Provenance | None) -> list[ProvenanceRow]:
    """The provenance rows of two runs of a config: what, A, B, and whether it changed
    (only when both runs know the config)."""
    out: list[ProvenanceRow] = []
    for label, field, how in PROVENANCE:
        before, after = shown(field, how, a), shown(field, how, b)
        out.append(
            {
                "what": label,
                "a": before,
                "b": after,
                "changed": a is not None and b is not None and before != after,
            }
        )
    return out


def run_dir(history: Path, name: str) -> Path:
    """The directory of run `name` in `history`; one line, exit 2, when it holds none."""
    check_run_name(name)
    names = [d.name for d in history_dirs(history)]
    if name not in names:
        msg = f"{history}: no run named {name!r}{did_you_mean(name, names)}"
        raise ResultsError(msg)
    return history / name


def two_runs(history: Path, a: str, b: str) -> Store:
    """A Store of the two runs alone (not the whole history)."""
    store = Store()
    store.add(HISTORY, [history_run(run_dir(history, n)) for n in (a, b)])
    return store


def _change(a: object, b: object) -> float | None:
    if not isinstance(a, int | float) or not isinstance(b, int | float) or not a:
        return None
    return float(b) / float(a) - 1


def diff(store: Store, a: str, b: str, *, dashboard: bool = False) -> RunDiff:
    """Runs `a` and `b` of `store` side by side (schema sglang-ci/diff/1); `dashboard`:
    read from the dashboard's tables, already made."""
    queries = (_DASH_PROVENANCE, _DASH_POINTS) if dashboard else (_PROVENANCE, _POINTS)
    prov: dict[str, dict[str, Provenance]] = defaultdict(dict)
    for row in store.rows(queries[0], [[a, b]]):
        prov[str(row["config"])][str(row["run"])] = row
    points: dict[tuple[str, int, int, int], dict[str, dict[str, float | None]]]
    points = defaultdict(dict)
    for row in store.rows(queries[1], [[a, b]]):
        key = (row["config"], row["isl"], row["osl"], row["concurrency"])
        points[key][str(row["run"])] = {m: row[m] for m, _ in METRICS}
    return {
        "schema": SCHEMA,
        "a": a,
        "b": b,
        "configs": [
            {
                "config": config,
                "in": [r for r in (a, b) if r in runs],
                "provenance": provenance_rows(runs.get(a), runs.get(b)),
            }
            for config, runs in sorted(prov.items())
        ],
        "points": [
            {
                "config": config,
                "isl": isl,
                "osl": osl,
                "concurrency": c,
                "metrics": {
                    m: {"a": va, "b": vb, "change": _change(va, vb)}
                    for m, _ in METRICS
                    for va, vb in [((runs.get(a) or {}).get(m), (runs.get(b) or {}).get(m))]
                    if va is not None or vb is not None
                },
            }
            for (config, isl, osl, c), runs in sorted(points.items())
        ],
    }


def markdown(data: RunDiff) -> list[str]:
    lines = [f"## {code(data['a'])} -> {code(data['b'])}", ""]
    for c in data["configs"]:
        lines += [f"### {text(c['config'])}", ""]
        if len(c["in"]) < 2:
            lines += [f"Only in {code(c['in'][0])}.", ""] if c["in"] else []
        lines += table(
            ("", "A", "B"),
            (
                (
                    f"**{p['what']}**" if p["changed"] else p["what"],
                    code(p["a"]),
                    code(p["b"]),
                )
                for p in c["provenance"]
            ),
        )
        lines.append("")
    rows = []
    for p in data["points"]:
        cells: list[object] = [text(p["config"]), f"{p['isl']}x{p['osl']}", p["concurrency"]]
        for m, _ in METRICS:
            v = p["metrics"].get(m)
            cells += (
                [number(v["a"], 2), number(v["b"], 2), percent(v["change"])]
                if v
                else ["-", "-", "-"]
            )
        rows.append(cells)
    header = ["config", "ISLxOSL", "conc"]
    for _, short in METRICS:
        header += [f"{short} A", f"{short} B", "change"]
    return [*lines, "### Points", "", *table(header, rows)]


def page_name(a: str, b: str) -> str:
    """The dashboard's page of the pair (a permalink: the run names are the history's)."""
    return f"compare/{a}--{b}.html"
