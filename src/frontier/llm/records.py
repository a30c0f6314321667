"""What a call returns and what the ledger and cache keep."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.reasoning_tokens += other.reasoning_tokens
        self.cached_tokens += other.cached_tokens


@dataclass
class ChatResult:
    content: str
    reasoning: str
    usage: Usage
    model: str
    endpoint: str
    cached: bool = False
    finish_reason: str = ""


@dataclass
class Structured(Generic[T]):
    value: T
    result: ChatResult


@dataclass
class LLMFailure(Exception):
    """A call that ended without a usable answer; callers record it, nothing crashes."""

    kind: str  # invalid | timeout | error | cancelled
    message: str
    purpose: str = ""
    raw: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.purpose or 'llm'} call failed ({self.kind}): {self.message}"
