"""Topic scopes as a flat list of lines, each pointing at where a matching paper should go."""

from __future__ import annotations

from dataclasses import dataclass

from frontier.config import Settings

OUT_OF_FIELD = ""


@dataclass(frozen=True)
class ScopeLine:
    owner: str  # the topic whose scope names this line
    text: str
    kind: str  # summary | in | out
    destination: str  # topic slug a matching paper goes to, or OUT_OF_FIELD

    def describe(self) -> str:
        """The line as a triage reason names it."""
        if self.kind == "out":
            where = f"routed to {self.destination}" if self.destination else "out of the field"
            return f"out of scope of {self.owner} ({where}): {self.text}"
        return f"in scope of {self.owner}: {self.text}"


def scope_lines(settings: Settings) -> list[ScopeLine]:
    lines: list[ScopeLine] = []
    for topic in settings.topics:
        lines.append(
            ScopeLine(topic.slug, f"{topic.title}: {topic.summary}", "summary", topic.slug)
        )
        lines += [ScopeLine(topic.slug, text, "in", topic.slug) for text in topic.in_scope]
        for out in topic.out_of_scope_lines():
            lines.append(ScopeLine(topic.slug, out.text, "out", out.route_to or OUT_OF_FIELD))
    return lines
