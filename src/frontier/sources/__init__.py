"""Where papers come from: arXiv, local files and web pages, all yielding `SourceRecord`s."""

from frontier.model import SourceRecord

__all__ = ["SourceRecord"]
