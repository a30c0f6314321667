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
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

import httpx
from pydantic import BaseModel, ValidationError

from frontier.config import LLMSettings
from frontier.llm.backends import (
    EMBEDDED,
    chosen_backend,
    response_format,
    split_reasoning,
    thinking_params,
)
from frontier.llm.deadline import cancel_reason
from frontier.llm.embedded import EmbeddedServer
from frontier.llm.ledger import cache_get, cache_key, cache_put, record_call
from frontier.llm.records import ChatResult, LLMFailure, Structured, Usage
from frontier.llm.router import Endpoint, shared_router
from frontier.llm.streaming import StreamedReply, read_usage

if TYPE_CHECKING:
    # imported where a request is made: the package takes about half a second to import, which
    # every command that calls no model (status, search, the web pages) would pay otherwise
    import openai

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")
_BACKOFF_BASE_S, _BACKOFF_MAX_S = 0.5, 20.0


def configured_urls(settings: LLMSettings) -> list[str]:
    """Endpoints from the config, else the standard OPENAI_BASE_URL; empty means embedded."""
    first = settings.base_url or os.environ.get("OPENAI_BASE_URL", "")
    return [url.rstrip("/") for url in [first, *settings.endpoints] if url]


def _backoff(attempt: int) -> float:
    return min(_BACKOFF_MAX_S, _BACKOFF_BASE_S * 2.0**attempt) * (0.5 + random.random())


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return min(float(value), 120.0) if value is not None else None
    except ValueError:
        return None


class Sampling(TypedDict, total=False):
    """How a call samples: `max_tokens` (default: the configured most), `temperature` (0.0)
    and `think`, the model's reasoning (off)."""

    max_tokens: int | None
    temperature: float
    think: bool


