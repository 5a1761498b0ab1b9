"""Results: the records the launchers write, read back with DuckDB, and the history of
admitted runs.

record (find and validate) -> store (DuckDB tables over the JSON files) -> admit (a run
into the history). generator/verdicts judges a run against the history, generator/confirm
runs the A/B, generator/report shows it all; this package imports none of them.
docs/results.md describes the record, the layout of runs and the verdict rules.
"""
