"""`frontier site`: the web UI's pages written as files with relative links, search in the page."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from frontier.render.common import Context
from frontier.render.vault import write_if_changed
from frontier.store.kb import load_kb
from frontier.store.queries import page_text
from frontier.web import synthesis, views
from frontier.web.links import STATIC_FILES, Links, site_file
from frontier.web.reads import cited_pages, read_only, usage_rows
from frontier.web.templating import render
from frontier.workspace import Workspace

SEARCH_INDEX = "search-index.js"


def site_pages(ws: Workspace) -> dict[str, str]:
    """Every file of the site: its path inside the site and its text."""
    with contextlib.closing(read_only(ws.db_path)) as conn:
        ctx = Context(load_kb(conn, ws.settings), ws.settings)
        counts = dict(conn.execute("SELECT id, n_pages FROM papers WHERE n_pages > 0"))
        files = {site_file(*key): _html(ctx, view, site_file(*key)) for key, view in _views(ctx)}
        files.update(_maps(ctx, conn))
        files.update(_page_views(ctx, conn, counts))
        files.update(_claims_and_usage(ctx, conn, counts))
    folder = resources.files("frontier.web").joinpath("static")
    for name in STATIC_FILES:
        files[site_file("static", name)] = folder.joinpath(name).read_text(encoding="utf-8")
    files[site_file("static", SEARCH_INDEX)] = search_index(ctx)
    return files


def _html(ctx: Context, view: views.View, here: str) -> str:
    return render(view, ctx, Links(static_site=True, here=here))


def _views(ctx: Context) -> Iterator[tuple[tuple[str, ...], views.View]]:
    yield ("topics",), views.topics_view(ctx)
    yield ("search",), views.search_view(ctx, "", [])
    for topic in ctx.settings.topics:
        yield ("topic", topic.slug), views.topic_view(ctx, topic.slug)
        yield ("frontier", topic.slug), views.frontier_view(ctx, topic.slug)
    for entity in ctx.kb.entities:
        yield ("entity", entity.slug), views.entity_view(ctx, entity.slug)


def _maps(ctx: Context, conn: sqlite3.Connection) -> dict[str, str]:
    rows = synthesis.map_rows(conn)
    files = {site_file("maps"): _html(ctx, synthesis.maps_view(ctx, rows), site_file("maps"))}
    for row in rows:
        here = site_file("map", row["id"])
        files[here] = _html(ctx, synthesis.map_view(ctx, synthesis.map_row(conn, row["id"])), here)
    return files


def _map_pages(conn: sqlite3.Connection) -> set[tuple[str, int]]:
    """(paper, page) of every page the bundle of a listed map names."""
    pages = set()
    for row in synthesis.map_rows(conn):
        for source in json.loads(synthesis.map_row(conn, row["id"])["bundle"]):
            pages.update((source["paper_id"], page) for page in source["pages"])
    return pages


def _page_views(ctx: Context, conn: sqlite3.Connection, counts: dict[str, int]) -> dict[str, str]:
    """Each paper's page, and a page view for every page a claim or a map cites (a claim's
    quote marked)."""
    files = {}
    for paper_id in ctx.kb.papers:
        here = site_file("paper", paper_id)
        files[here] = _html(ctx, views.paper_view(ctx, paper_id, counts.get(paper_id, 0)), here)
    for paper_id, number in sorted({*cited_pages(conn), *_map_pages(conn)}):
        claim = next((c for c in ctx.kb.claims_of(paper_id) if c.page == number), None)
        text = page_text(conn, paper_id, number)
        if text is None:
            continue  # re-ingested since the map was written, with fewer pages
        claim_id = claim.id if claim else None
        view = views.page_text_view(ctx, paper_id, number, text, counts.get(paper_id, 0), claim_id)
        here = site_file("page", paper_id, number)
        files[here] = _html(ctx, view, here)
    return files


def _claims_and_usage(
    ctx: Context, conn: sqlite3.Connection, counts: dict[str, int]
) -> dict[str, str]:
    runs, purposes, priced = usage_rows(conn, ctx.settings.llm)
    claims = views.claims_view(ctx, counts, {}, "newest")
    return {
        site_file("claims"): _html(ctx, claims, site_file("claims")),
        site_file("usage"): _html(
            ctx, views.usage_view(runs, purposes, priced), site_file("usage")
        ),
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
