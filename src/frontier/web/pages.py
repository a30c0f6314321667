"""Every page of the web UI, one row each: the table the routes, the links, the navigation and
the static site are built from. A new page is a view plus a row here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    """One page (or served file) of the UI."""

    name: str  # what links call it: Links().url(name, *args)
    path: str  # its path with positional parts, e.g. "topic/{0}"; "" is the home page
    route: str | None  # the server's route, None when another route serves it
    view: str | None  # the WebApp handler that answers the route
    in_site: bool  # written by `frontier site` as well
    nav: str | None = None  # its label in the navigation bar, if it has one
    methods: tuple[str, ...] = ("GET",)


PAGES: tuple[Page, ...] = (
    Page("ask", "ask", "/ask", "ask", in_site=False, nav="Ask", methods=("GET", "POST")),
    Page("topics", "", "/", "topics", in_site=True, nav="Topics"),
    Page("topic", "topic/{0}", "/topic/{slug}", "topic", in_site=True),
    Page("frontier", "topic/{0}/frontier", "/topic/{slug}/frontier", "frontier", in_site=True),
    Page("paper", "paper/{0}", "/paper/{rest:path}", "paper", in_site=True),
    Page("page", "paper/{0}/page/{1}", None, None, in_site=True),  # served by the paper route
    Page("entity", "entity/{0}", "/entity/{slug}", "entity", in_site=True),
    Page("claims", "claims", "/claims", "claims", in_site=True, nav="Claims"),
    Page("results", "results", "/results", "results", in_site=True, nav="Results"),
    Page("results_graph", "results/graph", "/results/graph", "results_graph", in_site=True),
    Page("search", "search", "/search", "search", in_site=True, nav="Search"),
    Page("maps", "maps", "/maps", "maps", in_site=True, nav="Maps"),
    Page("map", "maps/{0}", "/maps/{map_id}", "one_map", in_site=True),
    Page("digests", "digest", "/digest", "digests", in_site=True, nav="Digest"),
    Page("digest", "digest/{0}", "/digest/{name}", "one_digest", in_site=True),
    Page("feed", "feed.xml", "/feed.xml", "feed", in_site=True),
    Page("usage", "usage", "/usage", "usage", in_site=True, nav="Usage"),
    Page("login", "login", "/login", "login", in_site=False, methods=("GET", "POST")),
    Page("static", "static/{0}", "/static/{name}", "static", in_site=True),
    Page(
        "gap_action",
        "gap/{0}/{1}",
        "/gap/{gap_id}/{action}",
        "gap_action",
        in_site=False,
        methods=("POST",),
    ),
)
BY_NAME = {page.name: page for page in PAGES}
# (label, page name) in the order the navigation bar shows them
NAV_ORDER = ("topics", "digests", "claims", "results", "search", "maps", "ask", "usage")
NAV: list[tuple[str, str]] = [(BY_NAME[name].nav or name, name) for name in NAV_ORDER]
