"""Page text for each source (one paper) and each tracked entity."""

from __future__ import annotations

import re

from frontier.curate.entry import QUOTED
from frontier.model import Claim, EntityInfo, Entry, Paper, Relation
from frontier.render.common import (
    Context,
    bullets,
    entity_path,
    frontier_path,
    highlighted_quote,
    link,
    para,
    shown_date,
    source_path,
    table,
    text,
    value_with_unit,
)

CLAIM_HEADERS = [
    "",
    "metric",
    "value",
    "direction",
    "baseline",
    "model",
    "hardware",
    "page",
    "quote",
]
_RELATION_ORDER = {"gap": 0, "conflict": 1, "thesis": 2, "first": 3, "coverage": 4, "entity": 5}
_PLAIN_URL = re.compile(r"^https?://[^\s<>]+$")


def _page(lines: list[str]) -> str:
    return "\n".join(lines).rstrip("\n") + "\n"


def source_page(ctx: Context, paper: Paper) -> str:
    """One paper: metadata, topics and why, its entry, its claims and its relations."""
    here = source_path(paper.id)
    lines = [f"# {text(paper.title)}", "", *_metadata(paper), ""]
    lines += ["## Topics", "", *_topics(ctx, here, paper), ""]
    lines += ["## Entry", "", *_entries(ctx, here, paper), ""]
    claims = ctx.kb.claims_of(paper.id)
    lines += ["## Verified claims", ""]
    verified = sorted((c for c in claims if c.verified), key=lambda c: not c.headline)
    if any(c.headline for c in verified):
        lines += ["★ marks the paper's headline claims.", ""]
    lines += _claims_table(verified, "No verified claims.")
    unverified = [c for c in claims if not c.verified]
    if unverified:
        lines += ["## Unverified claims (not confirmed in the paper; not facts)", ""]
        lines += [
            "_Each quote below was not found on the page given, or its value is not in the "
            "quote. Do not cite these numbers._",
            "",
        ]
        lines += _claims_table(unverified, "", note=True)
    lines += ["## Relations", "", *_relations(ctx, here, paper), ""]
    if paper.abstract:
        lines += ["## Abstract", "", para(paper.abstract)]
    return _page(lines)


def _metadata(paper: Paper) -> list[str]:
    facts = [
        ("Id", text(paper.id)),
        ("Authors", text(", ".join(paper.authors))),
        ("Date", shown_date(paper.date)),
        ("arXiv", _arxiv_link(paper.arxiv_id)),
        ("Link", _url(paper.url)),
        ("Categories", text(", ".join(paper.categories))),
        ("Kind", text(paper.kind)),
    ]
    return [f"- **{label}:** {value}" for label, value in facts if value]


def _arxiv_link(arxiv_id: str) -> str:
    if not arxiv_id:
        return ""
    return f"[{text(arxiv_id)}](https://arxiv.org/abs/{_url_safe(arxiv_id)})"


def _url_safe(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9._/:-]", "", value)


def _url(url: str) -> str:
    if not url:
        return ""
    return f"<{url}>" if _PLAIN_URL.match(url) else text(url)


def _topics(ctx: Context, here: str, paper: Paper) -> list[str]:
    items = []
    for row in sorted(ctx.kb.triage_of(paper.id), key=lambda t: (t.topic == "", t.topic)):
        line = f"{ctx.topic_link(row.topic, here)} — {text(row.reason)} (decided at the {text(row.stage)} stage"
        if row.scope_line:
            line += f"; scope line: {text(row.scope_line)}"
        items.append(line + ")")
    return bullets(items, "Not triaged yet.")


def entry_origin(entry: Entry) -> str:
    """Who wrote an entry's what-it-is: the model (with its prompt) or code quoting the abstract;
    the numbers and relations after it are always code's."""
    run = f", run {entry.run_id}" if entry.run_id is not None else ""
    if entry.model == QUOTED:
        return f"What it is: quoted from the abstract by code; numbers and relations by code{run}"
    prompt = f", prompt {text(entry.prompt_version)}" if entry.prompt_version else ""
    model = f" by {text(entry.model)}" if entry.model else ""
    return f"What it is: written{model}{prompt}, checked against the abstract{run}"


def _entries(ctx: Context, here: str, paper: Paper) -> list[str]:
    entries = ctx.kb.entries_of(paper.id)
    if not entries:
        return ["_No entry written yet._"]
    lines: list[str] = []
    for entry in entries:
        lines += [f"**{ctx.topic_link(entry.topic, here)}**", "", para(entry.text), ""]
        lines += [f"_{entry_origin(entry)}._", ""]
    return lines[:-1]


