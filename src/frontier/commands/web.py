"""`frontier serve`, `frontier mcp`, `frontier site` and `frontier export`: the KB in a browser,
to agents and in files."""

from __future__ import annotations

import contextlib
import ipaddress
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frontier.errors import KBError, OptionsError
from frontier.render.export import EXPORTS, export_text
from frontier.synthesize.results import refresh_result_keys
from frontier.workspace import Workspace, open_workspace

MIN_TOKEN_CHARS = 16
# a host name or address as a Host header names it, without scheme, port or path; `*.` may
# open a name to match every subdomain
_HOST_NAME = re.compile(r"^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _ready(workspace: Path | None) -> Workspace:
    """The workspace with its database created and migrated, and its results' keys stored,
    so pages can read it read-only."""
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn:
        refresh_result_keys(conn, ws.settings)
    return ws


@dataclass(frozen=True)
class ServeRequest:
    """What `serve` is asked: where to listen, and how far to share."""

    host: str = "127.0.0.1"
    port: int = 8000
    public: bool = False
    allow_edits: bool = False
    allowed_hosts: tuple[str, ...] = ()
    token_file: Path | None = None


@dataclass
class Server:
    """A web app ready to serve one workspace."""

    ws: Workspace
    app: Any
    host: str
    port: int
    token: str = ""  # the access token of a public server
    token_generated: bool = False  # made at start (so printed), not read from --token-file
    base_url: str = ""
    allowed_hosts: tuple[str, ...] = field(default_factory=tuple)


def server(workspace: Path | None, request: ServeRequest) -> Server:
    """The web UI's app; refuses a non-loopback address unless `public`, and a public one
    bound beyond loopback unless it is told the host names clients reach it by."""
    _check_request(request)
    from frontier.web.access import Sharing
    from frontier.web.app import create_app

    ws = _ready(workspace)
    token, generated = "", False
    if request.public:
        token, generated = _access_token(request.token_file)
    base_url = _base_url(ws, request) if request.public else ""
    sharing = Sharing(request.public, request.allowed_hosts, token, base_url)
    app = create_app(ws, allow_edits=request.allow_edits, sharing=sharing)
    return Server(
        ws, app, request.host, request.port, token, generated, base_url, request.allowed_hosts
    )


def _check_request(request: ServeRequest) -> None:
    host = request.host
    if not is_loopback(host) and not request.public:
        raise KBError(
            f"{host} is not a loopback address: anyone who can reach it could read the KB; "
            "pass --public to serve it anyway"
        )
    if not request.public and (request.allowed_hosts or request.token_file):
        raise OptionsError("--allowed-host and --token-file go with --public")
    for name in request.allowed_hosts:
        if not _HOST_NAME.match(name):
            raise OptionsError(
                f"--allowed-host {name!r}: give a host name as clients type it, without "
                "scheme, port or path (e.g. kb.example.org)"
            )
    if request.public and not is_loopback(host) and not request.allowed_hosts:
        raise KBError(
            f"--public on {host} needs --allowed-host NAME: the host names clients reach the "
            "server by (a request naming any other host is refused, so that no web page can "
            "reach the KB through a name of its own)"
        )


def _access_token(token_file: Path | None) -> tuple[str, bool]:
    """The token from the file (its first line), or a new one; and whether it is new."""
    if token_file is None:
        return secrets.token_urlsafe(32), True
    try:
        lines = token_file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise KBError(f"--token-file {token_file}: cannot read it ({exc})") from None
    token = lines[0].strip() if lines else ""
    if len(token) < MIN_TOKEN_CHARS or not token.isprintable() or not token.isascii():
        raise KBError(
            f"--token-file {token_file}: the token on its first line must be at least "
            f"{MIN_TOKEN_CHARS} printable ASCII characters"
        )
    return token, False


def _base_url(ws: Workspace, request: ServeRequest) -> str:
    """Where clients reach a public server: `[site] base_url`, else the first allowed host
    (a name that matches many is no address), else the address it is bound to."""
    if ws.settings.site.base_url:
        return ws.settings.site.base_url
    names = [name for name in request.allowed_hosts if not name.startswith("*")]
    name = names[0] if names else request.host
    shown = f"[{name.strip('[]')}]" if ":" in name else name
    return f"http://{shown}:{request.port}/"


def serve(server: Server) -> None:
    """Serve until Ctrl-C, every connection held to the read timeouts of `[serve]`."""
    import uvicorn

    from frontier.web.connections import timed_protocol

    limits = server.ws.settings.serve
    config = uvicorn.Config(
        server.app,
        host=server.host,
        port=server.port,
        log_level="warning",
        http=timed_protocol(limits.header_timeout, limits.body_timeout),
        limit_concurrency=limits.max_connections,
    )
    uvicorn.Server(config).run()


@dataclass
class AgentServer:
    """An MCP server ready to serve one workspace: over stdio, or HTTP on `port`."""

    ws: Workspace
    server: Any
    port: int | None
    allow_edits: bool


def mcp_server(workspace: Path | None, http_port: int | None, allow_edits: bool) -> AgentServer:
    """The MCP server of the workspace, its tools read-only unless `allow_edits`."""
    from frontier.mcp_server.server import build_server

    ws = _ready(workspace)
    return AgentServer(ws, build_server(ws, allow_edits), http_port, allow_edits)


def serve_mcp(agent: AgentServer) -> None:
    """Serve until the client closes stdio, or until Ctrl-C over HTTP."""
    from frontier.mcp_server.server import run

    run(agent.server, agent.port)


def site(workspace: Path | None, out: Path) -> dict[str, int]:
    """Write the static site into `out`: pages, files and how many changed."""
    from frontier.web.site import write_site

    return write_site(_ready(workspace), out)


def export(workspace: Path | None, fmt: str, what: str) -> str:
    """Papers, claims, results or entries as BibTeX (papers only), CSV or JSONL."""
    if (fmt, what) not in EXPORTS:
        raise KBError(f"{fmt} exports papers only, not {what}")
    ws = _ready(workspace)
    with contextlib.closing(ws.connect()) as conn:
        return export_text(conn, ws.settings, fmt, what)
