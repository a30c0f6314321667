"""One client for every backend: an OpenAI-compatible server named in the config, or the
embedded one. Retries, routing, caching and the ledger all live on this single path."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import openai
from pydantic import BaseModel, ValidationError

from frontier.config import LLMSettings
from frontier.llm.backends import detect_backend, response_format, split_reasoning, thinking_params
from frontier.llm.embedded import EmbeddedServer, shared_embedded
from frontier.llm.ledger import cache_get, cache_key, cache_put, record_call
from frontier.llm.records import ChatResult, LLMFailure, Structured, Usage
from frontier.llm.router import Endpoint, Router

T = TypeVar("T", bound=BaseModel)
EMBEDDED = "embedded"
_BACKOFF_BASE_S, _BACKOFF_MAX_S = 0.5, 20.0


def configured_urls(settings: LLMSettings) -> list[str]:
    """Endpoints from the config, else the standard OPENAI_BASE_URL; empty means embedded."""
    first = settings.base_url or os.environ.get("OPENAI_BASE_URL", "")
    return [url.rstrip("/") for url in [first, *settings.endpoints] if url]


def _backoff(attempt: int) -> float:
    return min(_BACKOFF_MAX_S, _BACKOFF_BASE_S * 2**attempt) * (0.5 + random.random())


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return min(float(value), 120.0) if value is not None else None
    except ValueError:
        return None


class LLM:
    """Chat and structured calls through one code path; every call lands in the ledger."""

    def __init__(
        self,
        settings: LLMSettings,
        conn: sqlite3.Connection,
        *,
        run_id: int | None = None,
        command: str = "",
        use_cache: bool = True,
    ) -> None:
        self.settings = settings
        self.conn = conn
        self.run_id = run_id
        self.command = command
        self.use_cache = use_cache
        urls = configured_urls(settings)
        self.embedded: EmbeddedServer | None = None if urls else shared_embedded(settings)
        self.backend = EMBEDDED if self.embedded else detect_backend(urls[0], settings.backend)
        self.router = Router(urls or [EMBEDDED])
        self._clients: dict[str, openai.AsyncOpenAI] = {}
        self._model = settings.model or (self.embedded.model_name if self.embedded else "")
        self._model_lock = asyncio.Lock()

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients.clear()

    async def _client(self, endpoint: Endpoint) -> openai.AsyncOpenAI:
        url = endpoint.url
        if self.embedded is not None:
            # started from the main thread on purpose: the server dies with the thread that forked it
            url = self.embedded.ensure_running()
        client = self._clients.get(url)
        if client is None:
            client = openai.AsyncOpenAI(
                base_url=url,
                api_key=os.environ.get(self.settings.api_key_env) or "not-needed",
                max_retries=0,
                timeout=httpx.Timeout(self.settings.timeout, connect=10.0),
            )
            self._clients[url] = client
        return client

    async def model_name(self) -> str:
        """The configured model, or the first one the server lists."""
        async with self._model_lock:
            if not self._model:
                client = await self._client(self.router.pick())
                models = await client.models.list()
                self._model = models.data[0].id if models.data else "default"
        return self._model

    @property
    def context_size(self) -> int:
        """The context window to plan prompts for: the embedded model's, or the configured one."""
        if self.embedded is not None:
            return self.embedded.context_size
        return self.settings.context_size

    def endpoint_label(self) -> str:
        if self.embedded is not None:
            return (
                f"embedded {self.embedded.base_url if self.embedded.alive() else '(not started)'}"
            )
        return ", ".join(e.url for e in self.router.endpoints)

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        prompt_version: str = "",
        think: bool = False,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        schema: dict[str, Any] | None = None,
        schema_name: str = "answer",
        check: Callable[[str], object] | None = None,
    ) -> ChatResult:
        """One logical call. `check` validates the content before it is cached; a failing check
        is recorded as 'invalid' and raised as LLMFailure."""
        model = await self.model_name()
        sampling = {
            "max_tokens": max_tokens or self.settings.max_output_tokens,
            "temperature": temperature,
            "think": think,
        }
        key = cache_key(model, messages, schema, sampling, prompt_version)
        call_id, started = uuid.uuid4().hex, time.monotonic()
        if self.use_cache and (hit := cache_get(self.conn, key)) is not None:
            self._record(
                call_id,
                purpose,
                hit.endpoint,
                model,
                prompt_version,
                Usage(),
                True,
                0,
                started,
                "ok",
            )
            return hit
        try:
            result, attempts = await self._request(model, messages, sampling, schema, schema_name)
        except LLMFailure as failure:
            failure.purpose = purpose
            attempts = int(failure.details.get("attempts", 1))
            self._record(
                call_id,
                purpose,
                failure.details.get("endpoint", ""),
                model,
                prompt_version,
                Usage(),
                False,
                attempts,
                started,
                failure.kind,
                failure.message,
            )
            raise
        outcome, error = "ok", ""
        if check is not None:
            try:
                check(result.content)
            except (ValueError, ValidationError) as exc:
                outcome, error = "invalid", _short_error(exc)
        self._record(
            call_id,
            purpose,
            result.endpoint,
            model,
            prompt_version,
            result.usage,
            False,
            attempts,
            started,
            outcome,
            error,
        )
        if outcome != "ok":
            raise LLMFailure("invalid", error, purpose, raw=result.content)
        if self.use_cache:
            cache_put(self.conn, key, result, prompt_version)
        return result

    def _record(
        self,
        call_id: str,
        purpose: str,
        endpoint: str,
        model: str,
        prompt_version: str,
        usage: Usage,
        cache_hit: bool,
        attempts: int,
        started: float,
        outcome: str,
        error: str = "",
    ) -> None:
        record_call(
            self.conn,
            call_id=call_id,
            run_id=self.run_id,
            command=self.command,
            purpose=purpose,
            endpoint=endpoint,
            model=model,
            prompt_version=prompt_version,
            usage=usage,
            cache_hit=cache_hit,
            attempts=attempts,
            latency_ms=int((time.monotonic() - started) * 1000),
            outcome=outcome,
            error=error,
        )

    async def _request(
        self,
        model: str,
        messages: list[dict[str, Any]],
        sampling: dict[str, Any],
        schema: dict[str, Any] | None,
        schema_name: str,
    ) -> tuple[ChatResult, int]:
        extra = thinking_params(sampling["think"], self.backend, model, self.settings)
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "max_tokens": sampling["max_tokens"],
            "temperature": sampling["temperature"],
        }
        if schema is not None:
            kwargs["response_format"] = response_format(schema, schema_name, self.backend)
        kind, last = "error", "no attempt made"
        for attempt in range(self.settings.max_retries + 1):
            endpoint = self.router.pick()
            endpoint.in_flight += 1
            delay: float | None = None
            try:
                client = await self._client(endpoint)
                response = await client.chat.completions.create(**kwargs, extra_body=extra or None)
                self.router.succeeded(endpoint)
                return self._result(response, model, endpoint), attempt + 1
            except openai.APITimeoutError:
                kind, last = "timeout", f"no answer within {self.settings.timeout:g} s"
            except openai.APIConnectionError as exc:
                kind, last = "error", f"connection failed: {exc.__cause__ or exc}"
            except openai.RateLimitError as exc:
                kind, last, delay = "error", "HTTP 429 (rate limited)", _retry_after(exc)
            except openai.APIStatusError as exc:
                kind, last = "error", f"HTTP {exc.status_code}: {_short_error(exc)}"
                if exc.status_code < 500 and exc.status_code not in (408, 409):
                    raise LLMFailure(
                        kind, last, details={"attempts": attempt + 1, "endpoint": endpoint.url}
                    ) from exc
                delay = _retry_after(exc)
            except (openai.APIError, ValueError, KeyError, IndexError, TypeError) as exc:
                kind, last = "error", f"unreadable answer: {_short_error(exc)}"
            finally:
                endpoint.in_flight -= 1
            self.router.failed(endpoint)
            if attempt < self.settings.max_retries:
                await asyncio.sleep(delay if delay is not None else _backoff(attempt))
        raise LLMFailure(kind, last, details={"attempts": self.settings.max_retries + 1})

    def _result(self, response: Any, model: str, endpoint: Endpoint) -> ChatResult:
        choice = response.choices[0]
        content, reasoning = split_reasoning(choice.message)
        usage = response.usage
        details = getattr(usage, "completion_tokens_details", None)
        prompt_details = getattr(usage, "prompt_tokens_details", None)
        reasoning_tokens = getattr(details, "reasoning_tokens", None) or (
            len(reasoning) // 4 if reasoning else 0
        )
        return ChatResult(
            content=content,
            reasoning=reasoning,
            usage=Usage(
                prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                reasoning_tokens=reasoning_tokens,
                cached_tokens=getattr(prompt_details, "cached_tokens", 0) or 0,
            ),
            model=getattr(response, "model", model) or model,
            endpoint=self.endpoint_label() if self.embedded else endpoint.url,
            finish_reason=choice.finish_reason or "",
        )

    async def structured(
        self,
        schema: type[T],
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        prompt_version: str = "",
        think: bool = False,
        max_tokens: int | None = None,
    ) -> Structured[T]:
        """A reply parsed into `schema`; one repair attempt quoting the validation error, then
        a typed LLMFailure."""
        json_schema = schema.model_json_schema()

        def parse(content: str) -> T:
            # strict=False: small models put raw newlines inside strings; the meaning is intact
            return schema.model_validate(json.loads(_json_part(content), strict=False))

        common = {
            "purpose": purpose,
            "prompt_version": prompt_version,
            "think": think,
            "max_tokens": max_tokens,
            "schema": json_schema,
            "schema_name": schema.__name__,
            "check": parse,
        }
        try:
            result = await self.chat(messages, **common)  # type: ignore[arg-type]
        except LLMFailure as failure:
            if failure.kind != "invalid":
                raise
            repair = [
                *messages,
                {"role": "assistant", "content": failure.raw},
                {"role": "user", "content": _repair_request(failure.message)},
            ]
            common["purpose"] = f"{purpose}:repair"
            try:
                result = await self.chat(repair, **common)  # type: ignore[arg-type]
            except LLMFailure as second:
                second.purpose = purpose
                raise
        return Structured(parse(result.content), result)


def _json_part(content: str) -> str:
    """The JSON object in a reply, tolerating a fenced code block around it."""
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[text.find("{") :] if "{" in text else text
    return text


def _repair_request(error: str) -> str:
    return (
        "Your previous reply could not be used: " + error + ". Reply again with only a JSON "
        "object that satisfies the schema, with no text around it."
    )


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        return f"{exc.error_count()} validation error(s), first at '{where}': {first['msg']}"
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON ({exc.msg} at char {exc.pos})"
    return " ".join(str(exc).split())[:300]
