"""Each server's series, read from the store (history.py says what a series is).

One scan of the history builds a narrow table, the *index* of this command: one row per
valid point record of the configs the current run measured (run, its time, server key,
point, the judged metrics, interactivity, provenance). Admitted runs are read from their
compact Parquet files (only these columns, only these configs' rows); the rest of the
verdicts reads this small table. Per server the newest `depth` runs of its fingerprint are
kept and, when there are fewer, the newest runs of the previous fingerprint (same config,
runner label and image family) before them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from generator.catalog.regression import METRICS
from generator.core.record_rules import needs_acceptance
from generator.results.history import (
    DIFFERENCES,
    PointKey,
    RunInfo,
    Sample,
    ServerKey,
    ServerSeries,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.store import Store

_PROVENANCE = tuple(d for d in DIFFERENCES if d != "fingerprint")  # a column of its own
_KEY = (
    "config, coalesce(fingerprint, '') AS fp, coalesce(runner_label, '') AS rl, "
    "coalesce(image_family, '') AS fam"
)
_INDEX_SQL = f"""
CREATE OR REPLACE TEMP TABLE series_index AS
SELECT role, run, started_at, {_KEY}, isl, osl, concurrency, spec, gh_run_id,
  {", ".join(METRICS)}, x_interactivity,
  {", ".join(_PROVENANCE)}
FROM records
WHERE kind = 'point' AND valid AND status = 'ok'
  AND config IN (SELECT DISTINCT config FROM records WHERE role = 'current' AND kind = 'point')
"""
_RUNS_SQL = """
SELECT config, fp, rl, fam, run, min(started_at) AS at, list(DISTINCT isl || 'x' || osl) AS pairs
FROM series_index WHERE role = 'history'
GROUP BY config, fp, rl, fam, run
"""
_SERVERS_SQL = f"""
SELECT {_KEY}, list(DISTINCT isl || 'x' || osl) AS pairs
FROM records WHERE role = 'current' AND kind = 'point'
GROUP BY ALL ORDER BY ALL
"""
_ROW = (
    "role, run, config, fp, rl, fam, isl, osl, concurrency, spec, gh_run_id, x_interactivity, "
    + ", ".join(METRICS)
    + ", "
    + ", ".join(_PROVENANCE)
)
_ROWS_SQL = f"""
SELECT s.server_fp, {", ".join("i." + c.strip() for c in _ROW.split(","))}
FROM series_index i
JOIN series_runs s ON s.run = i.run AND s.config = i.config AND s.run_fp = i.fp
  AND s.rl = i.rl AND s.fam = i.fam
WHERE i.role = 'history'
UNION ALL
SELECT fp AS server_fp, {_ROW} FROM series_index WHERE role = 'current'
"""

Server = tuple[str, str, str, str]  # config, fingerprint, runner label, image family ('' for none)


@dataclass(frozen=True, kw_only=True)
class _Run:
    name: str
    at: Any
    fingerprint: str
    pairs: frozenset[str]


def _key(key: Server) -> ServerKey:
    config, fp, rl, fam = key
    return ServerKey(
        config=config, fingerprint=fp or None, runner_label=rl or None, image_family=fam or None
    )


def _chosen(runs: list[_Run], fingerprint: str, pairs: frozenset[str], depth: int) -> list[_Run]:
    """The runs of a server's series: its fingerprint's newest `depth`, preceded, when
    there are fewer, by the newest runs before the first of them of another fingerprint
    that measured one of its ISL/OSL pairs (the same config's previous server)."""
    ordered = sorted(runs, key=lambda r: (r.at, r.name))
    mine = [r for r in ordered if r.fingerprint == fingerprint][-depth:]
    if not mine or len(mine) >= depth:
        return mine
    first = ordered.index(mine[0])
    before = [r for r in ordered[:first] if r.fingerprint != fingerprint and r.pairs & pairs]
    return [*before[-(depth - len(mine)) :], *mine]


def read_series(store: Store, depth: int) -> list[ServerSeries]:
    """The series of every server the current run measured, its current run last."""
    store.con.execute(_INDEX_SQL)
    by_config: dict[tuple[str, str, str], list[_Run]] = defaultdict(list)
    for config, fp, rl, fam, run, at, pairs in store.con.execute(_RUNS_SQL).fetchall():
        by_config[(config, rl, fam)].append(
            _Run(name=run, at=at, fingerprint=fp, pairs=frozenset(pairs))
        )
    wanted: dict[Server, list[_Run]] = {}
    for config, fp, rl, fam, pairs in store.con.execute(_SERVERS_SQL).fetchall():
        runs = by_config[(config, rl, fam)]
        wanted[(config, fp, rl, fam)] = _chosen(runs, fp, frozenset(pairs), depth)
    chosen = [
        (config, fp, r.fingerprint, rl, fam, r.name)
        for (config, fp, rl, fam), runs in wanted.items()
        for r in runs
    ]
    columns: list[list[str]] = [[row[i] for row in chosen] for i in range(6)]
    store.con.execute(
        "CREATE OR REPLACE TEMP TABLE series_runs AS SELECT unnest(?::VARCHAR[]) AS config, "
        "unnest(?::VARCHAR[]) AS server_fp, unnest(?::VARCHAR[]) AS run_fp, "
        "unnest(?::VARCHAR[]) AS rl, unnest(?::VARCHAR[]) AS fam, unnest(?::VARCHAR[]) AS run",
        columns,
    )
    grouped: dict[Server, list[dict[str, Any]]] = defaultdict(list)
    for row in store.rows(_ROWS_SQL):
        grouped[(row["config"], row["server_fp"], row["rl"], row["fam"])].append(row)
    return [_series(key, runs, grouped[key]) for key, runs in wanted.items()]


def _series(key: Server, runs: list[_Run], rows: list[dict[str, Any]]) -> ServerSeries:
    names = [r.name for r in runs]
    current = next((r["run"] for r in rows if r["role"] == "current"), "current")
    index = {name: i for i, name in enumerate(names)}
    size = len(names) + 1
    info: dict[int, dict[str, Any]] = {}
    samples: dict[PointKey, list[Sample | None]] = defaultdict(lambda: [None] * size)
    acceptance: set[PointKey] = set()
    for r in rows:
        i = index[r["run"]] if r["role"] == "history" else len(names)
        point = PointKey(isl=r["isl"], osl=r["osl"], concurrency=r["concurrency"])
        values = {m: float(r[m]) for m in METRICS if r[m] is not None}
        samples[point][i] = Sample(values=values, interactivity=r["x_interactivity"])
        if needs_acceptance(r["spec"], r["osl"]):
            acceptance.add(point)
        info.setdefault(i, r)
    run_infos = []
    for i, name in enumerate([*names, current]):
        r = info.get(i, {})
        run_infos.append(
            RunInfo(
                name=name,
                fingerprint=(r.get("fp") or None) if r else (key[1] or None),
                provenance=tuple((w, r.get(w)) for w in _PROVENANCE),
                identity=r.get("gh_run_id") or None,
            )
        )
    return ServerSeries(
        key=_key(key),
        runs=tuple(run_infos),
        samples={p: tuple(v) for p, v in sorted(samples.items())},
        acceptance=frozenset(acceptance),
    )
