"""The digest pages: every stored digest as the vault has it, entries as the topic pages show
them, links to the paper pages. What they show, how the server answers them and what the static
site writes."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from frontier.config import Settings
from frontier.model import ConflictEvidence, Relation
from frontier.render.common import Context
from frontier.render.digest import WITH_EVIDENCE, Digest, ItemNews, Period, build_digest
from frontier.render.digest import relation_label as label
from frontier.render.digest_page import CHANGE_TITLES, NO_NEW_PAPER, stored_intro, stored_title
from frontier.store.digests import StoredDigest, stored_digests
from frontier.web.base import NotFound, View
from frontier.web.views import entry_row, papers_of

if TYPE_CHECKING:
    from frontier.web.server_state import ServerState
    from frontier.web.site_build import SiteBuild

DIGESTS_SHOWN = 10  # whole on the list page; each digest also has a page of its own


def stored_digest_data(conn: sqlite3.Connection, settings: Settings, number: int) -> dict[str, Any]:
    """The `number`-th newest stored digest, ready for the digest_body macro."""
    rows = stored_digests(conn)
    row, previous = rows[number], rows[number + 1] if number + 1 < len(rows) else None
    digest = build_digest(conn, settings, Period(row.after_seq, row.upto_seq))
    about = {"row": row, "title": stored_title(row), "intro": stored_intro(row, previous)}
    return about | {"ctx": digest.ctx} | digest_body(digest)


def digests_view(conn: sqlite3.Connection, settings: Settings) -> View:
    """Every digest by date, the newest ones whole."""
    rows = stored_digests(conn)
    shown = [stored_digest_data(conn, settings, n) for n in range(min(DIGESTS_SHOWN, len(rows)))]
    return View("digests.html", "What changed", {"digests": rows, "shown": shown})


def digest_view(conn: sqlite3.Connection, settings: Settings, name: str) -> View:
    """One stored digest."""
    rows: list[StoredDigest] = stored_digests(conn)
    number = next((n for n, row in enumerate(rows) if row.name == name), None)
    if number is None:
        raise NotFound(f"No digest '{name}'.")
    data = stored_digest_data(conn, settings, number)
    return View("digest.html", data["title"], {"d": data})


def digest_body(digest: Digest) -> dict[str, Any]:
    """The digest's sections as plain rows for the template."""
    ctx = digest.ctx
    return {
        "summary": digest.summary(),
        "topics": [
            {
                "slug": slug,
                "title": ctx.topic_title(slug),
                "entries": [
                    entry_row(ctx, e.topic, e.paper)
                    | {"relations": _relations(ctx, list(e.relations))}
                    for e in entries
                ],
            }
            for slug, entries in digest.topics
        ],
        "outside": [
            {"paper": p, "reason": ctx.kb.triage_of(p.id)[0].reason} for p in digest.outside
        ],
        "uncurated": digest.uncurated,
        "gaps": [_news(ctx, "Gap", n) for n in digest.gaps],
        "conflicts": [_news(ctx, "Conflict", n) for n in digest.conflicts],
        "proposed": [{"item": g, "new": new} for g, new in digest.proposed],
        "others": [
            {"paper": ctx.kb.papers[r.paper_id], "topic": r.topic, "label": label(ctx, r)}
            for r in digest.other_relations
        ],
        "inputs": digest.inputs,
        "counts": digest.shown_counts(),
        "usage": digest.usage_line(),
        "no_new_paper": NO_NEW_PAPER,
    }


def _relations(ctx: Context, relations: list[Relation]) -> list[dict[str, Any]]:
    return [
        {"rel": r, "label": label(ctx, r), "thesis": r.kind == "thesis"}
        for r in relations
        if r.kind in WITH_EVIDENCE
    ]


def _news(ctx: Context, noun: str, news: ItemNews) -> dict[str, Any]:
    found = ctx.kb.evidence.get(news.item.id) if noun == "Conflict" else None
    return {
        "noun": noun,
        "change": CHANGE_TITLES[news.change],
        "item": news.item,
        "papers": papers_of(ctx, list(news.relations)),
        "pair": _pair(ctx, found) if found and news.change == "flagged" else [],
        "judged": found if found and found.label else None,
    }


def _pair(ctx: Context, found: ConflictEvidence) -> list[dict[str, Any]]:
    """The two disagreeing claims: paper, value, page and quote."""
    return [
        {"paper": ctx.kb.papers[paper], "value": value, "page": page, "quote": quote}
        for paper, value, page, quote in (
            (found.paper_a, found.value_a, found.page_a, found.quote_a),
            (found.paper_b, found.value_b, found.page_b, found.quote_b),
        )
        if paper in ctx.kb.papers
    ]


# how the server answers each page, and what the static site writes for it


def digests_page(server: ServerState, request: Request) -> Response:
    with server.reading() as (conn, ctx):
        return server.page(digests_view(conn, server.ws.settings), ctx)


def digests_files(site: SiteBuild) -> None:
    site.write("digests", digests_view(site.conn, site.ctx.settings))


def digest_page(server: ServerState, request: Request) -> Response:
    with server.reading() as (conn, ctx):
        view = digest_view(conn, server.ws.settings, request.path_params["name"])
        return server.page(view, ctx)


def digest_files(site: SiteBuild) -> None:
    for row in stored_digests(site.conn):
        site.write("digest", digest_view(site.conn, site.ctx.settings, row.name), row.name)
