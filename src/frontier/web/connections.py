"""The server's connections: a client has `header_timeout` seconds to send a request's headers
and `body_timeout` more for its body, or it is disconnected (uvicorn itself only times out a
connection that sits idle between requests); the cap on open connections is uvicorn's."""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 35\r\nconnection: close\r\n\r\nThe request was not sent in time.\r\n"
)


class TimedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline on reading each request."""

    header_timeout = 10.0
    body_timeout = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_timer: asyncio.TimerHandle | None = None
        self._reading = ""  # what the timer waits for: "headers", "body" or nothing

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn narrows it
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Arm the timer for the part of the request still to come, or stop it when the request
        is read. A connection idle between requests is left to uvicorn's keep-alive timeout."""
        if self.transport.is_closing():
            self._stop_timer()
            return
        state = self.conn.their_state
        if state is h11.IDLE and self.timeout_keep_alive_task is None:
            self._arm("headers", self.header_timeout)
        elif state is h11.SEND_BODY:
            self._arm("body", self.body_timeout)
        else:
            self._stop_timer()

    def _arm(self, part: str, seconds: float) -> None:
        if self._reading == part:
            return  # the same part's time keeps running: trickling bytes buys none
        self._stop_timer()
        self._reading = part
        self._read_timer = self.loop.call_later(seconds, self._too_slow)

    def _stop_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
        self._read_timer, self._reading = None, ""

    def _too_slow(self) -> None:
        """Disconnect a client that did not send its request in time; a handler still waiting
        for the body sees the client gone."""
        if self.transport.is_closing():
            return
        if self._reading == "headers":
            self.transport.write(REQUEST_TIMEOUT)
        self._read_timer, self._reading = None, ""
        self.transport.close()


def timed_protocol(header_timeout: float, body_timeout: float) -> type[TimedH11Protocol]:
    """The protocol class uvicorn builds each connection from, with these timeouts."""
    attributes = {"header_timeout": header_timeout, "body_timeout": body_timeout}
    return type("ConfiguredH11Protocol", (TimedH11Protocol,), attributes)