@dataclass
class _Call:
    """One logical call as the ledger records it, and the request it caches under."""

    purpose: str
    model: str
    prompt_version: str
    sampling: dict[str, Any]
    key: str  # the cache key: model, messages, schema, sampling and prompt version
    call_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    started: float = field(default_factory=time.monotonic)


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
        kind = chosen_backend(urls, settings)
        self.backend = kind.name
        # only when no endpoint is configured: a configured one is served already
        self.embedded: EmbeddedServer | None = (
            kind.own_server(settings) if kind.own_server and not urls else None
        )
        self.router = shared_router(urls or [EMBEDDED])
        self._clients: dict[str, openai.AsyncOpenAI] = {}
        self._model = settings.model or (self.embedded.model_name if self.embedded else "")
        self._model_lock = asyncio.Lock()

    async def __aenter__(self) -> LLM:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP clients; `async with LLM(...) as llm:` does this on the way out."""
        for client in self._clients.values():
            await client.close()
        self._clients.clear()

    async def _client(self, endpoint: Endpoint) -> openai.AsyncOpenAI:
        import openai

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
        schema: dict[str, Any] | None = None,
        schema_name: str = "answer",
        check: Callable[[str], object] | None = None,
        **sampling: Unpack[Sampling],
    ) -> ChatResult:
        """One logical call. `check` validates the content before it is cached; a failing check
        is recorded as 'invalid' and raised as LLMFailure."""
        call, hit = await self._prepare(
            messages, schema, purpose, prompt_version, self._sampling(sampling)
        )
        if hit is not None:
            return hit
        try:
            kwargs = self._kwargs(call.model, messages, call.sampling, schema, schema_name)
            result, attempts = await self._send(
                kwargs, lambda response, e: self._result(response, call.model, e)
            )
        except LLMFailure as failure:
            self._record_failure(call, failure)
            raise
        except asyncio.CancelledError:
            self._record_failure(call, LLMFailure("cancelled", cancel_reason()))
            raise
        self._finish(call, result, attempts, _failed_check(check, result.content))
        return result

    async def chat_stream(
        self,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        prompt_version: str = "",
        **sampling: Unpack[Sampling],
    ) -> AsyncIterator[str | ChatResult]:
        """`chat` streamed: the answer's text as the model writes it, then the ChatResult,
        recorded and cached as `chat` records and caches it. A cached answer comes at once."""
        import openai

        call, hit = await self._prepare(
            messages, None, purpose, prompt_version, self._sampling(sampling)
        )
        if hit is not None:
            yield hit.content
            yield hit
            return
        reply, attempts, endpoint = StreamedReply(), 0, ""
        try:
            kwargs = self._kwargs(call.model, messages, call.sampling, None, "")
            kwargs |= {"stream": True, "stream_options": {"include_usage": True}}
            (stream, endpoint), attempts = await self._send(kwargs, lambda r, e: (r, e.url))
            try:
                async for chunk in stream:
                    if added := reply.add(chunk):
                        yield added
            except (openai.APIError, httpx.HTTPError) as exc:
                raise LLMFailure(
                    "error",
                    f"the stream broke off: {_short_error(exc)}",
                    details={"attempts": attempts, "endpoint": endpoint},
                ) from exc
            finally:
                await stream.close()
        except LLMFailure as failure:
            self._record_failure(call, failure)
            raise
        except (asyncio.CancelledError, GeneratorExit):
            gone = LLMFailure("cancelled", cancel_reason(), details={"attempts": attempts})
            self._record_failure(call, gone)
            raise
        label = self.endpoint_label() if self.embedded else endpoint
        result = reply.result(call.model, label, json.dumps(messages, ensure_ascii=False))
        self._finish(call, result, attempts)
        yield result

    def _sampling(self, sampling: Sampling) -> dict[str, Any]:
        """The call's sampling with every default filled in, as the cache key holds it."""
        return {
            "max_tokens": sampling.get("max_tokens") or self.settings.max_output_tokens,
            "temperature": sampling.get("temperature", 0.0),
            "think": sampling.get("think", False),
        }

    async def _prepare(
        self,
        messages: list[dict[str, Any]],
        schema: dict[str, Any] | None,
        purpose: str,
        prompt_version: str,
        sampling: dict[str, Any],
    ) -> tuple[_Call, ChatResult | None]:
        """The call as the ledger will record it, and the cached answer when there is one (that
        cache hit is recorded here). Streamed or not, the same request gives the same key."""
        model = await self.model_name()
        key = cache_key(model, messages, schema, sampling, prompt_version)
        call = _Call(purpose, model, prompt_version, sampling, key)
        hit = cache_get(self.conn, key) if self.use_cache else None
        if hit is not None:
            self._record(call, hit.endpoint, Usage(), cache_hit=True)
        return call, hit

    def _finish(
        self, call: _Call, result: ChatResult, attempts: int, invalid: str | None = None
    ) -> None:
        """Record the answered call, then cache the answer; one that failed its check (`invalid`
        says why) is raised as LLMFailure instead, and not cached."""
        outcome, error = ("ok", "") if invalid is None else ("invalid", invalid)
        self._record(
            call, result.endpoint, result.usage, attempts=attempts, outcome=outcome, error=error
        )
        if invalid is not None:
            cut_off = result.finish_reason == "length"
            raise LLMFailure(
                "invalid", invalid, call.purpose, raw=result.content, details={"cut_off": cut_off}
            )
        if self.use_cache:
            cache_put(self.conn, call.key, result, call.prompt_version)

    def _record_failure(self, call: _Call, failure: LLMFailure) -> None:
        failure.purpose = call.purpose
        attempts = int(failure.details.get("attempts", 1))
        endpoint = failure.details.get("endpoint", "")
        self._record(
            call, endpoint, Usage(), attempts=attempts, outcome=failure.kind, error=failure.message
        )

    def _record(
        self,
        call: _Call,
        endpoint: str,
        usage: Usage,
        *,
        cache_hit: bool = False,
        attempts: int = 0,
        outcome: str = "ok",
        error: str = "",
    ) -> None:
        record_call(
            self.conn,
            call_id=call.call_id,
            run_id=self.run_id,
            command=self.command,
            purpose=call.purpose,
            endpoint=endpoint,
            model=call.model,
            prompt_version=call.prompt_version,
            usage=usage,
            cache_hit=cache_hit,
            attempts=attempts,
            latency_ms=int((time.monotonic() - call.started) * 1000),
            outcome=outcome,
            error=error,
        )

    def _kwargs(
        self,
        model: str,
        messages: list[dict[str, Any]],
        sampling: dict[str, Any],
        schema: dict[str, Any] | None,
        schema_name: str,
    ) -> dict[str, Any]:
        extra = thinking_params(sampling["think"], self.backend, model, self.settings)
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "max_tokens": sampling["max_tokens"],
            "temperature": sampling["temperature"],
            "extra_body": extra or None,
        }
        if schema is not None:
            kwargs["response_format"] = response_format(schema, schema_name, self.backend)
        return kwargs

    async def _send(
        self, kwargs: dict[str, Any], read: Callable[[Any, Endpoint], R]
    ) -> tuple[R, int]:
        """The request with retries and routing; `read` turns the response into what is
        returned (a failure to read it is retried like a failed request)."""
        import openai

        kind, last = "error", "no attempt made"
        for attempt in range(self.settings.max_retries + 1):
            endpoint = self.router.pick()
            endpoint.in_flight += 1
            delay: float | None = None
            try:
                client = await self._client(endpoint)
                response = await client.chat.completions.create(**kwargs)
                self.router.succeeded(endpoint)
                return read(response, endpoint), attempt + 1
            except openai.APITimeoutError as exc:
                kind, last = "timeout", f"no answer within {self.settings.timeout:g} s"
                if self.embedded is not None:
                    # llama-server may still be writing the reply the client gave up on: sent
                    # again, the request would wait behind it and the answer take twice as long
                    raise LLMFailure(
                        kind, last, details={"attempts": attempt + 1, "endpoint": endpoint.url}
                    ) from exc
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
        return ChatResult(
            content=content,
            reasoning=reasoning,
            usage=read_usage(response.usage, reasoning),
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
        """A reply parsed into `schema`; one repair attempt quoting the validation error (not
        for a reply cut off at `max_tokens`), then a typed LLMFailure."""
        json_schema = schema.model_json_schema()

        def parse(content: str) -> T:
            # strict=False: small models put raw newlines inside strings; the meaning is intact
            return schema.model_validate(json.loads(_json_part(content), strict=False))

        async def ask(conversation: list[dict[str, Any]], label: str) -> ChatResult:
            return await self.chat(
                conversation,
                purpose=label,
                prompt_version=prompt_version,
                think=think,
                max_tokens=max_tokens,
                schema=json_schema,
                schema_name=schema.__name__,
                check=parse,
            )

        try:
            result = await ask(messages, purpose)
        except LLMFailure as failure:
            # a reply cut off at max_tokens is not repaired: asked again under the same bound,
            # the model that ran to it runs to it again, over a prompt twice as long
            if failure.kind != "invalid" or failure.details.get("cut_off"):
                raise
            repair = [
                *messages,
                {"role": "assistant", "content": failure.raw},
                {"role": "user", "content": _repair_request(failure.message)},
            ]
            try:
                result = await ask(repair, f"{purpose}:repair")
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


def _failed_check(check: Callable[[str], object] | None, content: str) -> str | None:
    """Why `check` rejects the content, or None when it passes (or there is no check)."""
    if check is None:
        return None
    try:
        check(content)
    except (ValueError, ValidationError) as exc:
        return _short_error(exc)
    return None


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        return f"{exc.error_count()} validation error(s), first at '{where}': {first['msg']}"
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON ({exc.msg} at char {exc.pos})"
    return " ".join(str(exc).split())[:300]
