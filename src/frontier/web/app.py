"""The web server: Starlette routes over the store, read-only unless edits are allowed; local
by default, shared behind an access token with `--public` (see `access`)."""

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
from starlette.requests import ClientDisconnect, Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from frontier.store.browse import map_rows, page_count, page_counts, read_only
from frontier.store.queries import page_text
from frontier.store.status import StatusError, gap_topic, move_gap
from frontier.synthesize.retrieve import search_papers
from frontier.web import digest_views, results_views, synthesis_views, views
from frontier.web.access import Access, Sharing
from frontier.web.asking import AskPage
from frontier.web.links import STATIC_FILES, Links
from frontier.web.login import LoginPage
from frontier.web.numbers import number, path_number, query_number
from frontier.web.pages import PAGES
from frontier.web.server_state import ServerState, usage_rows
from frontier.workspace import Workspace

SEARCH_LIMIT = 20
MAX_BODY_BYTES = 64 * 1024  # a question and a token: no form of ours needs more
# the biggest pages are cut on the server (the static site has them whole)
ENTRIES_SHOWN, CLAIMS_SHOWN, RESULTS_SHOWN = 200, 500, 1000
_PAGE_OF_PAPER = re.compile(r"^(?P<id>.+)/page/(?P<n>[^/]*)$")
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
        declared = dict(scope.get("headers", [])).get(b"content-length", b"0").decode("latin-1")
        size = number(declared)
        # digits too many to read are a length far beyond the limit; other text is ignored
        too_large = (size or 0) > MAX_BODY_BYTES or (size is None and declared.isdigit())
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

    def __init__(self, ws: Workspace, allow_edits: bool, sharing: Sharing | None = None) -> None:
        self.state = ServerState(ws, allow_edits, sharing)
        self.ws = ws
        self.assets = _static_assets()
        self.asking = AskPage(self.state)
        self.logging_in = LoginPage(self.state)
        # every handler reads and renders through the state the ask page shares
        self.reading = self.state.reading
        self.page = self.state.page

    async def ask(self, request: Request) -> Response:
        return await self.asking.ask(request)

    async def login(self, request: Request) -> Response:
        return await self.logging_in.login(request)

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
            paper_id = found["id"]
            page = path_number(found["n"], f"page of {paper_id}")
            claim = query_number(request.query_params, "claim")
            view = views.page_text_view(
                ctx,
                paper_id,
                page,
                page_text(conn, paper_id, page),
                page_count(conn, paper_id),
                claim,
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
            map_id = path_number(request.path_params["map_id"], "research map")
            row = synthesis_views.stored_map(conn, map_id)
            return self.page(synthesis_views.map_view(ctx, row), ctx)

    def digests(self, request: Request) -> Response:
        with self.reading() as (conn, ctx):
            return self.page(digest_views.digests_view(conn, self.ws.settings), ctx)

    def one_digest(self, request: Request) -> Response:
        with self.reading() as (conn, ctx):
            view = digest_views.digest_view(conn, self.ws.settings, request.path_params["name"])
            return self.page(view, ctx)

    def feed(self, request: Request) -> Response:
        """The Atom feed of the digests, its links absolute on this server: at the address it is
        shared at, never one a request names (on loopback, the request's own)."""
        from frontier.web.feed import atom_feed

        links = Links(base=self.state.sharing.base_url or str(request.base_url))
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
        gap_id = path_number(request.path_params["gap_id"], "gap")
        action = request.path_params["action"]
        if action not in ("accept", "reject"):
            raise views.NotFound(f"No action '{action}' on gaps.")
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
        return self.error_page(*_status_of(exc))

    def gone(self, request: Request, exc: Exception) -> Response:
        """The client left (or was cut off) while its request was read: nobody to answer."""
        return Response(status_code=400)

    def error_page(self, status: int, message: str) -> Response:
        titles = {
            400: "Bad request",
            401: "Log in",
            403: "Not allowed",
            404: "Not found",
            405: "Not allowed",
            409: "Not possible",
            413: "Too large",
        }
        view = views.View("error.html", titles.get(status, "Error"), {"message": message})
        return self.page(view, None, status)


def _status_of(exc: Exception) -> tuple[int, str]:
    """The status and the one line an error page shows for an exception."""
    if isinstance(exc, views.NotFound):
        return 404, str(exc)
    if isinstance(exc, HTTPException):
        return exc.status_code, exc.detail
    return 500, "Something went wrong."


def create_app(
    ws: Workspace,
    allow_edits: bool = False,
    sharing: Sharing | None = None,
    extra_routes: Sequence[BaseRoute] = (),
) -> Starlette:
    """The ASGI app; `extra_routes` is where more pages plug in. Without `sharing` it serves
    loopback clients only."""
    web = WebApp(ws, allow_edits, sharing)
    state = web.state
    return Starlette(
        routes=[*extra_routes, *web.routes()],
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(BodyLimit),
            Middleware(TrustedHostMiddleware, allowed_hosts=state.sharing.hosts()),
            Middleware(
                Access,
                sharing=state.sharing,
                sessions=state.sessions,
                login=web.logging_in.form,
                refuse=web.error_page,
            ),
        ],
        exception_handlers={
            views.NotFound: web.error,
            HTTPException: web.error,
            ClientDisconnect: web.gone,
            Exception: web.error,  # the last line of defence: a page, never a stack trace
        },
    )
