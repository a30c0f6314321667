"""The tools that change the KB, offered only with `--allow-edits`: add a paper (what
`frontier add` does) and accept or reject a proposed gap (what the web UI's buttons do)."""

from __future__ import annotations

import contextlib
from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field
from rich.console import Console

from frontier.compute.engines import check_engine
from frontier.intake.run import ingest_plan, pdf_fetcher
from frontier.intake.single import plan_single
from frontier.mcp_server import records
from frontier.sources.records import printable
from frontier.store.runs import recorded_run
from frontier.store.status import StatusError, move_gap
from frontier.workspace import Workspace


class Editor:
    """The edits of one workspace, each through its own read-write connection."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def add(
        self,
        path_or_id: Annotated[
            str,
            Field(
                description="An arXiv id, a PDF or web page URL, or a file or folder on this "
                "machine (absolute, or relative to where the server was started).",
                min_length=1,
            ),
        ],
    ) -> records.Added:
        """Add one item to the KB, as `frontier add` does: an arXiv id (metadata and full
        text), a PDF (file or URL), a web page or a saved article. Returns what happened to
        each input (stored, duplicate, rejected with the reason, ...) and the paper ids."""
        ws = self.ws
        check_engine(ws.settings)
        plan = plan_single(ws, path_or_id.strip(), None)
        with (
            contextlib.closing(ws.connect()) as conn,
            recorded_run(conn, "add", f"mcp: {printable(path_or_id)}"[:200]) as run,
        ):
            fetcher = pdf_fetcher(ws, None)
            report = ingest_plan(ws, conn, plan, run.id, Console(quiet=True), fetcher)
            run.status = "ok" if report.exit_code() == 0 else "with problems"
            run.summary = {"counts": report.counts(), "exit_code": report.exit_code()}
        items = [
            records.AddedItem(
                item=e.item, outcome=e.outcome, message=e.message, paper_id=e.paper_id
            )
            for e in report.entries
        ]
        return records.Added(counts=report.counts(), items=items)

    def accept_gap(
        self, gap_id: Annotated[int, Field(description="A proposed gap's id.", ge=1)]
    ) -> records.GapMove:
        """Accept a proposed gap (the gaps tool lists them with status 'proposed'): it becomes
        open, and curation relates papers to it from then on. Returns its status before and
        after."""
        return self._move(gap_id, "accept")

    def reject_gap(
        self, gap_id: Annotated[int, Field(description="A proposed gap's id.", ge=1)]
    ) -> records.GapMove:
        """Reject a proposed gap: it stays in the KB with status 'rejected' and is not
        tracked. Returns its status before and after."""
        return self._move(gap_id, "reject")

    def _move(self, gap_id: int, action: str) -> records.GapMove:
        try:
            with contextlib.closing(self.ws.connect()) as conn:
                moved = move_gap(conn, gap_id, action)
        except StatusError as exc:
            raise ToolError(str(exc)) from None
        return records.GapMove(
            gap_id=moved.id, before=moved.before, after=moved.after, changed=moved.changed
        )
