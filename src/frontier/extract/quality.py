"""Is the extracted text real language, and is the document a paper at all?"""

from __future__ import annotations

import re
import unicodedata

from frontier.text import WordStyle, split_words

_SPACE = re.compile(r"\s")
_SAMPLE_CHARS = 8000
_LATIN_VOWELS = set("aeiouyAEIOUYàáâäèéêëìíîïòóôöùúûüýÀÁÂÄÈÉÊËÌÍÎÏÒÓÔÖÙÚÛÜÝ")
GARBAGE_THRESHOLD = 0.5
MIN_CHARS_FOR_VERDICT = 1


def _is_latin(ch: str) -> bool:
    return "LATIN" in unicodedata.name(ch, "")


def _wordlike(token: str) -> bool:
    """Case pattern of a real word and, in Latin script, at least one vowel."""
    if not token[0].isascii() and not _is_latin(token[0]):
        return True
    shape_ok = token.islower() or token.isupper() or (token[0].isupper() and token[1:].islower())
    if len(token) <= 3:
        return shape_ok
    return shape_ok and any(ch in _LATIN_VOWELS for ch in token)


def text_quality(text: str) -> float:
    """Share of non-space characters that sit in word-like tokens (0 = noise, 1 = prose)."""
    visible = len(text) - len(_SPACE.findall(text))
    if visible == 0:
        return 0.0
    good = sum(len(token) for token in split_words(text, WordStyle.LETTERS) if _wordlike(token))
    return good / visible


def looks_like_garbage(text: str) -> bool:
    sample = text[:_SAMPLE_CHARS]
    return len(sample.strip()) >= MIN_CHARS_FOR_VERDICT and text_quality(sample) < GARBAGE_THRESHOLD


def looks_like_slides(page_sizes: list[tuple[float, float]], chars_per_page: list[int]) -> bool:
    """Mostly landscape pages with little text each: a slide deck, not a paper."""
    if len(page_sizes) < 3:
        return False
    landscape = sum(1 for width, height in page_sizes if width > 1.15 * height)
    mean_chars = sum(chars_per_page) / len(chars_per_page)
    return landscape >= 0.8 * len(page_sizes) and mean_chars < 1500
