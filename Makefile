# Two entry points: `make demo` and `make test`. Both create .venv and install what they need.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/frontier demo frontier-demo

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts

bench: $(STAMP)
	$(BIN)/python benchmarks/extract.py

clean:
	rm -rf $(VENV) frontier-demo
