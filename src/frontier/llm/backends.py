"""The kinds of server the client talks to, one row of BACKENDS each: how a client reaches it
(an endpoint of the config, or the embedded server frontier starts), its JSON-schema dialect, how
thinking is switched on, and the settings only it reads. Where reasoning text comes back is the
same for all. A new backend is a row here and its name in `config.Backend`."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from frontier.config import LLMSettings, ModelThinking
from frontier.llm.embedded import EmbeddedServer, shared_embedded

_THINK_TAGS = re.compile(r"<think>(.*?)</think>\s*", re.DOTALL)
EMBEDDED = "embedded"
GUESSED = "vllm"  # the backend of a URL that names none by its host or port


def _json_object(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return {"type": "json_object", "schema": schema}


def _json_schema(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}


def _no_switch(think: bool, style: ModelThinking) -> dict[str, Any]:
    return {}


def _chat_template(think: bool, style: ModelThinking) -> dict[str, Any]:
    return {"chat_template_kwargs": {style.template_key: think}}


def _ollama_think(think: bool, style: ModelThinking) -> dict[str, Any]:
    return {"think": think}


def _reasoning_effort(think: bool, style: ModelThinking) -> dict[str, Any]:
    return {"reasoning_effort": style.effort} if think else {}


@dataclass(frozen=True)
class BackendKind:
    """One kind of OpenAI-compatible server."""

    name: str  # as `llm.backend` names it
    # the response_format a schema is sent in, from the schema and its name
    schema_format: Callable[[dict[str, Any], str], dict[str, Any]]
    # the request fields that switch reasoning on or off, by the model's thinking style
    thinking: Callable[[bool, ModelThinking], dict[str, Any]]
    settings: tuple[str, ...] = ()  # the keys of [llm] it reads that not every backend reads
    port: int | None = None  # its servers' usual port, by which `auto` knows it
    host: str = ""  # the domain of its hosted API, by which `auto` knows it
    # the server frontier runs itself (started on first use) when no endpoint is configured
    own_server: Callable[[LLMSettings], EmbeddedServer] | None = None


# llama.cpp's servers read a schema from json_object (llama-server takes json_schema too,
# llama-cpp-python's server ignores it); the others take json_schema
BACKENDS: dict[str, BackendKind] = {
    kind.name: kind
    for kind in (
        BackendKind(
            EMBEDDED,
            _json_object,
            _no_switch,
            settings=("gguf", "embedded_threads", "embedded_batch_threads", "embedded_server"),
            own_server=shared_embedded,
        ),
        BackendKind("llamacpp", _json_object, _no_switch, port=8080),
        BackendKind("sglang", _json_schema, _chat_template, settings=("thinking",), port=30000),
        BackendKind("vllm", _json_schema, _chat_template, settings=("thinking",), port=8000),
        BackendKind("ollama", _json_schema, _ollama_think, port=11434),
        BackendKind(
            "openai", _json_schema, _reasoning_effort, settings=("thinking",), host="openai.com"
        ),
    )
}


def detect_backend(url: str, configured: str) -> str:
    """The configured backend, or a guess from the URL's host and port."""
    if configured != "auto":
        return configured
    parts = urlsplit(url)
    for kind in BACKENDS.values():
        if kind.host and parts.hostname and parts.hostname.endswith(kind.host):
            return kind.name
    by_port = {kind.port: kind.name for kind in BACKENDS.values() if kind.port}
    return by_port.get(parts.port or 0, GUESSED)


def chosen_backend(urls: list[str], settings: LLMSettings) -> BackendKind:
    """The backend of the configured endpoints; without any, the embedded server."""
    return BACKENDS[detect_backend(urls[0], settings.backend) if urls else EMBEDDED]


def response_format(schema: dict[str, Any], name: str, backend: str) -> dict[str, Any]:
    """The response_format that asks this backend for a reply fitting `schema`."""
    return BACKENDS[backend].schema_format(schema, name)


def thinking_params(think: bool, backend: str, model: str, settings: LLMSettings) -> dict[str, Any]:
    """Request fields that switch reasoning on or off for this backend and model."""
    return BACKENDS[backend].thinking(think, settings.thinking.get(model, ModelThinking()))


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
