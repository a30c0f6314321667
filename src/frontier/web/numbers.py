"""Numbers in paths, query strings and headers, read one way: ASCII digits of bounded length. A
bad one in a path is a 404, in a query string a 400; never an error of the server."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.exceptions import HTTPException

from frontier.web.base import NotFound

# every number up to this many digits is below 2**63: SQLite holds it as a row id
MAX_DIGITS = 18
SHOWN_CHARS = 40  # of a bad value, in the message that names it


def number(text: str) -> int | None:
    """The number `text` spells in ASCII digits, else None: other digits ('²', '٣'), signs,
    spaces, exponents and anything longer than MAX_DIGITS are no number here."""
    if 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit():
        return int(text)
    return None


def path_number(text: str, what: str) -> int:
    """A number from a path; a path holding anything else names no page (404)."""
    found = number(text)
    if found is None:
        raise NotFound(f"No {what} '{text[:SHOWN_CHARS]}'.")
    return found


def query_number(params: Mapping[str, str], key: str) -> int | None:
    """An optional number from the query string (absent or empty: None); anything else is 400."""
    text = params.get(key, "")
    if not text:
        return None
    found = number(text)
    if found is None:
        raise HTTPException(400, f"'{key}' must be a whole number, not '{text[:SHOWN_CHARS]}'.")
    return found
