"""The KB's pages: topics, topic, frontier, paper and page, entity, claims, search and usage.
What each shows, as plain data for its template (shared by the server and the site); how the
server answers it; what the static site writes for it."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from frontier.model import Claim, GapOrConflict, Paper, Relation
from frontier.render.common import Context, stance
from frontier.store.browse import cited_pages, page_count, page_counts, read_only
from frontier.store.kb import untracked_config_gaps
from frontier.store.queries import page_text
from frontier.store.status import StatusError, gap_topic, move_gap
from frontier.synthesize.retrieve import search_papers
from frontier.web import plots
from frontier.web.base import NotFound, View
from frontier.web.links import Links
from frontier.web.numbers import path_number, query_number
from frontier.web.server_state import usage_rows
from frontier.web.synthesis_views import map_cited_pages

if TYPE_CHECKING:
    from frontier.web.server_state import ServerState
    from frontier.web.site_build import SiteBuild

HEADLINE_CLAIMS = 3
CLAIM_SORTS = ("newest", "value_desc", "value_asc")
_RELATION_ORDER = {"gap": 0, "conflict": 1, "thesis": 2, "first": 3, "coverage": 4, "entity": 5}
SEARCH_LIMIT = 20
# the biggest pages are cut on the server (the static site has them whole)
ENTRIES_SHOWN, CLAIMS_SHOWN = 200, 500
_PAGE_OF_PAPER = re.compile(r"^(?P<id>.+)/page/(?P<n>[^/]*)$")


def topics_view(ctx: Context) -> View:
    """Every topic with its summary and paper count, and papers per topic over time."""
    topics = [{"topic": t, "papers": len(ctx.kb.topic_papers(t.slug))} for t in ctx.settings.topics]
    data = {
        "field": ctx.settings.field,
        "topics": topics,
        "as_of": ctx.as_of(ctx.kb.papers.values()),
    }
    data["plot"] = plots.papers_per_topic(ctx)
    data["entities"] = ctx.kb.entities
    in_topics = {t.paper_id for t in ctx.kb.triage if t.topic}
    data["others"] = [p for p in ctx.kb.papers.values() if p.id not in in_topics]
    return View("topics.html", ctx.settings.field.name, data)


def _topic(ctx: Context, slug: str) -> Any:
    for topic in ctx.settings.topics:
        if topic.slug == slug:
            return topic
    raise NotFound(f"No topic '{slug}'.")


def topic_view(ctx: Context, slug: str, limit: int | None = None) -> View:
    """A topic's scope and its entries, newest first (the newest `limit`), with headline numbers."""
    topic = _topic(ctx, slug)
    papers = ctx.kb.topic_papers(slug)
    entries = [entry_row(ctx, slug, p) for p in papers[:limit]]
    data = {"topic": topic, "entries": entries, "as_of": ctx.as_of(papers, slug)}
    data["total"] = len(papers)
    data["out_of_scope"] = topic.out_of_scope_lines()
    return View("topic.html", topic.title, data)


def entry_row(ctx: Context, slug: str, paper: Paper) -> dict[str, Any]:
    """A paper's entry in a topic as the topic page shows it (and digests too)."""
    verified = [c for c in ctx.kb.claims_of(paper.id) if c.verified]
    return {
        "paper": paper,
        "entry": ctx.kb.entry(paper.id, slug),
        "claims": [c for c in verified if c.headline][:HEADLINE_CLAIMS],
        "verified": len(verified),
    }


def frontier_view(ctx: Context, slug: str) -> View:
    """Open gaps and conflicts with the papers bearing on each, proposals and theses."""
    topic = _topic(ctx, slug)
    gaps = [g for g in ctx.kb.gaps if g.topic == slug]
    conflicts = [c for c in ctx.kb.conflicts if c.topic == slug]
    data = {
        "topic": topic,
        "gaps": _bearing(ctx, "gap", [g for g in gaps if g.status == "open"]),
        "untracked": [t for s, t in untracked_config_gaps(ctx.settings, ctx.kb.gaps) if s == slug],
        "conflicts": _bearing(ctx, "conflict", [c for c in conflicts if c.status == "open"]),
        "proposed": _bearing(ctx, "gap", [g for g in gaps if g.status == "proposed"]),
        "theses": [_thesis(ctx, thesis) for thesis in topic.theses],
    }
    return View("frontier.html", f"Frontier: {topic.title}", data)


