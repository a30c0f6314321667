"""Write the markdown vault: every page rendered from the store, written only when it changed."""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
from pathlib import Path

from frontier.config import Settings
from frontier.render.common import (
    INDEX,
    Context,
    entity_path,
    frontier_path,
    source_path,
    topic_path,
)
from frontier.render.digest_page import DIGESTS_DIR, stored_digest_pages
from frontier.render.maps import map_page
from frontier.render.sources import entity_page, source_page
from frontier.render.topics import frontier_page, index_page, topic_page
from frontier.store.kb import load_kb
from frontier.store.synthesis import stored_maps

MANAGED_DIRS = ("topics", "entities", "sources", "maps", DIGESTS_DIR)


def vault_pages(conn: sqlite3.Connection, settings: Settings) -> dict[str, str]:
    """Every page of the vault: its path inside the vault and its text."""
    ctx = Context(load_kb(conn, settings), settings)
    pages = {INDEX: index_page(ctx)}
    for topic in settings.topics:
        pages[topic_path(topic.slug)] = topic_page(ctx, topic)
        pages[frontier_path(topic.slug)] = frontier_page(ctx, topic)
    for entity in ctx.kb.entities:
        pages[entity_path(entity.slug)] = entity_page(ctx, entity)
    for paper in ctx.kb.papers.values():
        pages[source_path(paper.id)] = source_page(ctx, paper)
    for stored in stored_maps(conn):
        pages[stored.path] = map_page(stored)
    pages.update(stored_digest_pages(conn, settings))
    return pages


def render_vault(conn: sqlite3.Connection, settings: Settings, out_dir: Path) -> dict[str, int]:
    """Bring the vault under `out_dir` in line with the store; counts written/unchanged/removed."""
    pages = vault_pages(conn, settings)
    counts = {"written": 0, "unchanged": 0, "removed": 0}
    for relpath in sorted(pages):
        changed = write_if_changed(out_dir / relpath, pages[relpath])
        counts["written" if changed else "unchanged"] += 1
    counts["removed"] = remove_stale(out_dir, set(pages))
    return counts


def write_if_changed(path: Path, content: str) -> bool:
    """Replace the file atomically when its bytes differ; True when it was written."""
    data = content.encode("utf-8")
    with contextlib.suppress(FileNotFoundError):
        if path.read_bytes() == data:
            return False
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with temp.open("xb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return True


def remove_stale(out_dir: Path, keep: set[str]) -> int:
    """Delete markdown files in the managed folders that no page produced; prune empty folders."""
    removed = 0
    for folder in MANAGED_DIRS:
        root = out_dir / folder
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.md")):
            if path.is_file() and path.relative_to(out_dir).as_posix() not in keep:
                path.unlink()
                removed += 1
        _prune_empty(root)
    return removed


def _prune_empty(root: Path) -> None:
    for folder in sorted((p for p in root.rglob("*") if p.is_dir()), reverse=True):
        with contextlib.suppress(OSError):
            folder.rmdir()
