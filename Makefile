# sglang-ci: `make workflows` after editing catalogs/, `make test` before pushing.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
OTAVA := .venv-otava/.installed

.PHONY: workflows check lint test unit lint-code lint-workflows bench clean system-packages flag-tables lock

# The editable install is byte-compiled as pip compiles a regular one: Python never writes
# the bytecode itself where PYTHONDONTWRITEBYTECODE is set, and would compile every run.
# It is setuptools' `compat` mode, a .pth line naming the checkout: the default mode's
# import finder costs every interpreter started from .venv/ 19 ms (35 ms instead of 16),
# and the tests start nearly six hundred (launchers, stand-ins, their children).
$(STAMP): requirements.txt requirements-dev.txt requirements-build.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps \
		--config-settings editable_mode=compat -e .
	$(BIN)/python -m compileall -q generator
	touch $(STAMP)

## Render every generated file from the catalogs (workflows, matrices, docs).
workflows: $(STAMP)
	$(BIN)/sglang-ci render

## Fail when a committed generated file differs from what the catalogs give, or a hash
## lock from the pins it was compiled from.
check: $(STAMP)
	$(BIN)/sglang-ci check
	$(BIN)/python scripts/check_lock.py

## The hash locks the workflows install from (`pip install --require-hashes`), compiled
## from the pins by uv (needs the package index); commit them with the pins.
LOCK_FLAGS := --generate-hashes --python-version 3.11 --quiet --custom-compile-command "make lock"
lock: $(STAMP)
	$(BIN)/uv pip compile $(LOCK_FLAGS) requirements.txt -o requirements.lock
	$(BIN)/uv pip compile $(LOCK_FLAGS) requirements-build.txt -o requirements-build.lock
	$(BIN)/python scripts/check_lock.py

## Catalog lint rules.
lint: $(STAMP)
	$(BIN)/sglang-ci lint

## The flag tables of the supported SGLang and lm-eval releases, with any newer release on
## the package index (downloads into .flag-cache/; docs/lint.md). Then `make workflows`.
flag-tables: $(STAMP)
	$(BIN)/python scripts/flag_tables.py --newest

## Code quality: ruff, mypy --strict and the import layers of generator/ (lint-imports,
## the contracts under [tool.importlinter] in pyproject.toml).
lint-code: $(STAMP)
	$(BIN)/ruff check generator tests bench scripts
	$(BIN)/ruff format --check generator tests bench scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

## The Debian packages the tests need (docker-registry, skopeo, jq, chromium, chromium-driver):
## installed as root or with passwordless sudo, else one line saying what to do.
system-packages:
	@$(SHELL) .ci/system-packages

## Every test and check; the packages first, so that a machine without them stops at once.
## The tests start hundreds of interpreters (launchers, stand-ins, sglang-ci): what they
## import is byte-compiled first, as edited since the install.
test: system-packages $(STAMP) lint-code check
	$(BIN)/python -m compileall -q generator tests/standin
	$(BIN)/pytest

## The generator's own speed and the results commands' at a year of history (not part of
## `make test`), the current sources byte-compiled.
bench: $(STAMP) $(OTAVA)
	$(BIN)/python -m compileall -q generator
	$(BIN)/python bench/bench_generator.py
	$(BIN)/python bench/bench_results.py
	$(BIN)/python bench/bench_confirm.py
	$(BIN)/python bench/bench_verdicts.py

# Apache Otava, the change-point detector the verdicts are measured against in `make bench`,
# in an environment of its own: it pins a numpy and a scipy other than the project's. Its
# analysis module needs only those two (the rest of its requirements serve its
# database and Slack integrations, which the bench does not use).
$(OTAVA):
	$(PYTHON) -m venv .venv-otava
	.venv-otava/bin/pip install --quiet --disable-pip-version-check --no-deps \
		apache-otava==0.8.0 numpy==2.2.6 scipy==1.16.3
	touch $(OTAVA)

clean:
	rm -rf $(VENV) .venv-otava .pytest_cache .mypy_cache .ruff_cache .import_linter_cache
