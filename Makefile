# Feltcast: two commands for a fresh machine.
#   make demo   sets up .venv and runs the product's main job
#   make test   installs system packages when missing, sets up .venv and runs the whole suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck pytest bench system-deps clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	touch $@ $(VENV)/.installed-run

# Options for the demo, e.g. make demo DEMO_ARGS="--port 9000 --speed 2"
DEMO_ARGS ?=

demo: $(VENV)/.installed-run
	$(BIN)/feltcast demo $(DEMO_ARGS)

system-deps:
	./scripts/install-system-deps.sh

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

# The suite on both cores (pytest-xdist): its end-to-end tests mostly wait on real processes,
# its engine and camera tests compute. PYTEST_WORKERS=0 runs it in one process.
PYTEST_WORKERS ?= 2

pytest: $(VENV)/.installed-dev
	$(BIN)/pytest -n $(PYTEST_WORKERS)

test: system-deps $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest -n $(PYTEST_WORKERS)

bench: $(VENV)/.installed-dev
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
