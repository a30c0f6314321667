"""A scripted OpenAI-compatible server on 127.0.0.1 that misbehaves on purpose: it stands for a
broken remote server (500s, 429 with Retry-After, slow answers, bad bodies), not for our code."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    content: str = "{}"  # the assistant message content
    body: bytes | None = None  # raw body instead of a chat completion
    delay: float = 0.0
    headers: dict[str, str] | None = None
    reasoning: str | None = None
    finish_reason: str = "stop"  # "length": the reply ran to max_tokens


def completion(content: str, reasoning: str | None = None, finish_reason: str = "stop") -> bytes:
    message: dict[str, object] = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return json.dumps(
        {
            "id": "fake",
            "object": "chat.completion",
            "created": 0,
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        }
    ).encode()


STREAM_PAUSE_S = 0.05


def stream_events(content: str, words: int = 3) -> list[str]:
    """A streamed completion: the content in pieces of a few words, then usage, then [DONE]."""
    tokens = content.split(" ")
    pieces = [" ".join(tokens[i : i + words]) + " " for i in range(0, len(tokens), words)]
    chunk = {"id": "fake", "object": "chat.completion.chunk", "created": 0, "model": "fake-model"}
    events = [
        chunk | {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
        for piece in pieces
    ]
    events.append(chunk | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    usage = {
        "prompt_tokens": 11,
        "completion_tokens": len(pieces),
        "total_tokens": 11 + len(pieces),
    }
    events.append(chunk | {"choices": [], "usage": usage})
    return [json.dumps(event) for event in events] + ["[DONE]"]


class FakeOpenAI:
    """Answers each chat request with the next scripted Reply (the last one repeats), or with
    what `replies` returns for the request when it is a function."""

    def __init__(
        self, replies: list[Reply] | Callable[[dict[str, object]], Reply], port: int = 0
    ) -> None:
        self.respond = replies if callable(replies) else None
        self.replies = [] if callable(replies) else list(replies)
        self.requests: list[dict[str, object]] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    def next_reply(self, request: dict[str, object]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.respond is not None:
                return self.respond(request)
            return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._send(
                200,
                json.dumps(
                    {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}
                ).encode(),
            )

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            request = json.loads(self.rfile.read(length) or b"{}")
            reply = server.next_reply(request)
            time.sleep(reply.delay)
            body = (
                reply.body
                if reply.body is not None
                else completion(reply.content, reply.reasoning, reply.finish_reason)
            )
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                if request.get("stream") and reply.status == 200 and reply.body is None:
                    self._stream(reply.content)
                else:
                    self._send(reply.status, body, reply.headers)

        def _stream(self, content: str) -> None:
            """The content as server-sent chunks of a few words each, a pause between them."""
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            for data in stream_events(content):
                self.wfile.write(f"data: {data}\n\n".encode())
                self.wfile.flush()
                time.sleep(STREAM_PAUSE_S)

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler
