"""sglang-ci: catalogs of SGLang benchmark and accuracy runs, rendered into GitHub Actions.

The version is pyproject.toml's, read from the installed metadata (`sglang-ci --version`).
"""
