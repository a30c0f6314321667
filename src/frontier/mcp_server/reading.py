"""The read-only tools and resources: each reads the KB through a read-only connection, the way
the web UI's pages do, and returns a typed record (or, for a resource, a vault page)."""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from frontier.mcp_server import records
from frontier.model import Relation
from frontier.render.common import Context
from frontier.render.digest import Period, build_digest, digest_data, relation_label
from frontier.render.digest_page import digest_page, digest_path
from frontier.render.sources import source_page
from frontier.render.topics import topic_page
from frontier.store import digests
from frontier.store.kb import load_gaps
from frontier.store.listing import claims_data, items_data, untracked_gaps
from frontier.store.queries import page_text, paper_detail
from frontier.synthesize.ask import topic_papers
from frontier.synthesize.retrieve import search_papers
from frontier.web.server_state import KBCache, SharedEmbedder
from frontier.workspace import Workspace

MAX_HITS = 50
PAPER_URI = "frontier://paper/{paper_id}"
TOPIC_URI = "frontier://topic/{slug}"


def paper_uri(paper_id: str) -> str:
    return PAPER_URI.format(paper_id=paper_id)


class KBReader:
    """What every tool call of one server shares: the workspace, the KB loaded once per change
    of the store, and the embedding model loaded once."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.cache = KBCache(ws)
        self.embedder = SharedEmbedder()

    def reading(self) -> contextlib.AbstractContextManager[tuple[sqlite3.Connection, Context]]:
        """A read-only connection for one call and the KB as of now."""
        return self.cache.reading()

    def check_topic(self, topic: str | None) -> str | None:
        """The topic slug, or a tool error naming the known ones."""
        known = [t.slug for t in self.ws.settings.topics]
        if topic is not None and topic not in known:
            raise ToolError(f"no topic '{topic}' (known topics: {', '.join(known) or 'none'})")
        return topic

    @staticmethod
    def check_paper(ctx: Context, paper_id: str | None) -> None:
        if paper_id is not None and paper_id not in ctx.kb.papers:
            raise ToolError(f"no paper '{paper_id}' in the KB (search finds papers by their words)")

    def search(
        self,
        query: Annotated[str, Field(description="Words to look for.", min_length=1)],
        topic: Annotated[str | None, Field(description="Only papers of this topic.")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_HITS)] = 10,
    ) -> records.SearchResult:
        """Search the KB's papers by their full text (BM25 and dense vectors, fused). Returns the
        best papers first, each with its id, title, the page and section of its best passage
        and a snippet of it. Pass a hit's paper_id to show, claims or relations."""
        if not query.strip():
            raise ToolError("the query is empty")
        self.check_topic(topic)
        with self.reading() as (conn, _ctx):
            among = topic_papers(conn, topic)
            hits = search_papers(conn, query, limit, self.embedder.get(), among)
        return records.SearchResult(
            query=query,
            topic=topic,
            hits=[
                records.SearchHit.model_validate({"paper_id": h.id, **h.to_dict()}) for h in hits
            ],
        )

    def show(
        self,
        paper_id: Annotated[str, Field(description="A paper id, as search returns it.")],
        page: Annotated[int | None, Field(description="A page to read in full.", ge=1)] = None,
    ) -> records.Paper:
        """Show one paper. Returns its title, authors, date, ids, abstract and sections with
        their first page, and with `page` that page's full stored text (to read a quote in
        its context)."""
        with self.reading() as (conn, ctx):
            self.check_paper(ctx, paper_id)
            detail = paper_detail(conn, paper_id)
            text = page_text(conn, paper_id, page) if page else None
        assert detail is not None  # the KB just listed it
        if page is not None and text is None:
            raise ToolError(f"paper '{paper_id}' has no page {page} (it has {detail['n_pages']})")
        fields = {name: detail.get(name) for name in records.Paper.model_fields}
        sections = [records.Section(**s) for s in detail["sections"]]
        return records.Paper.model_validate(
            fields
            | {"paper_id": paper_id, "sections": sections, "page": page, "page_text": text}
            | {"resource": paper_uri(paper_id)}
        )

    def claims(
        self,
        paper_id: Annotated[str | None, Field(description="Only this paper's claims.")] = None,
        metric: Annotated[str | None, Field(description="Metric contains this text.")] = None,
        baseline: Annotated[str | None, Field(description="Baseline contains this text.")] = None,
        hardware: Annotated[str | None, Field(description="Hardware contains this text.")] = None,
        model: Annotated[str | None, Field(description="Measured model contains this.")] = None,
    ) -> records.Claims:
        """List the numbers papers claim (speed-ups, latencies, throughputs, accuracies).
        Returns the verified ones only, each with its paper, metric, value as printed, unit,
        direction, baseline, measured model and hardware, and the paper's sentence stating it
        (quote) with its page. Filters match any part of the field, ignoring case."""
        filters = {"metric": metric, "baseline": baseline, "hardware": hardware, "model": model}
        with self.reading() as (conn, ctx):
            self.check_paper(ctx, paper_id)
            rows = claims_data(conn, filters | {"paper": paper_id})
        picked = [records.claim_record(r) for r in rows if paper_id in (None, r["paper"])]
        return records.Claims(claims=picked)

    def relations(
        self,
        paper_id: Annotated[str | None, Field(description="Only this paper's relations.")] = None,
        gap: Annotated[int | None, Field(description="Only relations to this gap id.")] = None,
    ) -> records.Relations:
        """List how papers bear on the KB. Returns relations to tracked gaps and conflicts, to
        theses (supports or challenges), to entities they name, firsts and new coverage, each
        with the paper's sentence that bears it out (evidence) and its page."""
        with self.reading() as (_conn, ctx):
            self.check_paper(ctx, paper_id)
            if gap is not None and ctx.item("gap", str(gap)) is None:
                raise ToolError(f"no gap {gap} (the gaps tool lists them)")
            found = ctx.kb.relations_of(paper_id) if paper_id else ctx.kb.relations
            picked = [r for r in found if gap is None or (r.kind, r.target) == ("gap", str(gap))]
            return records.Relations(relations=[_relation_record(ctx, r) for r in picked])

    def gaps(
        self, topic: Annotated[str | None, Field(description="Only this topic's gaps.")] = None
    ) -> records.Gaps:
        """List the open questions (gaps) each topic tracks. Returns each gap with its id,
        status (open, closed, proposed by a research map, rejected) and the ids of the papers
        that bear on it; the relations tool with `gap` gives their evidence and pages."""
        self.check_topic(topic)
        with self.reading() as (conn, _ctx):
            stored = items_data(conn, "gaps")
            rows = stored + untracked_gaps(self.ws.settings, load_gaps(conn))
        fields = ("topic", "text", "status", "source", "papers")
        return records.Gaps(
            gaps=[
                records.Gap(gap_id=r["id"], **{k: r[k] for k in fields})
                for r in rows
                if topic in (None, r["topic"])
            ]
        )

    def digest(
        self,
        since: Annotated[
            str | None, Field(description="A date, YYYY-MM-DD; default: since the last digest.")
        ] = None,
    ) -> records.Digest:
        """Tell what changed in the KB since a date (or since the last digest). Returns the
        new entries by topic with their headline claims (each with its quote and page), a
        summary of gaps and conflicts opened or closed and gaps proposed, and the digest as
        markdown. Nothing is stored."""
        title = "What changed"
        with self.reading() as (conn, _ctx):
            upto = digests.log_end(conn)
            if since is None:
                period, title = (
                    Period(digests.digest_mark(conn), upto),
                    f"{title} since the last digest",
                )
            else:
                period, title = Period(upto=upto, since=_date(since)), f"{title} since {since}"
            digest = build_digest(conn, self.ws.settings, period)
        data = digest_data(digest)
        intro = f"Up to now ({dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC); nothing was stored."
        claims = {c.id: c for c in digest.ctx.kb.claims}
        return records.Digest(
            title=title,
            summary=data["summary"],
            counts=data["counts"],
            entries=[
                _digest_entry(entry, claims, digest.ctx)
                for topic in data["topics"]
                for entry in topic["entries"]
            ],
            markdown=digest_page(digest, digest_path("view"), title, intro),
        )

    def topic_markdown(self, slug: str) -> str:
        """A topic's page of the vault: scope, and its papers' entries newest first."""
        self.check_topic(slug)
        with self.reading() as (_conn, ctx):
            return topic_page(ctx, self.ws.settings.topic(slug))

    def paper_markdown(self, paper_id: str) -> str:
        """A paper's page of the vault: metadata, topics, entry, verified claims, relations."""
        with self.reading() as (_conn, ctx):
            self.check_paper(ctx, paper_id)
            return source_page(ctx, ctx.kb.papers[paper_id])


def _relation_record(ctx: Context, relation: Relation) -> records.Relation:
    fields = ("paper_id", "topic", "kind", "target", "detail", "evidence", "page", "how")
    return records.Relation(
        **{name: getattr(relation, name) for name in fields},
        title=ctx.kb.papers[relation.paper_id].title,
        label=relation_label(ctx, relation),
    )


def _date(value: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise ToolError(f"since takes a date as YYYY-MM-DD, not {value!r}") from None


def _digest_entry(
    entry: dict[str, Any], claims: dict[int, Any], ctx: Context
) -> records.DigestEntry:
    title = ctx.kb.papers[entry["paper_id"]].title
    headline = [claims[i] for i in entry["headline_claims"] if i in claims]
    return records.DigestEntry(
        **{k: entry[k] for k in ("paper_id", "title", "date", "topic", "why", "entry")},
        headline_claims=[records.store_claim(c, title) for c in headline],
    )
