"""The data behind each plot, drawn by `svg`.

A speed-up claim's method family is the tracked entity of kind "method" that its paper relates
to (the first by name), else the paper's first topic; a paper with neither is "Other"."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from markupsafe import Markup

from frontier.model import Claim
from frontier.render.common import Context
from frontier.web import svg

SPEEDUP_UNITS = {"×", "x", "X"}
MAX_RUNS = 40


def memo(ctx: Context, key: str, build: Callable[[], Markup]) -> Markup:
    """A plot of the KB, drawn once per loaded KB (a change of the store loads a new one)."""
    drawn: dict[str, Markup] = ctx.__dict__.setdefault("_web_plots", {})
    if key not in drawn:
        drawn[key] = build()
    return drawn[key]


def months_between(first: str, last: str) -> list[str]:
    """Every month from `first` to `last` (YYYY-MM), both included."""
    year, month = int(first[:4]), int(first[5:7])
    out = []
    while f"{year:04d}-{month:02d}" <= last:
        out.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def bucket_of(month: str, size: str) -> str:
    """The month (YYYY-MM), quarter (YYYY-Qn) or year a YYYY-MM month falls in."""
    if size == "month":
        return month
    if size == "quarter":
        return f"{month[:4]}-Q{(int(month[5:7]) - 1) // 3 + 1}"
    return month[:4]


def time_buckets(first: str, last: str) -> tuple[str, list[str]]:
    """Months while the span is short, then quarters, then years; the labels in order."""
    months = months_between(first, last)
    size = "month" if len(months) <= 36 else "quarter" if len(months) <= 144 else "year"
    return size, list(dict.fromkeys(bucket_of(m, size) for m in months))


def papers_per_topic(ctx: Context) -> Markup:
    return memo(ctx, "papers_per_topic", lambda: _papers_per_topic(ctx))


def _papers_per_topic(ctx: Context) -> Markup:
    """Papers per topic per month of their date (per quarter or year over long spans)."""
    months: dict[str, list[str]] = {}
    for topic in ctx.settings.topics:
        dated = [p.date[:7] for p in ctx.kb.topic_papers(topic.slug) if len(p.date) >= 7]
        if dated:
            months[topic.title] = dated
    if not months:
        return svg.empty("No dated papers in any topic yet.")
    seen = [m for dated in months.values() for m in dated]
    size, labels = time_buckets(min(seen), max(seen))
    series = {}
    for title, dated in months.items():
        counts = Counter(bucket_of(m, size) for m in dated)
        series[title] = [float(counts[label]) for label in labels]
    return svg.line_chart(labels, series, f"Papers per topic per {size}")


def is_speedup(claim: Claim) -> bool:
    unit = claim.unit.strip()
    metric = claim.metric.casefold().replace("-", "").replace(" ", "")
    return (
        claim.verified
        and claim.value is not None
        and (unit in SPEEDUP_UNITS or "speedup" in metric)
    )


def method_family(ctx: Context, paper_id: str) -> str:
    """The paper's tracked method (first by name), else its first topic, else 'Other'."""
    methods = sorted(
        entity.name
        for r in ctx.kb.relations_of(paper_id)
        if r.kind == "entity"
        and (entity := ctx.entity(r.target)) is not None
        and entity.kind == "method"
    )
    if methods:
        return methods[0]
    topics = sorted(t.topic for t in ctx.kb.triage_of(paper_id) if t.topic)
    return ctx.topic_title(topics[0]) if topics else "Other"


def speedup_groups(ctx: Context) -> dict[str, list[tuple[float, str]]]:
    """Verified speed-up values by method family, families in name order."""
    groups: dict[str, list[tuple[float, str]]] = {}
    for claim in ctx.kb.claims:
        if is_speedup(claim):
            paper = ctx.kb.papers[claim.paper_id]
            note = f"{paper.title} ({claim.metric})"
            groups.setdefault(method_family(ctx, claim.paper_id), []).append(
                (float(claim.value or 0.0), note)
            )
    return dict(sorted(groups.items()))


def speedups_by_family(ctx: Context) -> Markup:
    return memo(ctx, "speedups", lambda: _speedups_by_family(ctx))


def _speedups_by_family(ctx: Context) -> Markup:
    groups = speedup_groups(ctx)
    if not groups:
        return svg.empty("No verified speed-up claims yet.")
    return svg.dot_rows(groups, "×", "Verified speed-ups by method family")


def tokens_over_runs(rows: list[dict[str, Any]]) -> Markup:
    """Prompt and completion tokens of the last runs that called a model."""
    shown = [r for r in rows if r["run_id"] is not None][-MAX_RUNS:]
    if not shown:
        return svg.empty("No model calls recorded yet.")
    labels = [f"#{r['run_id']}" for r in shown]
    stacks = {
        "prompt": [float(r["prompt_tokens"] or 0) for r in shown],
        "completion": [float(r["completion_tokens"] or 0) for r in shown],
    }
    return svg.stacked_bars(labels, stacks, "Tokens per run")
