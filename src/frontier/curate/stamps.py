"""Whether a paper's step is current, without reading its text when nothing changed.

A step stores the hash of everything its result depends on (the input hash) and a quick key made
from the paper's text version instead of its text. A matching quick key means current; otherwise
the input hash is computed from the text, and when that still matches only the quick key is
recorded (a KB from before quick keys, or text rewritten unchanged)."""

from __future__ import annotations

import sqlite3

from frontier.store import curation as store


class Stamps:
    """The stored keys of one step, read once for all papers."""

    def __init__(self, conn: sqlite3.Connection, step: str) -> None:
        self.conn = conn
        self.step = step
        self.known = store.step_states(conn, step)
        self._confirmed: list[tuple[str, str, str]] = []

    def quick_match(self, paper_id: str, quick_key: str) -> bool:
        return self.known.get(paper_id, ("", ""))[1] == quick_key

    def changed(self, paper_id: str, quick_key: str, input_hash: str) -> bool:
        """Whether the step must be redone; when its input hash still matches, the quick key
        is recorded (at `flush`) so the next run need not compute the hash."""
        if self.known.get(paper_id, ("", ""))[0] != input_hash:
            return True
        self._confirmed.append((paper_id, input_hash, quick_key))
        return False

    def flush(self) -> None:
        """Store the quick keys of the papers found current by their input hash."""
        if self._confirmed:
            store.mark_done(self.conn, self._confirmed, self.step)
            self._confirmed = []
