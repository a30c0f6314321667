"""Web articles: fetch pages, extract their main text and metadata, read saved text files."""

from __future__ import annotations

import codecs
import contextlib
import datetime as dt
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple
from urllib.parse import urljoin, urlsplit

import httpx
import trafilatura
from charset_normalizer import from_bytes
from lxml.html import HtmlElement
from pydantic import AfterValidator, BaseModel, ValidationError
from trafilatura.settings import Document

from frontier.model.sources import (
    MAX_TITLE,
    Date,
    Name,
    SourceRecord,
    Title,
    check_date,
    check_text,
)
from frontier.sources.abstracts import provisional_title
from frontier.sources.local import parse_date
from frontier.sources.records import describe_invalid, drop_bad_characters, printable, sanitize

USER_AGENT = "frontier/0.1 (research knowledge base)"
MAX_PAGE_BYTES = 20_000_000
RETRY_STATUSES = {408, 425, 429}  # plus every 5xx
MIN_TEXT_CHARS = 250
MAX_AUTHOR_LINE = 2000  # several authors, separated by semicolons

_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_LATIN1 = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "ascii", "us-ascii"}
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DATE = re.compile(
    rf"(?i)\b(?:{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\.?\s+{_MONTH}\s+\d{{4}}"
    r"|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4})\b"
)
_META_SEPARATOR = re.compile(r"\s[|·•]\s")
_TRAILER = re.compile(
    r"(?i)\blast (?:modified|updated|edited)\b|\ball rights reserved\b|^\s*(?:©|copyright\b)"
    r"|^\s*(?:tags|categories|filed under|posted in)\s*:"
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_ARTICLE_BODY = re.compile(r'"articleBody"\s*:\s*"((?:[^"\\]|\\.)*)"')
_FRONT_MATTER = re.compile(r"---\s*\n(.*?)\n---\s*\n", re.S)


class Article(BaseModel):
    """Main text and metadata of one article; the metadata pass the checks of every record."""

    title: Title | None = None
    author: (
        Annotated[str, AfterValidator(lambda text: check_text(text, MAX_AUTHOR_LINE))] | None
    ) = None
    site: Name | None = None
    date: Date | None = None
    text: str


class ArticleError(Exception):
    """No main text could be found in a page or file, or its metadata fail a check."""


def make_article(**fields: Any) -> Article:
    """An Article, or ArticleError naming the field that fails its check."""
    fields["text"] = drop_bad_characters(fields["text"])
    try:
        return Article(**fields)
    except ValidationError as exc:
        raise ArticleError(describe_invalid(exc)) from None


class FetchError(Exception):
    """A page could not be downloaded."""


class FetchedPage(NamedTuple):
    """Body and content type of a downloaded page."""

    body: bytes
    content_type: str


def decode_bytes(data: bytes) -> str:
    """Decode bytes: BOM, then UTF-8, then a <meta> charset, then a statistical guess."""
    if data.startswith(codecs.BOM_UTF8):
        return data.decode("utf-8-sig", errors="replace")
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return data.decode("utf-16", errors="replace")
    candidates = ["utf-8"]
    if declared := _CHARSET.search(data[:100_000]):
        label = declared.group(1).decode("ascii").lower()
        candidates.append("cp1252" if label in _LATIN1 else label)
    for encoding in candidates:
        try:
            return data.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    guess = from_bytes(data[:200_000]).best()
    return data.decode(guess.encoding if guess else "cp1252", errors="replace")


def _norm(text: str) -> str:
    """Collapse whitespace."""
    return " ".join(text.split())


def _host(url: str | None) -> str | None:
    """Host name of a URL without a leading www."""
    return (urlsplit(url).hostname or "").removeprefix("www.") or None if url else None


def _headline(block: HtmlElement) -> str:
    """Lower-cased text of the first <h1> inside a block."""
    h1 = block.find(".//h1")
    return _norm(h1.text_content()).lower() if h1 is not None else ""


def _drop_extra_articles(tree: HtmlElement, title: str | None) -> None:
    """On infinite-scroll pages keep only the sibling article block headed by the page title."""
    wanted = _norm(title or "").lower()
    for node in list(tree.iter("h1"))[:3] if wanted else []:
        while (parent := node.getparent()) is not None:
            same = [s for s in parent if s.tag == node.tag and s.get("class") == node.get("class")]
            heads = {s: h for s in same if (h := _headline(s))}
            if len(heads) > 1:
                keep = [s for s, h in heads.items() if h in wanted or wanted in h]
                for twin in heads if len(keep) == 1 else []:
                    if twin is not keep[0]:
                        twin.drop_tree()
                return
            node = parent


def _drop_link_teasers(tree: HtmlElement, page_url: str | None) -> None:
    """Drop 'Read more: <headline of another article on this site>' paragraphs."""
    for para, link in _paragraphs_with_one_link(tree):
        text, anchor = _norm(para.text_content()), _norm(link.text_content())
        label = text[: -len(anchor)].strip() if anchor and text.endswith(anchor) else ""
        target = _host(urljoin(page_url or "", link.get("href") or ""))
        short_label = label.endswith(":") and len(label.split()) <= 5
        if short_label and len(anchor.split()) >= 4 and target in (None, _host(page_url)):
            para.drop_tree()


def _paragraphs_with_one_link(tree: HtmlElement) -> list[tuple[HtmlElement, HtmlElement]]:
    """Each paragraph that holds exactly one link, with that link."""
    found = [(p, p.findall(".//a")) for p in tree.iter("p")]
    return [(p, links[0]) for p, links in found if len(links) == 1]


def _drop_link_boxes(tree: HtmlElement) -> None:
    """Drop blocks made almost only of links (link boxes, teaser lists) with their headers."""
    for block in list(tree.iter("div", "section", "aside", "ul", "ol")):
        links = block.findall(".//a")
        if len(links) < 3 or block.getparent() is None:
            continue
        linked = sum(len(_norm(a.text_content())) for a in links)
        if linked >= 0.8 * len(_norm(block.text_content())):
            block.drop_tree()


def _jsonld_bodies(tree: HtmlElement) -> list[str]:
    """All schema.org articleBody strings in the page's JSON-LD blocks (tolerating broken JSON)."""
    found = []
    for script in tree.xpath('//script[contains(@type, "ld+json")]/text()'):
        for match in _ARTICLE_BODY.finditer(script):
            with contextlib.suppress(ValueError):
                found.append(json.loads(f'"{match.group(1)}"', strict=False).strip())
    return found


def _is_dateline(line: str) -> bool:
    """A short date or 'date | category | comments' line such as blogs print under the title."""
    match = _DATE.search(line)
    if not match or len(line) > 160:
        return False
    rest = (line[: match.start()] + line[match.end() :]).split()
    return bool(_META_SEPARATOR.search(line)) or len(rest) <= 4


def _tidy_text(text: str) -> str:
    """Drop datelines at the top and page furniture at the bottom; collapse blank lines."""
    lines = [line.rstrip() for line in text.strip().splitlines()]
    lines = [line for i, line in enumerate(lines) if i >= 3 or not _is_dateline(line)]
    while lines and (not lines[-1] or (len(lines[-1]) <= 160 and _TRAILER.search(lines[-1]))):
        lines.pop()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _no_text_reason(tree: HtmlElement, text: str) -> str | None:
    """One-line reason why a page has no usable main text, or None when it has."""
    shown = "//body//text()[not(ancestor::script or ancestor::style or ancestor::noscript)]"
    visible = sum(len(t.strip()) for t in tree.xpath(shown))
    scripts = sum(len(t.strip()) for t in tree.xpath("//script/text()"))
    if len(text) < MIN_TEXT_CHARS and scripts > 10 * max(visible, len(text), 1):
        return "no main text: the page seems to be rendered by JavaScript (text only in scripts)"
    empty = "the page body is empty" if visible == 0 else "only navigation or boilerplate found"
    return None if text else f"no main text: {empty}"


def _clean_title(title: str | None, site: str | None) -> str | None:
    """Strip a ' | Site' or 'Site | ' decoration from a page title."""
    if not title or not site:
        return title
    for sep in (" | ", " - ", " – ", " — ", " :: "):
        parts = [p.strip() for p in title.split(sep)]
        if len(parts) == 2 and site.lower() in (parts[0].lower(), parts[1].lower()):
            return parts[1] if parts[0].lower() == site.lower() else parts[0]
    return title


def _clean_author(author: str | None) -> str | None:
    """Drop 'posts by' prefixes and implausibly long author strings."""
    prefix = re.compile(r"^(?:view all posts by|posts by|by)\s+", re.I)
    names = [prefix.sub("", a.strip()) for a in (author or "").split(";")]
    return "; ".join(n for n in names if n and len(n.split()) <= 4) or None


def _parse_date(value: str | None) -> dt.date | None:
    """ISO date string to a date, or None (also for a date no article can have)."""
    with contextlib.suppress(ValueError):
        return check_date(dt.date.fromisoformat(str(value)[:10]))
    return None


def extract_article(data: bytes | str, url: str | None = None) -> Article:
    """Main text, title, author, site and date of an HTML page; raise ArticleError if none."""
    tree = trafilatura.load_html(data if isinstance(data, str) else decode_bytes(data))
    if tree is None:
        raise ArticleError("no main text: the document is empty or not HTML")
    meta = trafilatura.extract_metadata(tree, default_url=url)
    _drop_extra_articles(tree, meta.title)
    _drop_link_teasers(tree, url or meta.url)
    _drop_link_boxes(tree)
    doc = trafilatura.bare_extraction(tree, url=url, include_comments=False, include_tables=True)
    text = _tidy_text(doc.text or "") if isinstance(doc, Document) else ""
    json_body = max(_jsonld_bodies(tree), key=len, default="")
    if len(json_body) >= 2 * MIN_TEXT_CHARS and len(json_body) > 2 * len(text):
        text = _tidy_text(json_body)  # article text shipped as data for client-side rendering
    if reason := _no_text_reason(tree, text):
        raise ArticleError(reason)
    site = meta.sitename or _host(url or meta.url)
    return make_article(
        title=_clean_title(meta.title, site),
        author=_clean_author(meta.author),
        site=site,
        date=_parse_date(meta.date),
        text=text,
    )


def article_record(
    article: Article, source: Literal["web", "file"], source_ref: str, url: str | None = None
) -> SourceRecord:
    """Map an extracted article onto the common SourceRecord shape; an article without a title
    gets a provisional one from its opening words, with a warning."""
    provisional = article.title is None
    title = article.title
    if title is None:
        title = sanitize(provisional_title(" ".join(article.text.split())), MAX_TITLE)
    warnings = ["no title: a provisional one was made from the text"] if provisional else []
    try:
        return SourceRecord(
            source=source,
            source_ref=source_ref,
            kind="article",
            title=title,
            title_provisional=provisional,
            warnings=warnings,
            authors=[a.strip() for a in (article.author or "").split(";") if a.strip()],
            site=article.site,
            published=article.date,
            url=url,
            body=article.text,
        )
    except ValidationError as exc:
        raise ArticleError(describe_invalid(exc)) from None


def html_article_file(path: Path) -> Iterator[SourceRecord]:
    """A saved web page as the one record it makes."""
    yield article_record(extract_article(path.read_bytes()), "file", printable(str(path)))


def text_article_file(path: Path) -> Iterator[SourceRecord]:
    """A saved Markdown or text article as the one record it makes."""
    yield article_record(read_text_article(path), "file", printable(str(path)))


def read_text_article(path: str | Path) -> Article:
    """Read a saved .md or .txt article: title from the first heading or line, text is the rest."""
    path = Path(path)
    raw = "\n".join(decode_bytes(path.read_bytes()).splitlines())
    fields, body = {}, raw
    if match := _FRONT_MATTER.match(raw):  # simple 'key: value' front matter
        pairs = (line.partition(":") for line in match.group(1).splitlines())
        fields = {k.strip().lower(): v.strip().strip("\"'") for k, sep, v in pairs if sep}
        body = raw[match.end() :]
    lines, markdown = body.strip().splitlines() or [""], path.suffix.lower() in {".md", ".markdown"}
    pos = next((i for i, line in enumerate(lines) if markdown and _HEADING.match(line)), 0)
    heading = _HEADING.match(lines[pos])
    text = "\n".join(lines[:pos] + lines[pos + 1 :]).strip()
    if not text:
        raise ArticleError(f"no main text: {printable(path.name)} holds nothing besides a title")
    try:
        date = parse_date(fields.get("date"))
    except ValueError as exc:
        raise ArticleError(f"date: {exc}") from None
    return make_article(
        title=fields.get("title") or (heading.group(1) if heading else lines[0].strip()) or None,
        author=fields.get("author") or None,
        date=date,
        text=text,
    )


def _read_capped(response: httpx.Response) -> bytes:
    """Read a streamed response body, refusing anything over MAX_PAGE_BYTES."""
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > MAX_PAGE_BYTES:
            raise FetchError(f"{response.url}: page larger than {MAX_PAGE_BYTES} bytes")
    return bytes(body)


def fetch_page(
    url: str, timeout: float = 20.0, retries: int = 2, backoff: float = 1.0
) -> FetchedPage:
    """Download a page (following redirects), retrying 5xx and network errors with backoff."""
    problem = "no attempt"
    headers = {"User-Agent": USER_AGENT, "Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    with httpx.Client(follow_redirects=True, timeout=timeout, headers=headers) as client:
        for attempt in range(retries + 1):
            time.sleep(backoff * 2 ** (attempt - 1) if attempt else 0)
            try:
                with client.stream("GET", url) as response:
                    status, ctype = response.status_code, response.headers.get("content-type", "")
                    if status < 400:
                        return FetchedPage(_read_capped(response), ctype)
                    problem = f"HTTP {status} {response.reason_phrase}"
                    if status < 500 and status not in RETRY_STATUSES:
                        raise FetchError(f"{url}: {problem}")
            except httpx.TransportError as exc:
                problem = f"{type(exc).__name__} {exc}".strip()
    raise FetchError(f"{url}: failed after {retries + 1} attempts ({problem})")