def _bearing(ctx: Context, kind: str, items: Sequence[GapOrConflict]) -> list[dict[str, Any]]:
    return [
        {"item": item, "papers": papers_of(ctx, ctx.kb.relations_to(kind, str(item.id)))}
        for item in items
    ]


def papers_of(ctx: Context, relations: list[Relation]) -> list[dict[str, Any]]:
    """The papers of these relations with the evidence of each, for the `bearing` macro."""
    return [
        {"paper": ctx.kb.papers[r.paper_id], "evidence": r.evidence, "page": r.page, "how": r.how}
        for r in relations
    ]


def _thesis(ctx: Context, thesis: str) -> dict[str, Any]:
    related = ctx.kb.relations_to("thesis", thesis)
    groups = []
    for label in ("supports", "challenges", "bears on"):
        group = [r for r in related if stance(r.detail) == label]
        if group:
            groups.append((label, papers_of(ctx, group)))
    return {"text": thesis, "groups": groups}


def paper_view(ctx: Context, paper_id: str, pages: int) -> View:
    """One paper: metadata, topics and why, entries, claims with page links, relations."""
    paper = ctx.kb.papers.get(paper_id)
    if paper is None:
        raise NotFound(f"No paper with id '{paper_id}'.")
    claims = ctx.kb.claims_of(paper_id)
    data = {
        "paper": paper,
        "pages": pages,
        "triage": sorted(ctx.kb.triage_of(paper_id), key=lambda t: (t.topic == "", t.topic)),
        "entries": ctx.kb.entries_of(paper_id),
        "verified": sorted((c for c in claims if c.verified), key=lambda c: not c.headline),
        "unverified": [c for c in claims if not c.verified],
        "relations": [_relation(ctx, r) for r in _ordered(ctx.kb.relations_of(paper_id))],
    }
    return View("paper.html", paper.title, data)


def _ordered(relations: list[Relation]) -> list[Relation]:
    return sorted(
        relations, key=lambda r: (_RELATION_ORDER.get(r.kind, 9), r.kind, r.topic, r.target)
    )


def _relation(ctx: Context, rel: Relation) -> dict[str, Any]:
    """A relation with what it points at: an entity, a gap or conflict, or a topic."""
    row: dict[str, Any] = {"rel": rel, "entity": None, "item": None}
    if rel.kind == "entity":
        row["entity"] = ctx.entity(rel.target)
    elif rel.kind in ("gap", "conflict"):
        row["item"] = ctx.item(rel.kind, rel.target)
    return row


def page_text_view(
    ctx: Context, paper_id: str, number: int, text: str | None, pages: int, claim_id: int | None
) -> View:
    """One page of a paper's stored text; a claim's quote on it is marked."""
    paper = ctx.kb.papers.get(paper_id)
    if paper is None:
        raise NotFound(f"No paper with id '{paper_id}'.")
    if text is None:
        raise NotFound(f"{paper_id} has no page {number} (it has {pages}).")
    claim = next((c for c in ctx.kb.claims_of(paper_id) if c.id == claim_id), None)
    data = {
        "paper": paper,
        "number": number,
        "pages": pages,
        "claim": claim,
        "parts": mark_quote(text, claim.quote if claim and claim.page == number else ""),
    }
    return View("page.html", f"{paper.title}, page {number}", data)


def mark_quote(text: str, quote: str) -> list[tuple[str, bool]]:
    """The text in parts, (part, is_quote); the quote is found whatever its line breaks."""
    words = quote.split()
    if not words:
        return [(text, False)]
    found = re.search(r"\s+".join(re.escape(w) for w in words), text)
    if found is None:
        return [(text, False)]
    return [(text[: found.start()], False), (found.group(0), True), (text[found.end() :], False)]


def entity_view(ctx: Context, slug: str) -> View:
    """An entity and the papers related to it, grouped by topic."""
    entity = ctx.entity(slug)
    if entity is None:
        raise NotFound(f"No entity '{slug}'.")
    related = ctx.kb.relations_to("entity", slug)
    present = {r.topic for r in related}
    order = [t.slug for t in ctx.settings.topics if t.slug in present]
    order += sorted(present - set(order))
    groups = [(t, papers_of(ctx, [r for r in related if r.topic == t])) for t in order]
    return View("entity.html", entity.name, {"entity": entity, "groups": groups})


