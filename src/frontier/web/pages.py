"""What answers each page of the web UI, one row each: the table the routes and the static site
are built from. A new page is a view (the function that answers its route, with its site writer
if the static site holds it), a template, its address (addresses.py) and a row here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from frontier.web import (
    asking,
    assets,
    digest_views,
    feed,
    login,
    results_views,
    synthesis_views,
    views,
)
from frontier.web.addresses import ADDRESSES, Address
from frontier.web.addresses import address as at

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from frontier.web.server_state import ServerState
    from frontier.web.site_build import SiteBuild

    # answers a request to the page's route
    PageView = Callable[[ServerState, Request], Response | Awaitable[Response]]
    # writes the page into the static site: a file for each topic, paper, ... it is shown for
    SiteWriter = Callable[[SiteBuild], None]


@dataclass(frozen=True)
class Page:
    """One page (or served file) of the UI: where it lives, what answers its route and what
    writes it into the static site."""

    address: Address
    view: PageView | None  # what answers the route
    site: SiteWriter | None  # how `frontier site` writes it, None when the site has no such page

    def __post_init__(self) -> None:
        if self.address.in_site != (self.site is not None):
            raise ValueError(f"page {self.name}: its address and its site writer disagree")

    @property
    def name(self) -> str:
        return self.address.name

    @property
    def path(self) -> str:
        return self.address.path

    @property
    def route(self) -> str | None:
        return self.address.route

    @property
    def template(self) -> str | None:
        return self.address.template

    @property
    def nav(self) -> str | None:
        return self.address.nav

    @property
    def methods(self) -> tuple[str, ...]:
        return self.address.methods

    @property
    def in_site(self) -> bool:
        """Whether `frontier site` writes it as well."""
        return self.site is not None


PAGES: tuple[Page, ...] = (
    Page(at("ask"), asking.ask_page, None),
    Page(at("topics"), views.topics_page, views.topics_files),
    Page(at("topic"), views.topic_page, views.topic_files),
    Page(at("frontier"), views.frontier_page, views.frontier_files),
    Page(at("paper"), views.paper_page, views.paper_files),
    Page(at("page"), None, views.page_files),
    Page(at("entity"), views.entity_page, views.entity_files),
    Page(at("claims"), views.claims_page, views.claims_files),
    Page(at("results"), results_views.results_page, results_views.results_files),
    Page(at("results_graph"), results_views.results_graph_page, results_views.results_graph_files),
    Page(at("search"), views.search_page, views.search_files),
    Page(at("maps"), synthesis_views.maps_page, synthesis_views.maps_files),
    Page(at("map"), synthesis_views.map_page, synthesis_views.map_files),
    Page(at("digests"), digest_views.digests_page, digest_views.digests_files),
    Page(at("digest"), digest_views.digest_page, digest_views.digest_files),
    Page(at("feed"), feed.feed_page, feed.feed_files),
    Page(at("usage"), views.usage_page, views.usage_files),
    Page(at("login"), login.login_page, None),
    Page(at("static"), assets.static_page, assets.static_files),
    Page(at("gap_action"), views.gap_action, None),
)
if [page.name for page in PAGES] != [address.name for address in ADDRESSES]:
    raise RuntimeError("every address of addresses.py needs its row in PAGES, in the same order")
