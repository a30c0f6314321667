"""The web server: Starlette routes over the store, read-only unless edits are allowed; local
by default, shared behind an access token with `--public` (see `access`)."""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from frontier.web.access import Access, Sharing
from frontier.web.base import NotFound, View
from frontier.web.login import LoginPage
from frontier.web.numbers import number
from frontier.web.pages import PAGES, resolve
from frontier.web.server_state import ServerState
from frontier.workspace import Workspace

MAX_BODY_BYTES = 64 * 1024  # a question and a token: no form of ours needs more
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


class _HttpMiddleware(ABC):
    """Middleware for HTTP requests; every other kind of connection passes through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    @abstractmethod
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one HTTP request, through `self.app`."""


class SecurityHeaders(_HttpMiddleware):
    """Adds a strict content security policy and friends to every response."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyLimit(_HttpMiddleware):
    """Refuses a request body larger than MAX_BODY_BYTES, counted as it arrives (a declared
    length is not trusted), before a handler holds it in memory."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
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


class WebApp:
    """The server of one workspace: a route for every page of PAGES, and the error pages."""

    def __init__(self, ws: Workspace, allow_edits: bool, sharing: Sharing | None = None) -> None:
        self.state = ServerState(ws, allow_edits, sharing)
        self.logging_in = LoginPage(self.state)

    def routes(self) -> list[BaseRoute]:
        """A route for every page of PAGES that has one, answered by the view it names."""
        return [
            Route(
                page.route,
                functools.partial(resolve(page.view), self.state),
                methods=list(page.methods),
                name=page.name,
            )
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
        view = View("error.html", titles.get(status, "Error"), {"message": message})
        return self.state.page(view, None, status)


def _status_of(exc: Exception) -> tuple[int, str]:
    """The status and the one line an error page shows for an exception."""
    if isinstance(exc, NotFound):
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
            NotFound: web.error,
            HTTPException: web.error,
            ClientDisconnect: web.gone,
            Exception: web.error,  # the last line of defence: a page, never a stack trace
        },
    )
