"""The per-backend table, the prompt files and the GGUF reader: plain functions, real inputs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from frontier.config import LLMSettings, ModelThinking
from frontier.llm.backends import detect_backend, response_format, split_reasoning, thinking_params
from frontier.llm.embedded import packaged_model
from frontier.llm.gguf import GGUFError, read_gguf_info
from frontier.llm.prompts import PromptError, load_prompt

SCHEMA = {"type": "object", "properties": {"a": {"type": "string", "maxLength": 5}}}


def test_json_schema_dialects() -> None:
    assert response_format(SCHEMA, "X", "llamacpp") == {"type": "json_object", "schema": SCHEMA}
    assert response_format(SCHEMA, "X", "embedded")["type"] == "json_object"
    for backend in ("sglang", "vllm", "ollama", "openai"):
        fmt = response_format(SCHEMA, "X", backend)
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"] == SCHEMA


def test_thinking_switch_per_backend_and_model() -> None:
    settings = LLMSettings(thinking={"deepseek-v4": ModelThinking(template_key="thinking")})
    assert thinking_params(True, "sglang", "deepseek-v4", settings) == {
        "chat_template_kwargs": {"thinking": True}
    }
    assert thinking_params(False, "vllm", "qwen3", settings) == {
        "chat_template_kwargs": {"enable_thinking": False}
    }
    assert thinking_params(True, "ollama", "m", settings) == {"think": True}
    assert thinking_params(True, "openai", "m", settings) == {"reasoning_effort": "high"}
    assert thinking_params(False, "openai", "m", settings) == {}
    assert thinking_params(True, "embedded", "m", settings) == {}


def test_backend_guess_from_url() -> None:
    assert detect_backend("http://gpu:30000/v1", "auto") == "sglang"
    assert detect_backend("http://localhost:11434/v1", "auto") == "ollama"
    assert detect_backend("https://api.openai.com/v1", "auto") == "openai"
    assert detect_backend("http://x:30000/v1", "vllm") == "vllm"


def test_reasoning_fields_and_tags() -> None:
    field = SimpleNamespace(content="Answer.", reasoning_content="Because.", model_extra={})
    assert split_reasoning(field) == ("Answer.", "Because.")
    tagged = SimpleNamespace(content="<think>a\nb</think>\nFinal", model_extra={})
    assert split_reasoning(tagged) == ("Final", "a\nb")


def test_prompt_files_have_versions() -> None:
    prompt = load_prompt("ask")
    assert prompt.tag.startswith("ask@")
    messages = prompt.messages(field="F", question="Q?")
    assert messages[0]["role"] == "system" and messages[-1]["content"] == "Q?"
    with pytest.raises(PromptError):
        prompt.messages(field="F")
    with pytest.raises(PromptError):
        load_prompt("no-such-prompt")


def test_gguf_header_of_the_packaged_model(tmp_path) -> None:
    info = read_gguf_info(packaged_model())
    assert info.context_length == 8192 and info.has_chat_template and info.architecture == "llama"
    bogus = tmp_path / "x.gguf"
    bogus.write_bytes(b"NOPE")
    with pytest.raises(GGUFError):
        read_gguf_info(bogus)
