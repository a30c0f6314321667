"""Where each page of the web UI lives: its name, path, route, template, navigation label and
whether the static site holds it; one row each, data only, so links and templates can read it
without the views. What answers each address is its row of PAGES (pages.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Address:
    """Where one page (or served file) of the UI lives."""

    name: str  # what links call it: Links().url(name, *args)
    path: str  # its path with positional parts, e.g. "topic/{0}"; "" is the home page
    route: str | None  # the server's route, None when another route serves it
    template: str | None  # what its HTML is rendered from, if it is HTML
    in_site: bool = False  # whether `frontier site` writes it as well
    nav: str | None = None  # its label in the navigation bar, if it has one
    methods: tuple[str, ...] = ("GET",)


ADDRESSES: tuple[Address, ...] = (
    Address("ask", "ask", "/ask", "ask.html", nav="Ask", methods=("GET", "POST")),
    Address("topics", "", "/", "topics.html", in_site=True, nav="Topics"),
    Address("topic", "topic/{0}", "/topic/{slug}", "topic.html", in_site=True),
    Address(
        "frontier", "topic/{0}/frontier", "/topic/{slug}/frontier", "frontier.html", in_site=True
    ),
    Address("paper", "paper/{0}", "/paper/{rest:path}", "paper.html", in_site=True),
    Address("page", "paper/{0}/page/{1}", None, "page.html", in_site=True),
    Address("entity", "entity/{0}", "/entity/{slug}", "entity.html", in_site=True),
    Address("claims", "claims", "/claims", "claims.html", in_site=True, nav="Claims"),
    Address("results", "results", "/results", "results.html", in_site=True, nav="Results"),
    Address("results_graph", "results/graph", "/results/graph", "results_graph.html", in_site=True),
    Address("search", "search", "/search", "search.html", in_site=True, nav="Search"),
    Address("maps", "maps", "/maps", "maps.html", in_site=True, nav="Maps"),
    Address("map", "maps/{0}", "/maps/{map_id}", "map.html", in_site=True),
    Address("digests", "digest", "/digest", "digests.html", in_site=True, nav="Digest"),
    Address("digest", "digest/{0}", "/digest/{name}", "digest.html", in_site=True),
    Address("feed", "feed.xml", "/feed.xml", None, in_site=True),
    Address("usage", "usage", "/usage", "usage.html", in_site=True, nav="Usage"),
    Address("login", "login", "/login", "login.html", methods=("GET", "POST")),
    Address("static", "static/{0}", "/static/{name}", None, in_site=True),
    Address("gap_action", "gap/{0}/{1}", "/gap/{gap_id}/{action}", None, methods=("POST",)),
)
BY_NAME = {address.name: address for address in ADDRESSES}
# the page names in the order the navigation bar shows them
NAV_ORDER = ("topics", "digests", "claims", "results", "search", "maps", "ask", "usage")


def address(name: str) -> Address:
    """The address of the page `name`; ValueError when there is no such page."""
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
