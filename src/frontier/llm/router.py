"""Several endpoints for one model: send to the least busy; set aside one that keeps failing.
A process keeps one router per set of endpoints, so every client in it sees the same load."""

from __future__ import annotations

import time
from dataclasses import dataclass

_FAILURES_BEFORE_SET_ASIDE = 3
_SET_ASIDE_BASE_S = 15.0
_SET_ASIDE_MAX_S = 300.0


@dataclass
class Endpoint:
    url: str
    in_flight: int = 0
    consecutive_failures: int = 0
    set_aside_until: float = 0.0
    times_set_aside: int = 0

    def available(self, now: float) -> bool:
        return self.set_aside_until <= now


class Router:
    def __init__(self, urls: list[str]) -> None:
        if not urls:
            raise ValueError("no endpoint to route to")
        self.endpoints = [Endpoint(url) for url in dict.fromkeys(urls)]

    def pick(self) -> Endpoint:
        """The available endpoint with the fewest requests in flight (or the soonest back)."""
        now = time.monotonic()
        ready = [e for e in self.endpoints if e.available(now)]
        if not ready:
            return min(self.endpoints, key=lambda e: e.set_aside_until)
        return min(ready, key=lambda e: (e.in_flight, e.consecutive_failures))

    def succeeded(self, endpoint: Endpoint) -> None:
        endpoint.consecutive_failures = 0
        endpoint.times_set_aside = 0

    def failed(self, endpoint: Endpoint) -> None:
        endpoint.consecutive_failures += 1
        if endpoint.consecutive_failures >= _FAILURES_BEFORE_SET_ASIDE and len(self.endpoints) > 1:
            pause = min(_SET_ASIDE_MAX_S, _SET_ASIDE_BASE_S * 2**endpoint.times_set_aside)
            endpoint.set_aside_until = time.monotonic() + pause
            endpoint.times_set_aside += 1
            endpoint.consecutive_failures = 0


_shared: dict[tuple[str, ...], Router] = {}


def shared_router(urls: list[str]) -> Router:
    """The process's router for these endpoints: the requests of every client of the process
    (each answer of a server has one) count towards the same endpoint's load."""
    key = tuple(dict.fromkeys(urls))
    if key not in _shared:
        _shared[key] = Router(list(key))
    return _shared[key]
