"""What changed in the KB over a period, read from the store's change log: new entries per topic
in the order that matters (gap answers, conflict changes, theses, firsts, coverage, entities, the
rest by date), gaps and conflicts that moved, proposals waiting, inputs refused, counts and
model cost. Every line is made from stored rows; no model is called."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from frontier.config import Settings
from frontier.model import Gap, GapOrConflict, Paper, Relation
from frontier.render.common import Context, stance
from frontier.store import digests as store
from frontier.store.browse import cost
from frontier.store.kb import load_kb, sort_newest, sort_papers

# what puts a new entry first, most telling first; an entry with none of them comes last
RANK = ("gap", "conflict", "thesis", "first", "coverage", "entity")
RANK_LABELS = {
    "gap": "bearing on an open gap",
    "conflict": "bearing on a conflict",
    "thesis": "bearing on a thesis",
    "first": "that are a first",
    "coverage": "opening a scope line",
    "entity": "naming a tracked entity",
}
NOTHING_TELLING = "none bears on a gap, conflict or thesis, is a first or names a tracked entity"
# relations a digest shows with their evidence sentence (the rest are in the entry's text)
WITH_EVIDENCE = ("gap", "conflict", "thesis")
RelationKey = tuple[str, str, str, str]  # paper, topic, kind, target
# how a gap or conflict moved, in the order a digest lists them
CHANGES = ("opened", "flagged", "bearing", "closed", "settled")
# the status an item moved to, as a digest names the move (proposals are listed apart)
_MOVES = {
    "gap": {"open": "opened", "closed": "closed"},
    "conflict": {"open": "flagged", "closed": "settled"},
}


@dataclass(frozen=True)
class Period:
    """The log a digest covers: after `after` up to `upto`, or from the time `since` on."""

    after: int = 0
    upto: int = 0
    since: str = ""


@dataclass(frozen=True)
class NewEntry:
    """A paper new in a topic, with its relations there that are new too."""

    paper: Paper
    topic: str
    relations: tuple[Relation, ...]
    in_new_conflict: bool  # one of the two papers of a conflict flagged in the period

    @property
    def kinds(self) -> set[str]:
        found = {r.kind for r in self.relations}
        return (found | {"conflict"}) if self.in_new_conflict else found

    @property
    def rank(self) -> int:
        return next((n for n, kind in enumerate(RANK) if kind in self.kinds), len(RANK))

    @property
    def why(self) -> str:
        """The kind of relation that placed the entry ('' for the rest)."""
        return RANK[self.rank] if self.rank < len(RANK) else ""


@dataclass(frozen=True)
class ItemNews:
    """A gap or conflict that moved in the period, with the new relations bearing on it."""

    item: GapOrConflict
    change: str  # opened | closed | flagged | settled | bearing
    relations: tuple[Relation, ...]


@dataclass
class Changes:
    """The log of a period, by kind of fact."""

    papers: set[str] = field(default_factory=set)
    entries: set[tuple[str, str]] = field(default_factory=set)
    relations: set[RelationKey] = field(default_factory=set)
    gaps: dict[int, list[str]] = field(default_factory=dict)  # statuses it moved to, in order
    conflicts: dict[int, list[str]] = field(default_factory=dict)
    inputs: set[int] = field(default_factory=set)
    llm: set[int] = field(default_factory=set)


def read_changes(rows: list[store.LogRow]) -> Changes:
    found = Changes()
    for row in rows:
        if row.kind == "paper":
            found.papers.add(row.key)
        elif row.kind == "entry":
            paper, topic = json.loads(row.key)
            found.entries.add((paper, topic))
        elif row.kind == "relation":
            paper, topic, kind, target = json.loads(row.key)
            found.relations.add((paper, topic, kind, target))
        elif row.kind in ("gap", "conflict"):
            moves = found.gaps if row.kind == "gap" else found.conflicts
            moves.setdefault(int(row.key), []).append(row.status)
        elif row.kind == "input":
            found.inputs.add(int(row.key))
        elif row.kind == "llm":
            found.llm.add(int(row.key))
    return found


@dataclass
class Digest:
    """Everything a digest says, with the render context of the papers it names."""

    ctx: Context
    period: Period
    topic: str | None
    topics: list[tuple[str, list[NewEntry]]]
    outside: list[Paper]  # new papers triaged out of the field
    uncurated: list[Paper]  # new papers not triaged yet
    gaps: list[ItemNews]
    conflicts: list[ItemNews]
    proposed: list[tuple[Gap, bool]]  # waiting for review; True when proposed in the period
    other_relations: list[Relation]  # new relations of papers not listed above
    inputs: list[dict[str, Any]]
    usage: dict[str, Any]

    @property
    def entries(self) -> list[NewEntry]:
        return [entry for _, entries in self.topics for entry in entries]

    def is_empty(self) -> bool:
        """Nothing happened to report (model calls alone are not news; they count next time)."""
        return not (
            self.entries
            or self.outside
            or self.uncurated
            or self.gaps
            or self.conflicts
            or any(new for _, new in self.proposed)
            or self.other_relations
            or self.inputs
        )

    def counts(self) -> dict[str, int]:
        entries = self.entries
        papers = {e.paper.id for e in entries}
        claims = sum(
            1 for pid in papers for c in self.ctx.kb.claims_of(pid) if c.verified and c.headline
        )
        counts = {
            "new papers": len(papers | {p.id for p in self.outside + self.uncurated}),
            "in topics": len(papers),
            "outside the topics": len(self.outside),
            "not yet curated": len(self.uncurated),
            "new entries": len(entries),
            "headline claims": claims,
            "new relations": sum(len(e.relations) for e in entries)
            + len(self.other_relations)
            + sum(len(n.relations) for n in self.gaps + self.conflicts),
        }
        for kind, label in RANK_LABELS.items():
            counts[f"entries {label}"] = sum(1 for e in entries if kind in e.kinds)
        for change in ("opened", "bearing", "closed"):
            counts[f"gaps {change}"] = sum(1 for n in self.gaps if n.change == change)
        for change in ("flagged", "bearing", "settled"):
            counts[f"conflicts {change}"] = sum(1 for n in self.conflicts if n.change == change)
        counts["proposals waiting"] = len(self.proposed)
        for outcome in ("rejected", "warning"):
            counts[f"inputs {outcome}"] = sum(1 for i in self.inputs if i["outcome"] == outcome)
        return counts

    def shown_counts(self) -> list[tuple[str, int]]:
        """The counts worth a row: the new papers and entries, and every other that is not 0."""
        return [(k, v) for k, v in self.counts().items() if v or k in ("new papers", "new entries")]

    def summary(self) -> list[str]:
        """Five lines: papers, why they matter, gaps and conflicts, inputs, model use."""
        n = self.counts()
        papers = (
            f"{_count(n['new papers'], 'new paper')}: {n['in topics']} in topics, "
            f"{n['outside the topics']} outside them, {n['not yet curated']} not yet curated"
        )
        telling = [
            f"{n[f'entries {label}']} {label}"
            for label in RANK_LABELS.values()
            if n[f"entries {label}"]
        ]
        why = "New entries: " + (", ".join(telling) or NOTHING_TELLING)
        items = (
            f"Gaps: {n['gaps opened']} opened, {n['gaps bearing']} with new papers, "
            f"{n['gaps closed']} closed; conflicts: {n['conflicts flagged']} flagged, "
            f"{n['conflicts bearing']} with new papers, {n['conflicts settled']} settled; "
            f"{_count(n['proposals waiting'], 'proposed gap')} waiting for review"
        )
        inputs = (
            f"Inputs: {n['inputs rejected']} rejected, {n['inputs warning']} stored with a warning"
        )
        return [papers, why, items, inputs, self.usage_line()]

    def usage_line(self) -> str:
        u = self.usage
        line = (
            f"Model: {_count(u['calls'], 'call')} ({u['cache_hits']} from the cache), "
            f"{u['prompt_tokens'] + u['completion_tokens']:,} tokens"
        )
        return line + (f", ${u['cost_usd']:.4f}" if u["priced"] else ", no prices set")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def build_digest(
    conn: sqlite3.Connection, settings: Settings, period: Period, topic: str | None = None
) -> Digest:
    """The digest of the period (of one topic with `topic`), from the log and the KB's rows of
    the papers it names: no other paper is read."""
    changes = read_changes(store.log_rows(conn, period.after, period.upto, period.since))
    flagged = [cid for cid, moves in changes.conflicts.items() if moves[-1] == "open"]
    pairs = store.conflict_papers(conn, flagged)
    named = changes.papers | {p for p, _ in changes.entries} | {k[0] for k in changes.relations}
    named |= {paper for both in pairs.values() for paper in both}
    ctx = Context(load_kb(conn, settings, named), settings)
    in_conflict = {paper for both in pairs.values() for paper in both}
    new = _new_relations(ctx, changes)
    entries = _new_entries(ctx, changes, new, in_conflict, topic)
    listed = {(e.paper.id, e.topic) for e in entries}
    outside, uncurated = _unplaced(ctx, changes.papers)
    usage = store.llm_totals(conn, changes.llm)
    priced = bool(settings.llm.price_prompt_per_m or settings.llm.price_completion_per_m)
    keep = (lambda item: item.topic == topic) if topic else (lambda item: True)
    return Digest(
        ctx=ctx,
        period=period,
        topic=topic,
        topics=_by_topic(ctx, entries),
        outside=[] if topic else outside,
        uncurated=[] if topic else uncurated,
        gaps=[n for n in _item_news(ctx, "gap", changes.gaps, new) if keep(n.item)],
        conflicts=[n for n in _item_news(ctx, "conflict", changes.conflicts, new) if keep(n.item)],
        proposed=[
            (g, "proposed" in changes.gaps.get(g.id, []))
            for g in ctx.kb.gaps
            if g.status == "proposed" and keep(g)
        ],
        other_relations=[
            r
            for r in new
            if (r.paper_id, r.topic) not in listed
            and r.kind not in ("gap", "conflict")
            and (not topic or r.topic == topic)
        ],
        inputs=store.input_rows(conn, changes.inputs),
        usage=usage | {"cost_usd": cost(usage, settings.llm), "priced": priced},
    )


def _new_relations(ctx: Context, changes: Changes) -> list[Relation]:
    """The relations first stored in the period that the KB still holds."""
    return [
        r
        for pid in sorted({k[0] for k in changes.relations})
        for r in ctx.kb.relations_of(pid)
        if (r.paper_id, r.topic, r.kind, r.target) in changes.relations
    ]


def _new_entries(
    ctx: Context,
    changes: Changes,
    new: list[Relation],
    in_conflict: set[str],
    topic: str | None,
) -> list[NewEntry]:
    """Entries first written in the period, and new papers triaged into a topic (their entry
    may still be missing)."""
    placed = set(changes.entries)
    placed |= {(t.paper_id, t.topic) for pid in changes.papers for t in ctx.kb.triage_of(pid)}
    by_place: dict[tuple[str, str], list[Relation]] = defaultdict(list)
    for relation in new:
        by_place[(relation.paper_id, relation.topic)].append(relation)
    return [
        NewEntry(ctx.kb.papers[pid], slug, tuple(by_place[(pid, slug)]), pid in in_conflict)
        for pid, slug in sorted(placed)
        if slug and pid in ctx.kb.papers and (topic is None or slug == topic)
    ]


def _by_topic(ctx: Context, entries: list[NewEntry]) -> list[tuple[str, list[NewEntry]]]:
    """Entries per topic (configured order first), most telling first, then newest first."""
    slugs = [t.slug for t in ctx.settings.topics]
    present = {e.topic for e in entries}
    order = [s for s in slugs if s in present] + sorted(present - set(slugs))
    grouped = []
    for slug in order:
        mine = sort_newest(
            (e for e in entries if e.topic == slug), lambda e: e.paper.date, lambda e: e.paper.id
        )
        grouped.append((slug, sorted(mine, key=lambda e: e.rank)))
    return grouped


def _unplaced(ctx: Context, papers: set[str]) -> tuple[list[Paper], list[Paper]]:
    """New papers outside every topic, and new papers not triaged yet."""
    known = [ctx.kb.papers[p] for p in papers if p in ctx.kb.papers]
    outside = [p for p in known if ctx.kb.triage_of(p.id) and not _topics(ctx, p.id)]
    waiting = [p for p in known if not ctx.kb.triage_of(p.id)]
    return sort_papers(outside), sort_papers(waiting)


def _topics(ctx: Context, paper_id: str) -> list[str]:
    return [t.topic for t in ctx.kb.triage_of(paper_id) if t.topic]


def _item_news(
    ctx: Context, kind: str, moves: dict[int, list[str]], new: list[Relation]
) -> list[ItemNews]:
    """Gaps (or conflicts) that opened or closed in the period, or that new papers bear on;
    proposals are listed apart."""
    items = {item.id: item for item in (ctx.kb.gaps if kind == "gap" else ctx.kb.conflicts)}
    bearing: dict[int, list[Relation]] = defaultdict(list)
    for relation in new:
        if relation.kind == kind and relation.target.isdigit():
            bearing[int(relation.target)].append(relation)
    names = _MOVES[kind]
    news = []
    for item_id in sorted(set(moves) | set(bearing)):
        change = names.get(moves[item_id][-1], "") if item_id in moves else "bearing"
        if item_id in items and change:
            related = sort_newest(
                bearing[item_id], lambda r: ctx.kb.papers[r.paper_id].date, lambda r: r.paper_id
            )
            news.append(ItemNews(items[item_id], change, tuple(related)))
    order = list(CHANGES)
    return sorted(news, key=lambda n: order.index(n.change))


def relation_label(ctx: Context, relation: Relation) -> str:
    """What a relation points at, in words: the gap's or conflict's text, the thesis and the
    paper's stance on it, the entity's name, or what code counted (a first, new coverage)."""
    if relation.kind in ("gap", "conflict"):
        item = ctx.item(relation.kind, relation.target)
        return item.text if item else relation.target
    if relation.kind == "thesis":
        return f"{stance(relation.detail)}: {relation.target}"
    if relation.kind == "entity":
        entity = ctx.entity(relation.target)
        return entity.name if entity else relation.target
    return relation.detail or relation.target


def relation_data(ctx: Context, relation: Relation) -> dict[str, Any]:
    return {
        "paper_id": relation.paper_id,
        "topic": relation.topic,
        "kind": relation.kind,
        "target": relation.target,
        "label": relation_label(ctx, relation),
        "evidence": relation.evidence,
        "page": relation.page,
        "how": relation.how,
    }


def _paper_data(paper: Paper) -> dict[str, Any]:
    return {"paper_id": paper.id, "title": paper.title, "date": paper.date}


def digest_data(digest: Digest) -> dict[str, Any]:
    """The digest as plain data, for --json."""
    ctx = digest.ctx
    return {
        "period": {
            "after": digest.period.after,
            "upto": digest.period.upto,
            "since": digest.period.since,
        },
        "topic": digest.topic,
        "summary": digest.summary(),
        "topics": [
            {
                "slug": slug,
                "title": ctx.topic_title(slug),
                "entries": [_entry_data(ctx, e) for e in entries],
            }
            for slug, entries in digest.topics
        ],
        "outside": [
            _paper_data(p) | {"reason": ctx.kb.triage_of(p.id)[0].reason} for p in digest.outside
        ],
        "not_curated": [_paper_data(p) for p in digest.uncurated],
        "gaps": [_news_data(ctx, n) for n in digest.gaps],
        "conflicts": [_news_data(ctx, n) for n in digest.conflicts],
        "proposed": [_item_data(g) | {"new": new} for g, new in digest.proposed],
        "other_relations": [relation_data(ctx, r) for r in digest.other_relations],
        "inputs": digest.inputs,
        "counts": digest.counts(),
        "usage": digest.usage,
    }


def _entry_data(ctx: Context, entry: NewEntry) -> dict[str, Any]:
    stored = ctx.kb.entry(entry.paper.id, entry.topic)
    verified = [c for c in ctx.kb.claims_of(entry.paper.id) if c.verified]
    return _paper_data(entry.paper) | {
        "topic": entry.topic,
        "why": entry.why,
        "entry": stored.text if stored else None,
        "headline_claims": [c.id for c in verified if c.headline],
        "verified_claims": len(verified),
        "relations": [relation_data(ctx, r) for r in entry.relations],
    }


def _item_data(item: GapOrConflict) -> dict[str, Any]:
    return {"id": item.id, "topic": item.topic, "text": item.text}


def _news_data(ctx: Context, news: ItemNews) -> dict[str, Any]:
    return _item_data(news.item) | {
        "status": news.item.status,
        "change": news.change,
        "relations": [relation_data(ctx, r) for r in news.relations],
    }
