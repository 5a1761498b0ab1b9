"""Stage 3, lint: named rules over the expanded catalogs, with written waivers.

`checks.lint(expanded)` returns every finding; rules read what expand computed and never the
generated files (their limits are checked on render's output).
"""
