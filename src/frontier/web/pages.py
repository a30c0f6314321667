"""Every page of the web UI, one row each: the table the routes, the links, the navigation and
the static site are built from. A new page is a view (the function that answers its route, with
its site writer if the static site holds it), a template and a row here.

A row names its view and site writer as "module:function" of frontier.web, resolved when the
server or the site is built: the table is data, so the links and templates the views use read
it without importing the views."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Page:
    """One page (or served file) of the UI."""

    name: str  # what links call it: Links().url(name, *args)
    path: str  # its path with positional parts, e.g. "topic/{0}"; "" is the home page
    route: str | None  # the server's route, None when another route serves it
    view: str | None  # "module:function" answering the route, called (ServerState, Request)
    template: str | None  # what its HTML is rendered from, if it is HTML
    site: str | None  # "module:function" writing it into the static site, called (SiteBuild)
    nav: str | None = None  # its label in the navigation bar, if it has one
    methods: tuple[str, ...] = ("GET",)

    @property
    def in_site(self) -> bool:
        """Whether `frontier site` writes it as well."""
        return self.site is not None


PAGES: tuple[Page, ...] = (
    Page(
        "ask",
        "ask",
        "/ask",
        "asking:ask_page",
        "ask.html",
        None,
        nav="Ask",
        methods=("GET", "POST"),
    ),
    Page("topics", "", "/", "views:topics_page", "topics.html", "views:topics_files", nav="Topics"),
    Page(
        "topic", "topic/{0}", "/topic/{slug}", "views:topic_page", "topic.html", "views:topic_files"
    ),
    Page(
        "frontier",
        "topic/{0}/frontier",
        "/topic/{slug}/frontier",
        "views:frontier_page",
        "frontier.html",
        "views:frontier_files",
    ),
    Page(
        "paper",
        "paper/{0}",
        "/paper/{rest:path}",
        "views:paper_page",
        "paper.html",
        "views:paper_files",
    ),
    Page("page", "paper/{0}/page/{1}", None, None, "page.html", "views:page_files"),
    Page(
        "entity",
        "entity/{0}",
        "/entity/{slug}",
        "views:entity_page",
        "entity.html",
        "views:entity_files",
    ),
    Page(
        "claims",
        "claims",
        "/claims",
        "views:claims_page",
        "claims.html",
        "views:claims_files",
        nav="Claims",
    ),
    Page(
        "results",
        "results",
        "/results",
        "results_views:results_page",
        "results.html",
        "results_views:results_files",
        nav="Results",
    ),
    Page(
        "results_graph",
        "results/graph",
        "/results/graph",
        "results_views:results_graph_page",
        "results_graph.html",
        "results_views:results_graph_files",
    ),
    Page(
        "search",
        "search",
        "/search",
        "views:search_page",
        "search.html",
        "views:search_files",
        nav="Search",
    ),
    Page(
        "maps",
        "maps",
        "/maps",
        "synthesis_views:maps_page",
        "maps.html",
        "synthesis_views:maps_files",
        nav="Maps",
    ),
    Page(
        "map",
        "maps/{0}",
        "/maps/{map_id}",
        "synthesis_views:map_page",
        "map.html",
        "synthesis_views:map_files",
    ),
    Page(
        "digests",
        "digest",
        "/digest",
        "digest_views:digests_page",
        "digests.html",
        "digest_views:digests_files",
        nav="Digest",
    ),
    Page(
        "digest",
        "digest/{0}",
        "/digest/{name}",
        "digest_views:digest_page",
        "digest.html",
        "digest_views:digest_files",
    ),
    Page("feed", "feed.xml", "/feed.xml", "feed:feed_page", None, "feed:feed_files"),
    Page(
        "usage",
        "usage",
        "/usage",
        "views:usage_page",
        "usage.html",
        "views:usage_files",
        nav="Usage",
    ),
    Page(
        "login", "login", "/login", "login:login_page", "login.html", None, methods=("GET", "POST")
    ),
    Page(
        "static", "static/{0}", "/static/{name}", "assets:static_page", None, "assets:static_files"
    ),
    Page(
        "gap_action",
        "gap/{0}/{1}",
        "/gap/{gap_id}/{action}",
        "views:gap_action",
        None,
        None,
        methods=("POST",),
    ),
)
BY_NAME = {page.name: page for page in PAGES}
# the page names in the order the navigation bar shows them
NAV_ORDER = ("topics", "digests", "claims", "results", "search", "maps", "ask", "usage")


@cache
def resolve(ref: str) -> Callable[..., object]:
    """The function a row names as "module:function" (a module of frontier.web)."""
    module, _, name = ref.partition(":")
    found: object = getattr(importlib.import_module(f"frontier.web.{module}"), name, None)
    if not callable(found):
        raise LookupError(f"the pages table names {ref}, which frontier.web does not define")
    return found


def page(name: str) -> Page:
    """The page `name`; ValueError when there is no such page."""
    if name not in BY_NAME:
        raise ValueError(f"no such page: {name}")
    return BY_NAME[name]


def navigation(static_site: bool) -> list[tuple[str, str]]:
    """(label, page name) of the navigation bar; the static site's names only the pages it has."""
    return [
        (BY_NAME[name].nav or name, name)
        for name in NAV_ORDER
        if not static_site or BY_NAME[name].in_site
    ]
