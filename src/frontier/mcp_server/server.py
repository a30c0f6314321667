"""The MCP server agents reach the KB through: a tool for each row of TOOLS, the vault's topic
and paper pages as markdown resources, over stdio or streamable HTTP on a loopback address."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.server.mcpserver.resources.templates import ResourceSecurity
from mcp_types import ToolAnnotations

from frontier import __version__
from frontier.mcp_server.asking import Asker
from frontier.mcp_server.edits import Editor
from frontier.mcp_server.reading import PAPER_URI, TOPIC_URI, KBReader
from frontier.workspace import Workspace

HOST = "127.0.0.1"
MARKDOWN = "text/markdown"
INSTRUCTIONS = (
    "frontier's knowledge base of {field}: papers read in full, numbers they claim verified "
    "against their pages, relations to the open questions (gaps) each topic tracks, digests, "
    "and answers cited to paper and page. Search first, then read claims, relations and pages "
    "by the paper ids search returns; cite the quotes and pages the tools give."
)


@dataclass(frozen=True)
class ToolRow:
    """One tool: its name, the object whose method of that name answers it (reader, asker or
    editor), and whether it changes the KB (offered only with --allow-edits)."""

    name: str
    owner: str
    edits: bool = False


TOOLS = (
    ToolRow("search", "reader"),
    ToolRow("show", "reader"),
    ToolRow("claims", "reader"),
    ToolRow("relations", "reader"),
    ToolRow("gaps", "reader"),
    ToolRow("digest", "reader"),
    ToolRow("ask", "asker"),
    ToolRow("add", "editor", edits=True),
    ToolRow("accept_gap", "editor", edits=True),
    ToolRow("reject_gap", "editor", edits=True),
)
NUMBERS_NOTE = " Every number comes with the quote it was read from and its page."


def offered(allow_edits: bool) -> list[ToolRow]:
    """The tools a server offers: the read-only ones, and the edits when they are allowed."""
    return [row for row in TOOLS if allow_edits or not row.edits]


def build_server(ws: Workspace, allow_edits: bool = False) -> MCPServer:
    """The MCP server over one workspace, its database already created and migrated."""
    reader = KBReader(ws)
    owners: dict[str, Any] = {"reader": reader, "asker": Asker(reader), "editor": Editor(ws)}
    server: MCPServer = MCPServer(
        "frontier",
        version=__version__,
        instructions=INSTRUCTIONS.format(field=ws.settings.field.name),
        log_level="WARNING",
    )
    for row in offered(allow_edits):
        method = getattr(owners[row.owner], row.name)
        server.add_tool(
            method,
            name=row.name,
            description=" ".join((method.__doc__ or "").split()) + NUMBERS_NOTE,
            annotations=ToolAnnotations(read_only_hint=not row.edits, open_world_hint=False),
            structured_output=True,
        )
    _add_resources(server, reader)
    return server


def _add_resources(server: MCPServer, reader: KBReader) -> None:
    """Each topic's page as a listed resource; any topic or paper page through a template."""

    def topic(slug: str) -> str:
        return _resource(reader.topic_markdown, slug)

    def paper(paper_id: str) -> str:
        return _resource(reader.paper_markdown, paper_id)

    for each in reader.ws.settings.topics:
        server.add_resource(
            FunctionResource.from_function(
                fn=lambda slug=each.slug: topic(slug),
                uri=TOPIC_URI.format(slug=each.slug),
                name=f"topic-{each.slug}",
                title=each.title,
                description=each.summary or None,
                mime_type=MARKDOWN,
            )
        )
    server.resource(
        TOPIC_URI,
        name="topic",
        description="A topic's page: its scope and its papers' entries, newest first.",
        mime_type=MARKDOWN,
    )(topic)
    server.resource(
        PAPER_URI.replace("{paper_id}", "{+paper_id}"),  # arXiv ids and DOIs may hold a slash
        name="paper",
        description="A paper's page: metadata, topics, entry, verified claims with their "
        "quotes and pages, and relations with their evidence.",
        mime_type=MARKDOWN,
        # an id is looked up in the KB, never joined to a path ('h:...' ids look like drives)
        security=ResourceSecurity(exempt_params={"paper_id"}),
    )(paper)


def _resource(read: Any, key: str) -> str:
    try:
        return str(read(key))
    except ToolError as exc:
        raise ResourceNotFoundError(str(exc)) from None


def run(server: MCPServer, http_port: int | None) -> None:
    """Serve over stdio until the client closes it, or over streamable HTTP at
    http://127.0.0.1:PORT/mcp until Ctrl-C."""
    if http_port is None:
        anyio.run(server.run_stdio_async)
    else:
        anyio.run(lambda: server.run_streamable_http_async(host=HOST, port=http_port))
