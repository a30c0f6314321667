"""`frontier serve`, `frontier site` and `frontier export`: the KB in a browser and in files."""

from __future__ import annotations

import contextlib
import ipaddress
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from frontier.commands_kb import KBError
from frontier.render.export import EXPORTS, export_text
from frontier.workspace import Workspace, open_workspace


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _ready(workspace: Path | None) -> Workspace:
    """The workspace with its database created and migrated, so pages can read it read-only."""
    ws = open_workspace(workspace)
    ws.connect().close()
    return ws


def serve(
    workspace: Path | None,
    host: str,
    port: int,
    public: bool,
    allow_edits: bool,
    console: Console,
) -> int:
    """Run the web UI until Ctrl-C; refuses a non-loopback address unless `public`."""
    if not is_loopback(host) and not public:
        raise KBError(
            f"{host} is not a loopback address: anyone who can reach it could read the KB; "
            "pass --public to serve it anyway"
        )
    import uvicorn

    from frontier.web.app import create_app

    ws = _ready(workspace)
    app = create_app(ws, allow_edits=allow_edits, public=public)
    if public:
        Console(stderr=True, soft_wrap=True).print(
            f"[yellow]warning:[/] serving on {escape(host)}: the KB is readable by anyone who "
            "can reach this address" + (" and editable" if allow_edits else "")
        )
    mode = "edits allowed" if allow_edits else "read-only"
    shown = f"[{host}]" if ":" in host else host
    console.print(
        f"Serving {ws.root} at http://{shown}:{port}/ ({mode}); Ctrl-C stops.", soft_wrap=True
    )
    console.file.flush()
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0


def site(workspace: Path | None, out: Path, console: Console) -> int:
    """Write the static site into `out`."""
    from frontier.web.site import write_site

    ws = _ready(workspace)
    counts = write_site(ws, out)
    console.print(
        f"Wrote the site to {out.resolve()}: {counts['pages']} pages, {counts['files']} files, "
        f"{counts['written']} changed; open {out.resolve() / 'index.html'}",
        soft_wrap=True,
    )
    return 0


def export(
    workspace: Path | None, fmt: str, what: str, output: Path | None, console: Console
) -> int:
    """Papers, claims or entries as BibTeX (papers only), CSV or JSONL, to a file or stdout."""
    if (fmt, what) not in EXPORTS:
        raise KBError(f"{fmt} exports papers only, not {what}")
    ws = _ready(workspace)
    with contextlib.closing(ws.connect()) as conn:
        text = export_text(conn, ws.settings, fmt, what)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        output.write_text(text, encoding="utf-8")
        Console(stderr=True, soft_wrap=True).print(f"Wrote {what} as {fmt} to {output}")
    return 0
