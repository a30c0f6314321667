"""Who may use the server, and where a form must come from.

On loopback (the default) any local client may read, as before; each browser is given a
session cookie and a form carries a token of its session. A public server (`--public`) answers
only to the host names it is given, and every page but the login form and the packaged assets
needs its access token: sent as `Authorization: Bearer TOKEN`, or given once on the login form,
which sets an HttpOnly, SameSite=Strict session cookie. On both, a request that changes state
must come from the server's own pages (`Origin`, `Sec-Fetch-Site`) and carry the form token of
its session."""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_COOKIE = "frontier_session"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOGIN_PATH = "/login"
OPEN_PREFIX = "/static/"  # the packaged stylesheet and scripts: the login page needs them
BEARER = "bearer"  # the session of a client that sends the access token in a header
SAME_ORIGIN_FETCHES = frozenset({"same-origin", "none"})  # `none`: typed in, or a bookmark


@dataclass(frozen=True)
class Sharing:
    """How far the server is shared: loopback only, or public behind an access token."""

    public: bool = False
    allowed_hosts: tuple[str, ...] = ()
    token: str = ""
    base_url: str = ""  # where clients reach the server: absolute links start with it

    def hosts(self) -> list[str]:
        """The host names a request may name: loopback ones, and the allowed ones."""
        return [*LOOPBACK_HOSTS, *self.allowed_hosts]


@dataclass(frozen=True)
class Session:
    id: str
    sent: bool  # it came with the request (cookie or header), rather than made for its response


_current: contextvars.ContextVar[Session | None] = contextvars.ContextVar(
    "frontier_session", default=None
)


def current_session() -> Session | None:
    """The session of the request being answered (set by `Access` for the request's whole life,
    threads of its handlers included)."""
    return _current.get()


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "replace")


def same_secret(given: str, expected: str) -> bool:
    """Compared in constant time, as bytes: a client may send any text."""
    return secrets.compare_digest(_bytes(given), _bytes(expected))


class Sessions:
    """Session ids signed with a key of this process: nothing is stored, and a restart ends
    every session."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    def _sign(self, purpose: str, session_id: str) -> str:
        digest = hmac.new(self._key, _bytes(f"{purpose}:{session_id}"), hashlib.sha256)
        return digest.hexdigest()[:32]

    def new(self) -> tuple[Session, str]:
        """A new session and the value of its cookie."""
        session_id = secrets.token_urlsafe(18)
        return Session(session_id, sent=False), f"{session_id}.{self._sign('cookie', session_id)}"

    def from_cookie(self, value: str) -> Session | None:
        session_id, _, mac = value.partition(".")
        if session_id and same_secret(mac, self._sign("cookie", session_id)):
            return Session(session_id, sent=True)
        return None

    def form_token(self, session: Session) -> str:
        return f"{session.id}.{self._sign('form', session.id)}"

    def token_matches(self, given: str, session: Session | None, public: bool) -> bool:
        """Whether a form's token is one this server gave to the request's session. A loopback
        client that keeps no cookies (a script) proves itself by a valid token alone."""
        session_id, _, mac = given.partition(".")
        if not session_id or not same_secret(mac, self._sign("form", session_id)):
            return False
        if session is not None and session.sent:
            return session_id == session.id
        return not public


def over_tls(scheme: str, base_url: str) -> bool:
    """Whether clients reach the server by https (directly, or through a proxy that says so):
    then its cookie goes over TLS only."""
    return scheme == "https" or base_url.startswith("https:")


def session_cookie(value: str, secure: bool) -> str:
    flags = "; Path=/; HttpOnly; SameSite=Strict" + ("; Secure" if secure else "")
    return f"{SESSION_COOKIE}={value}{flags}"


def same_origin(headers: Headers, base_url: str) -> bool:
    """Whether a state change comes from the server's own pages, as far as the browser says:
    a cross-site `Sec-Fetch-Site`, or an `Origin` naming another host than the request (or
    than `base_url`, behind a proxy), is refused. Our pages send no referrer, so a browser
    posts their forms with `Origin: null`: that passes only with `Sec-Fetch-Site: same-origin`.
    A client that sends neither header is no browser page, and its form token decides."""
    fetched = headers.get("sec-fetch-site")
    if fetched is not None and fetched not in SAME_ORIGIN_FETCHES:
        return False
    origin = headers.get("origin")
    if origin is None:
        return True
    if origin == "null":
        return fetched == "same-origin"
    ours = {headers.get("host", "").lower(), urlsplit(base_url).netloc.lower()} - {""}
    return urlsplit(origin).netloc.lower() in ours


class Access:
    """The ASGI middleware that applies the server's Sharing to every request: the access
    token of a public server, the origin of state changes, the request's session."""

    def __init__(
        self,
        app: ASGIApp,
        sharing: Sharing,
        sessions: Sessions,
        login: Callable[[str], Response],
        refuse: Callable[[int, str], Response],
    ) -> None:
        self.app = app
        self.sharing = sharing
        self.sessions = sessions
        self.login = login  # the 401 page with the login form, for the path asked for
        self.refuse = refuse  # an error page

    def sent_session(self, headers: Headers) -> Session | None:
        """The session a request proves: the access token in its header, or a signed cookie."""
        scheme, _, credential = headers.get("authorization", "").partition(" ")
        bearer = self.sharing.token and scheme.lower() == "bearer"
        if bearer and same_secret(credential.strip(), self.sharing.token):
            return Session(BEARER, sent=True)
        cookie = cookie_parser(headers.get("cookie", "")).get(SESSION_COOKIE, "")
        return self.sessions.from_cookie(cookie) if cookie else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        session = self.sent_session(headers)
        path = scope["path"]
        if self.sharing.public and session is None and not _open(path):
            query = scope.get("query_string", b"").decode("latin-1")
            await self.login(path + (f"?{query}" if query else ""))(scope, receive, send)
            return
        if scope["method"] not in SAFE_METHODS and not same_origin(headers, self.sharing.base_url):
            refused = self.refuse(403, "This form was sent from another site: it is refused.")
            await refused(scope, receive, send)
            return
        cookie = None
        if session is None and not self.sharing.public:
            session, cookie = self.sessions.new()
        reset = _current.set(session)
        try:
            await self.app(scope, receive, self._with_headers(scope, send, cookie))
        finally:
            _current.reset(reset)

    def _with_headers(self, scope: Scope, send: Send, cookie: str | None) -> Send:
        extra: list[tuple[bytes, bytes]] = []
        if cookie is not None:
            extra.append(
                (
                    b"set-cookie",
                    session_cookie(
                        cookie, over_tls(scope.get("scheme", ""), self.sharing.base_url)
                    ).encode(),
                )
            )

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if self.sharing.public and not any(k == b"cache-control" for k, _ in headers):
                    headers.append((b"cache-control", b"no-store"))  # pages behind a token
                message["headers"] = [*headers, *extra]
            await send(message)

        return sending


def _open(path: str) -> bool:
    """Paths a public server answers without the token: the login form and packaged assets."""
    return path == LOGIN_PATH or path.startswith(OPEN_PREFIX)
