"""The embedded servers the benchmarks compare in one run: llama.cpp's llama-server, which
frontier runs (continuous batching, a slot per request in flight), and the server frontier ran
before it, llama-cpp-python's (one request at a time), as the baseline. The baseline is launched
directly when llama-cpp-python is installed (`pip install 'llama-cpp-python[server]==0.3.36'`);
frontier itself no longer needs it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from frontier.config import LLMSettings
from frontier.llm import embedded as embedded_module
from frontier.llm.embedded import EmbeddedServer, shared_key

NEW = "llama-server"
OLD = "llama-cpp-python"


class LlamaCppPythonServer(EmbeddedServer):
    """llama-cpp-python's OpenAI-compatible server as frontier started it before (the whole
    context for its single request), with the threads llama-server gets, so the two differ in
    batching only (frontier gave it every core; on a busy machine that is slower still)."""

    def __init__(self, log_path: Path | None = None) -> None:
        super().__init__(log_path=log_path, slots=1)

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model_path),
            "--model_alias",
            self.model_name,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.context_size),
            "--n_threads",
            str(self.threads),
            "--verbose",
            str(self.log_path is not None),
        ]


def old_server_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def servers(log_dir: Path | None = None) -> list[tuple[str, EmbeddedServer]]:
    """(name, server) for the baseline, when installed, then frontier's own server."""
    found: list[tuple[str, EmbeddedServer]] = []
    if old_server_available():
        found.append((OLD, LlamaCppPythonServer(_log(log_dir, OLD))))
    else:
        print(
            f"({OLD} is not installed: no baseline server; pip install 'llama-cpp-python[server]==0.3.36')"
        )
    found.append((NEW, EmbeddedServer(log_path=_log(log_dir, NEW))))
    return found


def _log(log_dir: Path | None, name: str) -> Path | None:
    return log_dir / f"{name}.log" if log_dir else None


def use(server: EmbeddedServer, settings: LLMSettings) -> None:
    """Every LLM made with these settings (and no base_url) talks to this very server."""
    embedded_module._shared[shared_key(settings)] = server
