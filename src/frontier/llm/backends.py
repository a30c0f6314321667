"""The small table of what differs between OpenAI-compatible servers: JSON-schema dialect,
how thinking is switched on, and where reasoning text comes back."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from frontier.config import LLMSettings, ModelThinking

_THINK_TAGS = re.compile(r"<think>(.*?)</think>\s*", re.DOTALL)


def detect_backend(url: str, configured: str) -> str:
    """The configured backend, or a guess from the URL's host and port."""
    if configured != "auto":
        return configured
    parts = urlsplit(url)
    if parts.hostname and parts.hostname.endswith("openai.com"):
        return "openai"
    return {30000: "sglang", 8000: "vllm", 11434: "ollama", 8080: "llamacpp"}.get(
        parts.port or 0, "vllm"
    )


def response_format(schema: dict[str, Any], name: str, backend: str) -> dict[str, Any]:
    """llama.cpp's servers read a schema from json_object (llama-server takes json_schema too,
    llama-cpp-python's server ignores it); the others (SGLang, vLLM, Ollama, OpenAI) take
    json_schema."""
    if backend in ("embedded", "llamacpp"):
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}


def thinking_params(think: bool, backend: str, model: str, settings: LLMSettings) -> dict[str, Any]:
    """Request fields that switch reasoning on or off for this backend and model."""
    style = settings.thinking.get(model, ModelThinking())
    if backend in ("sglang", "vllm"):
        return {"chat_template_kwargs": {style.template_key: think}}
    if backend == "ollama":
        return {"think": think}
    if backend == "openai":
        return {"reasoning_effort": style.effort} if think else {}
    return {}


def split_reasoning(message: Any) -> tuple[str, str]:
    """(answer, reasoning): servers return reasoning in a field of its own or inside <think>."""
    content = getattr(message, "content", None) or ""
    extra = getattr(message, "model_extra", None) or {}
    reasoning = (
        getattr(message, "reasoning_content", None)
        or extra.get("reasoning_content")
        or extra.get("reasoning")
        or ""
    )
    tagged = _THINK_TAGS.findall(content)
    if tagged:
        reasoning = "\n".join([reasoning, *tagged]).strip()
        content = _THINK_TAGS.sub("", content)
    return content.strip(), reasoning.strip()
