"""`frontier serve`, `frontier mcp`, `frontier site` and `frontier export`: the KB in a browser,
to agents and in files."""

from __future__ import annotations

import contextlib
import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frontier.errors import KBError
from frontier.render.export import EXPORTS, export_text
from frontier.synthesize.results import refresh_result_keys
from frontier.workspace import Workspace, open_workspace


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


@dataclass
class Server:
    """A web app ready to serve one workspace."""

    ws: Workspace
    app: Any
    host: str
    port: int


def server(workspace: Path | None, host: str, port: int, public: bool, allow_edits: bool) -> Server:
    """The web UI's app; refuses a non-loopback address unless `public`."""
    if not is_loopback(host) and not public:
        raise KBError(
            f"{host} is not a loopback address: anyone who can reach it could read the KB; "
            "pass --public to serve it anyway"
        )
    from frontier.web.app import create_app

    ws = _ready(workspace)
    return Server(ws, create_app(ws, allow_edits=allow_edits, public=public), host, port)


def serve(server: Server) -> None:
    """Serve until Ctrl-C."""
    import uvicorn

    uvicorn.run(server.app, host=server.host, port=server.port, log_level="warning")


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
