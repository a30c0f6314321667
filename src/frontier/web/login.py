"""The login form of a public server: the access token given once sets a session cookie."""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from frontier.web.access import current_session, over_tls, same_secret, session_cookie
from frontier.web.base import NotFound, View
from frontier.web.server_state import ServerState


def safe_next(target: str) -> str:
    """Where to go after logging in: a path of this server, never another site."""
    if target.startswith("/") and not target.startswith(("//", "/\\")) and "\\" not in target:
        return target
    return "/"


class LoginPage:
    """GET shows the form; POST with the access token sets the session cookie."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    def form(self, target: str, error: str = "", status: int = 401) -> Response:
        """The login form for a page asked for without the token (a 401 that a person can act on)."""
        view = View("login.html", "Log in", {"next": safe_next(target), "error": error})
        html = self.state.html(view, None, nav=[])
        return HTMLResponse(html, status_code=status, headers={"cache-control": "no-store"})

    async def login(self, request: Request) -> Response:
        if not self.state.sharing.public:
            raise NotFound("No login here: this server is not public.")
        if request.method == "GET":
            target = request.query_params.get("next", "/")
            if current_session() is not None:
                return RedirectResponse(safe_next(target), status_code=303)
            return self.form(target, status=200)
        body = (await request.body()).decode("utf-8", "replace")
        fields = {key: values[0] for key, values in parse_qs(body).items()}
        target = fields.get("next", "/")
        if not same_secret(fields.get("token", "").strip(), self.state.sharing.token):
            return self.form(target, "That is not this server's access token.")
        _session, value = self.state.sessions.new()
        secure = over_tls(request.url.scheme, self.state.sharing.base_url)
        response = RedirectResponse(safe_next(target), status_code=303)
        response.headers.append("set-cookie", session_cookie(value, secure))
        return response


async def login_page(server: ServerState, request: Request) -> Response:
    return await LoginPage(server).login(request)
