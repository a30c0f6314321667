"""`frontier site`: the web UI's pages written as files with relative links, search in the page.
Each page of PAGES that the site holds is written by its row's site writer."""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from frontier.render.common import Context
from frontier.render.vault import write_if_changed
from frontier.store.browse import page_counts, read_only
from frontier.store.kb import load_kb
from frontier.web.base import View
from frontier.web.links import Links, site_file
from frontier.web.pages import PAGES
from frontier.web.templating import render
from frontier.workspace import Workspace


@dataclass
class SiteBuild:
    """What a page's site writer reads (the KB, the store, the pages stored per paper), and the
    files it writes, by path inside the site."""

    ctx: Context
    conn: sqlite3.Connection
    counts: dict[str, int]  # stored pages per paper
    files: dict[str, str] = field(default_factory=dict)

    def write(self, name: str, view: View, *args: object) -> None:
        """The page `name` (with its positional parts `args`) as its file of the site."""
        here = site_file(name, *args)
        self.files[here] = render(view, self.ctx, self.links(name, *args))

    def add(self, path: str, text: str) -> None:
        """A file that is no rendered page: an asset, the feed."""
        self.files[path] = text

    def links(self, name: str, *args: object, base: str = "") -> Links:
        """Links as the file of the page `name` makes them."""
        return Links(static_site=True, here=site_file(name, *args), base=base)


def site_pages(ws: Workspace) -> dict[str, str]:
    """Every file of the site: its path inside the site and its text, for each page of PAGES
    that the site holds."""
    with contextlib.closing(read_only(ws.db_path)) as conn:
        ctx = Context(load_kb(conn, ws.settings), ws.settings)
        site = SiteBuild(ctx, conn, page_counts(conn))
        for page in PAGES:
            if page.site is not None:
                page.site(site)
    return site.files


def write_site(ws: Workspace, out: Path) -> dict[str, int]:
    """Write every file of the site under `out`; only files whose content changed are rewritten."""
    files = site_pages(ws)
    written = sum(write_if_changed(out / path, text) for path, text in sorted(files.items()))
    pages = sum(1 for path in files if path.endswith(".html"))
    return {"pages": pages, "files": len(files), "written": written}
