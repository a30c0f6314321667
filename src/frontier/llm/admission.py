"""One limit on the answers a process writes at once: a few at work, a few waiting for a place
(no longer than the answers ahead of them may take), the rest refused with when to come back.
An answer's deadline runs from when it gets its place."""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque

QUEUE_SLACK_S = 5.0  # an answer ends a little after its deadline: its page is finished and stored


class Busy(Exception):
    """Every place is taken and the queue is full; `retry_after` is when one frees at the latest."""

    def __init__(self, retry_after: int, working: int) -> None:
        super().__init__(f"{working} answers are being written; try again in {retry_after} s")
        self.retry_after = retry_after
        self.working = working


class Ticket:
    """One answer's place: held from admission to release, which may be called any number of
    times (a response that ends early and its cleanup both release it)."""

    def __init__(self, admission: Admission, waits_until: float) -> None:
        self.admission = admission
        self.waits_until = waits_until  # in the queue, at the latest
        self.deadline = waits_until  # time.monotonic() by which the answer must end
        self.admitted = False
        self.released = False
        self._placed = asyncio.Event()

    async def wait(self) -> bool:
        """Wait in the queue for a place; False when none came in the time the answers ahead
        of it may take (something held a place past its deadline)."""
        if self.admitted:
            return True
        left = self.waits_until - time.monotonic()
        if left > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._placed.wait(), left)
        if not self.admitted:
            self.release()
        return self.admitted

    def place(self) -> None:
        self.admitted = True
        self.deadline = time.monotonic() + self.admission.deadline_s
        self._placed.set()

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.admission.leave(self)


class Admission:
    """At most `limit` answers at work and `queue` waiting; used from the event loop only."""

    def __init__(self, limit: int, queue: int, deadline_s: float) -> None:
        self.limit = max(1, limit)
        self.queue = max(0, queue)
        self.deadline_s = deadline_s
        self.working: list[Ticket] = []
        self.waiting: deque[Ticket] = deque()

    def enter(self) -> Ticket:
        """A place now, or one in the queue; Busy when neither is free."""
        now = time.monotonic()
        rounds = len(self.waiting) // self.limit + 1  # of answers ahead, `limit` at a time
        ticket = Ticket(self, now + rounds * (self.deadline_s + QUEUE_SLACK_S))
        if len(self.working) < self.limit:
            self.working.append(ticket)
            ticket.place()
        elif len(self.waiting) < self.queue:
            self.waiting.append(ticket)
        else:
            raise Busy(self.retry_after(now), len(self.working))
        return ticket

    def retry_after(self, now: float) -> int:
        """Whole seconds until the soonest deadline of the answers at work: a place is free then."""
        soonest = min((t.deadline for t in self.working), default=now)
        return max(1, math.ceil(soonest - now))

    def leave(self, ticket: Ticket) -> None:
        if ticket in self.working:
            self.working.remove(ticket)
        elif ticket in self.waiting:
            self.waiting.remove(ticket)
        while self.waiting and len(self.working) < self.limit:
            following = self.waiting.popleft()
            self.working.append(following)
            following.place()
