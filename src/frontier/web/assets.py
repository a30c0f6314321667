"""The packaged stylesheet and scripts: served from memory by the server, written into the static
site together with the index its search reads."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from frontier.render.common import Context
from frontier.web.base import NotFound
from frontier.web.links import site_file

if TYPE_CHECKING:
    from frontier.web.server_state import ServerState
    from frontier.web.site_build import SiteBuild

STATIC_FILES = ("style.css", "claims.js", "search.js")  # packaged; the site adds its index
SEARCH_INDEX = "search-index.js"
_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


@cache
def static_assets() -> dict[str, tuple[bytes, str]]:
    """The packaged assets, read once; nothing else is ever served from disk."""
    folder = resources.files("frontier.web").joinpath("static")
    assets = {}
    for name in STATIC_FILES:
        suffix = name[name.rfind(".") :]
        assets[name] = (folder.joinpath(name).read_bytes(), _TYPES[suffix])
    return assets


def static_page(server: ServerState, request: Request) -> Response:
    asset = static_assets().get(request.path_params["name"])
    if asset is None:
        raise NotFound("No such file.")
    return Response(asset[0], media_type=asset[1])


def static_files(site: SiteBuild) -> None:
    """The packaged assets, and the index the site's search reads."""
    folder = resources.files("frontier.web").joinpath("static")
    for name in STATIC_FILES:
        site.add(site_file("static", name), folder.joinpath(name).read_text(encoding="utf-8"))
    site.add(site_file("static", SEARCH_INDEX), search_index(site.ctx))


def search_index(ctx: Context) -> str:
    """A script that sets the index the site's search reads: title, link, date and text."""
    docs = []
    for paper in ctx.kb.papers.values():
        entries = " ".join(e.text for e in ctx.kb.entries_of(paper.id))
        text = " ".join([paper.title, " ".join(paper.authors), paper.abstract or "", entries])
        url = site_file("paper", paper.id)
        docs.append({"title": paper.title, "url": url, "date": paper.date, "text": text.lower()})
    data = json.dumps(docs, ensure_ascii=True)
    # markup characters as escapes: the index stays inert even if pasted into a page
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        data = data.replace(char, escaped)
    return f"window.FRONTIER_INDEX = {data};\n"
