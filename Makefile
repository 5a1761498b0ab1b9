# sglang-ci: `make workflows` after editing catalogs/, `make test` before pushing.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: workflows check lint test unit lint-code lint-workflows bench clean

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

## Render every generated file from the catalogs (workflows, matrices, docs).
workflows: $(STAMP)
	$(BIN)/sglang-ci render

## Fail when a committed generated file differs from what the catalogs give.
check: $(STAMP)
	$(BIN)/sglang-ci check

## Catalog lint rules.
lint: $(STAMP)
	$(BIN)/sglang-ci lint

## Code quality: ruff and mypy --strict.
lint-code: $(STAMP)
	$(BIN)/ruff check generator tests bench
	$(BIN)/ruff format --check generator tests bench
	$(BIN)/mypy

## Every test and check.
test: $(STAMP) lint-code check
	$(BIN)/pytest

## The generator's own speed (not part of `make test`).
bench: $(STAMP)
	$(BIN)/python bench/bench_generator.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
