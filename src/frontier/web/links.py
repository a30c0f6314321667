"""Where each page lives: a path on the server, or a file of the static site linked relatively."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from markupsafe import Markup, escape

from frontier.render.common import entity_path, frontier_path, safe_name, source_path, topic_path
from frontier.render.digest_page import digest_path
from frontier.web.pages import page

_CITATION = re.compile(r"\[(\d{1,6})\]")
Source = dict[str, Any]  # number, paper_id, title, date, pages (as a bundle stores it)


def page_path(name: str, *args: object) -> str:
    """The page's path without a suffix, e.g. `paper/2309.06180/page/4` ('' is the home page)."""
    return page(name).path.format(*args)


def site_file(name: str, *args: object) -> str:
    """The file of the static site that holds a page."""
    if name in ("paper", "page", "entity", "digest"):
        args = (safe_name(str(args[0])), *args[1:])
    path = page_path(name, *args)
    if name in ("static", "feed"):
        return path
    return f"{path}.html" if path else "index.html"


@dataclass(frozen=True)
class Links:
    """Builds links for one page: absolute paths on the server, relative files in the site."""

    static_site: bool = False
    here: str = "index.html"
    base: str = ""  # when set, links are absolute: the server's or the published site's URL

    def url(self, name: str, *args: object, **query: object) -> str:
        if self.static_site:
            # pages of the site are written once: a query string could change nothing in them
            if self.base:
                return self.base.rstrip("/") + "/" + site_file(name, *args)
            return posixpath.relpath(site_file(name, *args), posixpath.dirname(self.here) or ".")
        target = "/" + page_path(name, *(quote(str(arg), safe="") for arg in args))
        shown = {k: v for k, v in query.items() if v not in (None, "")}
        target = f"{target}?{urlencode(shown)}" if shown else target
        return self.base.rstrip("/") + target if self.base else target


# the vault page that stands for a page of the UI (the vault has no page views: their paper)
_VAULT_PATHS: dict[str, Callable[..., str]] = {
    "topics": lambda: "index.md",
    "topic": topic_path,
    "frontier": frontier_path,
    "paper": source_path,
    "page": lambda paper_id, *_: source_path(paper_id),
    "entity": entity_path,
    "digest": digest_path,
    "digests": lambda: "index.md",
    "feed": lambda: "feed.xml",
}


@dataclass(frozen=True)
class VaultLinks:
    """Links to the markdown vault's pages, relative to its folder (for the vault's feed)."""

    static_site: bool = True  # no forms: nothing can be posted to files

    def url(self, name: str, *args: object, **query: object) -> str:
        return _VAULT_PATHS[name](*(str(arg) for arg in args))


def quote_link(result: Any, links: Links | None = None, pages: int | None = None) -> str:
    """Where a result's quote is shown: its page view with the claim marked (when the page is
    stored, if the paper's `pages` are given), else its paper's page."""
    claim, links = result.claim, links or Links()
    if claim.page and (pages is None or claim.page <= pages):
        return links.url("page", claim.paper_id, claim.page, claim=claim.id)
    return links.url("paper", claim.paper_id)


def link_citations(
    text: str, sources: Mapping[int, Source], url: Callable[..., str], to_page: bool = False
) -> Markup:
    """Model text as HTML: escaped first, then each [n] naming a source becomes a link to the
    paper (or to the source's first page); a number outside the sources stays plain text."""
    escaped = str(escape(text))

    def link(match: re.Match[str]) -> str:
        source = sources.get(int(match.group(1)))
        if source is None:
            return match.group(0)
        href = url("paper", source["paper_id"])
        if to_page and source["pages"]:
            href = url("page", source["paper_id"], source["pages"][0])
        return (
            f'<a class="cite" href="{escape(href)}" title="{escape(source["title"])}">'
            f"[{source['number']}]</a>"
        )

    return Markup(_CITATION.sub(link, escaped))
