"""arXiv export API: search by query or look up ids, yielding `SourceRecord`s."""

from __future__ import annotations

import datetime as dt
import logging
import re
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import arxiv
import requests
from pydantic import BaseModel, Field, model_validator
from requests.adapters import HTTPAdapter

from frontier.config import ArxivSettings
from frontier.sources.ids import normalize_doi, parse_arxiv_id
from frontier.sources.records import SourceRecord

logger = logging.getLogger(__name__)

_ATOM = "{http://www.w3.org/2005/Atom}"
_TIMEOUT = (10.0, 120.0)  # connect, read seconds
_FIRST_DAY = dt.date(1991, 1, 1)  # before the first arXiv submission
_RETRYABLE_4XX = {408, 429}
_throttle_lock = threading.Lock()
_last_request_at = 0.0


class ArxivError(Exception):
    """The arXiv API could not answer a query; the message says why in one line."""


class ArxivQuery(BaseModel):
    """A search: raw arXiv terms, categories (ORed) and a submitted-date window."""

    terms: str = Field(default="", description='Raw arXiv search syntax, e.g. ti:"KV cache"')
    categories: list[str] = Field(default_factory=list)
    since: dt.date | None = None
    until: dt.date | None = None
    max_results: int = Field(default=100, ge=1)

    @model_validator(mode="after")
    def _window_in_order(self) -> ArxivQuery:
        if self.since and self.until and self.since > self.until:
            raise ValueError(f"since ({self.since}) is after until ({self.until})")
        return self


def build_search_query(q: ArxivQuery) -> str:
    """Combine terms, categories and the date window into one arXiv search_query."""
    terms = " ".join(q.terms.split())
    cats = list(dict.fromkeys(c.strip() for c in q.categories if c.strip()))
    clauses: list[str] = []
    if cats:
        ored = " OR ".join(f"cat:{c}" for c in cats)
        clauses.append(f"({ored})" if len(cats) > 1 else ored)
    if q.since or q.until:
        start = (q.since or _FIRST_DAY).strftime("%Y%m%d")
        end = (q.until or dt.date.max).strftime("%Y%m%d")
        clauses.append(f"submittedDate:[{start}0000 TO {end}2359]")
    if terms:
        clauses.insert(0, f"({terms})" if clauses and " " in terms else terms)
    return " AND ".join(clauses)


def search_arxiv(q: ArxivQuery, settings: ArxivSettings) -> Iterator[SourceRecord]:
    """Yield records for a search, newest submission first, at most q.max_results."""
    query = build_search_query(q)
    if not query:
        raise ArxivError("arXiv search needs terms, categories or a date window")
    search = arxiv.Search(
        query=query,
        max_results=q.max_results,
        sort_by=arxiv.SortCriterion.SubmittedDate,
        sort_order=arxiv.SortOrder.Descending,
    )
    yield from _run(search, settings, source_ref=query)


def fetch_arxiv_ids(ids: list[str], settings: ArxivSettings) -> list[SourceRecord]:
    """Look up arXiv ids (new or old style, with or without version); unknown ids are absent."""
    wanted = list(dict.fromkeys(_request_id(i) for i in ids))
    if not wanted:
        return []
    search = arxiv.Search(id_list=wanted, max_results=len(wanted))
    return list(_run(search, settings, source_ref="id_list=" + ",".join(wanted)))


def _request_id(text: str) -> str:
    """Normalise one id as the API expects it; unparseable ids go as-is for the API to judge."""
    parsed = parse_arxiv_id(text)
    if parsed:
        return parsed[0] if parsed[1] is None else f"{parsed[0]}v{parsed[1]}"
    text = text.strip()
    if not text or re.search(r"[\s,]", text):
        raise ArxivError(f"not an arXiv id: {text!r}")
    return text


def _run(search: arxiv.Search, settings: ArxivSettings, source_ref: str) -> Iterator[SourceRecord]:
    """Run a search with a configured client, turning every failure into ArxivError."""
    client = _make_client(settings)
    try:
        for result in client.results(search):
            yield _to_record(result, source_ref, settings)
    except ArxivError:
        raise
    except Exception as exc:
        raise ArxivError(_describe(exc, settings)) from exc
    finally:
        client._session.close()


def _make_client(settings: ArxivSettings) -> arxiv.Client:
    """An arxiv.Client pointed at settings.api_url, with timeouts and error checks."""
    client = arxiv.Client(
        page_size=settings.page_size,
        delay_seconds=settings.delay_seconds,
        num_retries=settings.num_retries,
    )
    client.query_url_format = settings.api_url + "?{}"
    adapter = _ApiAdapter(settings.delay_seconds)
    client._session.mount("http://", adapter)
    client._session.mount("https://", adapter)
    return client


