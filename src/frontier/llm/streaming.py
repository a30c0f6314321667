"""A streamed chat completion put together chunk by chunk: the answer text shown so far, the
reasoning kept apart, and the usage the server reports at the end."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from frontier.extract.chunk import estimate_tokens
from frontier.llm.backends import split_reasoning
from frontier.llm.records import ChatResult, Usage

_OPEN, _CLOSE = "<think>", "</think>"


def read_usage(usage: Any, reasoning: str) -> Usage:
    """Usage as the server reports it; reasoning tokens estimated when it does not count them."""
    details = getattr(usage, "completion_tokens_details", None)
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    reasoning_tokens = getattr(details, "reasoning_tokens", None) or (
        len(reasoning) // 4 if reasoning else 0
    )
    return Usage(
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        reasoning_tokens=reasoning_tokens,
        cached_tokens=getattr(prompt_details, "cached_tokens", 0) or 0,
    )


def answer_so_far(content: str) -> str:
    """The answer part of streamed content: closed <think> blocks and an open one left out."""
    shown, rest = "", content
    while _OPEN in rest:
        before, _, after = rest.partition(_OPEN)
        shown += before
        if _CLOSE not in after:
            return shown
        rest = after.partition(_CLOSE)[2]
    return shown + rest


class StreamedReply:
    """Chunks of one streamed completion; `add` returns the answer text each one adds."""

    def __init__(self) -> None:
        self.content = ""
        self.reasoning = ""
        self.shown = ""
        self.model = ""
        self.finish_reason = ""
        self.usage: Any = None
        self.chunks = 0

    def add(self, chunk: Any) -> str:
        self.model = getattr(chunk, "model", "") or self.model
        self.usage = getattr(chunk, "usage", None) or self.usage
        for choice in (getattr(chunk, "choices", None) or [])[:1]:
            delta = choice.delta
            extra = getattr(delta, "model_extra", None) or {}
            self.content += getattr(delta, "content", None) or ""
            self.reasoning += (
                getattr(delta, "reasoning_content", None)
                or extra.get("reasoning_content")
                or extra.get("reasoning")
                or ""
            )
            self.finish_reason = choice.finish_reason or self.finish_reason
            self.chunks += 1
        visible = answer_so_far(self.content)
        if len(visible) <= len(self.shown) or not visible.startswith(self.shown):
            return ""
        added, self.shown = visible[len(self.shown) :], visible
        return added

    def result(self, model: str, endpoint: str, prompt_text: str) -> ChatResult:
        content, reasoning = split_reasoning(
            SimpleNamespace(content=self.content, reasoning_content=self.reasoning)
        )
        usage = read_usage(self.usage, reasoning)
        if self.usage is None:
            # some servers (llama-cpp-python's) report no usage on a stream: one chunk is one token there
            usage.completion_tokens = self.chunks
            usage.prompt_tokens = estimate_tokens(prompt_text)
        return ChatResult(
            content=content,
            reasoning=reasoning,
            usage=usage,
            model=self.model or model,
            endpoint=endpoint,
            finish_reason=self.finish_reason,
        )
