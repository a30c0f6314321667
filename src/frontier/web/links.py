"""Where each page lives: a path on the server, or a file of the static site linked relatively."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from frontier.render.common import safe_name

STATIC_FILES = ("style.css", "claims.js", "search.js")  # packaged; the site adds its index


def page_path(name: str, *args: object) -> str:
    """The page's path without a suffix, e.g. `paper/2309.06180/page/4` ('' is the home page)."""
    if name == "topics":
        return ""
    if name in ("claims", "search", "usage", "maps", "ask"):
        return name
    if name == "map":
        return f"maps/{args[0]}"
    if name == "topic":
        return f"topic/{args[0]}"
    if name == "frontier":
        return f"topic/{args[0]}/frontier"
    if name == "paper":
        return f"paper/{args[0]}"
    if name == "page":
        return f"paper/{args[0]}/page/{args[1]}"
    if name == "entity":
        return f"entity/{args[0]}"
    if name == "static":
        return f"static/{args[0]}"
    if name == "gap_action":
        return f"gap/{args[0]}/{args[1]}"
    raise ValueError(f"no such page: {name}")


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
