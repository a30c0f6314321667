"""SQLite (WAL, FTS5) as the system of record: schema, migrations, writes and queries."""
