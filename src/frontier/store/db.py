"""Open the workspace database (WAL, foreign keys) and apply numbered migrations once."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

_MIGRATIONS_PACKAGE = "frontier.store.migrations"


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode; writes go through `transaction`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=30000")
    migrate(conn)
    return conn


def first_column(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    """The first column of every row the query gives, in its order."""
    return [row[0] for row in conn.execute(sql, params)]


def database_file(conn: sqlite3.Connection) -> str:
    """The file of the connection's main database ('' for one in memory)."""
    return str(conn.execute("PRAGMA database_list").fetchone()[2])


def index_folder(conn: sqlite3.Connection) -> Path | None:
    """Where the indexes derived from the database live, beside it (None in memory)."""
    path = database_file(conn)
    return Path(path).parent / "index" if path else None


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """All or nothing: BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _migration_files() -> list[tuple[str, str]]:
    folder = resources.files(_MIGRATIONS_PACKAGE)
    files = sorted(
        (p for p in folder.iterdir() if p.name.startswith("m") and p.name.endswith(".sql")),
        key=lambda p: p.name,
    )
    return [(p.name.removesuffix(".sql"), p.read_text(encoding="utf-8")) for p in files]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply every migration not yet recorded, each in its own transaction."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    applied = []
    for name, sql in _migration_files():
        if name in done:
            continue
        with transaction(conn):
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (name, now()))
        applied.append(name)
    return applied


def _statements(sql: str) -> Iterator[str]:
    """Split a migration into statements; trigger bodies keep their inner semicolons."""
    buffer = ""
    for line in sql.splitlines(keepends=True):
        if line.strip().startswith("--") and not buffer:
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                yield buffer.strip()
            buffer = ""
    if buffer.strip():
        yield buffer.strip()
