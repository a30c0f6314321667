"""Page text for the index, each topic and each topic's frontier (gaps, conflicts, theses)."""

from __future__ import annotations

from collections.abc import Sequence

from frontier.config import OutOfScopeLine, Topic
from frontier.model import ConflictEvidence, GapOrConflict, Paper, Relation
from frontier.render.common import (
    INDEX,
    Context,
    bullets,
    claim_line,
    entity_path,
    frontier_path,
    link,
    para,
    shown_date,
    source_path,
    stance,
    text,
    topic_path,
)
from frontier.store.kb import untracked_config_gaps

HEADLINE_CLAIMS = 3


def _page(lines: list[str]) -> str:
    return "\n".join(lines).rstrip("\n") + "\n"


def index_page(ctx: Context) -> str:
    """The vault's front page: the field, its topics and its entities."""
    kb, field = ctx.kb, ctx.settings.field
    lines = [f"# {text(field.name)}", ""]
    if field.description:
        lines += [para(field.description), ""]
    lines += [f"As of {ctx.as_of(kb.papers.values())} · {_paper_census(ctx)}", "", "## Topics", ""]
    topics = []
    for topic in ctx.settings.topics:
        count = len(kb.topic_papers(topic.slug))
        frontier = link("frontier", INDEX, frontier_path(topic.slug))
        topics.append(
            f"{link(topic.title, INDEX, topic_path(topic.slug))} — {text(topic.summary)} "
            f"· {_count(count, 'paper')} · {frontier}"
        )
    lines += [*bullets(topics, "No topics configured."), "", "## Entities", ""]
    entities = [
        f"{link(e.name, INDEX, entity_path(e.slug))} — {text(e.kind)} · "
        f"{_count(len({r.paper_id for r in kb.relations_to('entity', e.slug)}), 'paper')}"
        for e in kb.entities
    ]
    lines += bullets(entities, "No entities tracked.")
    return _page(lines)


