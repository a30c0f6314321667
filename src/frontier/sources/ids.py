"""Identifiers: arXiv ids, DOIs, normalised titles and content hashes, all computed in code."""

from __future__ import annotations

import hashlib
import re
import unicodedata

# ASCII digits only: \d would take any script's digits for an id
_NEW_ID = r"[0-9]{4}\.[0-9]{4,5}"
_OLD_ID = r"[a-z][a-z\-]*(?:\.[A-Z]{2})?/[0-9]{7}"
ARXIV_ID_RE = re.compile(rf"(?P<id>{_NEW_ID}|{_OLD_ID})(?:v(?P<version>[0-9]+))?")
_ARXIV_ANYWHERE = re.compile(
    rf"(?:arxiv\.org/(?:abs|pdf)/|arXiv:\s*)(?P<id>{_NEW_ID}|{_OLD_ID})(?:v(?P<version>[0-9]+))?",
    re.IGNORECASE,
)
DOI_RE = re.compile(r"\b(10\.[0-9]{4,9}/[^\s\"<>]+)", re.IGNORECASE)


def parse_arxiv_id(text: str) -> tuple[str, int | None] | None:
    """Split a bare or URL-form arXiv id into (id without version, version or None)."""
    text = text.strip()
    text = re.sub(r"^(?:https?://)?(?:export\.)?arxiv\.org/(?:abs|pdf)/", "", text)
    text = re.sub(r"^arxiv:\s*", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\.pdf$", "", text)
    match = ARXIV_ID_RE.fullmatch(text)
    if not match:
        return None
    version = match.group("version")
    return match.group("id"), int(version) if version else None


def find_arxiv_id(text: str) -> tuple[str, int | None] | None:
    """Find an arXiv id stamped in free text (``arXiv:2309.06180v1`` or an arxiv.org link)."""
    match = _ARXIV_ANYWHERE.search(text)
    if not match:
        return None
    version = match.group("version")
    return match.group("id"), int(version) if version else None


def normalize_doi(doi: str) -> str:
    doi = doi.strip()
    doi = re.sub(r"^(?:https?://)?(?:dx\.)?doi\.org/", "", doi, flags=re.IGNORECASE)
    doi = re.sub(r"^doi:\s*", "", doi, flags=re.IGNORECASE)
    return doi.rstrip(".,;").lower()


def find_doi(text: str) -> str | None:
    match = DOI_RE.search(text)
    return normalize_doi(match.group(1)) if match else None


def normalize_title(title: str) -> str:
    """Fold case, accents, punctuation and spacing so two spellings of one title compare equal."""
    text = unicodedata.normalize("NFKD", title)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[^0-9a-z]+", " ", text.lower())
    return " ".join(text.split())


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_content_id(text: str) -> str:
    """A stable id for a text with no other identity: hash of its normalised words."""
    words = normalize_title(text)
    return hashlib.sha256(words.encode()).hexdigest()[:16]