class _ApiAdapter(HTTPAdapter):
    """Transport for API calls: shared politeness delay, timeouts, early 4xx diagnosis."""

    def __init__(self, delay_seconds: float) -> None:
        super().__init__()
        self.delay_seconds = delay_seconds

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        """Send one request; read errors become ConnectionError so the client retries them."""
        kwargs["timeout"] = kwargs.get("timeout") or _TIMEOUT
        _wait_politely(self.delay_seconds)
        try:
            response = super().send(request, **kwargs)
            _ = response.content
        except (requests.Timeout, requests.exceptions.ChunkedEncodingError) as exc:
            raise requests.ConnectionError(f"{type(exc).__name__}: {exc}") from exc
        finally:
            _mark_request()
        _check_response(response)
        return response


def _wait_politely(delay_seconds: float) -> None:
    """Sleep until delay_seconds have passed since the last API call in this process."""
    with _throttle_lock:
        wait = _last_request_at + delay_seconds - time.monotonic()
    if wait > 0:
        time.sleep(wait)


def _mark_request() -> None:
    """Remember when the last API call ended."""
    global _last_request_at
    with _throttle_lock:
        _last_request_at = time.monotonic()


def _check_response(response: requests.Response) -> None:
    """Raise ArxivError for a final 4xx or an error feed; 5xx is left to the client's retries."""
    status = response.status_code
    if 300 <= status < 400 or status >= 500 or status in _RETRYABLE_4XX:
        return
    root = _parse_xml(response.content)
    reason = _api_error_text(root)
    if status >= 400 or reason:
        detail = reason or response.reason or "no reason given"
        raise ArxivError(f"arXiv API rejected the query: {detail} (HTTP {status})")
    if root is None or root.tag != f"{_ATOM}feed":
        kind = response.headers.get("content-type", "unknown content type")
        raise ArxivError(f"arXiv API answered HTTP {status} with no Atom feed ({kind})")


def _parse_xml(body: bytes) -> ET.Element | None:
    """Parse an XML body, or None if it is not XML."""
    try:
        return ET.fromstring(body)
    except ET.ParseError:
        return None


def _api_error_text(root: ET.Element | None) -> str | None:
    """The <summary> of an arXiv error feed entry (id .../api/errors#...), if any."""
    if root is None:
        return None
    for entry in root.iter(f"{_ATOM}entry"):
        if "/api/errors" in (entry.findtext(f"{_ATOM}id") or ""):
            summary = entry.findtext(f"{_ATOM}summary") or entry.findtext(f"{_ATOM}title")
            return _squash(summary or "") or "unspecified error"
    return None


def _describe(exc: Exception, settings: ArxivSettings) -> str:
    """One-line message for a failure raised while querying the API."""
    tries = settings.num_retries + 1
    if isinstance(exc, arxiv.HTTPError):
        return f"arXiv API failed with HTTP {exc.status} after {tries} attempt(s)"
    if isinstance(exc, arxiv.UnexpectedEmptyPageError):
        return f"arXiv API kept returning an empty page mid-results after {tries} attempt(s)"
    if isinstance(exc, requests.RequestException):
        return f"could not reach the arXiv API at {settings.api_url}: {_squash(str(exc))[:300]}"
    return f"unexpected arXiv API failure: {type(exc).__name__}: {_squash(str(exc))[:300]}"


def _to_record(result: arxiv.Result, source_ref: str, settings: ArxivSettings) -> SourceRecord:
    """Map one API result to a SourceRecord."""
    short_id = result.get_short_id()
    parsed = parse_arxiv_id(short_id)
    arxiv_id, version = parsed if parsed else (short_id, None)
    return SourceRecord(
        source="arxiv",
        source_ref=source_ref,
        arxiv_id=arxiv_id,
        arxiv_version=version,
        doi=normalize_doi(result.doi) if result.doi else None,
        title=_squash(result.title) or None,
        authors=[_squash(a.name) for a in result.authors if a.name.strip()],
        published=result.published.date(),
        updated=result.updated.date(),
        categories=list(dict.fromkeys(result.categories)),
        abstract=_squash(result.summary) or None,
        pdf_url=settings.pdf_url_template.format(id=short_id),
        url=f"https://arxiv.org/abs/{short_id}",
    )


def _squash(text: str) -> str:
    """Collapse runs of whitespace to single spaces."""
    return " ".join(text.split())
