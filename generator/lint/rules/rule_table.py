"""The lint rules by id: each one's name and severity, and the retired ids with where
their check lives now (docs/lint.md lists them)."""

from __future__ import annotations

ERROR = "error"
WARNING = "warning"

# Rule id -> (name, severity). Ids are stable: a retired rule's id is never reused.
RULES: dict[str, tuple[str, str]] = {
    "L001": ("waiver-unknown-rule", ERROR),
    "L002": ("waiver-unused", WARNING),
    "L101": ("dp-attention-divisible", ERROR),
    "L102": ("ep-divides-tp", ERROR),
    "L106": ("mode-overrides-config", WARNING),
    "L201": ("gpus-fit-runner", ERROR),
    "L301": ("spec-draft-model", WARNING),
    "L302": ("spec-draft-tokens", ERROR),
    "L303": ("spec-params-together", ERROR),
    "L304": ("cuda-graph-covers-concurrency", WARNING),
    "L305": ("spec-field-matches-flags", ERROR),
    "L401": ("accuracy-matches-benchmark", ERROR),
    "L402": ("accuracy-unset-allowed", ERROR),
    "L501": ("env-forbidden", ERROR),
    "L502": ("env-renamed", ERROR),
    "L503": ("env-retired", WARNING),
    "L603": ("unique-display-name", ERROR),
    "L604": ("unique-dashboard-model", ERROR),
    "L605": ("model-path-spelling", ERROR),
    "L606": ("unused-fragment", WARNING),
    "L707": ("run-ends-before-next", WARNING),
    "L800": ("flag-tables-current", WARNING),
    "L801": ("flag-dropped", WARNING),
    "L802": ("flag-refused-by-release", ERROR),
    "L803": ("flag-deprecated", WARNING),
    "L804": ("context-length-over-model", ERROR),
}

# Retired ids and where their check lives now (each refusal lives in one place).
RETIRED: dict[str, str] = {
    "L100": "a server that cannot be resolved is refused by the expand stage (exit 2)",
    "L103": "parallel: writes the size flags; a catalog that writes one is refused when loaded",
    "L601": "a repeated prefix is refused when the catalog is loaded (exit 2)",
    "L602": "a repeated case id is refused when the catalog is loaded (exit 2)",
    "L504": "an env name that is not a shell identifier is refused when the catalog is loaded",
    "L505": "an env value that is not one line is refused when the catalog is loaded",
    "L701": "matrix job counts are checked on render's output (exit 2)",
    "L702": "matrix sizes are checked on render's output (exit 2)",
    "L703": "dispatch inputs are checked on render's output (exit 2)",
    "L704": "expression lengths are checked on render's output (exit 2)",
    "L705": "cron strings are checked when the catalog is loaded (exit 2)",
    "L706": "a cron group or preset that selects nothing is refused by expand (exit 2)",
}
