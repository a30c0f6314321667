"""What happened to each input of a run, and the exit code that follows from it."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

# exit codes: 0 all fine, 1 something failed (network, server), 2 some input was rejected
EXIT_OK, EXIT_FAILED, EXIT_REJECTED = 0, 1, 2


@dataclass
class ReportLine:
    """What happened to one input of a run."""

    item: str
    outcome: str  # stored | warning | updated | duplicate | rejected | failed
    message: str
    paper_id: str | None = None
    code: str = ""


@dataclass
class Report:
    entries: list[ReportLine] = field(default_factory=list)

    def add(self, entry: ReportLine) -> ReportLine:
        self.entries.append(entry)
        return entry

    def counts(self) -> dict[str, int]:
        return dict(Counter(entry.outcome for entry in self.entries))

    @property
    def new_or_changed(self) -> int:
        return sum(1 for e in self.entries if e.outcome in ("stored", "warning", "updated"))

    def exit_code(self) -> int:
        outcomes = {entry.outcome for entry in self.entries}
        if "rejected" in outcomes:
            return EXIT_REJECTED
        if "failed" in outcomes:
            return EXIT_FAILED
        return EXIT_OK

    def to_dict(self) -> dict[str, object]:
        return {
            "counts": self.counts(),
            "exit_code": self.exit_code(),
            "items": [asdict(entry) for entry in self.entries],
        }
