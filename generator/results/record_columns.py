"""The typed shape DuckDB reads a record with, the store's columns, and what a record
needs to be one (its identity, validity and start time)."""

from __future__ import annotations

import json
from typing import TypeAlias

_METRICS = (
    "duration_s", "output_throughput", "output_throughput_per_gpu", "total_token_throughput",
    "total_token_throughput_per_gpu", "median_ttft_ms", "p99_ttft_ms", "median_tpot_ms",
    "p99_tpot_ms", "median_itl_ms", "p99_itl_ms", "median_e2e_latency_ms", "p99_e2e_latency_ms",
    "interactivity", "accept_length", "acceptance_rate", "score", "threshold",
    "min_acceptance_rate", "invalid_rate",
)  # fmt: skip
_PROVENANCE = (
    "sglang_commit", "atom_version", "aiter_version", "rocm_version", "runner_name",
    "catalog_commit",
)  # fmt: skip
_STRING = "VARCHAR"
Structure: TypeAlias = "dict[str, str | Structure]"  # a field's DuckDB type, or a STRUCT's
# The typed shape DuckDB reads: only what the commands use. A value of the wrong type
# reads as NULL; a record that lacks its identity is reported by SHAPE below.
STRUCTURE: Structure = {
    **dict.fromkeys(
        ("schema", "id", "kind", "config", "case", "name", "job_id", "suite", "display",
         "model_path", "server_fingerprint", "runner_label", "spec"),
        _STRING,
    ),
    "draft_tokens": "BIGINT",
    "gpus": "BIGINT",
    "status": _STRING,
    "error": _STRING,
    "validity": {"valid": "BOOLEAN", "reason": _STRING},
    "timings": {"started_at": _STRING, "ended_at": _STRING, "wall_time_s": "DOUBLE"},
    "point": {
        "pair": _STRING, **dict.fromkeys(("isl", "osl", "concurrency", "num_prompts"), "BIGINT")
    },
    "provenance": {
        "image": dict.fromkeys(("requested", "tag", "digest", "pinned"), _STRING),
        "sglang_version": _STRING,
        "gpu": {"model": _STRING},
        "github": dict.fromkeys(("repository", "run_id", "run_attempt", "workflow"), _STRING),
        **dict.fromkeys(_PROVENANCE, _STRING),
    },
    "metrics": {
        "completed": "BIGINT",
        "metric": _STRING,
        "passed": "BOOLEAN",
        **dict.fromkeys(_METRICS, "DOUBLE"),
    },
}  # fmt: skip
# The repository of an image reference: without `@digest`, then without a `:tag` after
# the last `/` (a registry's `:port` stays).
IMAGE_FAMILY_SQL = "regexp_replace(regexp_replace({ref}, '@.*$', ''), ':[^/:]*$', '')"

WHEN = "coalesce(r.timings.started_at, r.timings.ended_at)"
COLUMNS = ",\n".join(
    [
        *(f"r.{c} AS {c}" for c in ("kind", "id", "config", "job_id", "suite", "display")),
        'r."case" AS case_id',
        "r.name AS case_name",
        "r.model_path AS model_path",
        "r.server_fingerprint AS fingerprint",
        *(f"r.{c} AS {c}" for c in ("runner_label", "spec", "draft_tokens", "gpus", "status")),
        "r.error AS error",
        "r.validity.valid AS valid",
        "r.validity.reason AS reason",
        # When the record's point or case ran; one that never started (its server did not
        # become ready): when the launcher gave it up.
        f"TRY_CAST({WHEN} AS TIMESTAMPTZ) AS started_at",
        "r.timings.wall_time_s AS wall_time_s",
        *(f"r.point.{c} AS {c}" for c in ("pair", "isl", "osl", "concurrency", "num_prompts")),
        "r.provenance.image.requested AS image",
        "r.provenance.image.tag AS image_tag",
        "r.provenance.image.digest AS image_digest",
        IMAGE_FAMILY_SQL.format(ref="r.provenance.image.requested") + " AS image_family",
        "r.provenance.sglang_version AS sglang_version",
        "r.provenance.gpu.model AS gpu_model",
        "r.provenance.github.repository AS gh_repository",
        "r.provenance.github.run_id AS gh_run_id",
        "r.provenance.github.run_attempt AS gh_run_attempt",
        *(f"r.provenance.{c} AS {c}" for c in _PROVENANCE),
        "r.provenance.image.pinned AS image_pinned",
        "r.provenance.github.workflow AS gh_workflow",
        *(f"r.metrics.{c} AS {c}" for c in ("completed", "metric", "passed", *_METRICS)),
    ]
)
# A record typed by DuckDB still needs its identity, validity and start time.
SHAPE = f"""
    CASE
      WHEN r.kind NOT IN ('point', 'case') OR r.kind IS NULL THEN 'kind is not point or case'
      WHEN r.id IS NULL THEN 'no id'
      WHEN r.validity.valid IS NULL THEN 'no validity.valid'
      WHEN TRY_CAST({WHEN} AS TIMESTAMPTZ) IS NULL
        THEN 'no timings.started_at or ended_at timestamp'
      WHEN r.kind = 'point' AND (r.config IS NULL OR r.point.isl IS NULL
        OR r.point.osl IS NULL OR r.point.concurrency IS NULL) THEN 'no config or point'
      WHEN r.kind = 'case' AND r."case" IS NULL THEN 'no case'
    END
"""


def structure_literal() -> str:
    """STRUCTURE as the text of a SQL string literal."""
    return json.dumps(STRUCTURE).replace("'", "''")
