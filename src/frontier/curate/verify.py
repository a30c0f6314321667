"""Claim verification in code: the quote must be on its page, and the value in the quote."""

from __future__ import annotations

import unicodedata

from frontier.curate.support import plain_math
from frontier.text import find_numbers, fold_print


def normalize(text: str) -> str:
    """Fold what PDF text varies in: ligatures, soft hyphens, line-break hyphens, spacing, case;
    and the inline TeX of abstracts ("$2.72\\times$" is "2.72×")."""
    return fold_print(plain_math(text))


def quote_on_page(quote: str, page_text: str) -> bool:
    needle = normalize(quote)
    return bool(needle) and needle in normalize(page_text)


def _canonical_number(text: str) -> str:
    return text.replace(",", "").rstrip("0").rstrip(".") if "." in text else text.replace(",", "")


def value_in_quote(value_text: str, quote: str) -> bool:
    """The claimed number appears in the quote as a number (2.5 matches '2.5×', not '12.5')."""
    wanted = [_canonical_number(n) for n in find_numbers(value_text)]
    present = {_canonical_number(n) for n in find_numbers(unicodedata.normalize("NFKC", quote))}
    return bool(wanted) and all(number in present for number in wanted)


def verify_claim(quote: str, value_text: str, page_text: str | None) -> tuple[bool, str]:
    """(verified, note) — the note says what failed."""
    if page_text is None:
        return False, "no text for the cited page"
    if not quote_on_page(quote, page_text):
        return False, "quote not found on the cited page"
    if not value_in_quote(value_text, quote):
        return False, "value not in the quote"
    return True, "quote on page, value in quote"
