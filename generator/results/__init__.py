"""Results: the records the launchers write, read back with DuckDB.

record (find and validate) -> store (DuckDB tables over the JSON files) -> summarize |
compare (verdicts against a history) | thresholds | report (a static plotly site).
docs/results.md describes the record, the layout of runs and the verdict rules.
"""
