"""arXiv export API: search by query or look up ids, yielding `SourceRecord`s."""

from __future__ import annotations

import datetime as dt
import logging
import re
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any, cast

import arxiv
import requests
from arxiv import Result
from arxiv._feed import FeedHeader, ParsedFeed
from lxml import etree
from pydantic import BaseModel, Field, ValidationError, model_validator
from requests.adapters import HTTPAdapter

from frontier.config import ArxivSettings, Topic
from frontier.model import SourceRecord
from frontier.sources.ids import normalize_doi, parse_arxiv_id
from frontier.sources.records import RecordError, describe_invalid, printable

logger = logging.getLogger(__name__)

_ATOM = "{http://www.w3.org/2005/Atom}"
_NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
_C1 = re.compile("[\x80-\x9f]")
USER_AGENT = "frontier/0.1 (research knowledge base)"
_TIMEOUT = (10.0, 120.0)  # connect, read seconds
# what requests takes as a timeout: seconds for both, or (connect, read), None meaning no limit
_Timeout = float | tuple[float | None, float | None] | None
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


def search_arxiv(q: ArxivQuery, settings: ArxivSettings) -> Iterator[SourceRecord | RecordError]:
    """Yield records for a search, newest submission first, at most q.max_results (an entry
    that fails a check is a RecordError)."""
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


def asks_arxiv(topic: Topic) -> bool:
    """Whether discovery has anything to ask arXiv for a topic: search terms or categories."""
    return bool(topic.arxiv_query or topic.arxiv_categories)


def topic_query(topic: Topic, today: dt.date, days: int | None, max_results: int) -> ArxivQuery:
    """A topic's search over its discovery window (the last `days`, else its own) up to today."""
    window = days if days is not None else topic.window_days
    return ArxivQuery(
        terms=topic.arxiv_query,
        categories=topic.arxiv_categories,
        since=today - dt.timedelta(days=window),
        until=today,
        max_results=max_results,
    )


def unreachable(exc: Exception) -> bool:
    """The API itself failed (network, server errors after the retries), not this query."""
    return isinstance(exc.__cause__, requests.RequestException | arxiv.HTTPError)


def fetch_arxiv_ids(ids: list[str], settings: ArxivSettings) -> list[SourceRecord | RecordError]:
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


def _run(
    search: arxiv.Search, settings: ArxivSettings, source_ref: str
) -> Iterator[SourceRecord | RecordError]:
    """Run a search with a configured client, turning every failure into ArxivError."""
    client = _make_client(settings, source_ref)
    try:
        yield from client.records(search)
    except ArxivError:
        raise
    except Exception as exc:
        raise ArxivError(_describe(exc, settings)) from exc
    finally:
        client._session.close()


class _Client(arxiv.Client):
    """The arxiv client's paging and retries, with each page read by `read_feed`: every entry
    becomes a record or a RecordError naming the entry and the field."""

    def __init__(self, settings: ArxivSettings, source_ref: str) -> None:
        super().__init__(
            page_size=settings.page_size,
            delay_seconds=settings.delay_seconds,
            num_retries=settings.num_retries,
        )
        self.settings = settings
        self.source_ref = source_ref

    def records(self, search: arxiv.Search) -> Iterator[SourceRecord | RecordError]:
        """The search's entries, each as `read_feed` made it from its page."""
        return cast(Iterator[SourceRecord | RecordError], self.results(search))

    def _parse_feed(self, url: str, first_page: bool = True, _try_index: int = 0) -> ParsedFeed:
        for attempt in range(_try_index, self.num_retries + 1):
            try:
                return self._fetch_page(url, first_page, attempt)
            except (arxiv.HTTPError, arxiv.UnexpectedEmptyPageError, requests.ConnectionError):
                if attempt >= self.num_retries:
                    raise
        raise AssertionError("unreachable: the last attempt raises")

    def _fetch_page(self, url: str, first_page: bool, attempt: int) -> ParsedFeed:
        response = self._session.get(url, headers={"user-agent": USER_AGENT})
        if response.status_code != requests.codes.ok:
            raise arxiv.HTTPError(url, attempt, response.status_code)
        total, items = read_feed(response.content, self.settings, self.source_ref)
        # our records ride where the client expects its own results (see `records`)
        feed = ParsedFeed(header=FeedHeader(total_results=total), results=cast(list[Result], items))
        if not items and not first_page:
            raise arxiv.UnexpectedEmptyPageError(url, attempt, feed)
        return feed


