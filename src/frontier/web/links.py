"""Where each page lives: a path on the server, or a file of the static site linked relatively."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from frontier.render.common import safe_name
from frontier.web.pages import PAGES

STATIC_FILES = ("style.css", "claims.js", "search.js")  # packaged; the site adds its index


_PATHS = {page.name: page.path for page in PAGES}


def page_path(name: str, *args: object) -> str:
    """The page's path without a suffix, e.g. `paper/2309.06180/page/4` ('' is the home page)."""
    if name not in _PATHS:
        raise ValueError(f"no such page: {name}")
    return _PATHS[name].format(*args)


def site_file(name: str, *args: object) -> str:
    """The file of the static site that holds a page."""
    if name in ("paper", "page", "entity"):
        args = (safe_name(str(args[0])), *args[1:])
    path = page_path(name, *args)
    if name == "static":
        return path
    return f"{path}.html" if path else "index.html"


@dataclass(frozen=True)
class Links:
    """Builds links for one page: absolute paths on the server, relative files in the site."""

    static_site: bool = False
    here: str = "index.html"

    def url(self, name: str, *args: object, **query: object) -> str:
        if self.static_site:
            # pages of the site are written once: a query string could change nothing in them
            return posixpath.relpath(site_file(name, *args), posixpath.dirname(self.here) or ".")
        target = "/" + page_path(name, *(quote(str(arg), safe="") for arg in args))
        shown = {k: v for k, v in query.items() if v not in (None, "")}
        return f"{target}?{urlencode(shown)}" if shown else target
