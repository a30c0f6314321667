"""`frontier discover`: each topic's query to every source of DISCOVERERS over its discovery
window, newest first. A new source is a client in `sources/` (a topic's query, a search), its
section of the settings in `config.py` and a row of DISCOVERERS."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from frontier.config import ArxivSettings, Settings, Topic
from frontier.intake.expand import Plan
from frontier.intake.report import ReportLine
from frontier.model import SourceRecord
from frontier.sources import arxiv_api
from frontier.sources.records import RecordError
from frontier.workspace import Workspace


class DiscoverySettings(Protocol):
    """What the section of every discovery source holds."""

    max_results: int  # the cap per topic and run, unless a run asks for another


S = TypeVar("S", bound=DiscoverySettings)
Q = TypeVar("Q")


@dataclass(frozen=True)
class Discoverer(Generic[S, Q]):
    """A source discovery asks for each topic's papers of its window."""

    name: str  # its section of frontier.toml, and the code of the problems it reports
    label: str  # as messages name it
    settings: type[S]  # the model of its section
    section: Callable[[Settings], S]  # its section of a workspace's settings
    asks: Callable[[Topic], bool]  # whether a topic has a query for it
    # a topic's query up to today: over the days given (None: its window), for at most n papers
    query: Callable[[Topic, dt.date, int | None, int], Q]
    search: Callable[[Q, S], Iterable[SourceRecord | RecordError]]
    error: type[Exception]  # what `search` raises when the source cannot answer
    unreachable: Callable[[Exception], bool]  # the source failed, not the query: stop asking it


DISCOVERERS: tuple[Discoverer[Any, Any], ...] = (
    Discoverer(
        name="arxiv",
        label="arXiv",
        settings=ArxivSettings,
        section=lambda settings: settings.arxiv,
        asks=arxiv_api.asks_arxiv,
        query=arxiv_api.topic_query,
        search=arxiv_api.search_arxiv,
        error=arxiv_api.ArxivError,
        unreachable=arxiv_api.unreachable,
    ),
)


def plan_discovery(
    ws: Workspace,
    topics: list[Topic],
    *,
    days: int | None = None,
    max_results: int | None = None,
    today: dt.date | None = None,
) -> Plan:
    """Records from every source for every topic; a topic whose query fails is reported, the
    rest go on. Once a source cannot be reached, its remaining topics are reported as skipped,
    not retried. A paper two queries find is planned once."""
    plan = Plan()
    seen: set[str] = set()
    for discoverer in DISCOVERERS:
        found = _discover(discoverer, ws.settings, topics, days, max_results, today)
        for record in found:
            if isinstance(record, ReportLine):
                plan.problems.append(record)
                continue
            key = record.arxiv_id or record.title or ""
            if key in seen:
                continue
            seen.add(key)
            plan.records.append((record.arxiv_id or record.source_ref, record))
    return plan


def _discover(
    discoverer: Discoverer[S, Q],
    settings: Settings,
    topics: list[Topic],
    days: int | None,
    max_results: int | None,
    today: dt.date | None,
) -> Iterable[SourceRecord | ReportLine]:
    """What one source finds for the topics that ask it anything: records, and the problems."""
    section = discoverer.section(settings)
    limit = max_results or section.max_results
    unreachable = ""
    for topic in topics:
        if not discoverer.asks(topic):
            continue
        if unreachable:
            skipped = f"skipped: {discoverer.label} was unreachable for {unreachable} in this run"
            yield ReportLine(f"topic {topic.slug}", "failed", skipped, code=discoverer.name)
            continue
        query = discoverer.query(topic, today or dt.date.today(), days, limit)
        try:
            for record in discoverer.search(query, section):
                if isinstance(record, RecordError):
                    yield ReportLine(record.ref, "rejected", record.reason, code="bad_record")
                else:
                    yield record
        except discoverer.error as exc:
            yield ReportLine(f"topic {topic.slug}", "failed", str(exc), code=discoverer.name)
            if discoverer.unreachable(exc):
                unreachable = f"topic {topic.slug}"
