"""The model earns its calls: a step whose replies from the configured model (and prompt
version) failed its check in most of their last calls takes code's answer without asking, says
so once in the run summary, and still asks for a small sample each run, so that a better model
or prompt version is noticed and trusted again. `[curate] model_steps` sets a step to "always"
ask or "never" (code's answer every time); "auto" is the default.

A model's record is a property of the model and the prompt version, not of one KB: what was
measured for the embedded default model is shipped (`frontier/data/model_record.jsonl`, written
by `scripts/model_record.py` from curated KBs) and fills a step's window until the KB holds
WINDOW checked replies of its own, so a new KB does not pay again to learn what is known."""

from __future__ import annotations

import asyncio
import functools
import json
import sqlite3
from dataclasses import dataclass, field
from importlib import resources

from frontier.config import Settings
from frontier.curate.context import CurationContext
from frontier.store.model_checks import checks_by_step, recent_checks, record_checks

WINDOW = 20  # the last calls a step's trust is judged on, and the fewest that can judge it
FAILING = 0.9  # the share of those that failed which stops the asking
SAMPLE = 2  # calls a distrusted step still makes each run
RECORD_FILE = "model_record.jsonl"


@dataclass(frozen=True)
class ShippedRecord:
    """What was measured of one step's replies from one model and prompt version, shipped."""

    checked: int
    passed: int
    measured_on: str

    def outcomes(self, count: int) -> list[bool]:
        """`count` outcomes in the record's shares, failures first (the window's judgement
        depends on the counts alone)."""
        failed = round(count * (self.checked - self.passed) / self.checked) if self.checked else 0
        return [False] * failed + [True] * (count - failed)


@functools.cache
def shipped_records() -> dict[tuple[str, str, str], ShippedRecord]:
    """The shipped record, by (step, model, prompt version)."""
    path = resources.files("frontier.data").joinpath(RECORD_FILE)
    if not path.is_file():
        return {}
    records = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            key = (row["step"], row["model"], row["prompt_version"])
            records[key] = ShippedRecord(row["checked"], row["passed"], row["measured_on"])
    return records


def shipped_outcomes(step: str, model: str, prompt_version: str) -> list[bool]:
    """WINDOW outcomes from the shipped record of this step, model and prompt version (none
    when nothing was measured for them)."""
    record = shipped_records().get((step, model, prompt_version))
    return record.outcomes(WINDOW) if record else []


