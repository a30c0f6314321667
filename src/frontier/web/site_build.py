"""What a page's site writer is given when `frontier site` writes the static site."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from frontier.render.common import Context
from frontier.web.base import View
from frontier.web.links import Links, site_file
from frontier.web.templating import render


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
