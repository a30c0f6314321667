"""Claims as the results table reads them: each with its paper's title, date and abstract,
optionally of one topic."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ResultClaim:
    """One stored claim with the title of its paper; fields as curation stored them."""

    id: int
    paper_id: str
    title: str
    metric: str
    value: float | None
    value_text: str
    unit: str
    direction: str
    baseline: str
    model_name: str
    hardware: str
    page: int | None
    quote: str
    verified: bool
    headline: bool
    date: str = ""  # the paper's, YYYY-MM-DD or shorter; "" when unknown
    abstract: str = ""


_COLUMNS = (
    "c.id, c.paper_id, p.title, c.metric, c.value, c.value_text, c.unit, c.direction, "
    "c.baseline, c.model_name, c.hardware, c.page, c.quote, c.verified, c.headline, "
    "substr(COALESCE(p.published, p.updated, ''), 1, 10), COALESCE(p.abstract, '')"
)


def result_claims(
    conn: sqlite3.Connection, topic: str | None = None, include_unverified: bool = False
) -> list[ResultClaim]:
    """Claims by paper and order of storing; verified ones only unless `include_unverified`;
    of papers triaged into `topic` when given."""
    conditions, params = [], []
    if not include_unverified:
        conditions.append("c.verified = 1")
    if topic is not None:
        conditions.append(
            "EXISTS (SELECT 1 FROM triage t WHERE t.paper_id = c.paper_id AND t.topic = ?)"
        )
        params.append(topic)
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM claims c JOIN papers p ON p.id = c.paper_id{where} "
        "ORDER BY c.paper_id, c.id",
        params,
    )
    return [_result_claim(row) for row in rows]


def _result_claim(row: Sequence[Any]) -> ResultClaim:
    *head, verified, headline, date, abstract = tuple(row)
    return ResultClaim(
        *head, verified=bool(verified), headline=bool(headline), date=date, abstract=abstract
    )


def topic_papers(conn: sqlite3.Connection, topic: str) -> set[str]:
    """The ids of the papers triaged into `topic`."""
    rows = conn.execute("SELECT DISTINCT paper_id FROM triage WHERE topic = ?", (topic,))
    return {row[0] for row in rows}