def _make_client(settings: ArxivSettings, source_ref: str) -> _Client:
    """An arxiv client pointed at settings.api_url, with timeouts and error checks."""
    client = _Client(settings, source_ref)
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

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: _Timeout = None,
        verify: bool | str = True,
        cert: str | tuple[str, str] | None = None,
        proxies: dict[str, str] | None = None,
    ) -> requests.Response:
        """Send one request; read errors become ConnectionError so the client retries them."""
        _wait_politely(self.delay_seconds)
        try:
            response = super().send(request, stream, timeout or _TIMEOUT, verify, cert, proxies)
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


def read_feed(
    content: bytes, settings: ArxivSettings, source_ref: str = ""
) -> tuple[int, list[SourceRecord | RecordError]]:
    """The total result count an Atom page announces, and each of its entries as a record or a
    RecordError naming the entry and the field."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=True)
    try:
        root = etree.fromstring(content, parser=parser)
    except etree.XMLSyntaxError:
        root = None
    if root is None:
        return 0, []
    total = _int(root.findtext("opensearch:totalResults", namespaces=_NS))
    items = [
        _entry_record(entry, number, settings, source_ref)
        for number, entry in enumerate(root.iterfind("atom:entry", _NS), start=1)
    ]
    return total, items


def _int(text: str | None) -> int:
    try:
        return int((text or "").strip())
    except ValueError:
        return 0


def _entry_record(
    entry: Any, number: int, settings: ArxivSettings, source_ref: str
) -> SourceRecord | RecordError:
    """One <entry> as a record; what the feed gives is checked like every other source's."""
    entry_id = _squash(entry.findtext("atom:id", namespaces=_NS) or "")
    short_id = entry_id.split("arxiv.org/abs/")[-1]
    ref = f"arXiv {printable(short_id)}" if short_id else f"arXiv entry {number}"
    parsed = parse_arxiv_id(short_id)
    if not parsed:
        return RecordError(ref, f"id: not an arXiv id: {printable(entry_id[:60])!r}")
    try:
        published, updated = (
            _atom_date(entry.findtext(f"atom:{name}", namespaces=_NS), name)
            for name in ("published", "updated")
        )
        doi = entry.findtext("arxiv:doi", namespaces=_NS)
        categories = [c.get("term") for c in entry.iterfind("atom:category", _NS)]
        authors = [
            a.findtext("atom:name", namespaces=_NS) or ""
            for a in entry.iterfind("atom:author", _NS)
        ]
        return SourceRecord(
            source="arxiv",
            source_ref=source_ref or ref,
            arxiv_id=parsed[0],
            arxiv_version=parsed[1],
            doi=normalize_doi(doi) if doi and doi.strip() else None,
            title=_text(entry, "atom:title"),
            authors=[without_c1_controls(name) for name in authors if name.strip()],
            categories=list(dict.fromkeys(c for c in categories if c and c.strip())),
            abstract=_text(entry, "atom:summary") or None,
            pdf_url=settings.pdf_url_template.format(id=short_id),
            url=f"https://arxiv.org/abs/{short_id}",
            published=published,
            updated=updated,
        )
    except RecordError as exc:
        return RecordError(ref, exc.reason)
    except ValidationError as exc:
        return RecordError(ref, describe_invalid(exc, {"abstract": "summary"}))


def _text(entry: Any, path: str) -> str:
    return without_c1_controls(_squash(entry.findtext(path, namespaces=_NS) or ""))


def without_c1_controls(text: str) -> str:
    """arXiv's own feed carries stray C1 control characters in a few abstracts (2403.16981v2
    has U+0080): they are dropped, where a file of records holding one is rejected."""
    return _C1.sub("", text)


def _atom_date(text: str | None, name: str) -> dt.date:
    """The UTC day of an Atom timestamp such as 2016-05-26T17:59:46Z."""
    if not text or not text.strip():
        raise RecordError("", f"{name}: missing")
    try:
        moment = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise RecordError("", f"{name}: unreadable date {printable(text.strip()[:40])!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC).date()


def _squash(text: str) -> str:
    """Collapse runs of whitespace to single spaces."""
    return " ".join(text.split())
