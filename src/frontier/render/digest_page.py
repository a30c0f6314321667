"""A digest as a markdown page of the vault (`kb/digests/<name>.md`), in the vault's style: entries
as the topic pages show them, links relative to the page."""

from __future__ import annotations

import re
import sqlite3

from frontier.config import Settings
from frontier.model import Paper, Relation
from frontier.render.common import (
    Context,
    bullets,
    frontier_path,
    link,
    para,
    safe_name,
    table,
    text,
    topic_path,
)
from frontier.render.digest import WITH_EVIDENCE, Digest, ItemNews, NewEntry, Period, build_digest
from frontier.render.digest import relation_label as label
from frontier.render.topics import bearing_line, conflict_evidence, entry_block
from frontier.store.digests import StoredDigest, stored_digests

DIGESTS_DIR = "digests"
_BLANK_RUNS = re.compile(r"\n{3,}")  # sections open with a blank line, blocks end with one
CHANGE_TITLES = {
    "opened": "Opened",
    "flagged": "Flagged",
    "bearing": "New papers bearing on it",
    "closed": "Closed",
    "settled": "Settled",
}
NO_NEW_PAPER = "No new paper bears on it."


def digest_path(name: str) -> str:
    return f"{DIGESTS_DIR}/{safe_name(name)}.md"


def stored_title(row: StoredDigest) -> str:
    return f"What changed: {row.name}"


def stored_intro(row: StoredDigest, previous: StoredDigest | None) -> str:
    """Which period a stored digest covers, in words."""
    since = f"the digest of {previous.name}" if previous else "digests began"
    return f"Since {since}, up to {row.at[:16].replace('T', ' ')} UTC."


def stored_digest_pages(conn: sqlite3.Connection, settings: Settings) -> dict[str, str]:
    """The page of every stored digest, by its path in the vault."""
    rows = stored_digests(conn)
    pages = {}
    for row, previous in zip(rows, [*rows[1:], None], strict=False):
        digest = build_digest(conn, settings, Period(row.after_seq, row.upto_seq))
        here = digest_path(row.name)
        pages[here] = digest_page(digest, here, stored_title(row), stored_intro(row, previous))
    return pages


def digest_page(digest: Digest, here: str, title: str, intro: str) -> str:
    """The whole digest: summary, entries per topic, gaps, conflicts, proposals, inputs, counts."""
    ctx = digest.ctx
    lines = [f"# {text(title)}", "", para(intro), ""]
    lines += [f"- {text(line)}" for line in digest.summary()]
    for slug, entries in digest.topics:
        lines += ["", f"## {link(ctx.topic_title(slug), here, topic_path(slug))}", ""]
        for entry in entries:
            lines += _entry(ctx, here, entry)
    lines += _papers(ctx, here, "Outside the topics", digest.outside, with_reason=True)
    lines += _papers(ctx, here, "Not yet curated", digest.uncurated)
    lines += _news(ctx, here, "Gaps", "Gap", digest.gaps)
    lines += _news(ctx, here, "Conflicts", "Conflict", digest.conflicts)
    lines += _proposed(ctx, here, digest)
    lines += _others(ctx, here, digest.other_relations)
    lines += _inputs(digest)
    lines += ["", "## Counts and cost", ""]
    rows = [[text(key), str(value)] for key, value in digest.shown_counts()]
    lines += table(["what", "number"], rows)
    lines += ["", text(digest.usage_line())]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).rstrip("\n") + "\n"


def _entry(ctx: Context, here: str, entry: NewEntry) -> list[str]:
    lines = entry_block(ctx, here, entry.topic, entry.paper)
    shown = [r for r in entry.relations if r.kind in WITH_EVIDENCE]
    if shown:
        lines += [f"- {_relation_line(ctx, here, r)}" for r in shown] + [""]
    return lines


def _relation_line(ctx: Context, here: str, relation: Relation) -> str:
    """What the new paper bears on, with the sentence of it that says so and its page."""
    if relation.kind == "thesis":
        what = f"Thesis, {text(label(ctx, relation))}"
    else:
        target = link(f"{relation.kind} {relation.target}", here, frontier_path(relation.topic))
        what = f"Bears on {target}: “{text(label(ctx, relation))}”"
    if relation.evidence:
        where = f"p. {relation.page}" if relation.page else "abstract"
        what += f" — “{text(relation.evidence)}” ({where})"
    return f"{what} {text(relation.how)}" if relation.how else what


def _papers(
    ctx: Context, here: str, heading: str, papers: list[Paper], with_reason: bool = False
) -> list[str]:
    if not papers:
        return []
    lines = ["", f"## {heading}", ""]
    for paper in papers:
        line = ctx.dated_paper(paper.id, here)
        triage = ctx.kb.triage_of(paper.id)
        if with_reason and triage:
            line += f" — {text(triage[0].reason)}"
        lines.append(f"- {line}")
    return lines


def _news(ctx: Context, here: str, heading: str, noun: str, news: list[ItemNews]) -> list[str]:
    """Gaps or conflicts that moved: how, and the new papers bearing on each."""
    if not news:
        return []
    lines = ["", f"## {heading}", ""]
    for one in news:
        item = one.item
        where = link(ctx.topic_title(item.topic), here, frontier_path(item.topic))
        title = CHANGE_TITLES[one.change]
        lines += [f"### {title} · {noun} {item.id} · {where}: {text(item.text)}", ""]
        evidence = ctx.kb.evidence.get(item.id) if noun == "Conflict" else None
        if evidence is not None and one.change == "flagged":
            lines += conflict_evidence(ctx, here, evidence)
        lines += bullets((bearing_line(ctx, here, r) for r in one.relations), NO_NEW_PAPER)
        lines.append("")
    return lines[:-1]


def _proposed(ctx: Context, here: str, digest: Digest) -> list[str]:
    if not digest.proposed:
        return []
    lines = ["", "## Proposed gaps awaiting review", ""]
    for gap, new in digest.proposed:
        where = link(ctx.topic_title(gap.topic), here, frontier_path(gap.topic))
        lines.append(
            f"- Gap {gap.id} · {where}: {text(gap.text)}{' (new)' if new else ''} — accept with "
            f"`frontier gaps accept {gap.id}`, reject with `frontier gaps reject {gap.id}`"
        )
    return lines


def _others(ctx: Context, here: str, relations: list[Relation]) -> list[str]:
    if not relations:
        return []
    lines = ["", "## Other new relations", ""]
    for relation in relations:
        line = (
            f"{ctx.dated_paper(relation.paper_id, here)} · {ctx.topic_link(relation.topic, here)}"
        )
        lines.append(f"- {line}: {text(label(ctx, relation))}")
    return lines


def _inputs(digest: Digest) -> list[str]:
    if not digest.inputs:
        return []
    lines = ["", "## Inputs rejected or stored with a warning", ""]
    for row in digest.inputs:
        outcome = "rejected" if row["outcome"] == "rejected" else "stored with a warning"
        lines.append(f"- {text(row['item'])} — {outcome}: {text(row['reason'])}")
    return lines
