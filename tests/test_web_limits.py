"""The server's limits on 127.0.0.1: answers admitted up to `[serve] max_answers` (the rest get a
503 saying the server is busy, with Retry-After), each ended by `llm.answer_deadline`; model work
stopped when the clients go; a client too slow to send its request disconnected while others
are served; no more open connections than `[serve] max_connections`."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import pytest
from fake_openai import FakeOpenAI, Reply
from helpers import db, marked_processes, started
from web_kb import built_kb, copy_kb, free_port, model_env, serving

from frontier.config import ServeSettings
from frontier.synthesize.ask import ANSWER_TOKENS

QUESTION = "How does vLLM manage KV cache memory with paged attention?"
MODEL_DELAY_S = 40.0  # the scripted model answers this late: far past every deadline below
CLIENTS = 8


def form_token(base: str) -> str:
    with urllib.request.urlopen(f"{base}/ask", timeout=30) as page:
        found = re.search(r'name="csrf" value="([^"]+)"', page.read().decode())
    assert found
    return found.group(1)


def open_ask(base: str, token: str) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    """POST the question; the response is returned unread (its status and headers are in)."""
    conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=60)
    body = urlencode({"csrf": token, "q": QUESTION})
    conn.request("POST", "/ask", body, {"content-type": "application/x-www-form-urlencoded"})
    return conn, conn.getresponse()


def all_at_once(count: int, work) -> list:  # type: ignore[no-untyped-def]
    """`work()` in `count` threads released together; their results in order."""
    gate = threading.Barrier(count)
    results: list = [None] * count

    def one(index: int) -> None:
        gate.wait()
        try:
            results[index] = work()
        except Exception as exc:  # reported by the assertions on the results
            results[index] = exc

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def ask_together(
    root: Path, clients: int, env: dict[str, str]
) -> list[tuple[int, str, str, float]]:
    """`clients` questions sent at once to a server over `root` whose model answers only after
    MODEL_DELAY_S: each reply's status, Retry-After, page and seconds."""
    with (
        FakeOpenAI([Reply(content="It pages the KV cache [1].", delay=MODEL_DELAY_S)]) as model,
        serving(root, env=model_env(model) | env) as base,
    ):
        with urllib.request.urlopen(f"{base}/search?q=paged+attention", timeout=60):
            pass  # the embedding model is loaded once per server: not within an answer's time
        tokens = [form_token(base) for _ in range(clients)]
        counter = iter(range(clients))

        def ask() -> tuple[int, str, str, float]:
            started_at = time.monotonic()
            conn, response = open_ask(base, tokens[next(counter)])
            try:
                html = response.read().decode()
            finally:
                conn.close()
            retry = response.headers.get("retry-after", "")
            return response.status, retry, html, time.monotonic() - started_at

        return all_at_once(clients, ask)


def check_ended_by_the_deadline(html: str, seconds: float, deadline: float) -> None:
    """Ended by the deadline with what code found, long before the model could have answered."""
    assert f"did not finish within the answer's deadline ({deadline:g} s)" in html
    assert "It pages the KV cache" not in html.split('<div class="checked"')[1]
    assert html.rstrip().endswith("</html>") and seconds < MODEL_DELAY_S


