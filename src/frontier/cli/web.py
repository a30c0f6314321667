"""Declarations of serve, mcp, site and export: the KB in a browser, to agents and in files."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from frontier.cli import output
from frontier.cli.options import options

app = typer.Typer()


class Format(StrEnum):
    bibtex = "bibtex"
    csv = "csv"
    jsonl = "jsonl"


class What(StrEnum):
    papers = "papers"
    claims = "claims"
    results = "results"
    entries = "entries"


@app.command("serve")
def serve(
    ctx: typer.Context,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = (
        "127.0.0.1"
    ),
    public: Annotated[
        bool,
        typer.Option(
            "--public",
            help="Share the server: every page needs an access token; allows a non-loopback "
            "--host (prints a warning).",
        ),
    ] = False,
    allowed_hosts: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="With --public: a host name clients reach the server by (repeatable; needed "
            "unless --host is loopback). Requests naming another host are refused.",
        ),
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file",
            help="With --public: a file whose first line is the access token (else one is "
            "made and printed).",
        ),
    ] = None,
    allow_edits: Annotated[
        bool,
        typer.Option("--allow-edits", help="Allow accepting or rejecting proposed gaps."),
    ] = False,
) -> None:
    """Browse the KB in a local web UI: topics, papers, digests, claims, results, search, maps, ask,
    usage."""
    from frontier.commands import web

    opts = options(ctx)
    request = web.ServeRequest(
        host, port, public, allow_edits, tuple(allowed_hosts or ()), token_file
    )
    server = web.server(opts.workspace, request)
    if public:
        output.warning(
            f"serving on {escape(host)}: the KB is readable by anyone who can reach this address "
            "and has the access token" + (", and editable" if allow_edits else "")
        )
    mode = "edits allowed" if allow_edits else "read-only"
    shown = f"[{host}]" if ":" in host else host
    opts.console.print(
        f"Serving {server.ws.root} at http://{shown}:{port}/ ({mode}); Ctrl-C stops.",
        soft_wrap=True,
    )
    if server.token_generated:
        opts.console.print(
            f"Access token: {server.token} (give it on the login page, or send "
            "'Authorization: Bearer TOKEN'; it lasts as long as this server)",
            soft_wrap=True,
            markup=False,
        )
    opts.console.file.flush()
    web.serve(server)


@app.command("mcp")
def mcp(
    ctx: typer.Context,
    http: Annotated[
        int | None,
        typer.Option(
            "--http",
            metavar="PORT",
            min=1,
            max=65535,
            help="Serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio.",
        ),
    ] = None,
    allow_edits: Annotated[
        bool,
        typer.Option(
            "--allow-edits", help="Add the tools that change the KB: add, accept_gap, reject_gap."
        ),
    ] = False,
) -> None:
    """Serve the KB to agents over the Model Context Protocol (stdio, or --http): search, show,
    claims, relations, gaps, digest and ask, topic and paper pages."""
    from frontier.commands import web

    opts = options(ctx)
    agent = web.mcp_server(opts.workspace, http, allow_edits)
    mode = "edits allowed" if allow_edits else "read-only"
    where = "stdio" if http is None else f"http://127.0.0.1:{http}/mcp"
    # stdout is the protocol's channel on stdio: what a person should read goes to stderr
    output.note(f"MCP server for {agent.ws.root} on {where} ({mode})")
    web.serve_mcp(agent)


@app.command("site")
def site(
    ctx: typer.Context,
    out: Annotated[Path, typer.Argument(help="Folder to write the site into.")],
) -> None:
    """Write the web UI's pages as a static site that opens from disk (search in the page)."""
    from frontier.commands import web

    opts = options(ctx)
    counts = web.site(opts.workspace, out)
    opts.console.print(
        f"Wrote the site to {out.resolve()}: {counts['pages']} pages, {counts['files']} files, "
        f"{counts['written']} changed; open {out.resolve() / 'index.html'}",
        soft_wrap=True,
    )


@app.command("export")
def export(
    ctx: typer.Context,
    fmt: Annotated[Format, typer.Argument(help="bibtex, csv or jsonl.")],
    what: Annotated[
        What, typer.Option("--what", help="papers, claims, results or entries (bibtex: papers).")
    ] = What.papers,
    output_file: Annotated[
        Path | None, typer.Option("-o", "--output", help="File to write (default: stdout).")
    ] = None,
) -> None:
    """Export papers, verified claims, results or entries as BibTeX, CSV or JSON lines."""
    from frontier.commands import web

    text = web.export(options(ctx).workspace, fmt.value, what.value)
    if output_file is None:
        output.write_stdout(text)
    else:
        output_file.write_text(text, encoding="utf-8")
        output.note(f"Wrote {what.value} as {fmt.value} to {output_file}")
