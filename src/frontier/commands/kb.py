"""The KB commands: papers, claims, results, gaps, conflicts, entities and render, one function
each."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frontier.commands.digest import render_workspace
from frontier.config import Settings
from frontier.errors import KBError
from frontier.store import status as item_status
from frontier.store.curation import all_relations
from frontier.store.kb import load_gaps
from frontier.store.listing import (
    claims_data,
    entities_data,
    items_data,
    papers_data,
    untracked_gaps,
)
from frontier.store.status import GAP_STATUSES, Moved, StatusError
from frontier.synthesize.measurement import FAMILY_NAMES, family_name
from frontier.synthesize.result_graph import comparison_graph, graph_record
from frontier.synthesize.results import (
    Result,
    ResultFilters,
    refresh_result_keys,
    result_record,
    stored_results,
)
from frontier.workspace import Workspace, open_workspace


@dataclass(frozen=True)
class AddedItem:
    """A gap or conflict added by hand, or the stored one that already said the same."""

    noun: str
    topic: str
    text: str
    id: int
    status: str
    new: bool


@contextlib.contextmanager
def _store(workspace: Path | None) -> Iterator[tuple[Workspace, sqlite3.Connection]]:
    ws = open_workspace(workspace)
    conn = ws.connect()
    try:
        yield ws, conn
    finally:
        conn.close()


@contextlib.contextmanager
def _kb_errors() -> Iterator[None]:
    """A status change the store refuses is the user's request that cannot be carried out."""
    try:
        yield
    except StatusError as exc:
        raise KBError(str(exc)) from None


def _check_topic(settings: Settings, slug: str) -> str:
    known = [t.slug for t in settings.topics]
    if slug not in known:
        raise KBError(f"unknown topic '{slug}' (known topics: {', '.join(known) or 'none'})")
    return slug


def papers(workspace: Path | None, topic: str | None) -> list[dict[str, Any]]:
    """Papers with their topics, the triage reason and the stage that decided."""
    with _store(workspace) as (ws, conn):
        if topic is not None:
            _check_topic(ws.settings, topic)
        return papers_data(conn, topic)


def claims(
    workspace: Path | None, filters: dict[str, str | None], include_unverified: bool
) -> list[dict[str, Any]]:
    """Claims matching the filters; verified ones only unless `include_unverified`."""
    with _store(workspace) as (_ws, conn):
        return claims_data(conn, filters, include_unverified)


def _check_family(text: str | None) -> str | None:
    if text is None:
        return None
    family = family_name(text)
    if family is None:
        raise KBError(f"unknown metric family '{text}' (known: {', '.join(FAMILY_NAMES)})")
    return family


def _results(
    workspace: Path | None,
    filters: dict[str, str | None],
    topic: str | None,
    include_unverified: bool,
) -> list[Result]:
    wanted = ResultFilters(
        family=_check_family(filters.get("metric")),
        baseline=filters.get("baseline"),
        model=filters.get("model"),
        hardware=filters.get("hardware"),
    )
    with _store(workspace) as (ws, conn):
        if topic is not None:
            _check_topic(ws.settings, topic)
        refresh_result_keys(conn, ws.settings)
        return stored_results(conn, ws.settings, wanted, topic, include_unverified)


def results(
    workspace: Path | None,
    filters: dict[str, str | None],
    topic: str | None,
    include_unverified: bool,
) -> list[dict[str, Any]]:
    """Claims across papers, grouped by metric family and baseline and sorted by value; the
    filters (family, baseline, model, hardware) match canonical names, any case."""
    return [result_record(r) for r in _results(workspace, filters, topic, include_unverified)]


def results_graph(
    workspace: Path | None,
    filters: dict[str, str | None],
    topic: str | None,
    include_unverified: bool,
) -> dict[str, Any]:
    """The comparison graph of the same results: systems and baselines, and who reports
    results over whom on which metric, each edge with its claims and their quote links."""
    from frontier.store.browse import page_counts
    from frontier.web.links import quote_link

    found = _results(workspace, filters, topic, include_unverified)
    with _store(workspace) as (_ws, conn):
        counts = page_counts(conn)
    graph = comparison_graph(found)
    return graph_record(graph, lambda r: quote_link(r, pages=counts.get(r.claim.paper_id, 0)))


def _add_item(workspace: Path | None, table: str, topic: str, item_text: str) -> AddedItem:
    noun = table.removesuffix("s")
    clean = " ".join(item_text.split())
    if not clean:
        raise KBError(f"the {noun} text is empty")
    with _store(workspace) as (ws, conn):
        _check_topic(ws.settings, topic)
        added = item_status.add_item(conn, table, topic, clean)
    return AddedItem(noun, topic, clean, added.id, added.status, added.new)


def gaps_add(workspace: Path | None, topic: str, gap_text: str) -> AddedItem:
    """Add an open gap to a topic by hand; the same text twice is a no-op."""
    return _add_item(workspace, "gaps", topic, gap_text)


def gaps_list(
    workspace: Path | None, topic: str | None, status: str | None
) -> list[dict[str, Any]]:
    """Gaps, optionally of one topic or status; config gaps not yet stored have no id."""
    if status is not None and status not in GAP_STATUSES:
        raise KBError(f"unknown status '{status}' (known: {', '.join(GAP_STATUSES)})")
    with _store(workspace) as (ws, conn):
        if topic is not None:
            _check_topic(ws.settings, topic)
        rows = items_data(conn, "gaps") + untracked_gaps(ws.settings, load_gaps(conn))
    return [
        r
        for r in rows
        if (topic is None or r["topic"] == topic) and (status is None or r["status"] == status)
    ]


def gaps_move(workspace: Path | None, gap_id: int, action: str) -> Moved:
    """Close an open gap, or accept (it becomes open) or reject a proposed one."""
    with _store(workspace) as (_ws, conn), _kb_errors():
        return item_status.move_gap(conn, gap_id, action)


def conflicts_add(workspace: Path | None, topic: str, conflict_text: str) -> AddedItem:
    """Flag a conflict in a topic by hand; the same text twice is a no-op."""
    return _add_item(workspace, "conflicts", topic, conflict_text)


def conflicts_list(workspace: Path | None) -> list[dict[str, Any]]:
    """Every conflict with the papers related to it."""
    with _store(workspace) as (_ws, conn):
        return items_data(conn, "conflicts")


def conflicts_close(workspace: Path | None, conflict_id: int) -> Moved:
    """Close a conflict."""
    with _store(workspace) as (_ws, conn), _kb_errors():
        return item_status.close_conflict(conn, conflict_id)


def entities(workspace: Path | None) -> list[dict[str, Any]]:
    """Tracked entities and how many papers relate to each."""
    with _store(workspace) as (ws, conn):
        return entities_data(conn, ws.settings)


def relations(workspace: Path | None, paper: str | None, kind: str | None) -> list[dict[str, Any]]:
    """Every relation (paper, kind, target, evidence quote, page, how, stage), filtered."""
    with _store(workspace) as (_ws, conn):
        rows = all_relations(conn)
    return [
        r
        for r in rows
        if (not paper or paper.lower() in r["paper"].lower()) and (not kind or r["kind"] == kind)
    ]


def render(workspace: Path | None) -> dict[str, Any]:
    """Render the markdown vault from the store: files written, unchanged, removed, and where."""
    ws = open_workspace(workspace)
    return {**render_workspace(ws), "kb": str(ws.kb_dir)}
