"""The local web server: Starlette routes over the store, read-only unless edits are allowed."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from importlib import resources
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from frontier.store.browse import map_rows, page_count, page_counts, read_only
from frontier.store.queries import page_text
from frontier.store.status import StatusError, gap_topic, move_gap
from frontier.synthesize.retrieve import search_papers
from frontier.web import digest_views, results_views, synthesis_views, views
from frontier.web.asking import AskPage
from frontier.web.links import STATIC_FILES, Links
from frontier.web.pages import PAGES
from frontier.web.server_state import ServerState, usage_rows
from frontier.workspace import Workspace

SEARCH_LIMIT = 20
MAX_BODY_BYTES = 64 * 1024  # a question and a token: no form of ours needs more
# the biggest pages are cut on the server (the static site has them whole)
ENTRIES_SHOWN, CLAIMS_SHOWN, RESULTS_SHOWN = 200, 500, 1000
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
_PAGE_OF_PAPER = re.compile(r"^(?P<id>.+)/page/(?P<n>\d{1,6})$")
_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """Adds a strict content security policy and friends to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyLimit:
    """Refuses a request body larger than MAX_BODY_BYTES, counted as it arrives (a declared
    length is not trusted), before a handler holds it in memory."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length", b"0")
        too_large = int(declared) > MAX_BODY_BYTES if declared.isdigit() else False
        received = 0

        async def counted() -> Message:
            nonlocal received
            if too_large:
                raise HTTPException(413, "The request is too large.")
            message = await receive()
            received += len(message.get("body", b""))
            if received > MAX_BODY_BYTES:
                raise HTTPException(413, "The request is too large.")
            return message

        await self.app(scope, counted, send)


def _static_assets() -> dict[str, tuple[bytes, str]]:
    """The packaged assets, read once; nothing else is ever served from disk."""
    folder = resources.files("frontier.web").joinpath("static")
    assets = {}
    for name in STATIC_FILES:
        suffix = name[name.rfind(".") :]
        assets[name] = (folder.joinpath(name).read_bytes(), _TYPES[suffix])
    return assets


class WebApp:
    """Request handlers over one workspace; each request reads through its own connection."""

    def __init__(self, ws: Workspace, allow_edits: bool) -> None:
        self.state = ServerState(ws, allow_edits)
        self.ws = ws
        self.assets = _static_assets()
        self.asking = AskPage(self.state)
        # every handler reads and renders through the state the ask page shares
        self.reading = self.state.reading
        self.page = self.state.page

    async def ask(self, request: Request) -> Response:
        return await self.asking.ask(request)

    def topics(self, request: Request) -> Response:
        with self.reading() as (_conn, ctx):
            return self.page(views.topics_view(ctx), ctx)

    def topic(self, request: Request) -> Response:
        with self.reading() as (_conn, ctx):
            limit = None if request.query_params.get("all") else ENTRIES_SHOWN
            return self.page(views.topic_view(ctx, request.path_params["slug"], limit), ctx)

    def frontier(self, request: Request) -> Response:
        with self.reading() as (_conn, ctx):
            return self.page(views.frontier_view(ctx, request.path_params["slug"]), ctx)

    def paper(self, request: Request) -> Response:
        """`/paper/ID` or `/paper/ID/page/N` (an id may itself hold a slash)."""
        rest = request.path_params["rest"]
        with self.reading() as (conn, ctx):
            found = _PAGE_OF_PAPER.match(rest)
            if found is None:
                return self.page(views.paper_view(ctx, rest, page_count(conn, rest)), ctx)
            paper_id, number = found["id"], int(found["n"])
            claim = request.query_params.get("claim", "")
            view = views.page_text_view(
                ctx,
                paper_id,
                number,
                page_text(conn, paper_id, number),
                page_count(conn, paper_id),
                int(claim) if claim.isdigit() else None,
            )
            return self.page(view, ctx)

    def entity(self, request: Request) -> Response:
        with self.reading() as (_conn, ctx):
            return self.page(views.entity_view(ctx, request.path_params["slug"]), ctx)

    def claims(self, request: Request) -> Response:
        params = request.query_params
        filters = {k: params.get(k, "").strip() for k in ("metric", "model", "hardware")}
        with self.reading() as (conn, ctx):
            counts = page_counts(conn)
            sort = params.get("sort", "newest")
            view = views.claims_view(ctx, counts, filters, sort, CLAIMS_SHOWN)
            return self.page(view, ctx)

    def results(self, request: Request) -> Response:
        filters = results_views.result_filters(request.query_params)
        with self.reading() as (conn, ctx):
            view = results_views.results_view(ctx, conn, filters, Links(), RESULTS_SHOWN)
            return self.page(view, ctx)

    def results_graph(self, request: Request) -> Response:
        filters = results_views.result_filters(request.query_params)
        with self.reading() as (conn, ctx):
            return self.page(results_views.results_graph_view(ctx, conn, filters, Links()), ctx)

    def search(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        with self.reading() as (conn, ctx):
            hits = (
                search_papers(conn, query, SEARCH_LIMIT, self.state.embedder.get()) if query else []
            )
            return self.page(views.search_view(ctx, query, hits), ctx)

    def maps(self, request: Request) -> Response:
        with self.reading() as (conn, ctx):
            return self.page(synthesis_views.maps_view(ctx, map_rows(conn)), ctx)

    def one_map(self, request: Request) -> Response:
        with self.reading() as (conn, ctx):
            row = synthesis_views.stored_map(conn, request.path_params["map_id"])
            return self.page(synthesis_views.map_view(ctx, row), ctx)

    def digests(self, request: Request) -> Response:
        with self.reading() as (conn, ctx):
            return self.page(digest_views.digests_view(conn, self.ws.settings), ctx)

    def one_digest(self, request: Request) -> Response:
        with self.reading() as (conn, ctx):
            view = digest_views.digest_view(conn, self.ws.settings, request.path_params["name"])
            return self.page(view, ctx)

    def feed(self, request: Request) -> Response:
        """The Atom feed of the digests, its links absolute on this server."""
        from frontier.web.feed import atom_feed

        links = Links(base=str(request.base_url))
        with self.reading() as (conn, _ctx):
            xml = atom_feed(conn, self.ws.settings, links)
        return Response(xml, media_type="application/atom+xml; charset=utf-8")

    def usage(self, request: Request) -> Response:
        with self.reading() as (conn, ctx):
            runs, purposes, priced = usage_rows(conn, self.ws.settings.llm)
            return self.page(views.usage_view(runs, purposes, priced), ctx)

    def static(self, request: Request) -> Response:
        asset = self.assets.get(request.path_params["name"])
        if asset is None:
            raise views.NotFound("No such file.")
        return Response(asset[0], media_type=asset[1])

    async def gap_action(self, request: Request) -> Response:
        """Accept or reject a proposed gap: POST only, with --allow-edits and this page's token."""
        if not self.state.allow_edits:
            raise HTTPException(403, "Editing is off: start `frontier serve --allow-edits`.")
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        if not self.state.token_matches(form.get("csrf", [""])[0]):
            raise HTTPException(403, "The form is stale: reload the page and try again.")
        gap_id, action = request.path_params["gap_id"], request.path_params["action"]
        if action not in ("accept", "reject"):
            raise views.NotFound(f"No action '{action}' on gaps.")
        if gap_id > synthesis_views.MAX_ROW_ID:
            raise views.NotFound(f"No gap {gap_id}.")
        try:
            with contextlib.closing(self.ws.connect()) as conn:
                move_gap(conn, gap_id, action)
        except StatusError as exc:
            raise HTTPException(409, str(exc)) from None
        with contextlib.closing(read_only(self.ws.db_path)) as conn:
            topic = gap_topic(conn, gap_id)
        return RedirectResponse(Links().url("frontier", topic), status_code=303)

    def routes(self) -> list[BaseRoute]:
        """A route for every page of PAGES that has one, answered by the view it names."""
        return [
            Route(page.route, getattr(self, page.view), methods=list(page.methods))
            for page in PAGES
            if page.route and page.view
        ]

    def error(self, request: Request, exc: Exception) -> Response:
        if isinstance(exc, views.NotFound):
            status, message = 404, str(exc)
        elif isinstance(exc, HTTPException):
            status, message = exc.status_code, exc.detail
        else:
            status, message = 500, "Something went wrong."
        titles = {
            403: "Not allowed",
            404: "Not found",
            405: "Not allowed",
            409: "Not possible",
            413: "Too large",
        }
        view = views.View("error.html", titles.get(status, "Error"), {"message": message})
        return self.page(view, None, status)


def create_app(
    ws: Workspace,
    allow_edits: bool = False,
    public: bool = False,
    extra_routes: Sequence[BaseRoute] = (),
) -> Starlette:
    """The ASGI app; `extra_routes` is where more pages plug in."""
    web = WebApp(ws, allow_edits)
    hosts = ["*"] if public else LOOPBACK_HOSTS
    return Starlette(
        routes=[*extra_routes, *web.routes()],
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(BodyLimit),
            Middleware(TrustedHostMiddleware, allowed_hosts=hosts),
        ],
        exception_handlers={
            views.NotFound: web.error,
            HTTPException: web.error,
            Exception: web.error,  # the last line of defence: a page, never a stack trace
        },
    )
