"""A stand-in remote model for fault tests: it answers every request with a reply that is a pure
function of the request (valid JSON for the requested schema, or a short cited sentence), so two
runs of the same pipeline get the same answers and their KBs can be compared exactly."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fake_openai import Reply

_WORDS = "deterministic stand-in answer written for this request about serving systems"


def _seed(request: dict[str, Any]) -> int:
    text = json.dumps(request.get("messages", []), sort_keys=True)
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = root.get("$defs", {}).get(name, {})
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"]
        schema = options[0] if options else schema["anyOf"][0]
    return schema


def instance(schema: dict[str, Any], root: dict[str, Any], seed: int) -> Any:
    """A value that satisfies `schema` (the subset pydantic emits), chosen by `seed`."""
    schema = _resolve(schema, root)
    if "enum" in schema:
        return schema["enum"][seed % len(schema["enum"])]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type", "string")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: instance(v, root, seed + i) for i, (k, v) in enumerate(props.items())}
    if kind == "array":
        count = max(schema.get("minItems", 0), min(1, schema.get("maxItems", 1)))
        return [instance(schema.get("items", {}), root, seed + i) for i in range(count)]
    if kind == "boolean":
        return seed % 2 == 0
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 1))
        value = low + (high - low) * ((seed % 7) / 10 + 0.2)
        return int(value) if kind == "integer" else round(value, 3)
    text = f"{_WORDS} [1]" if seed % 3 == 0 else _WORDS
    return text[: schema.get("maxLength", len(text))]


def answer(request: dict[str, Any]) -> Reply:
    seed = _seed(request)
    fmt = request.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema")
    if schema:
        return Reply(content=json.dumps(instance(schema, schema, seed)))
    return Reply(content="Paged memory keeps the KV cache in fixed-size blocks [1].")
