"""What every page's view deals in: the View it renders and NotFound, the 404 it raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class NotFound(Exception):
    """A page that does not exist; the message is the one line the 404 page shows."""


@dataclass
class View:
    template: str
    title: str
    data: dict[str, Any] = field(default_factory=dict)
