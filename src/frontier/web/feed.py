"""The Atom feed of the digests: one entry per digest, the newest first. feedgen writes the XML
(escaping, dates, required elements); the entry's content is the digest page's HTML."""

from __future__ import annotations

import datetime as dt
import sqlite3
import uuid
from typing import TYPE_CHECKING

from feedgen.feed import FeedGenerator
from starlette.requests import Request
from starlette.responses import Response

from frontier.config import Settings
from frontier.store.digests import digest_state, stored_digests
from frontier.web.base import View
from frontier.web.digest_views import stored_digest_data
from frontier.web.links import Links, VaultLinks, site_file
from frontier.web.templating import render

if TYPE_CHECKING:
    from frontier.web.server_state import ServerState
    from frontier.web.site_build import SiteBuild

FEED_ENTRIES = 30  # the newest digests; older ones stay on the digest pages
FEED_TITLE = "What changed"


def _time(stamp: str) -> dt.datetime:
    return dt.datetime.fromisoformat(stamp)


def atom_feed(conn: sqlite3.Connection, settings: Settings, links: Links | VaultLinks) -> str:
    """The feed, every link made by `links`: absolute on a server or with a base URL, else
    relative to the feed's own place."""
    feed_id = uuid.UUID(digest_state(conn, "feed_id"))
    rows = stored_digests(conn)[:FEED_ENTRIES]
    feed = FeedGenerator()
    feed.id(feed_id.urn)
    feed.title(f"{settings.field.name}: {FEED_TITLE.lower()}")
    feed.subtitle("A digest of the knowledge base after every update, built from its store.")
    feed.author({"name": "frontier"})
    feed.link(href=links.url("feed"), rel="self", type="application/atom+xml")
    feed.link(href=links.url("digests"), rel="alternate", type="text/html")
    feed.updated(_time(rows[0].at if rows else digest_state(conn, "began_at")))
    for number, row in enumerate(rows):
        data = stored_digest_data(conn, settings, number)
        entry = feed.add_entry(order="append")
        entry.id(uuid.uuid5(feed_id, row.name).urn)
        entry.title(f"{row.name}: {data['summary'][0]}")
        entry.updated(_time(row.at))
        entry.published(_time(row.at))
        entry.link(href=links.url("digest", row.name), rel="alternate", type="text/html")
        entry.summary(" · ".join(data["summary"]))
        view = View("digest_feed.html", data["title"], {"d": data})
        entry.content(render(view, data["ctx"], links), type="html")
    atom: bytes = feed.atom_str(pretty=True)
    return atom.decode("utf-8")


def vault_feed(conn: sqlite3.Connection, settings: Settings) -> str:
    """kb/feed.xml: links to the published site when `site.base_url` is set, else to the vault's
    markdown pages, relative to the feed."""
    base = settings.site.base_url
    links = Links(static_site=True, base=base) if base else VaultLinks()
    return atom_feed(conn, settings, links)


# how the server answers the feed, and how the static site writes it


def feed_page(server: ServerState, request: Request) -> Response:
    """The feed, its links absolute on this server: at the address it is shared at, never one a
    request names (on loopback, the request's own)."""
    links = Links(base=server.sharing.base_url or str(request.base_url))
    with server.reading() as (conn, _ctx):
        xml = atom_feed(conn, server.ws.settings, links)
    return Response(xml, media_type="application/atom+xml; charset=utf-8")


def feed_files(site: SiteBuild) -> None:
    """The feed: links start with `site.base_url`, else are relative to the feed."""
    links = site.links("feed", base=site.ctx.settings.site.base_url)
    site.add(site_file("feed"), atom_feed(site.conn, site.ctx.settings, links))
