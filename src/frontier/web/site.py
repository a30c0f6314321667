"""`frontier site`: the web UI's pages written as files with relative links, search in the page."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from frontier.render.common import Context
from frontier.render.vault import write_if_changed
from frontier.store.browse import cited_pages, map_rows, page_counts, read_only
from frontier.store.digests import stored_digests
from frontier.store.kb import load_kb
from frontier.store.queries import page_text
from frontier.web import digest_views, results_views, synthesis_views, views
from frontier.web.links import STATIC_FILES, Links, site_file
from frontier.web.pages import PAGES
from frontier.web.server_state import usage_rows
from frontier.web.templating import render
from frontier.workspace import Workspace

SEARCH_INDEX = "search-index.js"


def site_pages(ws: Workspace) -> dict[str, str]:
    """Every file of the site: its path inside the site and its text, for each page of PAGES
    that the site holds."""
    with contextlib.closing(read_only(ws.db_path)) as conn:
        ctx = Context(load_kb(conn, ws.settings), ws.settings)
        counts = page_counts(conn)
        files: dict[str, str] = {}
        for page in PAGES:
            if page.in_site:
                files.update(_SITE_FILES[page.name](ctx, conn, counts))
    return files


def _html(ctx: Context, view: views.View, here: str) -> str:
    return render(view, ctx, Links(static_site=True, here=here))


Counts = dict[str, int]  # stored pages per paper
# what the site writes for one page of PAGES: its files, by path inside the site
SiteFiles = Callable[[Context, sqlite3.Connection, Counts], dict[str, str]]


def _one(name: str, view: views.View, ctx: Context, *args: object) -> dict[str, str]:
    here = site_file(name, *args)
    return {here: _html(ctx, view, here)}


def _topics(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    return _one("topics", views.topics_view(ctx), ctx)


def _search(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    return _one("search", views.search_view(ctx, "", []), ctx)


def _per_topic(name: str, make: Callable[[Context, str], views.View]) -> SiteFiles:
    """The files of a page the site holds once per topic."""

    def files(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
        written: dict[str, str] = {}
        for topic in ctx.settings.topics:
            written.update(_one(name, make(ctx, topic.slug), ctx, topic.slug))
        return written

    return files


def _entity(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    files: dict[str, str] = {}
    for entity in ctx.kb.entities:
        files.update(_one("entity", views.entity_view(ctx, entity.slug), ctx, entity.slug))
    return files


def _maps(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    return _one("maps", synthesis_views.maps_view(ctx, map_rows(conn)), ctx)


def _map(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    files: dict[str, str] = {}
    for row in map_rows(conn):
        view = synthesis_views.map_view(ctx, synthesis_views.stored_map(conn, row["id"]))
        files.update(_one("map", view, ctx, row["id"]))
    return files


def _map_pages(conn: sqlite3.Connection) -> set[tuple[str, int]]:
    """(paper, page) of every page the bundle of a listed map names."""
    pages: set[tuple[str, int]] = set()
    for row in map_rows(conn):
        for source in json.loads(synthesis_views.stored_map(conn, row["id"])["bundle"]):
            pages.update((source["paper_id"], page) for page in source["pages"])
    return pages


def _paper(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    files: dict[str, str] = {}
    for paper_id in ctx.kb.papers:
        view = views.paper_view(ctx, paper_id, counts.get(paper_id, 0))
        files.update(_one("paper", view, ctx, paper_id))
    return files


def _page(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    """A page view for every page a claim or a map cites (a claim's quote marked)."""
    files: dict[str, str] = {}
    for paper_id, number in sorted({*cited_pages(conn), *_map_pages(conn)}):
        claim = next((c for c in ctx.kb.claims_of(paper_id) if c.page == number), None)
        text = page_text(conn, paper_id, number)
        if text is None:
            continue  # re-ingested since the map was written, with fewer pages
        claim_id = claim.id if claim else None
        view = views.page_text_view(ctx, paper_id, number, text, counts.get(paper_id, 0), claim_id)
        files.update(_one("page", view, ctx, paper_id, number))
    return files


def _claims(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    return _one("claims", views.claims_view(ctx, counts, {}, "newest"), ctx)


def _results(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    links = Links(static_site=True, here=site_file("results"))
    return _one("results", results_views.results_view(ctx, conn, {}, links), ctx)


def _results_graph(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    links = Links(static_site=True, here=site_file("results_graph"))
    return _one("results_graph", results_views.results_graph_view(ctx, conn, {}, links), ctx)


def _digests(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    return _one("digests", digest_views.digests_view(conn, ctx.settings), ctx)


def _digest(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    files: dict[str, str] = {}
    for row in stored_digests(conn):
        view = digest_views.digest_view(conn, ctx.settings, row.name)
        files.update(_one("digest", view, ctx, row.name))
    return files


def _feed(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    """The Atom feed: links start with `site.base_url`, else are relative to the feed."""
    from frontier.web.feed import atom_feed

    here = site_file("feed")
    links = Links(static_site=True, here=here, base=ctx.settings.site.base_url)
    return {here: atom_feed(conn, ctx.settings, links)}


def _usage(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    runs, purposes, priced = usage_rows(conn, ctx.settings.llm)
    return _one("usage", views.usage_view(runs, purposes, priced), ctx)


def _static(ctx: Context, conn: sqlite3.Connection, counts: Counts) -> dict[str, str]:
    """The packaged assets, and the index the site's search reads."""
    folder = resources.files("frontier.web").joinpath("static")
    files = {
        site_file("static", name): folder.joinpath(name).read_text(encoding="utf-8")
        for name in STATIC_FILES
    }
    files[site_file("static", SEARCH_INDEX)] = search_index(ctx)
    return files


# what the site writes for each page of PAGES it holds
_SITE_FILES: dict[str, SiteFiles] = {
    "topics": _topics,
    "search": _search,
    "topic": _per_topic("topic", views.topic_view),
    "frontier": _per_topic("frontier", views.frontier_view),
    "entity": _entity,
    "maps": _maps,
    "map": _map,
    "paper": _paper,
    "page": _page,
    "claims": _claims,
    "results": _results,
    "results_graph": _results_graph,
    "digests": _digests,
    "digest": _digest,
    "feed": _feed,
    "usage": _usage,
    "static": _static,
}


def search_index(ctx: Context) -> str:
    """A script that sets the index the site's search reads: title, link, date and text."""
    docs = []
    for paper in ctx.kb.papers.values():
        entries = " ".join(e.text for e in ctx.kb.entries_of(paper.id))
        text = " ".join([paper.title, " ".join(paper.authors), paper.abstract, entries])
        url = site_file("paper", paper.id)
        docs.append({"title": paper.title, "url": url, "date": paper.date, "text": text.lower()})
    data = json.dumps(docs, ensure_ascii=True)
    # markup characters as escapes: the index stays inert even if pasted into a page
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        data = data.replace(char, escaped)
    return f"window.FRONTIER_INDEX = {data};\n"


def write_site(ws: Workspace, out: Path) -> dict[str, int]:
    """Write every file of the site under `out`; only files whose content changed are rewritten."""
    files = site_pages(ws)
    written = sum(write_if_changed(out / path, text) for path, text in sorted(files.items()))
    pages = sum(1 for path in files if path.endswith(".html"))
    return {"pages": pages, "files": len(files), "written": written}