def claims_view(
    ctx: Context,
    page_counts: dict[str, int],
    filters: dict[str, str],
    sort: str,
    limit: int | None = None,
) -> View:
    """Verified claims matching every filter (substrings, any case), sorted; the first `limit`."""
    if sort not in CLAIM_SORTS:
        sort = "newest"
    verified = [c for c in ctx.kb.claims if c.verified]
    wanted = [(_CLAIM_FIELDS[k], v.casefold()) for k, v in filters.items() if v]
    picked = [c for c in verified if _matches(c, wanted)]
    data = {
        "claims": sort_claims(ctx, picked, sort)[:limit],
        "matching": len(picked),
        "total": len(verified),
        "filters": filters,
        "sort": sort,
        "sorts": CLAIM_SORTS,
        "choices": {
            "metric": sorted({c.metric for c in verified if c.metric}),
            "model": sorted({c.model_name for c in verified if c.model_name}),
            "hardware": sorted({c.hardware for c in verified if c.hardware}),
        },
        "papers": ctx.kb.papers,
        "page_counts": page_counts,
        "plot": plots.speedups_by_family(ctx),
    }
    return View("claims.html", "Claims explorer", data)


_CLAIM_FIELDS = {"metric": "metric", "model": "model_name", "hardware": "hardware"}


def _matches(claim: Claim, wanted: list[tuple[str, str]]) -> bool:
    return all(needle in getattr(claim, attr).casefold() for attr, needle in wanted)


def sort_claims(ctx: Context, claims: list[Claim], sort: str) -> list[Claim]:
    """Newest paper first, or by value (claims without a value last)."""
    order = {pid: n for n, pid in enumerate(ctx.kb.papers)}
    newest = sorted(claims, key=lambda c: (order.get(c.paper_id, len(order)), c.id))
    if sort == "newest":
        return newest
    valued = [c for c in newest if c.value is not None]
    valued.sort(key=lambda c: c.value or 0.0, reverse=sort == "value_desc")
    return valued + [c for c in newest if c.value is None]


def search_view(ctx: Context, query: str, hits: list[Any]) -> View:
    """Search results with their best page and a snippet whose matches are marked."""
    rows = [
        {"hit": hit, "paper": ctx.kb.papers.get(hit.id), "parts": snippet_parts(hit.snippet)}
        for hit in hits
    ]
    return View(
        "search.html", f"Search: {query}" if query else "Search", {"q": query, "hits": rows}
    )


def snippet_parts(snippet: str) -> list[tuple[str, bool]]:
    """FTS5 snippets mark matches with [ and ]: split them into (text, is_match) parts."""
    parts: list[tuple[str, bool]] = []
    for n, piece in enumerate(re.split(r"\[([^\[\]]*)\]", snippet)):
        if piece:
            parts.append((piece, n % 2 == 1))
    return parts


def usage_view(rows: list[dict[str, Any]], purposes: list[dict[str, Any]], priced: bool) -> View:
    """LLM calls, cache hits, tokens and cost per run and per purpose, and tokens over runs."""
    data = {"runs": rows, "purposes": purposes, "priced": priced}
    data["plot"] = plots.tokens_over_runs(rows)
    return View("usage.html", "LLM usage", data)


# how the server answers each page, and what the static site writes for it


def topics_page(server: ServerState, request: Request) -> Response:
    with server.reading() as (_conn, ctx):
        return server.page(topics_view(ctx), ctx)


def topics_files(site: SiteBuild) -> None:
    site.write("topics", topics_view(site.ctx))


def topic_page(server: ServerState, request: Request) -> Response:
    with server.reading() as (_conn, ctx):
        limit = None if request.query_params.get("all") else ENTRIES_SHOWN
        return server.page(topic_view(ctx, request.path_params["slug"], limit), ctx)


def topic_files(site: SiteBuild) -> None:
    for topic in site.ctx.settings.topics:
        site.write("topic", topic_view(site.ctx, topic.slug), topic.slug)


def by_slug(view: Callable[[Context, str], View]) -> Callable[[ServerState, Request], Response]:
    """A page whose view takes the slug of its path: a topic's frontier, an entity."""

    def page(server: ServerState, request: Request) -> Response:
        with server.reading() as (_conn, ctx):
            return server.page(view(ctx, request.path_params["slug"]), ctx)

    return page


def frontier_files(site: SiteBuild) -> None:
    for topic in site.ctx.settings.topics:
        site.write("frontier", frontier_view(site.ctx, topic.slug), topic.slug)


