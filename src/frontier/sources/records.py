"""What the readers need around `frontier.model.SourceRecord`, the one shape every source
yields: text found by heuristics made storable, text made fit for a message, and a failed check
turned into one line naming the file, the record and the field (`describe_invalid`)."""

from __future__ import annotations

from pydantic import ValidationError

from frontier.errors import bad_character, kind_of


def sanitize(text: str | None, limit: int) -> str | None:
    """Text read by heuristics (a PDF's first page, a page's metadata) made storable: bad
    characters dropped, whitespace collapsed, cut at `limit`; None when nothing is left."""
    if text is None:
        return None
    kept = "".join(" " if bad_character(char) else char for char in text)
    cleaned = " ".join(kept.split())[:limit].strip()
    return cleaned or None


def printable(text: str) -> str:
    """Text fit for a one-line message: control characters escaped, and bytes that were not
    UTF-8 (file names keep them as surrogates) shown as \\xNN."""
    return "".join(_printable_char(char) for char in text)


def _printable_char(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return char if char.isprintable() and not bad_character(char) else ascii(char)[1:-1]


def drop_bad_characters(text: str) -> str:
    """Extracted running text made storable: characters no source should hold are dropped,
    line breaks kept."""
    if bad_character(text) is None:
        return text
    return "".join(char for char in text if bad_character(char) is None)


class RecordError(Exception):
    """One record that cannot be read; the message names the file, the record and the field."""

    def __init__(self, ref: str, reason: str) -> None:
        super().__init__(f"{ref}: {reason}")
        self.ref = ref
        self.reason = reason


def field_name(loc: tuple[int | str, ...], names: dict[str, str] | None = None) -> str:
    """`authors[2]` for ('authors', 2); a field is called by the name its source gave it."""
    head, *rest = loc or ("record",)
    name = (names or {}).get(str(head), str(head))
    return name + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in rest)


def describe_invalid(exc: ValidationError, names: dict[str, str] | None = None) -> str:
    """The first failed check as `field: reason`, in words a user acts on."""
    error = exc.errors(include_url=False)[0]
    message = str(error["msg"]).removeprefix("Value error, ")
    kind = error["type"]
    if kind.endswith("_type") or kind == "date_from_datetime_inexact":
        message = f"expected {_EXPECTED.get(kind, kind.removesuffix('_type'))}, got {kind_of(error['input'])}"
    elif kind == "too_long":
        message = f"more than {error.get('ctx', {}).get('max_length', '?')} items"
    name = field_name(tuple(error["loc"]), names)
    return f"{name}{message}" if message.startswith("[") else f"{name}: {message}"


_EXPECTED = {"string_type": "text", "list_type": "a list", "int_type": "a whole number"}
