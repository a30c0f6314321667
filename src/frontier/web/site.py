"""`frontier site`: the web UI's pages written as files with relative links, search in the page.
Each page of PAGES that the site holds is written by its row's site writer."""

from __future__ import annotations

import contextlib
from pathlib import Path

from frontier.render.common import Context
from frontier.render.vault import write_if_changed
from frontier.store.browse import page_counts, read_only
from frontier.store.kb import load_kb
from frontier.web.pages import PAGES, resolve
from frontier.web.site_build import SiteBuild
from frontier.workspace import Workspace


def site_pages(ws: Workspace) -> dict[str, str]:
    """Every file of the site: its path inside the site and its text, for each page of PAGES
    that the site holds."""
    with contextlib.closing(read_only(ws.db_path)) as conn:
        ctx = Context(load_kb(conn, ws.settings), ws.settings)
        site = SiteBuild(ctx, conn, page_counts(conn))
        for page in PAGES:
            if page.site is not None:
                resolve(page.site)(site)
    return site.files


def write_site(ws: Workspace, out: Path) -> dict[str, int]:
    """Write every file of the site under `out`; only files whose content changed are rewritten."""
    files = site_pages(ws)
    written = sum(write_if_changed(out / path, text) for path, text in sorted(files.items()))
    pages = sum(1 for path in files if path.endswith(".html"))
    return {"pages": pages, "files": len(files), "written": written}