@dataclass
class ModelGate:
    """One step's trust in one model and prompt version, for one run."""

    step: str
    model: str
    prompt_version: str
    mode: str  # auto | always | never
    recent: list[bool]
    instead: str  # what the step does without the model ("quoting the abstract")
    shipped: list[bool] = field(default_factory=list)  # the shipped record's outcomes, last
    asked: int = 0
    skipped: int = 0
    outcomes: list[bool] = field(default_factory=list)
    stopped: tuple[int, int, int] = (0, 0, 0)  # failed, of calls, of them shipped: when it stopped
    pending: int = 0  # calls admitted and not yet settled
    _settled: asyncio.Condition = field(default_factory=asyncio.Condition, repr=False)

    def window(self) -> list[bool]:
        """The step's last WINDOW checked replies: this run's, then the stored ones, then the
        shipped record's for as many as the KB lacks."""
        return (self.outcomes[::-1] + self.recent + self.shipped)[:WINDOW]

    def _from_shipped(self) -> int:
        return max(0, min(WINDOW, len(self.window())) - len(self.outcomes) - len(self.recent))

    def judged_on(self) -> tuple[int, int, int]:
        """The window's failed replies, its calls, and how many of those the shipped record
        stands in for."""
        window = self.window()
        return window.count(False), len(window), self._from_shipped()

    def distrusted(self) -> bool:
        if self.mode != "auto":
            return self.mode == "never"
        window = self.window()
        return len(window) >= WINDOW and window.count(False) >= FAILING * len(window)

    def asks(self) -> bool:
        """Whether this item goes to the model: always while it is trusted (a run learns from
        its own replies too), else only while this run has asked fewer than SAMPLE times (and
        the step is not set to "never")."""
        if not self.distrusted() or (self.mode == "auto" and self.asked < SAMPLE):
            self.asked += 1
            return True
        if not self.skipped:
            self.stopped = self.judged_on()
        self.skipped += 1
        return False

    def checked(self, passed: bool) -> None:
        self.outcomes.append(passed)

    async def admits(self) -> bool:
        """`asks`, decided once the calls in flight can no longer change the answer: a run
        asks no more calls than it needs to learn that the model fails."""
        async with self._settled:
            await self._settled.wait_for(lambda: not self._hangs_on_pending())
            asked = self.asks()
            self.pending += asked
            return asked

    async def settled(self, passed: bool | None) -> None:
        """An admitted call ended: whether its reply passed the check, None without a reply."""
        async with self._settled:
            self.pending -= 1
            if passed is not None:
                self.outcomes.append(passed)
            self._settled.notify_all()

    def _hangs_on_pending(self) -> bool:
        """Were every call in flight to fail, the step would stop asking."""
        if self.mode != "auto" or not self.pending or self.distrusted():
            return False
        window = ([False] * self.pending + self.window())[:WINDOW]
        return len(window) >= WINDOW and window.count(False) >= FAILING * len(window)

    def note(self) -> str:
        """The run summary's line when items went without the model, else ''."""
        if not self.skipped:
            return ""
        if self.mode == "never":
            return f"{self.step}: set to never ask the model; {self.instead} for {self.skipped}"
        return (
            f"{self.step}: the model's replies {failed_words(*self.stopped)}; {self.instead} "
            f"without asking it for {self.skipped} (asked for {self.asked} this run)"
        )


def failed_words(failed: int, calls: int, shipped: int) -> str:
    """ "failed the check in F of the last N calls", saying how many the shipped record holds."""
    measured = f" ({shipped} of them in the record shipped for it)" if shipped else ""
    return f"failed the check in {failed} of the last {calls} calls{measured}"


def stored_gate(
    conn: sqlite3.Connection,
    step: str,
    model: str,
    prompt_version: str,
    mode: str,
    instead: str = "",
) -> ModelGate:
    """The gate of a step as the KB's checked replies and the shipped record leave it."""
    recent = recent_checks(conn, step, model, prompt_version, WINDOW)
    shipped = shipped_outcomes(step, model, prompt_version)
    return ModelGate(step, model, prompt_version, mode, recent, instead, shipped)


async def open_gate(
    ctx: CurationContext, step: str, prompt_version: str, instead: str
) -> ModelGate:
    model = await ctx.llm.model_name()
    mode = ctx.settings.curate.model_steps.get(step, "auto")
    return stored_gate(ctx.conn, step, model, prompt_version, mode, instead)


def close_gate(ctx: CurationContext, gate: ModelGate) -> None:
    """Record this run's outcomes and put the gate's note in the run summary."""
    if gate.outcomes:
        record_checks(
            ctx.conn, gate.step, gate.model, gate.prompt_version, gate.outcomes, ctx.run_id
        )
    if note := gate.note():
        ctx.notes.append(note)


def trust_report(conn: sqlite3.Connection, settings: Settings) -> list[dict[str, object]]:
    """Per step, model and prompt version: replies checked, passed, and whether the step asks
    the model (`frontier status`)."""
    rows = []
    for row in checks_by_step(conn):
        step, model, version = str(row["step"]), str(row["model"]), str(row["prompt_version"])
        mode = settings.curate.model_steps.get(step, "auto")
        gate = stored_gate(conn, step, model, version, mode)
        asks = "sample only" if gate.distrusted() else "yes"
        if gate.distrusted() and len(gate.recent) < WINDOW and gate.shipped:
            asks += " (with the record shipped for this model)"
        rows.append(row | {"mode": mode, "asks": asks})
    return rows
