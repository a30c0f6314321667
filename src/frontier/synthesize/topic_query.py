"""What a preset without a question retrieves for: the scope of a topic, or of every topic."""

from __future__ import annotations

from frontier.config import Settings


def topic_query(settings: Settings, topic: str | None) -> str:
    """The topic's title, summary and in-scope lines (every topic's when `topic` is None)."""
    chosen = [t for t in settings.topics if not topic or t.slug == topic]
    return " ".join(f"{t.title} {t.summary} {' '.join(t.in_scope)}" for t in chosen)
