"""The KB commands: papers, claims, gaps, conflicts, entities and render, one function each."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from frontier import render_cli
from frontier.config import Settings
from frontier.render import render_vault
from frontier.render.export import claims_csv
from frontier.store.db import now, transaction
from frontier.store.kb import load_items
from frontier.store.listing import (
    claims_data,
    entities_data,
    items_data,
    papers_data,
    untracked_gaps,
)
from frontier.workspace import Workspace, open_workspace

GAP_STATUSES = ("open", "closed", "proposed", "rejected")
# action: (statuses it applies to, status it sets)
_GAP_MOVES = {
    "close": ({"open"}, "closed"),
    "accept": ({"proposed"}, "open"),
    "reject": ({"proposed"}, "rejected"),
}


class KBError(Exception):
    """A request the KB cannot carry out; the message says why and what is known."""


@contextlib.contextmanager
def _store(workspace: Path | None) -> Iterator[tuple[Workspace, sqlite3.Connection]]:
    ws = open_workspace(workspace)
    conn = ws.connect()
    try:
        yield ws, conn
    finally:
        conn.close()


def _check_topic(settings: Settings, slug: str) -> str:
    known = [t.slug for t in settings.topics]
    if slug not in known:
        raise KBError(f"unknown topic '{slug}' (known topics: {', '.join(known) or 'none'})")
    return slug


def _print_table(console: Console, columns: str, rows: list[list[str]], footer: str) -> None:
    """A table of plain text cells (escaped here) and a one-line footer."""
    table = Table()
    for column in columns.split():
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    console.print(table)
    console.print(footer)


def papers(workspace: Path | None, topic: str | None, json_out: bool, console: Console) -> int:
    """List papers with their topics, the triage reason and the stage that decided."""
    with _store(workspace) as (ws, conn):
        if topic is not None:
            _check_topic(ws.settings, topic)
        data = papers_data(conn, topic)
    if json_out:
        render_cli.print_json(console, data)
        return 0
    rows = []
    for paper in data:
        where = ", ".join(paper["topics"]) or ("out of field" if paper["out_of_field"] else "—")
        stages = ", ".join(sorted({r["stage"] for r in paper["triage"]}))
        reasons = "; ".join(r["reason"] for r in paper["triage"])
        rows.append([paper["id"], paper["date"], paper["title"], where, stages, reasons])
    _print_table(console, "id date title topics stage reason", rows, f"{len(data)} papers.")
    return 0


def claims(
    workspace: Path | None,
    filters: dict[str, str | None],
    include_unverified: bool,
    output: str,
    console: Console,
) -> int:
    """Print claims as a table, JSON (`output='json'`) or CSV (`output='csv'`)."""
    with _store(workspace) as (_ws, conn):
        rows = claims_data(conn, filters, include_unverified)
    if output == "json":
        render_cli.print_json(console, rows)
    elif output == "csv":
        console.file.write(claims_csv(rows))
        console.file.flush()
    else:
        _print_claims(console, rows)
    return 0


def _print_claims(console: Console, rows: list[dict[str, Any]]) -> None:
    cells = []
    for r in rows:
        value = f"{r['value_text']} {r['unit']}".strip()
        page = "" if r["page"] is None else str(r["page"])
        status = "verified" if r["verified"] else "UNVERIFIED"
        cells.append([r["paper"], r["metric"], value, r["baseline"], r["model"], r["hardware"]])
        cells[-1] += [page, status, r["quote"]]
    unverified = sum(1 for r in rows if not r["verified"])
    tail = f" ({unverified} unverified: not facts)" if unverified else ""
    columns = "paper metric value baseline model hardware page status quote"
    _print_table(console, columns, cells, f"{len(rows)} claims{tail}.")


def _add_item(
    workspace: Path | None, table: str, topic: str, item_text: str, console: Console
) -> int:
    noun = table.removesuffix("s")
    clean = " ".join(item_text.split())
    if not clean:
        raise KBError(f"the {noun} text is empty")
    with _store(workspace) as (ws, conn):
        _check_topic(ws.settings, topic)
        with transaction(conn):
            rows = conn.execute(f"SELECT id, text, status FROM {table} WHERE topic = ?", (topic,))
            same = next((r for r in rows if r["text"].casefold() == clean.casefold()), None)
            if same is None:
                added = conn.execute(
                    f"INSERT INTO {table} (topic, text, status, source, created_at) "
                    "VALUES (?, ?, 'open', 'manual', ?)",
                    (topic, clean, now()),
                ).lastrowid
    if same is not None:
        console.print(
            f"{noun.capitalize()} {same['id']} in {topic} already says this ({same['status']}); "
            "nothing added."
        )
        return 0
    console.print(f"Added {noun} {added} to {topic}: {escape(clean)}")
    return 0


def _ident(value: int | None) -> str:
    return "—" if value is None else str(value)


def _print_items(console: Console, noun: str, rows: list[dict[str, Any]]) -> None:
    cells = [
        [_ident(r["id"]), r["topic"], r["status"], r["source"], str(len(r["papers"])), r["text"]]
        for r in rows
    ]
    _print_table(console, "id topic status source papers text", cells, f"{len(rows)} {noun}.")


def gaps_add(workspace: Path | None, topic: str, gap_text: str, console: Console) -> int:
    """Add an open gap to a topic by hand; the same text twice is a no-op."""
    return _add_item(workspace, "gaps", topic, gap_text, console)


def gaps_list(
    workspace: Path | None, topic: str | None, status: str | None, json_out: bool, console: Console
) -> int:
    """List gaps, optionally of one topic or status; config gaps not yet stored have no id."""
    if status is not None and status not in GAP_STATUSES:
        raise KBError(f"unknown status '{status}' (known: {', '.join(GAP_STATUSES)})")
    with _store(workspace) as (ws, conn):
        if topic is not None:
            _check_topic(ws.settings, topic)
        rows = items_data(conn, "gaps") + untracked_gaps(ws.settings, load_items(conn, "gaps"))
    rows = [
        r
        for r in rows
        if (topic is None or r["topic"] == topic) and (status is None or r["status"] == status)
    ]
    if json_out:
        render_cli.print_json(console, rows)
    else:
        _print_items(console, "gaps", rows)
    return 0


def _move_gap(workspace: Path | None, gap_id: int, action: str, console: Console) -> int:
    allowed, target = _GAP_MOVES[action]
    with _store(workspace) as (_ws, conn), transaction(conn):
        row = conn.execute("SELECT status FROM gaps WHERE id = ?", (gap_id,)).fetchone()
        if row is None:
            raise KBError(f"no gap {gap_id} (see `frontier gaps list`)")
        current = row["status"]
        if current != target and current not in allowed:
            raise KBError(
                f"gap {gap_id} is {current}; only {' or '.join(sorted(allowed))} gaps can be "
                f"{action}ed"
            )
        if current != target:
            closed_at = now() if target == "closed" else None
            conn.execute(
                "UPDATE gaps SET status = ?, closed_at = ? WHERE id = ?",
                (target, closed_at, gap_id),
            )
    if current == target:
        console.print(f"Gap {gap_id} is already {target}; nothing changed.")
    else:
        console.print(f"Gap {gap_id}: {current} → {target}.")
    return 0


def gaps_close(workspace: Path | None, gap_id: int, console: Console) -> int:
    """Close an open gap."""
    return _move_gap(workspace, gap_id, "close", console)


def gaps_accept(workspace: Path | None, gap_id: int, console: Console) -> int:
    """Accept a proposed gap: it becomes open."""
    return _move_gap(workspace, gap_id, "accept", console)


def gaps_reject(workspace: Path | None, gap_id: int, console: Console) -> int:
    """Reject a proposed gap."""
    return _move_gap(workspace, gap_id, "reject", console)


def conflicts_add(workspace: Path | None, topic: str, conflict_text: str, console: Console) -> int:
    """Flag a conflict in a topic by hand; the same text twice is a no-op."""
    return _add_item(workspace, "conflicts", topic, conflict_text, console)


def conflicts_list(workspace: Path | None, json_out: bool, console: Console) -> int:
    """List every conflict with the papers related to it."""
    with _store(workspace) as (_ws, conn):
        rows = items_data(conn, "conflicts")
    if json_out:
        render_cli.print_json(console, rows)
    else:
        _print_items(console, "conflicts", rows)
    return 0


def conflicts_close(workspace: Path | None, conflict_id: int, console: Console) -> int:
    """Close an open conflict."""
    with _store(workspace) as (_ws, conn), transaction(conn):
        row = conn.execute("SELECT status FROM conflicts WHERE id = ?", (conflict_id,)).fetchone()
        if row is None:
            raise KBError(f"no conflict {conflict_id} (see `frontier conflicts list`)")
        conn.execute("UPDATE conflicts SET status = 'closed' WHERE id = ?", (conflict_id,))
    if row["status"] == "closed":
        console.print(f"Conflict {conflict_id} is already closed; nothing changed.")
    else:
        console.print(f"Conflict {conflict_id}: {row['status']} → closed.")
    return 0


def entities(workspace: Path | None, json_out: bool, console: Console) -> int:
    """List tracked entities and how many papers relate to each."""
    with _store(workspace) as (ws, conn):
        rows = entities_data(conn, ws.settings)
    if json_out:
        render_cli.print_json(console, rows)
        return 0
    cells = [
        [r["slug"], r["name"], r["kind"], str(r["papers"]), ", ".join(r["aliases"])] for r in rows
    ]
    _print_table(console, "slug name kind papers aliases", cells, f"{len(rows)} entities.")
    return 0


def render(workspace: Path | None, json_out: bool, console: Console) -> int:
    """Render the markdown vault from the store and report what changed."""
    with _store(workspace) as (ws, conn):
        counts = render_vault(conn, ws.settings, ws.kb_dir)
    if json_out:
        render_cli.print_json(console, {**counts, "kb": str(ws.kb_dir)})
    else:
        console.print(
            f"Rendered {escape(str(ws.kb_dir))}: {counts['written']} written, "
            f"{counts['unchanged']} unchanged, {counts['removed']} removed."
        )
    return 0