def test_two_answers_at_once_the_rest_busy_each_within_its_deadline(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    root = copy_kb(built_kb(tmp_path_factory), tmp_path / "kb")
    limits = {"FRONTIER_SERVE__MAX_ANSWERS": "2", "FRONTIER_LLM__ANSWER_DEADLINE": "8"}
    results = ask_together(root, CLIENTS, limits)
    statuses = sorted(r[0] for r in results)
    assert statuses == [200, 200] + [503] * (CLIENTS - 2), results
    for status, retry, html, seconds in results:
        if status == 503:
            assert "The server is busy" in html and 1 <= int(retry) <= 8
        else:
            check_ended_by_the_deadline(html, seconds, 8)
    # a call that was made (on a busy machine the bundle can take the whole time) was cut off
    calls = db(root).execute("SELECT outcome, error FROM llm_calls WHERE command = 'ask'")
    assert {tuple(row) for row in calls} <= {("cancelled", "the answer's deadline passed")}
    asks = db(root).execute("SELECT count(*) FROM asks WHERE answer != ''").fetchone()[0]
    assert asks == 2


def test_a_queued_answer_gets_a_whole_deadline_of_its_own(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    root = copy_kb(built_kb(tmp_path_factory), tmp_path / "kb")
    limits = {
        "FRONTIER_SERVE__MAX_ANSWERS": "1",
        "FRONTIER_SERVE__QUEUE": "1",
        "FRONTIER_LLM__ANSWER_DEADLINE": "5",
    }
    results = ask_together(root, 3, limits)
    assert sorted(r[0] for r in results) == [200, 200, 503], results
    for status, _retry, html, seconds in results:
        if status == 200:
            check_ended_by_the_deadline(html, seconds, 5)


def _slots(mark: str) -> list[dict[str, object]] | None:
    """The slots of the embedded model server this command started, once it answers."""
    for pid in marked_processes(mark):
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        port = re.search(r"--port (\d+)", cmdline)
        if "llama-server" in cmdline and port:
            with contextlib.suppress(OSError, ValueError):
                url = f"http://127.0.0.1:{port.group(1)}/slots"
                with urllib.request.urlopen(url, timeout=5) as reply:
                    return json.loads(reply.read())
    return None


def _until(what: str, check, seconds: float) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {seconds:.0f} s: {what}")


def _generating(slots: list[dict[str, object]] | None) -> bool:
    """Some slot is at work, and every slot at work is past its prompt, writing tokens."""
    busy = [slot for slot in slots or [] if slot["is_processing"]]
    return bool(busy) and all(_decoded(slot) > 0 for slot in busy)


def _decoded(slot: dict[str, object]) -> int:
    return int(slot.get("next_token", [{}])[0].get("n_decoded", 0))  # type: ignore[index]


@pytest.mark.slow
def test_no_model_work_is_left_when_the_clients_go(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    root = copy_kb(built_kb(tmp_path_factory), tmp_path / "kb")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        "FRONTIER_SERVE__MAX_ANSWERS": "2",
        "FRONTIER_LLM__MAX_IN_FLIGHT": "2",
        # a short prompt: llama-server notices a client gone between batches of a prompt
        "FRONTIER_LLM__CONTEXT_SIZE": "2048",
        "FRONTIER_LLM__MAX_OUTPUT_TOKENS": "512",
    }
    with started(["-w", str(root), "serve", "--port", str(port)], env=env) as (proc, mark):
        _until("the server answers", lambda: _answers(base), 60)
        tokens = [form_token(base) for _ in range(CLIENTS)]
        counter = iter(range(CLIENTS))
        opened = all_at_once(CLIENTS, lambda: open_ask(base, tokens[next(counter)]))
        statuses = sorted(response.status for _conn, response in opened)
        assert statuses == [200, 200] + [503] * (CLIENTS - 2)
        _until("the embedded model writes the answers", lambda: _generating(_slots(mark)), 300)
        for conn, response in opened:
            response.close()  # the clients go (the response holds the socket open until then)
            conn.close()
        idle = lambda: not any(s["is_processing"] for s in _slots(mark) or [])  # noqa: E731
        _until("no slot of llama-server at work", idle, 30)
        slots = _slots(mark) or []
        assert proc.poll() is None
    assert slots and all(_decoded(slot) < ANSWER_TOKENS for slot in slots)  # none wrote it all
    rows = db(root).execute("SELECT outcome, error FROM llm_calls WHERE command = 'ask'")
    outcomes = [tuple(row) for row in rows]
    assert outcomes and set(outcomes) == {("cancelled", "the reader went away")}


def _answers(base: str) -> bool:
    with contextlib.suppress(OSError), urllib.request.urlopen(f"{base}/", timeout=5) as reply:
        return reply.status == 200
    return False


def _closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    with contextlib.suppress(ConnectionResetError):  # closed with the client's bytes unread
        while chunk := sock.recv(4096):
            received += chunk
    return received


def _trickle(sock: socket.socket, stop: threading.Event) -> None:
    """A byte every 0.2 s until the server closes the connection (or the test stops)."""
    with contextlib.suppress(OSError):
        while not stop.wait(0.2):
            sock.sendall(b"X")


@pytest.mark.parametrize(
    ("start", "bound"),
    [
        (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", "header_timeout"),
        (
            b"POST /ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n\r\nq=",
            "body_timeout",
        ),
    ],
    ids=["headers", "body"],
)
def test_a_slow_client_is_closed_while_others_are_served(
    tmp_path_factory: pytest.TempPathFactory, start: bytes, bound: str
) -> None:
    timeouts = {"header_timeout": 1.0, "body_timeout": 2.0}
    env = {f"FRONTIER_SERVE__{key.upper()}": str(value) for key, value in timeouts.items()}
    with serving(built_kb(tmp_path_factory), env=env) as base:
        address = base.removeprefix("http://").split(":")
        sock = socket.create_connection((address[0], int(address[1])), timeout=30)
        stop = threading.Event()
        with sock:
            sock.sendall(start)
            trickling = threading.Thread(target=_trickle, args=(sock, stop), daemon=True)
            trickling.start()
            began = time.monotonic()
            served = 0
            while time.monotonic() - began < timeouts[bound] / 2:
                with urllib.request.urlopen(f"{base}/claims", timeout=10) as page:
                    served += page.status == 200
            received = _closed(sock)
            took = time.monotonic() - began
            stop.set()
            trickling.join(timeout=5)
        assert served >= 1
        assert took < timeouts[bound] + 10  # the configured bound, and a margin for a busy machine
        if bound == "header_timeout" and received:  # a reset may overtake the reply
            assert received.startswith(b"HTTP/1.1 408 ")
        with urllib.request.urlopen(f"{base}/", timeout=10) as page:
            assert page.status == 200


def test_the_defaults_close_a_slow_client_within_30_s() -> None:
    defaults = ServeSettings()
    assert defaults.header_timeout == 10 and defaults.body_timeout == 30


def test_open_connections_are_capped(tmp_path_factory: pytest.TempPathFactory) -> None:
    env = {"FRONTIER_SERVE__MAX_CONNECTIONS": "3", "FRONTIER_SERVE__HEADER_TIMEOUT": "2"}
    with serving(built_kb(tmp_path_factory), env=env) as base:
        host, port = base.removeprefix("http://").split(":")
        idle = [socket.create_connection((host, int(port)), timeout=30) for _ in range(3)]
        try:
            for sock in idle:
                sock.sendall(b"GET / HTTP/1.1\r\n")  # and nothing more
            time.sleep(0.5)  # the server has taken them in
            conn = http.client.HTTPConnection(f"{host}:{port}", timeout=10)
            conn.request("GET", "/")
            assert conn.getresponse().status == 503
            conn.close()
            for sock in idle:
                assert _closed(sock).startswith(b"HTTP/1.1 408 ")  # at the header timeout
        finally:
            for sock in idle:
                sock.close()
        with urllib.request.urlopen(f"{base}/", timeout=10) as page:
            assert page.status == 200
