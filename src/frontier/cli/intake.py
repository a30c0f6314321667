"""Declarations of the intake commands: init, discover, add, ingest, search, show, status."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from frontier.cli import output
from frontier.cli.options import ClusterOpt, JsonOpt, PasswordOpt, done, options

app = typer.Typer()

WorkspaceFolderArg = Annotated[Path, typer.Argument(help="Folder to create the workspace in.")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite an existing frontier.toml.")]


@app.command()
def init(
    ctx: typer.Context, directory: WorkspaceFolderArg = Path("."), force: ForceOpt = False
) -> None:
    """Create a workspace: a commented frontier.toml and an empty KB."""
    from frontier.commands import intake

    ws = intake.init(directory, force)
    options(ctx).console.print(
        f"Created workspace {ws.root}\n  config: {ws.config_path}\n  database: {ws.db_path}"
    )


@app.command()
def discover(
    ctx: typer.Context,
    topic: Annotated[
        list[str] | None, typer.Option("--topic", "-t", help="Only these topic slugs.")
    ] = None,
    days: Annotated[
        int | None, typer.Option(help="Window in days (default: each topic's window).")
    ] = None,
    max_results: Annotated[
        int | None, typer.Option("--max", help="At most this many per topic.")
    ] = None,
    metadata_only: Annotated[
        bool, typer.Option("--metadata-only", help="Do not download PDFs.")
    ] = False,
    cluster: ClusterOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Find new papers on arXiv for each topic's query and window; read them in full."""
    from frontier.commands import intake

    opts = options(ctx)
    report = intake.discover(
        opts.workspace,
        topic or [],
        days,
        max_results,
        not metadata_only,
        opts.progress,
        cluster and cluster.value,
    )
    done(output.show_report(opts.console, report, json_out))


@app.command()
def add(
    ctx: typer.Context,
    items: Annotated[
        list[str], typer.Argument(help="arXiv ids, PDF files, URLs, or saved .html/.md/.txt.")
    ],
    password: PasswordOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Add single items: an arXiv id, a PDF (file or URL), a web page or a saved article."""
    from frontier.commands import intake

    opts = options(ctx)
    report = intake.add(opts.workspace, items, password, opts.progress)
    done(output.show_report(opts.console, report, json_out))


@app.command()
def ingest(
    ctx: typer.Context,
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="PDF folders or files, .jsonl, .bib, .txt of abstracts, or a Zotero data folder."
        ),
    ],
    password: PasswordOpt = None,
    fetch: Annotated[
        bool, typer.Option("--fetch/--no-fetch", help="Download PDFs that records link to.")
    ] = False,
    cluster: ClusterOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Ingest local sources: PDFs are read in full on all cores; records are stored as metadata."""
    from frontier.commands import intake

    opts = options(ctx)
    report = intake.ingest(
        opts.workspace, paths, password, fetch, opts.progress, cluster and cluster.value
    )
    done(output.show_report(opts.console, report, json_out))


@app.command()
def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="Words to look for.")],
    limit: Annotated[int, typer.Option("--limit", "-n", help="Number of papers.")] = 10,
    json_out: JsonOpt = False,
) -> None:
    """Search titles, abstracts and full text (BM25 and dense, fused); best papers first."""
    from frontier.commands import intake

    opts = options(ctx)
    hits = intake.search(opts.workspace, query, limit)
    output.print_data(opts.console, hits, json_out, output.print_hits)


@app.command()
def show(
    ctx: typer.Context,
    paper_id: Annotated[str, typer.Argument(help="Paper id, e.g. 2309.06180.")],
    page: Annotated[int | None, typer.Option(help="Print the text of this page.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Show one paper: metadata, sections, warnings, or one page of its text."""
    from frontier.commands import intake

    opts = options(ctx)
    console = opts.console
    paper, text = intake.show(opts.workspace, paper_id, page)
    if paper is None:
        console.print(f"No paper with id {paper_id!r}.")
        done(1)
    elif page is None and json_out:
        output.print_json(console, paper)
    elif page is None:
        output.print_paper(console, paper)
    elif text is None:
        console.print(f"{paper_id} has no page {page} (it has {paper['n_pages']}).")
        done(1)
    elif json_out:
        output.print_json(console, {"id": paper_id, "page": page, "text": text})
    else:
        output.plain(console, text)


@app.command()
def status(ctx: typer.Context, json_out: JsonOpt = False) -> None:
    """Counts (papers, pages, chunks, rejected files), problems and the last runs."""
    from frontier.commands import intake

    opts = options(ctx)
    data = intake.status(opts.workspace)
    output.print_data(opts.console, data, json_out, output.print_status)
