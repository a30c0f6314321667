"""Read the metadata header of a GGUF model file (name, context length, chat template)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

_MAGIC = b"GGUF"
# value type ids of the GGUF format, with struct codes for the fixed-size ones
_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9


class GGUFError(Exception):
    """The file is not a readable GGUF model."""


@dataclass
class GGUFInfo:
    path: Path
    name: str
    architecture: str
    context_length: int | None
    has_chat_template: bool


def _read(handle: BinaryIO, fmt: str) -> object:
    size = struct.calcsize(fmt)
    data = handle.read(size)
    if len(data) != size:
        raise GGUFError("file ends inside its header")
    return struct.unpack(fmt, data)[0]


def _integer(handle: BinaryIO, fmt: str) -> int:
    """A length, count or type id: read with an unsigned integer code."""
    value = _read(handle, fmt)
    if not isinstance(value, int):
        raise GGUFError(f"expected an integer ({fmt}) in the header")
    return value


def _string(handle: BinaryIO) -> str:
    length = _integer(handle, "<Q")
    return handle.read(length).decode("utf-8", errors="replace")


def _skip_strings(handle: BinaryIO, count: int) -> None:
    """Pass over `count` strings without decoding them (a vocabulary holds some 50,000)."""
    for _ in range(count):
        handle.seek(_integer(handle, "<Q"), 1)


def _value(handle: BinaryIO, kind: int, keep: bool) -> object:
    if kind in _SCALARS:
        return _read(handle, _SCALARS[kind])
    if kind == _STRING:
        return _string(handle)
    if kind == _ARRAY:
        item_kind = _integer(handle, "<I")
        count = _integer(handle, "<Q")
        if item_kind in _SCALARS and not keep:
            handle.seek(struct.calcsize(_SCALARS[item_kind]) * count, 1)
            return None
        if item_kind == _STRING and not keep:
            _skip_strings(handle, count)
            return None
        return [_value(handle, item_kind, keep) for _ in range(count)]
    raise GGUFError(f"unknown metadata value type {kind}")


def read_gguf_info(path: Path) -> GGUFInfo:
    """Scan the key-value header only; tensors are never read."""
    try:
        with path.open("rb") as handle:
            if handle.read(4) != _MAGIC:
                raise GGUFError(f"{path}: not a GGUF file")
            _read(handle, "<I")  # version
            _read(handle, "<Q")  # tensor count
            count = _integer(handle, "<Q")
            meta: dict[str, object] = {}
            for _ in range(count):
                key = _string(handle)
                kind = _integer(handle, "<I")
                meta[key] = _value(handle, kind, keep=not key.startswith("tokenizer.ggml."))
    except OSError as exc:
        raise GGUFError(f"{path}: cannot read ({exc.strerror})") from exc
    arch = str(meta.get("general.architecture", ""))
    context = meta.get(f"{arch}.context_length")
    return GGUFInfo(
        path=path,
        name=str(meta.get("general.name", path.stem)),
        architecture=arch,
        context_length=int(context) if isinstance(context, int) else None,
        has_chat_template="tokenizer.chat_template" in meta,
    )