async def gap_action(server: ServerState, request: Request) -> Response:
    """Accept or reject a proposed gap of a frontier page: POST only, with --allow-edits and
    this page's token."""
    if not server.allow_edits:
        raise HTTPException(403, "Editing is off: start `frontier serve --allow-edits`.")
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    if not server.token_matches(form.get("csrf", [""])[0]):
        raise HTTPException(403, "The form is stale: reload the page and try again.")
    gap_id = path_number(request.path_params["gap_id"], "gap")
    action = request.path_params["action"]
    if action not in ("accept", "reject"):
        raise NotFound(f"No action '{action}' on gaps.")
    try:
        with contextlib.closing(server.ws.connect()) as conn:
            move_gap(conn, gap_id, action)
    except StatusError as exc:
        raise HTTPException(409, str(exc)) from None
    with contextlib.closing(read_only(server.ws.db_path)) as conn:
        topic = gap_topic(conn, gap_id)
    return RedirectResponse(Links().url("frontier", topic), status_code=303)


def paper_page(server: ServerState, request: Request) -> Response:
    """`/paper/ID` or `/paper/ID/page/N` (an id may itself hold a slash)."""
    rest = request.path_params["rest"]
    with server.reading() as (conn, ctx):
        found = _PAGE_OF_PAPER.match(rest)
        if found is None:
            return server.page(paper_view(ctx, rest, page_count(conn, rest)), ctx)
        paper_id = found["id"]
        page = path_number(found["n"], f"page of {paper_id}")
        claim = query_number(request.query_params, "claim")
        view = page_text_view(
            ctx,
            paper_id,
            page,
            page_text(conn, paper_id, page),
            page_count(conn, paper_id),
            claim,
        )
        return server.page(view, ctx)


def paper_files(site: SiteBuild) -> None:
    for paper_id in site.ctx.kb.papers:
        view = paper_view(site.ctx, paper_id, site.counts.get(paper_id, 0))
        site.write("paper", view, paper_id)


def page_files(site: SiteBuild) -> None:
    """A page view for every page a claim or a map cites (a claim's quote marked)."""
    ctx, conn = site.ctx, site.conn
    for paper_id, number in sorted({*cited_pages(conn), *map_cited_pages(conn)}):
        claim = next((c for c in ctx.kb.claims_of(paper_id) if c.page == number), None)
        text = page_text(conn, paper_id, number)
        if text is None:
            continue  # re-ingested since the map was written, with fewer pages
        claim_id = claim.id if claim else None
        pages = site.counts.get(paper_id, 0)
        view = page_text_view(ctx, paper_id, number, text, pages, claim_id)
        site.write("page", view, paper_id, number)


def entity_files(site: SiteBuild) -> None:
    for entity in site.ctx.kb.entities:
        site.write("entity", entity_view(site.ctx, entity.slug), entity.slug)


def claims_page(server: ServerState, request: Request) -> Response:
    params = request.query_params
    filters = {k: params.get(k, "").strip() for k in ("metric", "model", "hardware")}
    with server.reading() as (conn, ctx):
        counts = page_counts(conn)
        sort = params.get("sort", "newest")
        return server.page(claims_view(ctx, counts, filters, sort, CLAIMS_SHOWN), ctx)


def claims_files(site: SiteBuild) -> None:
    site.write("claims", claims_view(site.ctx, site.counts, {}, "newest"))


def search_page(server: ServerState, request: Request) -> Response:
    query = request.query_params.get("q", "").strip()
    with server.reading() as (conn, ctx):
        hits = search_papers(conn, query, SEARCH_LIMIT, server.embedder.get()) if query else []
        return server.page(search_view(ctx, query, hits), ctx)


def search_files(site: SiteBuild) -> None:
    """The search form; the site's search reads its index (see `assets`)."""
    site.write("search", search_view(site.ctx, "", []))


def usage_page(server: ServerState, request: Request) -> Response:
    with server.reading() as (conn, ctx):
        runs, purposes, priced = usage_rows(conn, server.ws.settings.llm)
        return server.page(usage_view(runs, purposes, priced), ctx)


def usage_files(site: SiteBuild) -> None:
    runs, purposes, priced = usage_rows(site.conn, site.ctx.settings.llm)
    site.write("usage", usage_view(runs, purposes, priced))


frontier_page = by_slug(frontier_view)
entity_page = by_slug(entity_view)
