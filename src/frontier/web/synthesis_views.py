"""The maps and ask pages: stored research maps and checked answers, citations linked. What each
shows; for the maps, how the server answers them and what the static site writes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from frontier.model import StoredMap
from frontier.render.common import Context
from frontier.store.browse import load_map, map_rows
from frontier.synthesize.ask import Answer
from frontier.synthesize.presets import PRESETS
from frontier.web.base import NotFound, View
from frontier.web.numbers import path_number

if TYPE_CHECKING:
    from frontier.web.server_state import ServerState
    from frontier.web.site_build import SiteBuild

Source = dict[str, Any]  # number, paper_id, title, date, pages (as a bundle stores it)


MAX_ROW_ID = 2**63 - 1


def stored_map(conn: sqlite3.Connection, map_id: int) -> StoredMap:
    """The stored map, or the page's 404 (also for an id no SQLite integer can hold)."""
    stored = load_map(conn, map_id) if 0 <= map_id <= MAX_ROW_ID else None
    if stored is None:
        raise NotFound(f"No research map {map_id}.")
    return stored


def maps_view(ctx: Context, rows: list[dict[str, Any]]) -> View:
    return View("maps.html", "Research maps", {"maps": rows})


def map_view(ctx: Context, stored: StoredMap) -> View:
    """One stored map: overview, themes, chronology, open problems, takeaways and its bundle."""
    content = json.loads(stored.content)
    sources = {s["number"]: s for s in json.loads(stored.bundle)}
    said = {p["number"]: p["contribution"] for p in content.get("papers", [])}

    def members(numbers: list[int]) -> list[Source]:
        return [sources[n] | {"said": said.get(n, "")} for n in numbers if n in sources]

    def items(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """An item as shown: its sentence, the papers it names that the sentence does not
        cite, and who wrote it (code quotes the paper)."""
        return [
            i
            | {
                "more": [n for n in i["papers"] if f"[{n}]" not in i["text"]],
                "by": i.get("by", "the model"),
                "group": i.get("group", ""),
                "page": i.get("page"),
                "quote": i.get("quote", ""),
            }
            for i in rows
        ]

    takeaways = items(content["takeaways"])
    data = {
        "map": stored,
        "topic": ctx.topic_title(stored.topic) if stored.topic else "all topics",
        "content": content,
        "usage": content.get("usage", {}),
        "sources": sources,
        "themes": [theme | {"papers": members(theme["members"])} for theme in content["themes"]],
        "apart": members(content.get("apart", [])),
        "chronology": [(p["period"], members(p["papers"])) for p in content["chronology"]],
        "problems": items(content["open_problems"]),
        "takeaway_groups": [
            (part, [t for t in takeaways if t["group"] == part])
            for part in dict.fromkeys(t["group"] for t in takeaways)
        ],
    }
    title = f"Research map: {data['topic']} ({stored.at[:10]})"
    return View("map.html", title, data)


def map_cited_pages(conn: sqlite3.Connection) -> set[tuple[str, int]]:
    """(paper, page) of every page the bundle of a listed map names."""
    pages: set[tuple[str, int]] = set()
    for row in map_rows(conn):
        for source in json.loads(stored_map(conn, row["id"]).bundle):
            pages.update((source["paper_id"], page) for page in source["pages"])
    return pages


def maps_page(server: ServerState, request: Request) -> Response:
    with server.reading() as (conn, ctx):
        return server.page(maps_view(ctx, map_rows(conn)), ctx)


def maps_files(site: SiteBuild) -> None:
    site.write("maps", maps_view(site.ctx, map_rows(site.conn)))


def map_page(server: ServerState, request: Request) -> Response:
    with server.reading() as (conn, ctx):
        map_id = path_number(request.path_params["map_id"], "research map")
        return server.page(map_view(ctx, stored_map(conn, map_id)), ctx)


def map_files(site: SiteBuild) -> None:
    for row in map_rows(site.conn):
        site.write("map", map_view(site.ctx, stored_map(site.conn, row["id"])), row["id"])


def ask_view(ctx: Context, form: Mapping[str, str], error: str = "", asking: bool = False) -> View:
    """The ask form; while `asking`, the place the streamed answer goes."""
    data = {
        "form": {k: form.get(k, "") for k in ("q", "topic", "preset")},
        "topics": ctx.settings.topics,
        "presets": PRESETS,
        "error": error,
        "asking": asking,
    }
    return View("ask.html", "Ask", data)


def answer_data(answer: Answer) -> dict[str, Any]:
    """The checked answer for its template: sources as a bundle stores them, usage, citations."""
    sources = {s.number: asdict(s) | {"text": None} for s in answer.bundle.sources}
    quotes, said = [], answer.text
    if answer.answering:
        head, _, said = answer.text.partition("\n\n")
        quotes = head.splitlines()
    return {
        "answer": answer,
        # a line before the quotes says they hold no answer of the kind asked
        "lead": " ".join(line for line in quotes if not line.startswith("- ")),
        "quotes": [line.removeprefix("- ") for line in quotes if line.startswith("- ")],
        "said": said,  # what the model wrote that the check kept
        "sources": sources,
        "result": answer.result,
        "usage": answer.result.usage if answer.result else None,
    }