def _paper_census(ctx: Context) -> str:
    kb = ctx.kb
    in_topics = {t.paper_id for t in kb.triage if t.topic}
    triaged = {t.paper_id for t in kb.triage}
    out = triaged - in_topics
    waiting = set(kb.papers) - triaged
    return (
        f"{_count(len(kb.papers), 'paper')}: {len(in_topics)} in topics, "
        f"{len(out)} out of field, {len(waiting)} not yet triaged."
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def topic_page(ctx: Context, topic: Topic) -> str:
    """A topic: what it covers, what it leaves to siblings, and its entries newest first."""
    here = topic_path(topic.slug)
    papers = ctx.kb.topic_papers(topic.slug)
    frontier = link("Open gaps, conflicts and theses", here, frontier_path(topic.slug))
    lines = [f"# {text(topic.title)}", "", f"> {para(topic.summary)}", ""]
    lines += [
        f"As of {ctx.as_of(papers, topic.slug)} · {_count(len(papers), 'paper')} · {frontier}"
    ]
    lines += ["", "## Scope", "", "**In scope**", ""]
    lines += bullets((para(line) for line in topic.in_scope), "Nothing declared.")
    lines += ["", "**Out of scope**", ""]
    lines += bullets(
        (_scope_out(ctx, here, line) for line in topic.out_of_scope_lines()), "Nothing declared."
    )
    lines += ["", "## Entries", ""]
    if not papers:
        lines.append("_No papers in this topic yet._")
    for paper in papers:
        lines += entry_block(ctx, here, topic.slug, paper)
    return _page(lines)


def _scope_out(ctx: Context, here: str, line: OutOfScopeLine) -> str:
    if not line.route_to:
        return para(line.text)
    return f"{para(line.text)} → {ctx.topic_link(line.route_to, here)}"


def entry_block(ctx: Context, here: str, slug: str, paper: Paper) -> list[str]:
    """A paper's entry in a topic as its topic page shows it (and digests too)."""
    entry = ctx.kb.entry(paper.id, slug)
    lines = [f"### {shown_date(paper.date)} · {ctx.paper_link(paper, here)}", ""]
    lines += [para(entry.text) if entry else "_No entry written yet._", ""]
    verified = [c for c in ctx.kb.claims_of(paper.id) if c.verified]
    if entry is None:  # the entry phrases the headline numbers; without one, list them
        lines += [f"- {claim_line(c)}" for c in verified if c.headline][:HEADLINE_CLAIMS]
    if verified:
        every = _count(len(verified), "verified claim")
        lines += [f"{link(every, here, source_path(paper.id))}, each with its quote and page.", ""]
    return lines


def frontier_page(ctx: Context, topic: Topic) -> str:
    """Where the topic's knowledge ends: open gaps and conflicts, proposals, theses."""
    here = frontier_path(topic.slug)
    gaps = [g for g in ctx.kb.gaps if g.topic == topic.slug]
    conflicts = [c for c in ctx.kb.conflicts if c.topic == topic.slug]
    lines = [f"# Frontier: {text(topic.title)}", ""]
    lines += [f"Back to {link(topic.title, here, topic_path(topic.slug))}", "", "## Open gaps", ""]
    lines += _items(ctx, here, "gap", [g for g in gaps if g.status == "open"], "No open gaps.")
    untracked = [t for s, t in untracked_config_gaps(ctx.settings, ctx.kb.gaps) if s == topic.slug]
    for gap_text in untracked:
        lines += [f"### Declared in frontier.toml: {text(gap_text)}", ""]
        lines += ["_Not in the store yet, so no papers are linked to it._", ""]
    lines += ["## Open conflicts", ""]
    lines += _items(
        ctx, here, "conflict", [c for c in conflicts if c.status == "open"], "No open conflicts."
    )
    lines += ["## Proposed gaps awaiting review", ""]
    proposed = [g for g in gaps if g.status == "proposed"]
    lines += _items(ctx, here, "gap", proposed, "No proposals waiting.", review=True)
    lines += ["## Theses", ""]
    if not topic.theses:
        lines += ["_No theses declared for this topic._", ""]
    for thesis in topic.theses:
        lines += _thesis(ctx, here, thesis)
    return _page(lines)


def _items(
    ctx: Context,
    here: str,
    kind: str,
    items: Sequence[GapOrConflict],
    empty: str,
    review: bool = False,
) -> list[str]:
    if not items:
        return [f"_{empty}_", ""]
    lines: list[str] = []
    for item in items:
        lines += [f"### {kind.capitalize()} {item.id}: {text(item.text)}", ""]
        if review:
            lines += [
                f"Accept with `frontier gaps accept {item.id}`, "
                f"reject with `frontier gaps reject {item.id}`.",
                "",
            ]
        evidence = ctx.kb.evidence.get(item.id) if kind == "conflict" else None
        if evidence is not None:
            lines += conflict_evidence(ctx, here, evidence)
        related = ctx.kb.relations_to(kind, str(item.id))
        lines += bullets(
            (bearing_line(ctx, here, r) for r in related),
            "No paper addresses it yet." if kind == "gap" else "No papers bear on it yet.",
        )
        lines.append("")
    return lines


def conflict_evidence(ctx: Context, here: str, found: ConflictEvidence) -> list[str]:
    """Both quotes with their pages, the model's label, and later papers measuring the setting."""
    lines = [
        f"Found by code: {text(found.metric)} in a comparable setting "
        f"({text(found.setting)}), {text(found.why)}.",
        "",
    ]
    for paper_id, value, page, quote in (
        (found.paper_a, found.value_a, found.page_a, found.quote_a),
        (found.paper_b, found.value_b, found.page_b, found.quote_b),
    ):
        where = f", p. {page}" if page else ""
        lines.append(f"- {ctx.dated_paper(paper_id, here)}{where}: {text(value)} — “{text(quote)}”")
    lines.append("")
    if found.label:
        lines += [
            f"Judged {text(found.label)} by {text(found.model)} ({text(found.prompt_version)}): "
            f"{text(found.reason)}",
            "",
        ]
    if found.later:
        lines += ["Later papers measuring this setting:", ""]
        for item in found.later:
            on_page = f", p. {item['page']}" if item.get("page") else ""
            lines.append(
                f"- {ctx.dated_paper(str(item['paper_id']), here)}{on_page}: "
                f"{text(item['value'])} — “{text(item['quote'])}”"
            )
        lines.append("")
    lines += ["Papers bearing on it:", ""]
    return lines


def bearing_line(ctx: Context, here: str, relation: Relation) -> str:
    """The paper, the sentence of it that bears on the item with its page, and the model's
    checked "how" when there is one."""
    line = ctx.dated_paper(relation.paper_id, here)
    if relation.evidence:
        where = f"p. {relation.page}" if relation.page else "abstract"
        line += f": “{text(relation.evidence)}” ({where})"
    return f"{line} {text(relation.how)}" if relation.how else line


def _thesis(ctx: Context, here: str, thesis: str) -> list[str]:
    lines = [f"### {text(thesis)}", ""]
    related = ctx.kb.relations_to("thesis", thesis)
    if not related:
        return [*lines, "_No papers bear on it yet._", ""]
    for label in ("supports", "challenges", "bears on"):
        group = [r for r in related if stance(r.detail) == label]
        if group:
            lines += [f"**{label.capitalize()}**", ""]
            lines += [f"- {bearing_line(ctx, here, r)}" for r in group]
            lines.append("")
    return lines