def _claims_table(claims: list[Claim], empty: str, note: bool = False) -> list[str]:
    if not claims:
        return [f"_{empty}_", ""] if empty else []
    headers = [*CLAIM_HEADERS, "why unverified"] if note else CLAIM_HEADERS
    rows = []
    for c in claims:
        metric = f"{c.metric} ({c.condition})" if c.condition else c.metric
        setup = f" (setup, p. {c.setup_page})" if c.setup_fields else ""
        model = f"{c.model_name}{setup}" if "model" in c.setup_fields else c.model_name
        hardware = f"{c.hardware}{setup}" if "hardware" in c.setup_fields else c.hardware
        cells = ["★" if c.headline else "", metric, value_with_unit(c), c.direction]
        cells += [c.baseline, model, hardware, str(c.page) if c.page else "abstract"]
        quote = highlighted_quote(c) if c.verified else f"“{text(c.quote)}”"
        row = [text(cell) for cell in cells] + [quote]
        if note:
            row.append(text(c.verify_note))
        rows.append(row)
    return [*table(headers, rows), ""]


def _relations(ctx: Context, here: str, paper: Paper) -> list[str]:
    ordered = sorted(
        ctx.kb.relations_of(paper.id),
        key=lambda r: (_RELATION_ORDER.get(r.kind, 9), r.kind, r.topic, r.target),
    )
    return bullets((_relation(ctx, here, r) for r in ordered), "No relations found yet.")


def _relation(ctx: Context, here: str, rel: Relation) -> str:
    line = f"**{text(rel.kind.capitalize())}** {_relation_target(ctx, here, rel)}"
    if rel.detail and rel.kind in ("entity", "thesis", "first", "coverage"):
        line += f" — {text(rel.detail)}"  # written by code, or a thesis's stance
    if rel.evidence:
        where = f"p. {rel.page}" if rel.page else "title or abstract"
        line += f": “{text(rel.evidence)}” ({where})"
    return f"{line} {text(rel.how)}" if rel.how else line


def _relation_target(ctx: Context, here: str, rel: Relation) -> str:
    if rel.kind == "entity":
        entity = ctx.entity(rel.target)
        return link(entity.name, here, entity_path(entity.slug)) if entity else text(rel.target)
    if rel.kind in ("gap", "conflict"):
        item = ctx.item(rel.kind, rel.target)
        if item is None:
            return text(f"{rel.kind} {rel.target} (no longer stored)")
        label = f"{rel.kind.capitalize()} {item.id}: {item.text}"
        return _in_topic(ctx, here, item.topic, label)
    if rel.kind == "thesis":
        return _in_topic(ctx, here, rel.topic, rel.target)
    return f"in {ctx.topic_link(rel.topic, here)}" if rel.topic else ""


def _in_topic(ctx: Context, here: str, topic: str, label: str) -> str:
    if topic in ctx.topic_titles:
        return link(label, here, frontier_path(topic))
    return text(label)


def entity_page(ctx: Context, entity: EntityInfo) -> str:
    """An entity and every paper related to it, grouped by topic."""
    here = entity_path(entity.slug)
    lines = [f"# {text(entity.name)}", "", f"- **Kind:** {text(entity.kind)}"]
    if entity.aliases:
        lines.append(f"- **Aliases:** {text(', '.join(entity.aliases))}")
    related = ctx.kb.relations_to("entity", entity.slug)
    lines += ["", "## Papers", ""]
    if not related:
        lines.append("_No papers related to it yet._")
    for topic in _topic_order(ctx, related):
        group = [r for r in related if r.topic == topic]
        lines += [f"### {ctx.topic_link(topic, here)}", ""]
        lines += [f"- {_entity_mention(ctx, here, r)}" for r in group]
        lines.append("")
    return _page(lines)


def _topic_order(ctx: Context, relations: list[Relation]) -> list[str]:
    present = {r.topic for r in relations}
    configured = [t.slug for t in ctx.settings.topics if t.slug in present]
    return configured + sorted(present - set(configured))


def _entity_mention(ctx: Context, here: str, rel: Relation) -> str:
    line = ctx.dated_paper(rel.paper_id, here)
    if not rel.evidence:
        return line
    where = f"p. {rel.page}" if rel.page else "title or abstract"
    return f"{line}: “{text(rel.evidence)}” ({where})"
