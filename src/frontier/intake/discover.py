"""`frontier discover`: each topic's arXiv query over its discovery window, newest first."""

from __future__ import annotations

import datetime as dt

import arxiv
import requests

from frontier.config import Topic
from frontier.intake.expand import Plan
from frontier.intake.report import Entry
from frontier.sources.arxiv_api import ArxivError, ArxivQuery, search_arxiv
from frontier.sources.records import RecordError
from frontier.workspace import Workspace


def topic_query(topic: Topic, today: dt.date, days: int | None, max_results: int) -> ArxivQuery:
    window = days if days is not None else topic.window_days
    return ArxivQuery(
        terms=topic.arxiv_query,
        categories=topic.arxiv_categories,
        since=today - dt.timedelta(days=window),
        until=today,
        max_results=max_results,
    )


def plan_discovery(
    ws: Workspace,
    topics: list[Topic],
    *,
    days: int | None = None,
    max_results: int | None = None,
    today: dt.date | None = None,
) -> Plan:
    """Records from arXiv for every topic; a topic whose query fails is reported, the rest go on.
    Once arXiv cannot be reached, the remaining topics are reported as skipped, not retried."""
    plan = Plan()
    seen: set[str] = set()
    limit = max_results or ws.settings.arxiv.max_results
    unreachable = ""
    for topic in topics:
        if not topic.arxiv_query and not topic.arxiv_categories:
            continue
        if unreachable:
            skipped = f"skipped: arXiv was unreachable for {unreachable} in this run"
            plan.problems.append(Entry(f"topic {topic.slug}", "failed", skipped, code="arxiv"))
            continue
        query = topic_query(topic, today or dt.date.today(), days, limit)
        try:
            for record in search_arxiv(query, ws.settings.arxiv):
                if isinstance(record, RecordError):
                    plan.problems.append(
                        Entry(record.ref, "rejected", record.reason, code="bad_record")
                    )
                    continue
                key = record.arxiv_id or record.title or ""
                if key in seen:
                    continue
                seen.add(key)
                plan.records.append((record.arxiv_id or record.source_ref, record))
        except ArxivError as exc:
            plan.problems.append(Entry(f"topic {topic.slug}", "failed", str(exc), code="arxiv"))
            if _unreachable(exc):
                unreachable = f"topic {topic.slug}"
    return plan


def _unreachable(exc: ArxivError) -> bool:
    """The API itself failed (network, server errors after the retries), not this query."""
    return isinstance(exc.__cause__, requests.RequestException | arxiv.HTTPError)
